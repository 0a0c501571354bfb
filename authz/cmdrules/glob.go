package cmdrules

import (
	"strings"
	"unicode/utf8"
)

// A glob is a shell pattern over one word: '*' any string (slashes included: a command word
// is not a path pattern), '?' any one character, '[...]' a class ('!' or '^' negates), '\x'
// the literal x. Globs describe both rule patterns and command words that are not fully
// literal (an unquoted $VAR is '*', a file glob stays a glob), so "could this word match that
// pattern" is "do the two globs share a string".
type glob []gtok

type gkind uint8

const (
	gLit gkind = iota
	gAny1
	gStar
	gClass
)

type gtok struct {
	kind   gkind
	r      rune      // gLit
	ranges [][2]rune // gClass
	neg    bool      // gClass
}

// parseGlob compiles a pattern; malformed classes are taken literally, as the shell does.
func parseGlob(s string) glob {
	var g glob
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\\':
			if i+1 < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[i+1:])
				g = append(g, gtok{kind: gLit, r: r2})
				i += 1 + n2
				continue
			}
			g = append(g, gtok{kind: gLit, r: '\\'})
		case '*':
			if len(g) == 0 || g[len(g)-1].kind != gStar {
				g = append(g, gtok{kind: gStar})
			}
		case '?':
			g = append(g, gtok{kind: gAny1})
		case '[':
			if t, used, ok := parseClass(s[i+1:]); ok {
				g = append(g, t)
				i += 1 + used
				continue
			}
			g = append(g, gtok{kind: gLit, r: '['})
		default:
			g = append(g, gtok{kind: gLit, r: r})
		}
		i += n
	}
	return g
}

// parseClass reads a class after its '['; used counts the bytes up to and including ']'.
func parseClass(s string) (gtok, int, bool) {
	t := gtok{kind: gClass}
	i := 0
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		t.neg = true
		i++
	}
	first := true
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == ']' && !first {
			return t, i + 1, true
		}
		first = false
		if r == '\\' && i+n < len(s) {
			r, n = utf8.DecodeRuneInString(s[i+1:])
			i++
		}
		lo, hi := r, r
		i += n
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			r2, n2 := utf8.DecodeRuneInString(s[i+1:])
			hi = r2
			i += 1 + n2
		}
		t.ranges = append(t.ranges, [2]rune{lo, hi})
	}
	return gtok{}, 0, false
}

func (t gtok) accepts(r rune) bool {
	switch t.kind {
	case gLit:
		return t.r == r
	case gAny1, gStar:
		return true
	}
	in := false
	for _, rg := range t.ranges {
		if r >= rg[0] && r <= rg[1] {
			in = true
			break
		}
	}
	return in != t.neg
}

// exact reports whether g is a plain string (no wildcards) and returns it.
func (g glob) exact() (string, bool) {
	var b strings.Builder
	for _, t := range g {
		if t.kind != gLit {
			return "", false
		}
		b.WriteRune(t.r)
	}
	return b.String(), true
}

// match reports whether the string s matches g.
func (g glob) match(s string) bool {
	rs := []rune(s)
	// Positions in g reachable after consuming a prefix of s.
	cur := map[int]bool{}
	var close func(set map[int]bool)
	close = func(set map[int]bool) {
		for changed := true; changed; {
			changed = false
			for k := range set {
				if k < len(g) && g[k].kind == gStar && !set[k+1] {
					set[k+1] = true
					changed = true
				}
			}
		}
	}
	cur[0] = true
	close(cur)
	for _, r := range rs {
		next := map[int]bool{}
		for k := range cur {
			if k >= len(g) {
				continue
			}
			t := g[k]
			switch {
			case t.kind == gStar:
				next[k] = true
			case t.accepts(r):
				next[k+1] = true
			}
		}
		if len(next) == 0 {
			return false
		}
		close(next)
		cur = next
	}
	return cur[len(g)]
}

// overlaps reports whether some string matches both a and b.
func overlaps(a, b glob) bool {
	type st struct{ i, j int }
	seen := map[st]bool{}
	stack := []st{{0, 0}}
	push := func(s st) {
		if !seen[s] {
			seen[s] = true
			stack = append(stack, s)
		}
	}
	seen[st{0, 0}] = true
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.i == len(a) && s.j == len(b) {
			return true
		}
		// A star may end (match nothing more).
		if s.i < len(a) && a[s.i].kind == gStar {
			push(st{s.i + 1, s.j})
		}
		if s.j < len(b) && b[s.j].kind == gStar {
			push(st{s.i, s.j + 1})
		}
		if s.i >= len(a) || s.j >= len(b) {
			continue
		}
		ta, tb := a[s.i], b[s.j]
		if !shareRune(ta, tb) {
			continue
		}
		ni, nj := s.i+1, s.j+1
		if ta.kind == gStar {
			ni = s.i
		}
		if tb.kind == gStar {
			nj = s.j
		}
		push(st{ni, nj})
	}
	return false
}

// shareRune reports whether one character is accepted by both tokens.
func shareRune(a, b gtok) bool {
	if a.kind == gLit {
		return b.accepts(a.r)
	}
	if b.kind == gLit {
		return a.accepts(b.r)
	}
	if a.kind != gClass || b.kind != gClass {
		other := a
		if a.kind != gClass {
			other = b
		}
		if other.kind != gClass {
			return true
		}
		return classNonEmpty(other)
	}
	for _, r := range candidates(a, b) {
		if a.accepts(r) && b.accepts(r) {
			return true
		}
	}
	return false
}

func classNonEmpty(t gtok) bool {
	for _, r := range candidates(t, t) {
		if t.accepts(r) {
			return true
		}
	}
	return false
}

// candidates are the characters worth trying for a class intersection: the bounds of every
// range and their neighbours, plus a spread of ASCII and one rune beyond.
func candidates(a, b gtok) []rune {
	out := []rune{0x10000, 0xFFFD}
	for r := rune(0); r < 128; r++ {
		out = append(out, r)
	}
	for _, t := range []gtok{a, b} {
		for _, rg := range t.ranges {
			out = append(out, rg[0], rg[1], rg[0]-1, rg[1]+1)
		}
	}
	return out
}

// expandBraces expands {a,b} alternatives in a rule pattern word (nested allowed; a brace
// without a comma stays literal). Escaped braces stay literal.
func expandBraces(s string) []string {
	depth, open := 0, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth > 0 {
				continue
			}
			alts := splitTop(s[open+1 : i])
			if len(alts) < 2 {
				open = -1
				continue
			}
			var out []string
			for _, rest := range expandBraces(s[i+1:]) {
				for _, a := range alts {
					for _, e := range expandBraces(a) {
						out = append(out, s[:open]+e+rest)
					}
				}
			}
			return out
		}
	}
	return []string{s}
}

// splitTop splits at commas outside nested braces.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
