package codeindex

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// The index keys a file by the trigrams of its content with ASCII letters folded to lower case:
// one index answers case-sensitive and case-insensitive searches (the search itself reads the
// candidate files, so folding costs only a little selectivity).

// fold lowers an ASCII letter.
func fold(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + ('a' - 'A')
	}
	return b
}

// trigramOf is the key of three bytes.
func trigramOf(a, b, c byte) uint32 {
	return uint32(fold(a))<<16 | uint32(fold(b))<<8 | uint32(fold(c))
}

// Query is what a file must contain to possibly match a search: any one of Alts, each a set of
// trigrams that must all be present. An alternative without trigrams matches every file; so
// does a Query without alternatives that has All set.
type Query struct {
	All  bool
	Alts [][]uint32
	// FoldKS says a case-folded k or s is required somewhere: such a letter also matches the
	// Kelvin sign and the long s, so files holding either are candidates whatever their
	// trigrams.
	FoldKS bool
}

// maxAlts bounds the alternatives of a query: past it, the search reads every file.
const maxAlts = 16

// maxTrigramsPerAlt bounds the trigrams of one alternative (the rarest are kept when the
// postings are read).
const maxTrigramsPerAlt = 24

// GrepQuery works out the trigram query of a grep_search pattern, with the same flags grep
// applies (literal quoting, case folding). A pattern that does not parse matches all files
// (the search then reports the pattern's error).
func GrepQuery(pattern string, literal, ignoreCase bool) Query {
	expr := pattern
	if literal {
		expr = regexp.QuoteMeta(expr)
	}
	if ignoreCase {
		expr = "(?i)" + expr
	}
	re, err := syntax.Parse("(?m)"+expr, syntax.Perl)
	if err != nil {
		return Query{All: true}
	}
	var foldKS bool
	dnf := required(re.Simplify(), &foldKS)
	q := Query{FoldKS: foldKS}
	for _, alt := range dnf {
		tris := trigramsOf(alt)
		if len(tris) == 0 {
			return Query{All: true}
		}
		q.Alts = append(q.Alts, tris)
	}
	if len(q.Alts) == 0 {
		return Query{All: true}
	}
	return q
}

// LiteralQuery is the query for files holding s (any case).
func LiteralQuery(s string) Query {
	tris := trigramsOf([]string{strings.ToLower(s)})
	if len(tris) == 0 {
		return Query{All: true}
	}
	return Query{Alts: [][]uint32{tris}}
}

// trigramsOf returns the distinct trigrams of the literals, sorted.
func trigramsOf(lits []string) []uint32 {
	var out []uint32
	for _, l := range lits {
		for i := 0; i+2 < len(l); i++ {
			out = append(out, trigramOf(l[i], l[i+1], l[i+2]))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// required returns a disjunction of conjunctions of literals: every match of re contains all
// literals of at least one alternative. A nil result means "no requirement" (every file); an
// alternative with no literals also means that, and absorbs the others.
func required(re *syntax.Regexp, foldKS *bool) [][]string {
	switch re.Op {
	case syntax.OpLiteral:
		l, ok := literalOf(re, foldKS)
		if !ok || len(l) < 3 {
			return [][]string{{}}
		}
		return [][]string{{l}}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0], foldKS)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0], foldKS)
		}
	case syntax.OpAlternate:
		var out [][]string
		for _, sub := range re.Sub {
			r := required(sub, foldKS)
			for _, alt := range r {
				if len(alt) == 0 {
					return [][]string{{}}
				}
			}
			out = append(out, r...)
			if len(out) > maxAlts {
				return [][]string{{}}
			}
		}
		return out
	case syntax.OpConcat:
		acc := [][]string{{}}
		for _, sub := range re.Sub {
			r := required(sub, foldKS)
			if len(r) == 1 && len(r[0]) == 0 {
				continue
			}
			if len(acc)*len(r) > maxAlts {
				// Keep the side with fewer alternatives: fewer, longer requirements.
				if len(r) < len(acc) {
					acc = r
				}
				continue
			}
			var next [][]string
			for _, a := range acc {
				for _, b := range r {
					next = append(next, append(slices.Clone(a), b...))
				}
			}
			acc = next
		}
		return acc
	}
	return [][]string{{}}
}

// literalOf returns the bytes of a literal node as the index keys them (ASCII folded), and
// false when the index cannot tell: a case-folded literal holding a non-ASCII letter (its other
// cases are other bytes), or U+FFFD (which a regexp matches against invalid UTF-8). A
// case-folded k or s sets foldKS (see Query.FoldKS).
func literalOf(re *syntax.Regexp, foldKS *bool) (string, bool) {
	foldCase := re.Flags&syntax.FoldCase != 0
	var b []byte
	for _, r := range re.Rune {
		switch {
		case r == utf8.RuneError:
			return "", false
		case foldCase && r >= utf8.RuneSelf:
			return "", false
		case foldCase && (r == 'k' || r == 'K' || r == 's' || r == 'S'):
			*foldKS = true
		}
		b = utf8.AppendRune(b, r)
	}
	for i := range b {
		b[i] = fold(b[i])
	}
	return string(b), true
}

// symbolBit marks the keys of defined names, apart from trigrams (24 bits).
const symbolBit = 1 << 31

// symbolKey is the key of a defined name (FNV-1a, 31 bits); foldedSymbolKey that of its
// lower-case form, for lookups in any case. Collisions only add candidates.
func symbolKey(name string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h ^= uint32(name[i])
		h *= 16777619
	}
	return symbolBit | h&(symbolBit-1)
}

func foldedSymbolKey(name string) uint32 {
	h := uint32(2166136261)
	h ^= 0 // a leading NUL keeps the folded keys apart from the exact ones
	h *= 16777619
	for i := 0; i < len(name); i++ {
		h ^= uint32(fold(name[i]))
		h *= 16777619
	}
	return symbolBit | h&(symbolBit-1)
}

// SymbolQuery is the query for files that define name (when the index was given a Symbols
// function), or, with anyCase, a name equal to it ignoring case.
func SymbolQuery(name string, anyCase bool) Query {
	if anyCase {
		return Query{Alts: [][]uint32{{foldedSymbolKey(name)}}}
	}
	return Query{Alts: [][]uint32{{symbolKey(name)}}}
}
