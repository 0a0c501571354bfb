package cmdrules

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word as far as it can be known before running anything.
type word struct {
	// g describes the values the word can take: its literal text, with '*' for each part
	// only known at run time and file globs kept.
	g glob
	// lit is the value when the word is fully literal (exact).
	lit   string
	exact bool
	// multi: the word may become zero or several words at run time (an unquoted expansion
	// is split, a file glob lists names).
	multi bool
}

func literal(s string) word {
	g := make(glob, 0, len(s))
	for _, r := range s {
		g = append(g, gtok{kind: gLit, r: r})
	}
	return word{g: g, lit: s, exact: true}
}

// unknownWord stands for anything: several words of any text.
var unknownWord = word{g: glob{{kind: gStar}}, multi: true}

// maxBraceWords bounds brace expansion of one word; beyond it the word counts as unknown.
const maxBraceWords = 64

// words evaluates a parsed word into the words it becomes (several after brace expansion).
func words(orig *syntax.Word) []word {
	// SplitBraces rewrites the word it is given; work on a copy so the tree stays walkable.
	w := &syntax.Word{Parts: append([]syntax.WordPart(nil), orig.Parts...)}
	syntax.SplitBraces(w)
	alts := [][]syntax.WordPart{nil}
	for _, p := range w.Parts {
		be, ok := p.(*syntax.BraceExp)
		if !ok {
			for i := range alts {
				alts[i] = append(alts[i], p)
			}
			continue
		}
		if be.Sequence {
			// {1..5}: the values are computable, but a rule never needs them; keep it unknown.
			for i := range alts {
				alts[i] = append(alts[i], &syntax.ExtGlob{})
			}
			continue
		}
		var next [][]syntax.WordPart
		for _, a := range alts {
			for _, e := range be.Elems {
				n := append(append([]syntax.WordPart{}, a...), e.Parts...)
				next = append(next, n)
			}
		}
		if len(next) > maxBraceWords {
			return []word{unknownWord}
		}
		alts = next
	}
	out := make([]word, 0, len(alts))
	for _, parts := range alts {
		out = append(out, evalParts(parts))
	}
	return out
}

// evalParts builds a word from its parts: quoting removed, escapes resolved, ANSI-C
// strings decoded, anything computed at run time turned into a wildcard.
func evalParts(parts []syntax.WordPart) word {
	var b wordBuilder
	b.exact = true
	for _, p := range parts {
		b.part(p, false)
	}
	return b.word()
}

type wordBuilder struct {
	g     glob
	lit   strings.Builder
	exact bool
	multi bool
}

func (b *wordBuilder) litRune(r rune) {
	b.g = append(b.g, gtok{kind: gLit, r: r})
	b.lit.WriteRune(r)
}

func (b *wordBuilder) wild(multi bool) {
	b.exact = false
	b.multi = b.multi || multi
	if len(b.g) == 0 || b.g[len(b.g)-1].kind != gStar {
		b.g = append(b.g, gtok{kind: gStar})
	}
}

func (b *wordBuilder) word() word {
	return word{g: b.g, lit: b.lit.String(), exact: b.exact, multi: b.multi}
}

func (b *wordBuilder) part(p syntax.WordPart, quoted bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		b.litText(p.Value, quoted)
	case *syntax.SglQuoted:
		v := p.Value
		if p.Dollar {
			v = decodeANSIC(v)
		}
		for _, r := range v {
			b.litRune(r)
		}
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			b.part(q, true)
		}
	default:
		// Parameter, command and arithmetic expansions, process substitution, extended
		// globs: known only when the line runs. Unquoted, the result is also split.
		b.wild(!quoted)
	}
}

// litText adds literal source text: outside quotes a backslash escapes any character and
// unescaped *, ? and [ are file globs; inside double quotes a backslash escapes only $ ` " \
// and newline.
func (b *wordBuilder) litText(s string, quoted bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r == '\\' && i < len(s) {
			r2, n2 := utf8.DecodeRuneInString(s[i:])
			if !quoted || strings.ContainsRune("$`\"\\\n", r2) {
				i += n2
				if r2 == '\n' {
					continue // line continuation
				}
				b.litRune(r2)
				continue
			}
		}
		if !quoted && (r == '*' || r == '?' || r == '[') {
			// A file glob: it may expand to names of files (which a command earlier on the line
			// could have created), so the word is only known as a pattern.
			b.exact = false
			b.multi = true
			if r == '*' {
				b.wild(true)
				continue
			}
			if r == '?' {
				b.g = append(b.g, gtok{kind: gAny1})
				continue
			}
			if t, used, ok := parseClass(s[i:]); ok {
				b.g = append(b.g, t)
				i += used
				continue
			}
		}
		b.litRune(r)
	}
}

// decodeANSIC decodes the escapes of a $'...' string the way bash does.
func decodeANSIC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			v, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 32)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
