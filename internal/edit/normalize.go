package edit

import (
	"strings"
	"unicode/utf8"
)

// level is how much a tolerant rung ignores; each level includes the ones
// below it.
type level int

const (
	levelLineEndings level = iota
	levelTrailing
	levelIndent
	levelPunct
	// levelSpaces also reads a run of spaces and tabs inside a line as one space: the column
	// alignment of gofmt'd struct fields or Markdown tables, which copies lose.
	levelSpaces
)

// normText is a normalized text with, for every byte, the byte range of
// the original text it came from, so a match found in the normalized text
// can be cut out of the original.
type normText struct {
	s          string
	start, end []int32
}

// punctASCII maps the Unicode punctuation models and word processors swap
// for ASCII (or the other way round) to its ASCII form.
func punctASCII(r rune) (string, bool) {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032':
		return "'", true
	case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033':
		return `"`, true
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return "-", true
	case '\u2026':
		return "...", true
	case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007',
		'\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
		return " ", true
	case '\u200B', '\u2060', '\uFEFF':
		return "", true
	}
	return "", false
}

// normalize applies lv to s. It never removes or adds newlines, so line
// counts survive normalization.
func normalize(s string, lv level, withMap bool) normText {
	var b strings.Builder
	b.Grow(len(s))
	var nt normText
	if withMap {
		nt.start = make([]int32, 0, len(s))
		nt.end = make([]int32, 0, len(s))
	}
	emit := func(text string, from, to int) {
		b.WriteString(text)
		if withMap {
			for range len(text) {
				nt.start = append(nt.start, int32(from))
				nt.end = append(nt.end, int32(to))
			}
		}
	}
	pos := 0
	for pos <= len(s) {
		nl := strings.IndexByte(s[pos:], '\n')
		lineEnd := len(s)
		if nl >= 0 {
			lineEnd = pos + nl
		}
		ls, le := pos, lineEnd
		if nl >= 0 && le > ls && s[le-1] == '\r' {
			le--
		}
		if lv >= levelTrailing {
			for le > ls && (s[le-1] == ' ' || s[le-1] == '\t' || s[le-1] == '\r') {
				le--
			}
		}
		if lv >= levelIndent {
			for ls < le && (s[ls] == ' ' || s[ls] == '\t') {
				ls++
			}
		}
		if lv >= levelPunct {
			for i := ls; i < le; {
				r, w := utf8.DecodeRuneInString(s[i:le])
				rep, ok := punctASCII(r)
				if lv >= levelSpaces && (r == ' ' || r == '\t' || ok && rep == " ") {
					j := i + w
					for j < le {
						r2, w2 := utf8.DecodeRuneInString(s[j:le])
						if rep2, ok2 := punctASCII(r2); r2 != ' ' && r2 != '\t' && !(ok2 && rep2 == " ") {
							break
						}
						j += w2
					}
					emit(" ", i, j)
					i = j
					continue
				}
				if ok {
					emit(rep, i, i+w)
				} else {
					emit(s[i:i+w], i, i+w)
				}
				i += w
			}
		} else {
			if withMap {
				// Every byte of a character maps to the whole character, so a match never
				// splits one.
				for i := ls; i < le; {
					_, w := utf8.DecodeRuneInString(s[i:le])
					for range w {
						nt.start = append(nt.start, int32(i))
						nt.end = append(nt.end, int32(i+w))
					}
					i += w
				}
			}
			b.WriteString(s[ls:le])
		}
		if nl < 0 {
			break
		}
		emit("\n", le, lineEnd+1)
		pos = lineEnd + 1
	}
	nt.s = b.String()
	return nt
}

// indexAll returns the start of every (possibly overlapping) occurrence of
// sub in s.
func indexAll(s, sub string) []int {
	var out []int
	for off := 0; off <= len(s)-len(sub); {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			break
		}
		out = append(out, off+i)
		off += i + 1
	}
	return out
}

// nonOverlapping keeps the occurrences that strings.Replace would replace.
func nonOverlapping(pos []int, n int) []int {
	var out []int
	next := 0
	for _, p := range pos {
		if p >= next {
			out = append(out, p)
			next = p + n
		}
	}
	return out
}

// leadingWS returns the run of spaces and tabs that starts s.
func leadingWS(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[:i]
}
