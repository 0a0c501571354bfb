package edit

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Rung names the step of the edit ladder at which old_string matched; the
// result reports it so the model learns how far off its copy was.
type Rung string

// The rungs of the edit ladder, from strict to tolerant. Each tolerant rung
// also ignores what the rungs before it ignore.
const (
	RungExact              Rung = "exact"
	RungLineEndings        Rung = "line_endings"
	RungTrailingWhitespace Rung = "trailing_whitespace"
	RungIndentation        Rung = "indentation"
	RungPunctuation        Rung = "unicode_punctuation"
	// RungInnerWhitespace also reads a run of spaces and tabs inside a line as one space.
	RungInnerWhitespace Rung = "inner_whitespace"
	// RungBlankLines also ignores blank lines missing or added on either side.
	RungBlankLines Rung = "blank_lines"
)

// Replacement is one replace_string request.
type Replacement struct {
	OldString string
	NewString string
	// ReplaceAll replaces every exact occurrence instead of requiring one.
	ReplaceAll bool
	// ExpectedReplacements, when > 0, is the exact number of occurrences
	// required; it implies ReplaceAll.
	ExpectedReplacements int
}

// ReplaceResult is the outcome of a successful Replace.
type ReplaceResult struct {
	Content []byte
	Rung    Rung
	Count   int
	// Lines holds the 1-based line, in the original text, where each
	// replaced occurrence started.
	Lines []int
	// Adapted lists how new_string was written in the file's style on a
	// tolerant rung: punctuation conversions ("“→\""), "indentation",
	// "unchanged lines kept as in the file", "CRLF line endings".
	Adapted []string
	// Undid lists what was taken out of the model's text before it matched: read_file's
	// line-number prefixes, JSON escapes left in the strings.
	Undid []string
}

// The things a model's text is read without when it does not match as sent.
const (
	undidLineNumbers = "read_file's line-number prefixes"
	undidEscapes     = `JSON escapes (\n, \t, \" as two characters)`
)

// Replace applies r to content using the edit ladder: an exact match first, then matches that
// ignore line endings, trailing whitespace, indentation (tabs vs spaces, another indent scale,
// a level off), Unicode punctuation, the width of whitespace inside lines and missing or extra
// blank lines in turn. When the text as
// sent matches nowhere, it is tried again without read_file's line-number prefixes and with
// JSON escapes read as the characters they stand for. Tolerant matches are applied only when
// unique. Lines the model copied unchanged keep the file's bytes; what it changed is written in
// the file's style (indentation, punctuation, line endings). The file's BOM, line endings and
// final newline are preserved.
//
// Failures are *MatchError values carrying the nearest match.
func Replace(content []byte, r Replacement) (ReplaceResult, error) {
	return replaceText(string(content), r, nil)
}

// replaceText is Replace on a file's text; cv, when the file was decoded from another encoding,
// shows the lines as read_file did (for a model's copy holding U+FFFD).
func replaceText(s string, r Replacement, cv *codec) (ReplaceResult, error) {
	if r.OldString == "" {
		return ReplaceResult{}, fmt.Errorf("%w: old_string is empty; use create_file to write a whole file or insert_edit to add lines", ErrInvalidArgument)
	}
	if r.OldString == r.NewString {
		return ReplaceResult{}, fmt.Errorf("%w: old_string and new_string are identical", ErrNoop)
	}
	if r.ExpectedReplacements < 0 {
		return ReplaceResult{}, fmt.Errorf("%w: expected_replacements must be positive", ErrInvalidArgument)
	}
	hasBOM := strings.HasPrefix(s, bom)
	if hasBOM {
		s = s[len(bom):]
	}
	vs := modelVariants(r.OldString, r.NewString)
	for _, v := range vs {
		res, ok, err := replaceVariant(s, r, v, cv)
		if err != nil {
			return ReplaceResult{}, err
		}
		if ok {
			if hasBOM {
				res.Content = append([]byte(bom), res.Content...)
			}
			res.Undid = v.undid
			return res, nil
		}
	}
	return ReplaceResult{}, notFound(s, r, vs, cv)
}

// variant is the model's old and new text read one way.
type variant struct {
	old, new string
	undid    []string
	// hint is the 1-based line the copy's line numbers put it at (0: none).
	hint int
}

// modelVariants returns the ways to read the model's text: as sent, then without read_file's
// line-number prefixes, then with JSON escapes read as characters, then both.
func modelVariants(old, nw string) []variant {
	out := []variant{{old: old, new: nw}}
	numbered, hint, ok := stripLineNumbers(old)
	if ok {
		out = append(out, variant{old: numbered, new: stripNewLineNumbers(nw), undid: []string{undidLineNumbers}, hint: hint})
	}
	if dec, ok := decodeEscapes(old); ok {
		out = append(out, variant{old: dec, new: decodeNew(nw), undid: []string{undidEscapes}})
		if numbered != "" {
			if d2, ok := decodeEscapes(numbered); ok {
				out = append(out, variant{old: d2, new: decodeNew(stripNewLineNumbers(nw)), undid: []string{undidLineNumbers, undidEscapes}, hint: hint})
			}
		}
	}
	return out
}

// decodeNew reads the escapes of a new_string whose old_string was escaped once too often. A
// new_string that has real line breaks was not escaped that way: of its escapes only \" is
// read, so a \n that is part of its code stays two characters.
func decodeNew(s string) string {
	if strings.Contains(s, "\n") {
		return strings.NewReplacer(`\"`, `"`, `\'`, `'`).Replace(s)
	}
	d, _ := decodeEscapes(s)
	return d
}

// lineNumberRe matches the prefix read_file's line_numbers puts on a line ("  12\t"), and the
// "    12→" form other clients print.
var lineNumberRe = regexp.MustCompile(`^ *(\d+)(\t|→)`)

// stripLineNumbers removes line-number prefixes from every line of s when all its lines carry
// increasing ones (a gap of a few lines is a blank line the copy left out); it returns the text
// and the first number.
func stripLineNumbers(s string) (string, int, bool) {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	first, next := 0, 0
	seen := 0
	for i, l := range lines {
		m := lineNumberRe.FindStringSubmatch(l)
		if m == nil {
			bare := strings.TrimLeft(l, " ")
			if n, err := strconv.Atoi(bare); err == nil && bare != "" && (next == 0 || n == next) {
				// A blank line copied as its number alone.
				if next == 0 {
					first = n
				}
				lines[i] = ""
				next = n + 1
				continue
			}
			if l == "" && (i == len(lines)-1 || next != 0) {
				if next != 0 {
					next++
				}
				continue
			}
			return "", 0, false
		}
		n, _ := strconv.Atoi(m[1])
		if next != 0 && (n < next || n > next+3) {
			return "", 0, false
		}
		if next == 0 {
			first = n
		}
		next = n + 1
		seen++
		lines[i] = l[len(m[0]):]
	}
	if seen == 0 {
		return "", 0, false
	}
	return strings.Join(lines, "\n"), first, true
}

// stripNewLineNumbers removes line-number prefixes from the lines of new_string that carry
// them (models keep them on the lines they copied).
func stripNewLineNumbers(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if m := lineNumberRe.FindString(l); m != "" {
			lines[i] = l[len(m):]
		}
	}
	return strings.Join(lines, "\n")
}

// decodeEscapes reads the escapes a string escaped once too often holds: \n, \t, \r, \", \',
// \\, \/ and \uXXXX. Other backslashes stay as they are. It reports whether anything changed.
func decodeEscapes(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, false
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		switch n := s[i+1]; n {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '"', '\'', '\\', '/':
			b.WriteByte(n)
		case 'u':
			if i+6 <= len(s) {
				if v, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
					b.WriteRune(rune(v))
					i += 5
					changed = true
					continue
				}
			}
			b.WriteByte(c)
			continue
		default:
			b.WriteByte(c)
			continue
		}
		i++
		changed = true
	}
	return b.String(), changed
}

// replaceVariant runs the ladder for one reading of the model's text.
func replaceVariant(s string, r Replacement, v variant, cv *codec) (ReplaceResult, bool, error) {
	eol := detectEOL(s)
	newText := toEOL(v.new, eol)
	// Exact and line-ending rungs: plain substring matches, so replace_all and
	// expected_replacements apply.
	olds := []struct {
		text string
		rung Rung
	}{{v.old, RungExact}}
	if o := toEOL(v.old, eol); o != v.old {
		olds = append(olds, struct {
			text string
			rung Rung
		}{o, RungLineEndings})
	}
	for _, o := range olds {
		all := indexAll(s, o.text)
		if len(all) == 0 {
			continue
		}
		pos := nonOverlapping(all, len(o.text))
		if len(all) > 1 && r.ExpectedReplacements == 0 && !r.ReplaceAll {
			if p, ok := pickByHint(linesOf(s, all), v.hint); ok {
				all, pos = []int{all[p]}, []int{all[p]}
			}
		}
		if err := checkCount(r, o.rung, s, all, pos); err != nil {
			return ReplaceResult{}, false, err
		}
		var b strings.Builder
		b.Grow(len(s) + len(pos)*(len(newText)-len(o.text)))
		prev := 0
		lines := make([]int, 0, len(pos))
		line, lineOff := 1, 0
		for _, p := range pos {
			line += strings.Count(s[lineOff:p], "\n")
			lineOff = p
			lines = append(lines, line)
			b.WriteString(s[prev:p])
			b.WriteString(newText)
			prev = p + len(o.text)
		}
		b.WriteString(s[prev:])
		res := ReplaceResult{Content: []byte(b.String()), Rung: o.rung, Count: len(pos), Lines: lines}
		if newText != v.new && strings.Contains(v.new, "\n") {
			res.Adapted = []string{"CRLF line endings"}
		}
		return res, true, nil
	}
	return replaceLines(s, r, v, cv)
}

// tolerantRungs are the line-based rungs, in order.
var tolerantRungs = []struct {
	lv   level
	gaps bool
	rung Rung
}{
	{levelTrailing, false, RungTrailingWhitespace},
	{levelIndent, false, RungIndentation},
	{levelPunct, false, RungPunctuation},
	{levelSpaces, false, RungInnerWhitespace},
	{levelTrailing, true, RungBlankLines},
	{levelIndent, true, RungBlankLines},
	{levelPunct, true, RungBlankLines},
	{levelSpaces, true, RungBlankLines},
}

// modelLines splits the model's text into lines, and says whether it ended with a line break.
func modelLines(s string) ([]string, bool) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	complete := strings.HasSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\n")
	if s == "" && !complete {
		return nil, false
	}
	return strings.Split(s, "\n"), complete
}

// replaceLines tries the tolerant rungs: line by line, keeping the file's bytes where the model
// did not mean to change them.
func replaceLines(s string, r Replacement, v variant, cv *codec) (ReplaceResult, bool, error) {
	oldText, newText := v.old, v.new
	// A copy that starts with the line break before its first line: the line break anchors
	// nothing the line does not.
	if strings.HasPrefix(oldText, "\n") && strings.HasPrefix(newText, "\n") {
		oldText, newText = oldText[1:], newText[1:]
	}
	old, complete := modelLines(oldText)
	if len(old) == 0 || strings.TrimSpace(oldText) == "" {
		return ReplaceResult{}, false, nil
	}
	// A line break that ends new_string ends its last line when old_string's ends old_string's
	// last line too; else it is a line break the model asked for.
	var nw []string
	if complete {
		nw, _ = modelLines(newText)
	} else if newText != "" {
		nw = strings.Split(strings.ReplaceAll(newText, "\r\n", "\n"), "\n")
	}
	d := parseDocument([]byte(s))
	fk := newFileKeys(d.lines)
	var views []viewLine
	passes := []bool{false}
	if cv != nil && strings.ContainsRune(oldText, utf8.RuneError) {
		if views = cv.views(d.lines); views != nil {
			passes = append(passes, true)
		}
	}
	for _, useView := range passes {
		keys := fk
		if useView {
			vl := make([]string, len(views))
			for i, v := range views {
				vl[i] = v.text
			}
			keys = newFileKeys(vl)
		}
		for _, tr := range tolerantRungs {
			q := blockQuery{old: old, lv: tr.lv, gaps: tr.gaps, partial: true, complete: complete}
			ms := findBlock(keys, q)
			if len(ms) == 0 {
				continue
			}
			pick := 0
			if len(ms) > 1 || r.ExpectedReplacements > 1 {
				starts := make([]int, len(ms))
				for i, m := range ms {
					starts[i] = m.start + 1
				}
				p, ok := pickByHint(starts, v.hint)
				if !ok || r.ExpectedReplacements > 1 {
					return ReplaceResult{}, false, &MatchError{Err: ErrAmbiguous, Rung: tr.rung, Count: len(ms), Lines: starts, Tolerant: true, ReplaceAll: r.ReplaceAll || r.ExpectedReplacements > 1}
				}
				pick = p
			}
			res, err := rewrite(d, old, nw, complete, ms[pick], tr.lv, views, useView)
			if err != nil {
				return ReplaceResult{}, false, err
			}
			res.Rung = tr.rung
			return res, true, nil
		}
	}
	return ReplaceResult{}, false, nil
}

// pickByHint returns which of several 1-based lines a hint from copied line numbers points at:
// within 3 lines, and nearer than any other.
func pickByHint(lines []int, hint int) (int, bool) {
	if hint <= 0 || len(lines) == 0 {
		return 0, false
	}
	best, second := -1, -1
	for i, l := range lines {
		d := abs(l - hint)
		switch {
		case best < 0 || d < abs(lines[best]-hint):
			best, second = i, best
		case second < 0 || d < abs(lines[second]-hint):
			second = i
		}
	}
	d1 := abs(lines[best] - hint)
	if d1 > 3 || second >= 0 && abs(lines[second]-hint) <= d1 {
		return 0, false
	}
	return best, true
}

// rewrite applies the model's change to one match and returns the new file.
func rewrite(d *document, old, nw []string, complete bool, m blockMatch, lv level, views []viewLine, useView bool) (ReplaceResult, error) {
	first, last := m.pair[0], m.pair[len(m.pair)-1]
	prefix, suffix := "", ""
	oldExt := append([]string(nil), old...)
	newExt := append([]string(nil), nw...)
	// Columns are in the text the match was made on: the file's lines, or read_file's view of
	// them; the writer gives the real bytes back.
	lineText := func(k int) string {
		if useView {
			return views[k].text
		}
		return d.lines[k]
	}
	if first >= 0 && m.startCol > 0 {
		prefix = lineText(first)[:m.startCol]
	}
	if last >= 0 && m.endCol < len(lineText(last)) {
		suffix = lineText(last)[m.endCol:]
	}
	if len(newExt) == 0 && (prefix != "" || suffix != "" || !complete) {
		newExt = []string{""}
	}
	fromFile := map[int]bool{}
	if prefix != "" {
		oldExt[0] = prefix + oldExt[0]
		newExt[0] = prefix + newExt[0]
		fromFile[0] = true
	}
	if suffix != "" {
		oldExt[len(oldExt)-1] += suffix
		newExt[len(newExt)-1] += suffix
	}
	e := regionEdit{lines: d.lines, m: m, old: oldExt, new: newExt, ops: diffLines(oldExt, newExt), lv: lv, fromFile: fromFile}
	if useView {
		e.view = views
	}
	res := mergeRegion(e)
	if res.fffd > 0 {
		return ReplaceResult{}, &MatchError{Err: ErrNotFound, FFFD: res.fffd, Lines: []int{m.start + 1}}
	}
	out := d.replaceRegion(m.start, m.end, res.lines)
	rr := ReplaceResult{Content: out.bytes(), Count: 1, Lines: []int{m.start + 1}, Adapted: res.adapted}
	if useView {
		rr.Adapted = append(rr.Adapted, "U+FFFD read as the file's own characters")
	}
	if d.eol == "\r\n" && len(nw) > 1 {
		rr.Adapted = append(rr.Adapted, "CRLF line endings")
	}
	return rr, nil
}

// replaceRegion returns a copy of d with lines [start, end) replaced by out. Kept lines keep
// their line endings; new lines take the ending of the file line processed before them.
func (d *document) replaceRegion(start, end int, out []outLine) *document {
	nd := &document{bom: d.bom, eol: d.eol, finalNL: d.finalNL}
	nd.lines = append(nd.lines, d.lines[:start]...)
	nd.eols = append(nd.eols, d.eols[:start]...)
	eolOf := func(k int) string {
		if k >= 0 && k < len(d.eols) && d.eols[k] != "" {
			return d.eols[k]
		}
		return d.eol
	}
	for _, o := range out {
		if o.file >= 0 {
			nd.lines = append(nd.lines, d.lines[o.file])
			nd.eols = append(nd.eols, d.eols[o.file])
			continue
		}
		nd.lines = append(nd.lines, o.text)
		nd.eols = append(nd.eols, eolOf(o.after))
	}
	nd.lines = append(nd.lines, d.lines[end:]...)
	nd.eols = append(nd.eols, d.eols[end:]...)
	nd.fixTerminators()
	return nd
}

// checkCount enforces the uniqueness / expected-count rules on the exact
// rungs. all holds overlapping occurrences, pos the ones that would be
// replaced.
func checkCount(r Replacement, rung Rung, s string, all, pos []int) error {
	switch {
	case r.ExpectedReplacements > 0:
		if len(pos) != r.ExpectedReplacements {
			return &MatchError{Err: ErrCountMismatch, Rung: rung, Count: len(pos), Expected: r.ExpectedReplacements, Lines: linesOf(s, pos)}
		}
	case r.ReplaceAll:
	default:
		if len(all) > 1 {
			return &MatchError{Err: ErrAmbiguous, Rung: rung, Count: len(all), Lines: linesOf(s, all)}
		}
	}
	return nil
}

func linesOf(s string, pos []int) []int {
	out := make([]int, len(pos))
	line, off := 1, 0
	for i, p := range pos {
		line += strings.Count(s[off:p], "\n")
		off = p
		out[i] = line
	}
	return out
}

// lineNumbered reports whether every line of s starts with a number and a
// tab, as read_file prints with line_numbers: a copy that kept them.
func lineNumbered(s string) bool {
	_, _, ok := stripLineNumbers(s)
	return ok
}

// notFound builds the refusal for text that matched nowhere: the nearest text in the file
// (for the reading of the model's text that comes closest), the first line where they part,
// and the next step.
func notFound(s string, r Replacement, vs []variant, cv *codec) error {
	me := &MatchError{Err: ErrNotFound, LineNumbered: lineNumbered(r.OldString)}
	if cv != nil && cv.name == "" {
		me.Unsure = cv.unsure
	}
	text := s
	if cv != nil && strings.ContainsRune(r.OldString, utf8.RuneError) {
		d := parseDocument([]byte(s))
		if views := cv.views(d.lines); views != nil {
			var b strings.Builder
			for i, v := range views {
				b.WriteString(v.text)
				b.WriteString(d.eols[i])
			}
			text = b.String()
		}
	} else if strings.ContainsRune(r.OldString, utf8.RuneError) && !utf8.ValidString(s) {
		me.InvalidUTF8 = true
	}
	var best *Nearest
	var bestOld string
	for _, v := range vs {
		n := FindNearest(text, v.old)
		if n != nil && (best == nil || n.Similarity > best.Similarity) {
			best, bestOld = n, v.old
		}
	}
	me.Nearest = best
	if best != nil {
		lines := splitLines(text)
		oi, fi := firstDivergence(splitLines(bestOld), lines, best.StartLine-1)
		if oi >= 0 && fi >= 0 && fi < len(lines) {
			me.Diverge = &Divergence{Line: fi + 1, Want: splitLines(bestOld)[oi], Have: lines[fi]}
		}
	}
	return me
}
