package edit

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// When old_string matched only ignoring Unicode punctuation, the model's copy spelled quotes,
// dashes, ellipses or spaces differently from the file: it wrote “hello” where the code has
// "hello", or "..." where the prose has "…". Its new_string is written in the same spelling, so
// writing it as sent would put the model's style into the file (code that no longer compiles,
// from an edit that said it worked). A styleMap learns, from old_string and the file text it
// matched, how the model's punctuation maps to the file's, and rewrites new_string with it.

// punctClass is a family of characters one style choice covers.
type punctClass int

const (
	classNone punctClass = iota
	classDouble
	classSingle
	classDash
	classEllipsis
	classSpace
)

// styleKey is the model's spelling of one character in one role.
type styleKey struct {
	text string
	role string
}

// styleMap is what old_string versus the file taught about the file's punctuation.
type styleMap struct {
	rule     map[styleKey]string // the model's spelling -> the file's, where consistent
	conflict map[styleKey]bool   // spellings the file writes in more than one way
	// curlyToPlain says the model's curly quotes of a class stood for the file's ASCII ones
	// (and never for curly ones), so any curly quote of that class in new_string is ASCII.
	curlyToPlain map[punctClass]bool
	curlyToCurly map[punctClass]bool
	// plainToCurly says the model's ASCII quote of a class stood for a curly one of the file.
	plainToCurly map[punctClass]bool
	// dropZeroWidth: old_string held zero-width characters the file does not have there.
	dropZeroWidth bool
	// order lists the model's spellings in the order old_string showed them.
	order []styleKey
	// zeroWidth lists the zero-width characters old_string held and the file does not.
	zeroWidth []rune
}

// differences lists how the model's punctuation differs from the file's ("“→\"" for a curly
// quote the file writes straight), in the order the model's text showed them.
func (m *styleMap) differences() []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, k := range m.order {
		if want := m.rule[k]; want != k.text && !m.conflict[k] {
			d := shown(k.text) + "→" + shown(want)
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	for _, r := range m.zeroWidth {
		out = append(out, fmt.Sprintf("U+%04X dropped", r))
	}
	return out
}

// learnStyle compares model (old_string) and file (the text it matched), which are equal once
// Unicode punctuation is normalised, and returns what they differ in; nil when they do not align
// or do not differ.
func learnStyle(model, file string) *styleMap {
	mo, fo := normalize(model, levelPunct, true), normalize(file, levelPunct, true)
	if mo.s != fo.s {
		return nil
	}
	m := &styleMap{rule: map[styleKey]string{}, conflict: map[styleKey]bool{},
		curlyToPlain: map[punctClass]bool{}, curlyToCurly: map[punctClass]bool{}, plainToCurly: map[punctClass]bool{}}
	differs := false
	for i := 0; i < len(mo.s); {
		// A segment is a run of normalised bytes that come from one character on either side
		// ("…" is three bytes of "...").
		oS, oE, fS, fE := int(mo.start[i]), int(mo.end[i]), int(fo.start[i]), int(fo.end[i])
		k := i + 1
		for k < len(mo.s) && (int(mo.start[k]) < oE || int(fo.start[k]) < fE) {
			oE, fE = max(oE, int(mo.end[k])), max(fE, int(fo.end[k]))
			k++
		}
		class := classOfNormalized(mo.s[i:k])
		i = k
		if class == classNone {
			continue
		}
		key := styleKey{model[oS:oE], roleAt(model, oS, oE, class)}
		want := file[fS:fE]
		if key.text != want {
			differs = true
		}
		if prev, ok := m.rule[key]; ok && prev != want {
			m.conflict[key] = true
		}
		if _, ok := m.rule[key]; !ok {
			m.order = append(m.order, key)
		}
		m.rule[key] = want
		if class == classDouble || class == classSingle {
			switch {
			case !isASCII(key.text) && isASCII(want):
				m.curlyToPlain[class] = true
			case !isASCII(key.text):
				m.curlyToCurly[class] = true
			case !isASCII(want):
				m.plainToCurly[class] = true
			}
		}
	}
	for _, r := range model {
		if isZeroWidth(r) && !strings.ContainsRune(file, r) {
			m.dropZeroWidth, differs = true, true
			if !slices.Contains(m.zeroWidth, r) {
				m.zeroWidth = append(m.zeroWidth, r)
			}
		}
	}
	if !differs {
		return nil
	}
	return m
}

// apply rewrites text in the file's style and lists the conversions it made ("“→\"").
func (m *styleMap) apply(text string) (string, []string) {
	return m.applyIn("", text)
}

// applyIn is apply for text written right after before on the same line: quotes and dashes
// take their role (opening, closing, inside a word) from the characters around them there.
func (m *styleMap) applyIn(before, text string) (string, []string) {
	if m == nil {
		return text, nil
	}
	ctx := before + text
	var b strings.Builder
	b.Grow(len(text))
	var done []string
	note := func(c string) {
		if !slices.Contains(done, c) {
			done = append(done, c)
		}
	}
	for i := len(before); i < len(ctx); {
		r, w := utf8.DecodeRuneInString(ctx[i:])
		if m.dropZeroWidth && isZeroWidth(r) {
			note(fmt.Sprintf("U+%04X dropped", r))
			i += w
			continue
		}
		tok := ctx[i : i+w]
		if _, ok := m.rule[styleKey{"...", ""}]; ok && strings.HasPrefix(ctx[i:], "...") {
			tok = "..."
		}
		if class := classOf(tok); class != classNone {
			if out, ok := m.convert(tok, class, roleAt(ctx, i, i+len(tok), class)); ok && out != tok {
				note(shown(tok) + "→" + shown(out))
				b.WriteString(out)
				i += len(tok)
				continue
			}
		}
		b.WriteString(tok)
		i += len(tok)
	}
	return b.String(), done
}

// convert spells one of the model's characters as the file does, if old_string showed how.
func (m *styleMap) convert(tok string, class punctClass, role string) (string, bool) {
	key := styleKey{tok, role}
	if want, ok := m.rule[key]; ok {
		return want, !m.conflict[key]
	}
	switch class {
	case classDouble, classSingle:
		switch {
		case !isASCII(tok) && m.curlyToPlain[class] && !m.curlyToCurly[class]:
			return map[punctClass]string{classDouble: `"`, classSingle: "'"}[class], true
		case isASCII(tok) && m.plainToCurly[class]:
			// Only the other role was seen: a file that curls one side curls both.
			for _, other := range []string{"open", "close"} {
				if want, ok := m.rule[styleKey{tok, other}]; ok && !m.conflict[styleKey{tok, other}] && !isASCII(want) {
					return curly(class, role), true
				}
			}
		}
	case classDash, classSpace:
		// A non-ASCII dash or space the file writes as ASCII in every place seen.
		if !isASCII(tok) {
			plain := map[punctClass]string{classDash: "-", classSpace: " "}[class]
			seen, all := false, true
			for k, v := range m.rule {
				if classOf(k.text) == class && !isASCII(k.text) {
					seen = true
					all = all && v == plain
				}
			}
			if seen && all {
				return plain, true
			}
		}
	case classEllipsis:
		for k, v := range m.rule {
			if classOf(k.text) == classEllipsis && k.text != v {
				return v, true
			}
		}
	}
	return tok, false
}

// classOfNormalized classifies a segment by its normalised (ASCII) text.
func classOfNormalized(s string) punctClass {
	switch s {
	case `"`:
		return classDouble
	case "'":
		return classSingle
	case "-":
		return classDash
	case "...":
		return classEllipsis
	case " ":
		return classSpace
	}
	return classNone
}

// classOf classifies one character (or "...") as written.
func classOf(tok string) punctClass {
	if tok == "..." {
		return classEllipsis
	}
	r, _ := utf8.DecodeRuneInString(tok)
	if r == '.' {
		return classNone
	}
	if a, ok := punctASCII(r); ok {
		return classOfNormalized(a)
	}
	return classOfNormalized(tok)
}

// roleAt tells opening quotes from closing ones (and apostrophes), and hyphens inside words from
// dashes between them, by the characters around text[from:to].
func roleAt(text string, from, to int, class punctClass) string {
	before, _ := utf8.DecodeLastRuneInString(text[:from])
	after, _ := utf8.DecodeRuneInString(text[to:])
	if from == 0 {
		before = ' '
	}
	if to == len(text) {
		after = ' '
	}
	switch class {
	case classDouble, classSingle:
		if unicode.IsSpace(before) || strings.ContainsRune("([{<=,:", before) {
			return "open"
		}
		return "close"
	case classDash:
		if isWordRune(before) && isWordRune(after) {
			return "inword"
		}
		return "between"
	}
	return ""
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func curly(class punctClass, role string) string {
	switch {
	case class == classDouble && role == "open":
		return "\u201C"
	case class == classDouble:
		return "\u201D"
	case role == "open":
		return "\u2018"
	}
	return "\u2019"
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// shown names a character for the report; spaces are invisible in it.
func shown(tok string) string {
	r, _ := utf8.DecodeRuneInString(tok)
	switch {
	case tok == " ":
		return "space"
	case classOf(tok) == classSpace:
		return fmt.Sprintf("U+%04X", r)
	}
	return tok
}

func isZeroWidth(r rune) bool { return r == '\u200B' || r == '\u2060' || r == '\uFEFF' }
