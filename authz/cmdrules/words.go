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

// params are the positional parameters ($1, "$@", $#) where the checker knows them: the
// arguments of a function called on the line, of bash -c SCRIPT NAME ARGS, or the words of
// set -- WORDS. A nil *params is unknown.
type params struct{ args []word }

// maxBraceWords bounds brace expansion of one word; beyond it the word counts as unknown.
const maxBraceWords = 64

// words evaluates a parsed word into the words it becomes: several after brace expansion or
// "$@" of known parameters, none for "$@" of none. pos are the positional parameters (nil:
// unknown).
func words(orig *syntax.Word, pos *params) []word {
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
	var out []word
	for _, parts := range alts {
		out = append(out, evalWords(parts, pos)...)
	}
	return out
}

// evalWords builds the words of a word's parts: quoting removed, escapes resolved, ANSI-C
// strings decoded, known positional parameters substituted, anything else computed at run
// time turned into a wildcard.
func evalWords(parts []syntax.WordPart, pos *params) []word {
	b := wordBuilder{exact: true, pos: pos}
	for _, p := range parts {
		b.part(p, false)
	}
	return b.finish()
}

// evalParts evaluates parts that stay one word (a here-document body).
func evalParts(parts []syntax.WordPart) word {
	ws := evalWords(parts, nil)
	if len(ws) == 0 {
		return literal("")
	}
	return ws[0]
}

type wordBuilder struct {
	g     glob
	lit   strings.Builder
	exact bool
	multi bool
	// content says the word exists even if empty (text, a wildcard or quotes were written);
	// "$@" of no parameters and unquoted expansions of nothing write none.
	content bool
	// brk says the next text starts a new word (an unquoted expansion ended in blanks).
	brk  bool
	pos  *params
	done []word
}

func (b *wordBuilder) litRune(r rune) {
	b.start()
	b.g = append(b.g, gtok{kind: gLit, r: r})
	b.lit.WriteRune(r)
	b.content = true
}

func (b *wordBuilder) wild(multi bool) {
	b.start()
	b.exact = false
	b.multi = b.multi || multi
	b.content = true
	if len(b.g) == 0 || b.g[len(b.g)-1].kind != gStar {
		b.g = append(b.g, gtok{kind: gStar})
	}
}

// start begins a new word if an expansion split the text before.
func (b *wordBuilder) start() {
	if b.brk {
		b.brk = false
		b.next()
	}
}

// next ends the current word (when there is one) and starts another.
func (b *wordBuilder) next() {
	if b.content {
		b.done = append(b.done, b.word())
	}
	b.g, b.exact, b.multi, b.content = nil, true, false, false
	b.lit.Reset()
}

func (b *wordBuilder) word() word {
	return word{g: b.g, lit: b.lit.String(), exact: b.exact, multi: b.multi}
}

func (b *wordBuilder) finish() []word {
	if b.content {
		b.done = append(b.done, b.word())
	}
	return b.done
}

// appendWord adds a whole known word to the current one (a quoted parameter).
func (b *wordBuilder) appendWord(w word) {
	b.start()
	b.g = append(b.g, w.g...)
	b.lit.WriteString(w.lit)
	b.exact = b.exact && w.exact
	b.multi = b.multi || w.multi
	b.content = true
}

// splitWord adds a known word as an unquoted expansion leaves it: split into fields at
// blanks (the default IFS; a line that changes IFS is asked about where it matters, since
// the function body was checked with unknown parameters too) and file globs kept as globs.
func (b *wordBuilder) splitWord(w word) {
	if !w.exact {
		b.appendWord(w)
		return
	}
	s := w.lit
	blank := func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' }
	if s != "" && blank(rune(s[0])) && b.content {
		b.brk = true
	}
	for i, f := range strings.FieldsFunc(s, blank) {
		if i > 0 {
			b.brk = true
		}
		b.start()
		for j := 0; j < len(f); {
			r, n := utf8.DecodeRuneInString(f[j:])
			j += n
			if r == '*' || r == '?' || r == '[' {
				j += b.fileGlob(r, f[j:])
				continue
			}
			b.litRune(r)
		}
	}
	if s != "" && blank(rune(s[len(s)-1])) {
		b.brk = true
	}
}

func (b *wordBuilder) part(p syntax.WordPart, quoted bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		b.litText(p.Value, quoted)
	case *syntax.SglQuoted:
		b.start()
		b.content = true
		v := p.Value
		if p.Dollar {
			v = decodeANSIC(v)
		}
		for _, r := range v {
			b.litRune(r)
		}
	case *syntax.DblQuoted:
		if len(p.Parts) == 0 {
			b.start()
			b.content = true
		}
		for _, q := range p.Parts {
			b.part(q, true)
		}
	case *syntax.ParamExp:
		b.param(p, quoted)
	default:
		// Command and arithmetic expansions, process substitution, extended globs: known
		// only when the line runs. Unquoted, the result is also split.
		b.wild(!quoted)
	}
}

// param adds a parameter expansion: a positional parameter where they are known, else a
// wildcard. "$@", "${@:2}", "${arr[@]}", "${!arr[@]}" and "${!prefix@}" become any number
// of words even when quoted.
func (b *wordBuilder) param(p *syntax.ParamExp, quoted bool) {
	name := ""
	if p.Param != nil {
		name = p.Param.Value
	}
	all := name == "@" || name == "*"
	plain := p.Param != nil && !p.Excl && !p.Length && !p.Width && p.Index == nil && p.Repl == nil &&
		p.Names == 0 && p.Exp == nil && len(p.Modifiers) == 0 && p.NestedParam == nil && p.Flags == nil
	if b.pos != nil && plain && (p.Slice == nil || all) {
		args := b.pos.args
		switch {
		case all:
			// A slice (${@:2}) is some of them, in order: all of them match every rule it
			// could.
			switch {
			case name == "@" && quoted:
				for i, a := range args {
					if i > 0 {
						b.brk = true
					}
					b.appendWord(a)
				}
			case quoted: // "$*": one word
				b.start()
				b.content = true
				for i, a := range args {
					if i > 0 {
						b.litRune(' ')
					}
					b.appendWord(a)
				}
			default:
				for i, a := range args {
					if i > 0 {
						b.brk = true
					}
					b.splitWord(a)
				}
			}
			return
		case name == "#" && !anyMulti(args):
			b.litText(strconv.Itoa(len(args)), true)
			return
		case isPositional(name):
			n, err := strconv.Atoi(name)
			if err != nil || anyMulti(args[:min(n, len(args))]) {
				break // after a word of unknown count, positions are unknown
			}
			a := literal("")
			if n <= len(args) {
				a = args[n-1]
			}
			if quoted {
				b.appendWord(a)
			} else {
				b.splitWord(a)
			}
			return
		}
	}
	every := name == "@" || p.Names == syntax.NamesPrefixWords || isAt(p.Index)
	b.wild(!quoted || every && !p.Length)
}

// isPositional reports whether name is $1, $2, ... (not $0).
func isPositional(name string) bool {
	if name == "" || name == "0" {
		return false
	}
	for _, r := range name {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// isAt reports whether an index is [@] (every element, as separate words).
func isAt(e syntax.ArithmExpr) bool {
	w, ok := e.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	return ok && l.Value == "@"
}

func anyMulti(ws []word) bool {
	for _, w := range ws {
		if w.multi {
			return true
		}
	}
	return false
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
			i += b.fileGlob(r, s[i:])
			continue
		}
		b.litRune(r)
	}
}

// fileGlob adds a file glob character r (rest is the text after it) and returns how much of
// rest it used (a class's body). A file glob may expand to names of files (which a command
// earlier on the line could have created), so the word is only known as a pattern.
func (b *wordBuilder) fileGlob(r rune, rest string) int {
	b.start()
	b.exact = false
	b.multi = true
	b.content = true
	switch r {
	case '*':
		b.wild(true)
		return 0
	case '?':
		b.g = append(b.g, gtok{kind: gAny1})
		return 0
	}
	if t, used, ok := parseClass(rest); ok {
		b.g = append(b.g, t)
		return used
	}
	b.g = append(b.g, gtok{kind: gLit, r: '['})
	b.lit.WriteRune('[')
	return 0
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
