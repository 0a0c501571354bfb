package cmdrules

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// hookVars are the variables whose value the shell runs: the prompt hooks a session's shell
// runs at every prompt, the file a shell started later sources, and the alias table.
var hookVars = map[string]string{
	"PROMPT_COMMAND": "script", "PS0": "prompt", "PS1": "prompt", "PS2": "prompt", "PS4": "prompt",
	"BASH_ENV": "file", "ENV": "file", "BASH_ALIASES": "aliases",
}

// assign checks an assignment to a variable the shell runs: PROMPT_COMMAND as a script, a
// prompt string's expansions, BASH_ENV's file, BASH_ALIASES[NAME] as an alias; a nameref to
// one of them is asked about.
func (c *checker) assign(a *syntax.Assign, depth int) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	var vals []*syntax.Word
	var keys []syntax.ArithmExpr
	if a.Value != nil {
		vals, keys = append(vals, a.Value), append(keys, a.Index)
	}
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Value != nil {
				vals, keys = append(vals, e.Value), append(keys, e.Index)
			}
		}
	}
	for i, v := range vals {
		ws := words(v, nil)
		val := word{}
		if len(ws) == 1 {
			val = ws[0]
		}
		key, keyKnown := "", false
		if kw, ok := keys[i].(*syntax.Word); ok {
			if kws := words(kw, nil); len(kws) == 1 && kws[0].exact {
				key, keyKnown = kws[0].lit, true
			}
		}
		c.hook(name, key, keyKnown, val, depth)
	}
}

// hook checks the value given to a variable NAME[KEY] (keyKnown says KEY is literal; KEY is
// "" without one) when the shell runs what that variable holds.
func (c *checker) hook(name, key string, keyKnown bool, val word, depth int) {
	kind := hookVars[name]
	if kind == "" {
		// declare -n ref=PROMPT_COMMAND: the hook is set through ref.
		if n, _, _ := strings.Cut(val.lit, "["); val.exact && hookVars[n] != "" {
			c.unknown(name+"="+val.lit, "a reference to "+n)
		}
		return
	}
	if !val.exact {
		c.unknown(name+"=…", name+" set from words only known when it runs")
		return
	}
	switch kind {
	case "script":
		c.script(val.lit, depth+1)
	case "prompt":
		c.promptString(name, val.lit, depth)
	case "file":
		c.file(val, depth)
	case "aliases":
		if !keyKnown || key == "" {
			c.unknown(name+"=…", "an alias defined from words only known when it runs")
			return
		}
		c.addAlias(literal(key + "=" + val.lit))
		c.script(val.lit, depth+1)
	}
}

// promptString checks the command substitutions of a prompt string (the shell expands it
// at every prompt), read as the body of a here-document, which expands the same way.
func (c *checker) promptString(name, v string, depth int) {
	const delim = "__TOOLHOST_PROMPT__"
	if strings.Contains(v, delim) {
		c.unknown(name+"="+v, "a prompt string the rules cannot read")
		return
	}
	c.script(": <<"+delim+"\n"+v+"\n"+delim+"\n", depth+1)
}

// bind is asked about unless it only lists: a key bound to a shell command (-x) or to a
// macro that types text runs a line the terminal never sees typed.
func (c *checker) bind(ws []word) {
	for _, a := range ws[1:] {
		if !a.exact || !strings.HasPrefix(a.lit, "-") || strings.Trim(a.lit, "-lpPvVsSX") != "" {
			c.unknown(render(ws), "bind can make a key run or type a command the rules do not see")
			return
		}
	}
}

// setParams follows set [options] [--] WORDS, which sets the positional parameters (set
// with options only leaves them).
func (c *checker) setParams(args []word) {
	i, found := 0, false
	for i < len(args) {
		a := args[i]
		if !a.exact {
			c.addPos(nil)
			return
		}
		if a.lit == "--" || a.lit == "-" {
			i, found = i+1, true
			break
		}
		if len(a.lit) > 1 && (a.lit[0] == '-' || a.lit[0] == '+') {
			if strings.ContainsRune(a.lit[1:], 'o') {
				i++ // -o NAME
			}
			i++
			continue
		}
		found = true
		break
	}
	if found {
		c.addPos(&params{args: append([]word(nil), args[min(i, len(args)):]...)})
	}
}

// shiftParams follows shift [N]: both the parameters before and after it remain possible
// (the rules do not follow control flow).
func (c *checker) shiftParams(args []word) {
	n := 1
	if len(args) > 0 {
		v, err := strconv.Atoi(args[0].lit)
		if !args[0].exact || err != nil || v < 0 {
			c.addPos(nil)
			return
		}
		n = v
	}
	for _, p := range append([]*params(nil), c.pos...) {
		switch {
		case p == nil:
		case anyMulti(p.args[:min(n, len(p.args))]):
			c.addPos(nil)
		case n <= len(p.args):
			c.addPos(&params{args: p.args[n:]})
		}
	}
}

// addPos adds a value the positional parameters may have from here on; past maxPosAlts,
// unknown stands for the rest.
func (c *checker) addPos(p *params) {
	if len(c.pos) >= maxPosAlts {
		p = nil
		for _, q := range c.pos {
			if q == nil {
				return
			}
		}
		c.pos[len(c.pos)-1] = nil
		return
	}
	c.pos = append(c.pos, p)
}
