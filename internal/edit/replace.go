package edit

import (
	"fmt"
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
}

// Replace applies r to content using the edit ladder: an exact match
// first, then matches that ignore line endings, trailing whitespace,
// indentation (tabs vs spaces) and Unicode punctuation in turn. Tolerant
// matches are applied only when unique. The file's BOM, line endings and
// final newline are preserved; new_string is converted to the file's line
// endings and, on the indentation rungs, re-indented like the file.
//
// Failures are *MatchError values carrying the nearest match.
func Replace(content []byte, r Replacement) (ReplaceResult, error) {
	if r.OldString == "" {
		return ReplaceResult{}, fmt.Errorf("%w: old_string is empty; use create_file to write a whole file or insert_edit to add lines", ErrInvalidArgument)
	}
	if r.OldString == r.NewString {
		return ReplaceResult{}, fmt.Errorf("%w: old_string and new_string are identical", ErrNoop)
	}
	if r.ExpectedReplacements < 0 {
		return ReplaceResult{}, fmt.Errorf("%w: expected_replacements must be positive", ErrInvalidArgument)
	}
	s := string(content)
	hasBOM := strings.HasPrefix(s, bom)
	if hasBOM {
		s = s[len(bom):]
	}
	eol := detectEOL(s)
	newText := toEOL(r.NewString, eol)
	wrap := func(res ReplaceResult) ReplaceResult {
		if hasBOM {
			res.Content = append([]byte(bom), res.Content...)
		}
		return res
	}

	// Exact and line-ending rungs: plain substring matches, so replace_all
	// and expected_replacements apply.
	olds := []struct {
		text string
		rung Rung
	}{{r.OldString, RungExact}}
	if o := toEOL(r.OldString, eol); o != r.OldString {
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
		if err := checkCount(r, o.rung, s, all, pos); err != nil {
			return ReplaceResult{}, err
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
		if o.rung == RungLineEndings && newText != r.NewString {
			res.Adapted = []string{"CRLF line endings"}
		}
		return wrap(res), nil
	}

	for _, lv := range []level{levelTrailing, levelIndent, levelPunct} {
		res, ok, err := replaceTolerant(s, r, lv, eol)
		if err != nil {
			return ReplaceResult{}, err
		}
		if ok {
			return wrap(res), nil
		}
	}
	return ReplaceResult{}, &MatchError{Err: ErrNotFound, Nearest: FindNearest(s, r.OldString), LineNumbered: lineNumbered(r.OldString),
		InvalidUTF8: strings.ContainsRune(r.OldString, utf8.RuneError) && !utf8.ValidString(s)}
}

func rungOf(lv level) Rung {
	switch lv {
	case levelTrailing:
		return RungTrailingWhitespace
	case levelIndent:
		return RungIndentation
	case levelPunct:
		return RungPunctuation
	}
	return RungLineEndings
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

// replaceTolerant tries one tolerant rung. It returns ok=false when
// nothing matched, and an error when the match is not unique.
func replaceTolerant(s string, r Replacement, lv level, eol string) (ReplaceResult, bool, error) {
	old := strings.ReplaceAll(r.OldString, "\r\n", "\n")
	newText := strings.ReplaceAll(r.NewString, "\r\n", "\n")
	// A trailing newline on old_string need not exist in the file (last
	// line without newline); match without it and drop as many from new.
	trimmed := strings.TrimRight(old, "\n")
	k := len(old) - len(trimmed)
	for k > 0 && strings.HasSuffix(newText, "\n") {
		newText = newText[:len(newText)-1]
		k--
	}
	old = trimmed
	nOld := normalize(old, lv, false).s
	if strings.Trim(nOld, "\n") == "" {
		return ReplaceResult{}, false, nil
	}
	// Search without the offset map first: most tolerant rungs miss, and
	// the map costs eight bytes per byte of the file.
	if !strings.Contains(normalize(s, lv, false).s, nOld) {
		return ReplaceResult{}, false, nil
	}
	nf := normalize(s, lv, true)
	lastLine := old[strings.LastIndexByte(old, '\n')+1:]
	needEnd := strings.TrimRight(lastLine, " \t") != lastLine || len(old) < len(strings.ReplaceAll(r.OldString, "\r\n", "\n"))
	firstLine, _, _ := strings.Cut(old, "\n")
	needStart := lv >= levelIndent && leadingWS(firstLine) != ""

	var hits []int
	for _, p := range indexAll(nf.s, nOld) {
		e := p + len(nOld)
		if needEnd && e < len(nf.s) && nf.s[e] != '\n' {
			continue
		}
		if needStart && p > 0 && nf.s[p-1] != '\n' {
			continue
		}
		hits = append(hits, p)
	}
	if len(hits) == 0 {
		return ReplaceResult{}, false, nil
	}
	start := func(p int) int { return int(nf.start[p]) }
	if len(hits) > 1 || r.ExpectedReplacements > 1 {
		ps := make([]int, len(hits))
		for i, h := range hits {
			ps[i] = start(h)
		}
		return ReplaceResult{}, false, &MatchError{Err: ErrAmbiguous, Rung: rungOf(lv), Count: len(hits), Lines: linesOf(s, ps), Tolerant: true, ReplaceAll: r.ReplaceAll || r.ExpectedReplacements > 1}
	}
	p := hits[0]
	from, to := start(p), int(nf.end[p+len(nOld)-1])
	written := newText
	var adapted []string
	if lv == levelPunct {
		// Write new_string with the file's quotes, dashes and ellipses, not the model's.
		newText, adapted = learnStyle(old, strings.ReplaceAll(s[from:to], "\r\n", "\n")).apply(newText)
	}
	if lv >= levelIndent {
		// Replace whole lines from their start so the file's own
		// indentation is what the re-indented new_string carries.
		lineStart := strings.LastIndexByte(s[:from], '\n') + 1
		extended := strings.TrimLeft(s[lineStart:from], " \t") == ""
		plain := newText // what a replacement from the match's start would write
		if extended {
			plain = s[lineStart:from] + newText
			from = lineStart
		}
		newText = reindent(old, s[from:to], newText, extended)
		if newText != plain {
			adapted = append(adapted, "indentation")
		}
	}
	before := newText
	newText = keepUnchanged(old, strings.ReplaceAll(s[from:to], "\r\n", "\n"), written, newText)
	if newText != before {
		adapted = append(adapted, "unchanged lines kept as in the file")
	}
	if eol == "\r\n" && strings.Contains(newText, "\n") {
		adapted = append(adapted, "CRLF line endings")
	}
	newText = toEOL(newText, eol)
	out := s[:from] + newText + s[to:]
	return ReplaceResult{Content: []byte(out), Rung: rungOf(lv), Count: 1, Lines: []int{lineOf(s, from)}, Adapted: adapted}, true, nil
}

// keepUnchanged gives the lines new_string (written) copies unchanged from
// old_string the text of the file lines they matched, keeping the
// indentation newText chose: a match ignoring punctuation must not turn the
// file's curly quotes and dashes into the model's ASCII on lines it did not
// mean to edit.
func keepUnchanged(old, matched, written, newText string) string {
	ol, fl := strings.Split(old, "\n"), strings.Split(matched, "\n")
	if len(ol) != len(fl) {
		return newText
	}
	body := func(l string) string { return strings.TrimLeft(l, " \t") }
	m := map[string]string{}
	for i := range ol {
		if o, f := body(ol[i]), body(fl[i]); o != f && strings.TrimSpace(o) != "" {
			if _, ok := m[o]; !ok {
				m[o] = f
			}
		}
	}
	if len(m) == 0 {
		return newText
	}
	wl, nl := strings.Split(written, "\n"), strings.Split(newText, "\n")
	if len(wl) != len(nl) {
		return newText
	}
	for i := range wl {
		if f, ok := m[body(wl[i])]; ok {
			nl[i] = leadingWS(nl[i]) + f
		}
	}
	return strings.Join(nl, "\n")
}

// reindent rewrites the indentation of newText to follow the file: each
// old_string line's indentation is paired with the matched file line's,
// and new lines with a known indentation take the file's. With firstToo
// false the first line was matched mid-line and is left alone.
func reindent(old, matched, newText string, firstToo bool) string {
	oldLines := strings.Split(old, "\n")
	fileLines := strings.Split(strings.ReplaceAll(matched, "\r\n", "\n"), "\n")
	m := map[string]string{}
	spacesPerTab, tabsToSpaces := 0, 0
	for i := range min(len(oldLines), len(fileLines)) {
		if i == 0 && !firstToo {
			continue
		}
		if strings.TrimSpace(oldLines[i]) == "" {
			continue
		}
		oi, fi := leadingWS(oldLines[i]), leadingWS(fileLines[i])
		if _, ok := m[oi]; !ok {
			m[oi] = fi
		}
		ot, ft := strings.Count(oi, "\t"), strings.Count(fi, "\t")
		if ot == 0 && ft == len(fi) && ft > 0 && len(oi)%ft == 0 && spacesPerTab == 0 {
			spacesPerTab = len(oi) / ft
		}
		if ft == 0 && ot == len(oi) && ot > 0 && len(fi)%ot == 0 && tabsToSpaces == 0 {
			tabsToSpaces = len(fi) / ot
		}
	}
	if len(m) == 0 {
		return newText
	}
	lines := strings.Split(newText, "\n")
	for i, l := range lines {
		if (i == 0 && !firstToo) || strings.TrimSpace(l) == "" {
			continue
		}
		ind := leadingWS(l)
		body := l[len(ind):]
		switch {
		case m[ind] != "" || hasKey(m, ind):
			ind = m[ind]
		case spacesPerTab > 0 && strings.Count(ind, "\t") == 0:
			ind = strings.Repeat("\t", len(ind)/spacesPerTab) + strings.Repeat(" ", len(ind)%spacesPerTab)
		case tabsToSpaces > 0 && strings.Count(ind, " ") == 0:
			ind = strings.Repeat(" ", len(ind)*tabsToSpaces)
		default:
			best := ""
			for o := range m {
				if len(o) > len(best) && strings.HasPrefix(ind, o) {
					best = o
				}
			}
			if best != "" {
				ind = m[best] + ind[len(best):]
			}
		}
		lines[i] = ind + body
	}
	return strings.Join(lines, "\n")
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

// lineNumbered reports whether every line of s starts with a number and a
// tab, as read_file prints with line_numbers: a copy that kept them.
func lineNumbered(s string) bool {
	lines := splitLines(s)
	if len(lines) == 0 {
		return false
	}
	for _, l := range lines {
		i := 0
		for i < len(l) && l[i] >= '0' && l[i] <= '9' {
			i++
		}
		if i == 0 || i == len(l) || l[i] != '\t' {
			return false
		}
	}
	return true
}
