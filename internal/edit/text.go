package edit

import (
	"bytes"
	"strings"
)

// bom is the UTF-8 byte order mark. Files that start with it keep it; the
// text engines never see it, so a model's old_string never has to include it.
const bom = "\uFEFF"

// document is a file's text split into lines with each line's own
// terminator, so that editing a few lines leaves every other byte of the
// file, including mixed line endings, exactly as it was.
type document struct {
	bom   bool
	lines []string // without terminators
	eols  []string // "\n", "\r\n", or "" (only possibly on the last line)
	eol   string   // dominant terminator, used for new lines
	// finalNL records whether the original text ended with a terminator.
	// An empty file counts as ending with one, so text added to it does.
	finalNL bool
}

func parseDocument(b []byte) *document {
	s := string(b)
	d := &document{}
	if strings.HasPrefix(s, bom) {
		d.bom = true
		s = s[len(bom):]
	}
	d.eol = detectEOL(s)
	d.finalNL = s == "" || strings.HasSuffix(s, "\n")
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			d.lines = append(d.lines, s)
			d.eols = append(d.eols, "")
			break
		}
		line, eol := s[:i], "\n"
		if strings.HasSuffix(line, "\r") {
			line, eol = line[:len(line)-1], "\r\n"
		}
		d.lines = append(d.lines, line)
		d.eols = append(d.eols, eol)
		s = s[i+1:]
	}
	return d
}

// detectEOL returns "\r\n" when CRLF terminators are at least as common as
// bare LF ones, else "\n".
func detectEOL(s string) string {
	crlf := strings.Count(s, "\r\n")
	lf := strings.Count(s, "\n") - crlf
	if crlf > 0 && crlf >= lf {
		return "\r\n"
	}
	return "\n"
}

// fixTerminators gives every line but the last a terminator and makes the
// last line's terminator follow finalNL.
func (d *document) fixTerminators() {
	for i := range d.eols {
		if d.eols[i] == "" {
			d.eols[i] = d.eol
		}
	}
	if n := len(d.eols); n > 0 && !d.finalNL {
		d.eols[n-1] = ""
	}
}

func (d *document) bytes() []byte {
	n := 0
	if d.bom {
		n += len(bom)
	}
	for i, l := range d.lines {
		n += len(l) + len(d.eols[i])
	}
	var b bytes.Buffer
	b.Grow(n)
	if d.bom {
		b.WriteString(bom)
	}
	for i, l := range d.lines {
		b.WriteString(l)
		b.WriteString(d.eols[i])
	}
	return b.Bytes()
}

// splice replaces lines [start, end) with repl, giving new lines the
// dominant terminator and keeping the file's final-newline state.
func (d *document) splice(start, end int, repl []string) {
	eols := make([]string, len(repl))
	lines := make([]string, 0, len(d.lines)-(end-start)+len(repl))
	lines = append(lines, d.lines[:start]...)
	lines = append(lines, repl...)
	lines = append(lines, d.lines[end:]...)
	e := make([]string, 0, len(lines))
	e = append(e, d.eols[:start]...)
	e = append(e, eols...)
	e = append(e, d.eols[end:]...)
	d.lines, d.eols = lines, e
	d.fixTerminators()
}

// toEOL rewrites every line terminator in s to eol.
func toEOL(s, eol string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if eol == "\n" {
		return s
	}
	return strings.ReplaceAll(s, "\n", eol)
}

// splitLines splits text into lines without terminators; a final
// terminator does not produce an empty last line.
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// lineOf returns the 1-based line number of byte offset off in s.
func lineOf(s string, off int) int {
	if off > len(s) {
		off = len(s)
	}
	return strings.Count(s[:off], "\n") + 1
}
