package cmdrules

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// learn notes the functions a parsed script defines and the aliases it defines with plain
// alias commands, before its commands are walked: a call may come before the definition in
// the text (a loop, a function calling a later one).
func (c *checker) learn(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.FuncDecl:
			c.addFunc(n)
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			if ws := words(n.Args[0], nil); len(ws) == 1 && ws[0].exact && ws[0].lit == "alias" {
				for _, w := range n.Args[1:] {
					for _, a := range words(w, nil) {
						c.addAlias(a)
					}
				}
			}
		}
		return true
	})
}

// addFunc notes a function definition.
func (c *checker) addFunc(fd *syntax.FuncDecl) {
	if fd.Name == nil || fd.Body == nil {
		return
	}
	text := funcText(fd)
	if text == "" {
		return
	}
	if c.defs.put(&c.defs.funcs, fd.Name.Value, text) {
		c.grew = true
	}
	c.bodies[text] = fd.Body
}

// addAlias notes an alias definition word NAME=VALUE.
func (c *checker) addAlias(a word) {
	if !a.exact {
		return
	}
	name, v, ok := strings.Cut(a.lit, "=")
	if !ok || name == "" {
		return
	}
	if c.defs.put(&c.defs.aliases, name, v) {
		c.grew = true
	}
}

// spend takes one expansion from the line's budget; when none is left the command is asked
// about.
func (c *checker) spend(ws []word) bool {
	if c.budget <= 0 {
		c.unknown(render(ws), "too many alias and function expansions to check")
		return false
	}
	c.budget--
	return true
}

// callFunc checks a function's body with the call's arguments as its positional parameters.
func (c *checker) callFunc(name, text string, args []word, depth int, stdin bool) {
	body, ok := c.bodies[text]
	if !ok {
		if fd := parseFunc(text); fd != nil {
			body = fd.Body
		}
		c.bodies[text] = body
	}
	if body == nil {
		c.unknown(name, "a function whose definition cannot be read back")
		return
	}
	save := c.pos
	c.pos = []*params{{args: args}}
	c.active["f "+name]++
	c.walk(body, depth+1, stdin)
	c.active["f "+name]--
	c.pos = save
}

// aliasExpansion is one reading of an alias use: words when the definition is a simple
// command (then the statement's redirections still apply), else shell text.
type aliasExpansion struct {
	ws   []word
	text string
}

// maxAliasReadings bounds the readings of one alias use (chains of aliases ending in a blank
// with several definitions each).
const maxAliasReadings = 16

// aliasExpand checks an alias use: the value in place of the name, followed by the words.
func (c *checker) aliasExpand(name, v string, rest []word, st *syntax.Stmt, depth int, piped, stdin bool) {
	var out []aliasExpansion
	c.aliasReadings(nil, v, rest, map[string]bool{name: true}, &out)
	if len(out) > maxAliasReadings {
		c.unknown(name+" "+render(rest), "too many readings of chained aliases to check")
		return
	}
	c.active["a "+name]++
	defer func() { c.active["a "+name]-- }()
	for _, e := range out {
		if e.ws != nil || e.text == "" {
			c.command(e.ws, st, depth+1, piped)
			continue
		}
		if stdin || st != nil && len(st.Redirs) > 0 {
			c.unknown(e.text, "an alias that is not a simple command, used with a pipe or redirection")
		}
		c.script(e.text, depth+1)
	}
}

// aliasReadings lists the readings of prefix + value + rest: when the value ends in a blank,
// bash expands the next word as an alias too (alias s='sudo '); both the expanded and the
// plain reading are listed.
func (c *checker) aliasReadings(prefix []word, v string, rest []word, seen map[string]bool, out *[]aliasExpansion) {
	if len(*out) > maxAliasReadings {
		return
	}
	vw, cached := c.aliasValues[v]
	if !cached {
		var simple bool
		if vw, simple = aliasWords(v); !simple {
			vw = nil
		}
		c.aliasValues[v] = vw
	}
	if vw == nil {
		text := shellText(prefix)
		if text != "" {
			text += " "
		}
		*out = append(*out, aliasExpansion{text: text + v + " " + shellText(rest)})
		return
	}
	ws := append(append([]word{}, prefix...), vw...)
	if strings.TrimRight(v, " \t") != v && len(rest) > 0 && rest[0].exact && !seen[rest[0].lit] {
		next := rest[0].lit
		for _, v2 := range c.defs.aliases[next] {
			seen2 := map[string]bool{next: true}
			for k := range seen {
				seen2[k] = true
			}
			c.aliasReadings(ws, v2, rest[1:], seen2, out)
		}
	}
	*out = append(*out, aliasExpansion{ws: append(ws, rest...)})
}

// aliasWords reads an alias value that is a simple command (words and assignments, nothing
// after them) as its words; simple is false for anything else (;, |, a redirection, a
// comment, a keyword, an unfinished quote), which is then read as text.
func aliasWords(v string) (ws []word, simple bool) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(v), "")
	if err != nil || len(f.Last) > 0 || continues(v, f) {
		return nil, false
	}
	switch len(f.Stmts) {
	case 0:
		return []word{}, true
	case 1:
	default:
		return nil, false
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(st.Comments) > 0 || st.Semicolon.IsValid() {
		return nil, false
	}
	ws = []word{}
	for _, w := range call.Args {
		ws = append(ws, words(w, nil)...)
	}
	return ws, true
}

// shellText writes words back as shell text: literal words quoted, the others as an
// expansion that stands for anything (one word, or any number when they may be several).
func shellText(ws []word) string {
	return joinWords(ws, func(w word) string {
		if w.multi {
			return "$__toolhost_unknown"
		}
		return `"$__toolhost_unknown"`
	})
}

// joinWords writes words back as one line: a literal word quoted for bash where it can be,
// any other word as other says.
func joinWords(ws []word, other func(word) string) string {
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		if w.exact {
			if q, err := syntax.Quote(w.lit, syntax.LangBash); err == nil {
				parts = append(parts, q)
				continue
			}
		}
		parts = append(parts, other(w))
	}
	return strings.Join(parts, " ")
}
