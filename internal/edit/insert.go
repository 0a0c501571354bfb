package edit

import (
	"fmt"
	"regexp"
	"strings"
)

// LineEdit is one insert_edit request. Exactly one way of placing Text is
// given: Line, AfterPattern, BeforePattern, or StartLine..EndLine.
type LineEdit struct {
	// Text is inserted as whole lines; a missing final newline is added.
	Text string
	// Line inserts Text before this 1-based line, so Text starts at line
	// Line; number of lines + 1 appends.
	Line int
	// AfterPattern / BeforePattern insert after / before the one line
	// containing the pattern (a substring, or a regular expression when
	// Regexp is set); a pattern on several lines is refused as ambiguous.
	AfterPattern  string
	BeforePattern string
	Regexp        bool
	// StartLine..EndLine (1-based, inclusive) are replaced by Text; an
	// empty Text deletes them.
	StartLine, EndLine int
}

// InsertLines applies e to content and returns the new content and the
// 1-based line where the inserted or replacing text starts. BOM, line
// endings and the final-newline state of the file are preserved.
func InsertLines(content []byte, e LineEdit) ([]byte, int, error) {
	modes := 0
	for _, set := range []bool{e.Line != 0, e.AfterPattern != "", e.BeforePattern != "", e.StartLine != 0 || e.EndLine != 0} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return nil, 0, &LineEditError{Err: ErrInvalidArgument, Msg: "give exactly one of line, after_pattern, before_pattern, or start_line with end_line",
			NextStep: "send line to insert before a line, after_pattern or before_pattern to insert next to a unique line, or start_line and end_line to replace lines"}
	}
	d := parseDocument(content)
	n := len(d.lines)
	repl := splitLines(e.Text)
	if e.StartLine == 0 && e.EndLine == 0 && len(repl) == 0 {
		return nil, 0, &LineEditError{Err: ErrInvalidArgument, Msg: "text is empty; nothing to insert", NextStep: "send the lines to insert in content"}
	}
	var at, end int // lines [at, end) are replaced by repl (0-based)
	switch {
	case e.Line != 0:
		if e.Line < 1 || e.Line > n+1 {
			return nil, 0, &LineEditError{Err: ErrInvalidArgument, Msg: fmt.Sprintf("line %d is out of range; the file has %d lines", e.Line, n),
				NextStep: fmt.Sprintf("give a line from 1 to %d (%d appends after the last line)", n+1, n+1)}
		}
		at, end = e.Line-1, e.Line-1
	case e.AfterPattern != "" || e.BeforePattern != "":
		pat := e.AfterPattern + e.BeforePattern
		i, err := findLine(d.lines, pat, e.Regexp)
		if err != nil {
			return nil, 0, err
		}
		if e.AfterPattern != "" {
			i++
		}
		at, end = i, i
	default:
		if e.StartLine < 1 || e.EndLine < e.StartLine || e.EndLine > n {
			return nil, 0, &LineEditError{Err: ErrInvalidArgument, Msg: fmt.Sprintf("lines %d-%d are out of range; the file has %d lines and start_line must be <= end_line", e.StartLine, e.EndLine, n),
				NextStep: fmt.Sprintf("give start_line and end_line between 1 and %d, start_line first", n)}
		}
		at, end = e.StartLine-1, e.EndLine
	}
	d.splice(at, end, repl)
	return d.bytes(), at + 1, nil
}

func findLine(lines []string, pat string, isRegexp bool) (int, error) {
	match := func(l string) bool { return strings.Contains(l, pat) }
	if isRegexp {
		re, err := regexp.Compile(pat)
		if err != nil {
			return 0, &LineEditError{Err: ErrInvalidArgument, Msg: fmt.Sprintf("bad regular expression %q: %v", pat, err), NextStep: "fix the regular expression, or send plain text"}
		}
		match = re.MatchString
	}
	var hits []int
	for i, l := range lines {
		if match(l) {
			hits = append(hits, i)
		}
	}
	switch len(hits) {
	case 0:
		msg := fmt.Sprintf("no line matches pattern %q", pat)
		next := "copy part of the line from read_file into the pattern, or give line"
		if best, sim := mostSimilarLine(lines, pat); best >= 0 {
			msg += fmt.Sprintf("; the most similar is line %d (%d%% similar): %s", best+1, int(sim*100), quoteLine(strings.TrimSpace(lines[best])))
			next = fmt.Sprintf("if line %d is the one, copy part of it into the pattern, or give line %d; else read the file again", best+1, best+1)
		}
		return 0, &LineEditError{Err: ErrNotFound, Msg: msg, NextStep: next}
	case 1:
		return hits[0], nil
	}
	// Taking the first of several would put the text somewhere the model
	// may not have meant, as silently as replace_string refuses to.
	nums := make([]int, len(hits))
	for i, h := range hits {
		nums[i] = h + 1
	}
	return 0, &LineEditError{Err: ErrAmbiguous, Msg: fmt.Sprintf("pattern %q is on %d lines (%s)", pat, len(hits), FormatLines(nums)),
		NextStep: "copy more of the line into the pattern to make it unique, or give line"}
}

// mostSimilarLine returns the line most like pattern (by shared three-letter pieces) and how
// alike they are; -1 when the file is empty or nothing is alike.
func mostSimilarLine(lines []string, pat string) (int, float64) {
	want := trigrams(strings.TrimSpace(pat))
	best, bestSim := -1, 0.0
	for i, l := range lines {
		if sim := containment(want, l); sim > bestSim {
			best, bestSim = i, sim
		}
	}
	if bestSim < 0.3 {
		return -1, 0
	}
	return best, bestSim
}

// LineEditError is an insert_edit that cannot be placed: its text is for the model, Next the
// step that fixes the call.
type LineEditError struct {
	Err      error // ErrInvalidArgument, ErrNotFound or ErrAmbiguous
	Msg      string
	NextStep string
}

func (e *LineEditError) Error() string { return e.Msg }

// Next is the step that fixes the call.
func (e *LineEditError) Next() string { return e.NextStep }

func (e *LineEditError) Unwrap() error { return e.Err }
