package edit

import (
	"fmt"
	"regexp"
	"strconv"
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
		return nil, 0, fmt.Errorf("%w: give exactly one of line, after_pattern, before_pattern, or start_line with end_line", ErrInvalidArgument)
	}
	d := parseDocument(content)
	n := len(d.lines)
	repl := splitLines(e.Text)
	if e.StartLine == 0 && e.EndLine == 0 && len(repl) == 0 {
		return nil, 0, fmt.Errorf("%w: text is empty; nothing to insert", ErrInvalidArgument)
	}
	var at, end int // lines [at, end) are replaced by repl (0-based)
	switch {
	case e.Line != 0:
		if e.Line < 1 || e.Line > n+1 {
			return nil, 0, fmt.Errorf("%w: line %d is out of range; the file has %d lines (use %d to append)", ErrInvalidArgument, e.Line, n, n+1)
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
			return nil, 0, fmt.Errorf("%w: lines %d-%d are out of range; the file has %d lines and start_line must be <= end_line", ErrInvalidArgument, e.StartLine, e.EndLine, n)
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
			return 0, fmt.Errorf("%w: bad regular expression %q: %v", ErrInvalidArgument, pat, err)
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
		return 0, fmt.Errorf("%w: no line matches pattern %q", ErrNotFound, pat)
	case 1:
		return hits[0], nil
	}
	// Taking the first of several would put the text somewhere the model
	// may not have meant, as silently as replace_string refuses to.
	var nums []string
	for i, h := range hits {
		if i == 10 {
			nums = append(nums, "...")
			break
		}
		nums = append(nums, strconv.Itoa(h+1))
	}
	return 0, fmt.Errorf("%w: pattern %q matches %d lines (%s); copy more of the line to make it unique, or give line", ErrAmbiguous, pat, len(hits), strings.Join(nums, ", "))
}
