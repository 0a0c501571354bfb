package cmdrules

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"toolhost/internal/lazyregexp"

	"mvdan.cc/sh/v3/syntax"
)

// Env is what checking a line needs to know about where it runs.
type Env struct {
	// Dir is the directory the line runs in, for script files named relatively.
	Dir string
	// ReadFile reads a script that the line runs (source FILE, . FILE, bash FILE, bash <
	// FILE), so its commands are checked too. Nil, or an error, makes such a script unknown
	// (asked about).
	ReadFile func(path string) ([]byte, error)
	// Defs are the aliases and functions earlier lines of the same shell defined (a terminal
	// session's); nil for a line that runs in a shell of its own (run_command). Check adds
	// what the line defines.
	Defs *Defs
}

// Verdict is the outcome of checking a line: the strictest outcome of any command in it.
type Verdict struct {
	Action Action
	// Rule names the deciding rule ("" when no rule decided: unmatched, or unknown).
	Rule string
	// Command is the simple command the verdict is about, as far as it is known.
	Command string
	// Reason says why, in words, for ask and deny.
	Reason string
	// Unparsed says the line itself is not shell the parser can read; Incomplete that it is
	// an unfinished statement (an open quote, a loop without its end) that more lines finish.
	Unparsed, Incomplete bool
}

// String renders the verdict for `toolhost rules test`.
func (v Verdict) String() string {
	s := v.Action.String()
	if v.Command != "" {
		s += ": " + v.Command
	}
	if v.Reason != "" {
		s += " (" + v.Reason + ")"
	}
	return s
}

// maxDepth bounds nested scripts (bash -c 'bash -c ...', eval, source); deeper is unknown.
const maxDepth = 8

// maxScript bounds a script file read to check it.
const maxScript = 256 << 10

// Bounds on following aliases and functions: how often one function may be entered within
// itself (recursion; deeper calls were checked with unknown arguments where it is defined),
// how many expansions one line may take in all, how many values the positional parameters
// are followed with, and how many passes Check makes to learn definitions it meets late.
const (
	maxCallNest  = 3
	maxExpansion = 256
	maxPosAlts   = 6
	maxPasses    = 3
)

// cnfHandler is the function bash calls with the words of a command it cannot find.
const cnfHandler = "command_not_found_handle"

// Check decides a line of shell: every simple command in it — through ;, &&, ||, pipes,
// subshells, groups, $(...), backticks, process substitution, functions, here-documents fed
// to a shell, bash -c/sh -c, eval, source, alias and trap bodies, and the wrappers sudo,
// env, xargs, nice, timeout, nohup, exec, command, builtin, find -exec and the like — is
// matched against the rules in order (first match wins). A line that does not parse, and a
// command whose name or script is only known when it runs, is asked about whenever the
// rules could refuse anything; it is never allowed by a rule.
//
// Aliases and functions are followed: a command whose name the line (or, through Env.Defs,
// an earlier line of the same shell) defines as an alias or a function is checked as itself
// and as each definition, with its arguments in place of "$@", "$1"... A function body is
// also checked where it is defined, with its arguments unknown, so a body that passes its
// arguments to a command a rule could match is asked about even before a call.
func (rs *Rules) Check(line string, env Env) Verdict {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(line), "")
	incomplete := syntax.IsIncomplete(err)
	if err == nil && continues(line, f) {
		err, incomplete = errors.New("the line ends with a backslash: the shell waits for the rest"), true
	}
	if err != nil {
		v := Verdict{Unparsed: true, Incomplete: incomplete, Command: shorten(line),
			Reason: "the shell parser cannot read it: " + shorten(err.Error())}
		if rs.CanRefuse() {
			v.Action = Ask
		}
		return v
	}
	known, full := env.Defs.snapshot()
	var v Verdict
	for pass := 0; pass < maxPasses; pass++ {
		// A definition met late (inside eval, a sourced file, a loop that calls before it
		// defines) is known from the start of the next pass.
		c := &checker{rs: rs, env: env, defs: known, pos: []*params{nil}, active: map[string]int{},
			bodies: map[string]*syntax.Stmt{}, aliasValues: map[string][]word{}, budget: maxExpansion}
		c.script(line, 0)
		if pass == 0 || stricter(c.v, v) {
			v = c.v
		}
		known = c.defs
		if !c.grew {
			break
		}
		known = known.clone()
	}
	if env.Defs.merge(known) || full {
		if rs.CanRefuse() && v.Action < Ask {
			v = Verdict{Action: Ask, Command: shorten(line),
				Reason: "the session defined more aliases and functions than the rules keep track of"}
		}
	}
	return v
}

func stricter(a, b Verdict) bool {
	return a.Action > b.Action
}

// continues reports whether src ends in a backslash that continues the line: the shell then
// waits for the next line and joins it, where the parser (at the end of its input) drops the
// backslash. Checked alone, the start of a command would pass and its end arrive unchecked.
func continues(src string, f *syntax.File) bool {
	n := len(src) - len(strings.TrimRight(src, `\`))
	if n%2 == 0 {
		return false
	}
	// In a comment a backslash continues nothing.
	inComment := false
	syntax.Walk(f, func(node syntax.Node) bool {
		if cm, ok := node.(*syntax.Comment); ok && int(cm.End().Offset()) >= len(src) {
			inComment = true
		}
		return !inComment
	})
	for _, cm := range f.Last {
		if int(cm.End().Offset()) >= len(src) {
			inComment = true
		}
	}
	return !inComment
}

// Refusal is the error a terminal returns for a line the rules do not let run: denied, or
// waiting for the user's approval (RequestID names the pending approval request; empty
// when no request can be filed, e.g. a line edited with keys).
type Refusal struct {
	Verdict   Verdict
	Line      string
	Dir       string
	RequestID string
}

func (r *Refusal) Error() string {
	if r.Verdict.Action == Deny {
		return "command denied: " + r.Verdict.String()
	}
	return "command needs the user's approval: " + r.Verdict.String()
}

type checker struct {
	rs  *Rules
	env Env
	v   Verdict
	// collect receives every command seen while a pipeline stage is being walked.
	collect []*[]cmd
	// pos are the values the positional parameters may have where the walk is: nil for
	// unknown (the top level, a function body where it is defined), the arguments in a
	// function called on the line, more after set -- and shift.
	pos []*params
	// defs are the aliases and functions known (the session's and the line's); grew says
	// this pass met one only after it had begun walking commands.
	defs defset
	grew bool
	// aliasValues are alias values read as words (nil: not a simple command), by value.
	aliasValues map[string][]word
	// bodies are function bodies by definition text, parsed once.
	bodies map[string]*syntax.Stmt
	// active counts the aliases ("a NAME") and functions ("f NAME") being followed, so that
	// an alias is not expanded within itself (as in bash) and recursion stops.
	active map[string]int
	// budget is how many more alias and function expansions the line may take.
	budget int
}

// cmd is a command whose name is known (exact) or not.
type cmd struct {
	ws      []word
	unknown bool
}

func (c *checker) record(v Verdict) {
	if v.Action > c.v.Action || v.Action == c.v.Action && c.v.Command == "" {
		c.v = v
	}
}

// unknown records a command or script that cannot be seen before it runs.
func (c *checker) unknown(text, reason string) {
	if !c.rs.CanRefuse() {
		return
	}
	c.record(Verdict{Action: Ask, Command: shorten(text), Reason: reason})
	for _, col := range c.collect {
		*col = append(*col, cmd{unknown: true})
	}
}

func (c *checker) script(src string, depth int) {
	if depth > maxDepth {
		c.unknown(src, "scripts nested too deeply to check")
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
	if err != nil {
		c.unknown(src, "the shell parser cannot read it: "+shorten(err.Error()))
		return
	}
	if strayComment(f, src) {
		c.unknown(src, "a '#' inside a word, which the parser would take for a comment where bash does not")
		return
	}
	c.learn(f)
	if depth == 0 {
		// Known before any command is walked: no need for another pass.
		c.grew = false
	}
	for _, st := range f.Stmts {
		c.walk(st, depth, false)
	}
}

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

// walk visits a node and everything in it. piped says its standard input is not the
// terminal's: a pipe (not the first stage) or a redirection of a compound command.
func (c *checker) walk(node syntax.Node, depth int, piped bool) {
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				c.pipeline(n, depth)
				return false
			}
		case *syntax.Assign:
			c.assign(n, depth)
		case *syntax.FuncDecl:
			// Checked where it is defined with its arguments unknown: it may be called later
			// (by a later line of the session, or as command_not_found_handle) with any.
			save := c.pos
			c.pos = []*params{nil}
			if n.Body != nil {
				c.walk(n.Body, depth, piped)
			}
			c.pos = save
			return false
		case *syntax.Stmt:
			if _, ok := n.Cmd.(*syntax.CallExpr); !ok && n.Cmd != nil && !piped && readsStdin(n) {
				// { bash; } <<EOF, while ...; done < f: a shell inside reads the redirection.
				c.walk(n.Cmd, depth, true)
				for _, r := range n.Redirs {
					c.walk(r, depth, false)
				}
				return false
			}
			if call, ok := n.Cmd.(*syntax.CallExpr); ok {
				c.call(n, call, depth, piped)
				// Still walk its words and redirections: $(...) inside them are commands too.
				for _, a := range call.Assigns {
					c.walk(a, depth, false)
				}
				for _, w := range call.Args {
					c.walk(w, depth, false)
				}
				for _, r := range n.Redirs {
					c.walk(r, depth, false)
				}
				return false
			}
		}
		return true
	})
}

// pipeline checks each stage and then the pipeline rules across stages.
func (c *checker) pipeline(b *syntax.BinaryCmd, depth int) {
	var stages []*syntax.Stmt
	var flat func(s *syntax.Stmt)
	flat = func(s *syntax.Stmt) {
		if bc, ok := s.Cmd.(*syntax.BinaryCmd); ok && (bc.Op == syntax.Pipe || bc.Op == syntax.PipeAll) && len(s.Redirs) == 0 {
			flat(bc.X)
			flat(bc.Y)
			return
		}
		stages = append(stages, s)
	}
	flat(b.X)
	flat(b.Y)
	seen := make([][]cmd, len(stages))
	for i, s := range stages {
		var col []cmd
		c.collect = append(c.collect, &col)
		c.walk(s, depth, i > 0)
		c.collect = c.collect[:len(c.collect)-1]
		seen[i] = col
	}
	for _, r := range c.rs.list {
		if len(r.stages) < 2 {
			continue
		}
		lvl := matchPipeline(r.stages, seen)
		if lvl == yes || lvl == maybe && r.Action != Allow {
			v := Verdict{Action: r.Action, Rule: r.Name, Command: shorten(stagesText(seen)), Reason: "rule " + quote(r.Name)}
			if lvl == maybe {
				v.Action = Ask
				v.Reason = "may match rule " + quote(r.Name) + "; some words are only known when it runs"
			}
			c.record(v)
			return
		}
	}
}

// call checks one simple command with its statement's redirections: once for each value the
// positional parameters may have, when it uses them.
func (c *checker) call(st *syntax.Stmt, call *syntax.CallExpr, depth int, piped bool) {
	alts := []*params{nil}
	if usesParams(call.Args) {
		alts = append([]*params(nil), c.pos...)
	}
	for _, pos := range alts {
		var ws []word
		for _, w := range call.Args {
			ws = append(ws, words(w, pos)...)
		}
		c.command(ws, st, depth, piped)
	}
}

// usesParams reports whether words refer to positional parameters directly ($1, "$@", $*,
// $#); those inside $(...) are the business of the commands there.
func usesParams(ws []*syntax.Word) bool {
	found := false
	for _, w := range ws {
		syntax.Walk(w, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst:
				return false
			case *syntax.ParamExp:
				if n.Param != nil && (isPositional(n.Param.Value) || n.Param.Value == "@" || n.Param.Value == "*" || n.Param.Value == "#") {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// readsStdin reports whether a statement's standard input is redirected (a file, a
// here-document, a here-string, a duplicate).
func readsStdin(st *syntax.Stmt) bool {
	if st == nil {
		return false
	}
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			return true
		}
	}
	return false
}

// command checks a command given as words, then whatever it runs in turn.
func (c *checker) command(ws []word, st *syntax.Stmt, depth int, piped bool) {
	if len(ws) == 0 {
		return
	}
	if !ws[0].exact {
		c.unknown(render(ws), "the command name is only known when the line runs")
		return
	}
	for _, col := range c.collect {
		*col = append(*col, cmd{ws: ws})
	}
	c.rules(ws)
	if depth > maxDepth {
		c.unknown(render(ws), "commands nested too deeply to check")
		return
	}
	c.unwrap(ws, st, depth, piped)
	c.expand(ws, st, depth, piped)
}

// expand checks what the command runs if its name is an alias or a function: each
// definition with the command's words. The name is checked as itself too (by the caller):
// the rules cannot always tell whether the alias is expanded (expand_aliases, a quoted or
// escaped name, command, a definition that did not run), so every reading counts.
func (c *checker) expand(ws []word, st *syntax.Stmt, depth int, piped bool) {
	name := ws[0].lit
	stdin := piped || readsStdin(st)
	if vals := c.defs.aliases[name]; len(vals) > 0 && c.active["a "+name] == 0 {
		for _, v := range vals {
			if !c.spend(ws) {
				return
			}
			c.aliasExpand(name, v, ws[1:], st, depth, piped, stdin)
		}
	}
	if texts := c.defs.funcs[name]; len(texts) > 0 && c.active["f "+name] < maxCallNest {
		for _, t := range texts {
			if !c.spend(ws) {
				return
			}
			c.callFunc(name, t, ws[1:], depth, stdin)
		}
	}
	// bash runs command_not_found_handle with the words of a command it cannot find; any
	// command might be one.
	if texts := c.defs.funcs[cnfHandler]; len(texts) > 0 && name != cnfHandler && c.active["f "+cnfHandler] == 0 {
		for _, t := range texts {
			if !c.spend(ws) {
				return
			}
			c.callFunc(cnfHandler, t, ws, depth, stdin)
		}
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
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		if w.exact {
			if q, err := syntax.Quote(w.lit, syntax.LangBash); err == nil {
				parts = append(parts, q)
				continue
			}
		}
		if w.multi {
			parts = append(parts, "$__toolhost_unknown")
		} else {
			parts = append(parts, `"$__toolhost_unknown"`)
		}
	}
	return strings.Join(parts, " ")
}

// rules applies the first single-command rule that matches. When words only known at run
// time may or may not match a rule, the rules after it may decide too: if every rule that
// could decide denies, the command is denied, else it is asked about (never allowed by a
// guess; a rule that may allow does not count, so a guess never weakens a deny either).
func (c *checker) rules(ws []word) {
	var first *Rule // the first rule that may refuse it
	possible := map[Action]bool{}
	decided := false
	for i := range c.rs.list {
		r := &c.rs.list[i]
		if len(r.stages) != 1 {
			continue
		}
		lvl := matchStage(r.stages[0], ws)
		if lvl == no || lvl == maybe && r.Action == Allow {
			continue
		}
		if lvl == yes && len(possible) == 0 {
			v := Verdict{Action: r.Action, Rule: r.Name, Command: shorten(render(ws))}
			if r.Action != Allow {
				v.Reason = "rule " + quote(r.Name)
			}
			c.record(v)
			return
		}
		if first == nil {
			first = r
		}
		possible[r.Action] = true
		if lvl == yes {
			decided = true
			break
		}
	}
	if !decided && first == nil {
		switch c.rs.unmatched {
		case Deny:
			c.record(Verdict{Action: Deny, Command: shorten(render(ws)), Reason: "no allow rule names it (allow-list)"})
		case Ask:
			c.record(Verdict{Action: Ask, Command: shorten(render(ws)), Reason: "no rule names it"})
		}
		return
	}
	if !decided {
		possible[c.rs.unmatched] = true
	}
	if len(possible) == 1 && possible[Deny] {
		c.record(Verdict{Action: Deny, Rule: first.Name, Command: shorten(render(ws)),
			Reason: "rule " + quote(first.Name) + " whatever the words only known when it runs are"})
		return
	}
	c.record(Verdict{Action: Ask, Rule: first.Name, Command: shorten(render(ws)),
		Reason: "may match rule " + quote(first.Name) + "; some words are only known when it runs"})
}

// Match levels.
type level uint8

const (
	no level = iota
	maybe
	yes
)

// matchStage matches a pattern (name, then arguments in order, not necessarily adjacent)
// against a command's words.
func matchStage(pat [][]glob, ws []word) level {
	if len(pat) == 0 || len(ws) == 0 {
		return no
	}
	if !nameMatches(pat[0], ws[0]) {
		return no
	}
	return matchArgs(pat[1:], ws[1:])
}

func nameMatches(alts []glob, w word) bool {
	names := []string{w.lit}
	if strings.Contains(w.lit, "/") {
		names = append(names, filepath.Base(w.lit))
	}
	for _, g := range alts {
		for _, n := range names {
			if g.match(n) {
				return true
			}
		}
	}
	return false
}

// wordMatches says whether a command word can be one of a pattern word's alternatives.
func wordMatches(alts []glob, w word) level {
	best := no
	for _, g := range alts {
		if w.exact {
			if g.match(w.lit) {
				return yes
			}
			continue
		}
		if overlaps(g, w.g) {
			best = maybe
		}
	}
	return best
}

// matchArgs finds the pattern words as a subsequence of the arguments; a word that may
// become several words can stand for several pattern words.
func matchArgs(pat [][]glob, args []word) level {
	memo := map[[2]int]level{}
	var m func(i, j int) level
	m = func(i, j int) level {
		if i == len(pat) {
			return yes
		}
		if j == len(args) {
			return no
		}
		k := [2]int{i, j}
		if v, ok := memo[k]; ok {
			return v
		}
		best := m(i, j+1)
		if best != yes {
			if lv := wordMatches(pat[i], args[j]); lv != no {
				rest := m(i+1, j+1)
				if args[j].multi {
					rest = max(rest, m(i+1, j))
				}
				best = max(best, min(lv, rest))
			}
		}
		memo[k] = best
		return best
	}
	return m(0, 0)
}

// matchPipeline finds the pattern's stages, in order, among the pipeline's stages.
func matchPipeline(pat [][][]glob, stages [][]cmd) level {
	var m func(i, j int) level
	m = func(i, j int) level {
		if i == len(pat) {
			return yes
		}
		best := no
		for k := j; k < len(stages) && best != yes; k++ {
			for _, cm := range stages[k] {
				lv := maybe
				if !cm.unknown {
					lv = matchStage(pat[i], cm.ws)
				}
				if lv == no {
					continue
				}
				best = max(best, min(lv, m(i+1, k+1)))
			}
		}
		return best
	}
	return m(0, 0)
}

// shells are the programs whose -c argument, script file or standard input is shell code.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true,
	"ash": true, "yash": true, "posh": true, "rbash": true, "fish": true}

// wrapper describes a program that runs its arguments as a command: the options that take a
// separate value, how many positional words come before the command, and an option whose
// value is a shell script.
type wrapper struct {
	valued  string // space-separated options taking a value ("-u --user")
	skip    int    // positional words before the command (timeout's duration)
	script  string // option whose value is a shell script ("-c")
	joinAll bool   // the arguments are joined into a shell script (watch)
	stdin   bool   // arguments come from standard input too (xargs): add an unknown word
	assigns bool   // NAME=value words before the command set its environment (env, sudo)
}

var wrappers = map[string]wrapper{
	"sudo":     {valued: "-u -g -C -D -h -p -r -t -T -U --user --group --chdir --prompt --role --type --host --other-user --close-from --command-timeout", assigns: true},
	"doas":     {valued: "-u -C"},
	"env":      {valued: "-u -C -S --unset --chdir --split-string", assigns: true},
	"nice":     {valued: "-n --adjustment"},
	"ionice":   {valued: "-c -n --class --classdata"},
	"chrt":     {skip: 1},
	"taskset":  {skip: 1},
	"timeout":  {valued: "-k -s --kill-after --signal", skip: 1},
	"nohup":    {},
	"setsid":   {},
	"stdbuf":   {valued: "-i -o -e --input --output --error"},
	"time":     {valued: "-f -o --format --output"},
	"unbuffer": {},
	"flock":    {valued: "-w -E --timeout --conflict-exit-code", skip: 1, script: "-c --command"},
	"exec":     {valued: "-a"},
	"command":  {},
	"builtin":  {},
	"unshare":  {valued: "--setuid --setgid --wd --root --map-user --map-group"},
	"nsenter":  {valued: "-t --target -S --setuid -G --setgid -w --wd -r --root"},
	"runuser":  {valued: "-u -g -G --user --group --supp-group", script: "-c --command"},
	"su":       {valued: "-g -G --group --supp-group -s --shell", script: "-c --command"},
	"script":   {valued: "-E -I -O -B -T -t --echo --log-in --log-out --log-io --log-timing", script: "-c --command"},
	"watch":    {valued: "-n -d --interval --differences", joinAll: true},
	"xargs":    {valued: "-a -d -E -I -L -n -P -s --arg-file --delimiter --eof --replace --max-lines --max-args --max-procs --max-chars --process-slot-var", stdin: true},
	"strace":   {valued: "-e -o -p -s -u -E -a -b -I -O -S -X -P"},
	"ltrace":   {valued: "-e -o -p -s -u -n -a"},
}

// unwrap checks what a command runs: a wrapped command, a shell script, a script file.
func (c *checker) unwrap(ws []word, st *syntax.Stmt, depth int, piped bool) {
	name := filepath.Base(ws[0].lit)
	args := ws[1:]
	switch {
	case name == "busybox" && len(args) > 0 && args[0].exact && shells[args[0].lit]:
		c.shell(args[1:], st, depth, piped)
	case shells[name]:
		c.shell(args, st, depth, piped)
	case name == "eval":
		text, ok := joinExact(args)
		if !ok {
			c.unknown(render(ws), "eval of words only known when it runs")
			return
		}
		c.script(text, depth+1)
	case name == "source" || name == ".":
		if len(args) == 0 {
			return
		}
		save := c.pos
		if len(args) > 1 {
			c.pos = []*params{{args: args[1:]}}
		}
		c.file(args[0], depth)
		c.pos = save
	case name == "alias":
		for _, a := range args {
			if !a.exact {
				c.unknown(render(ws), "an alias defined from words only known when it runs")
				continue
			}
			if _, v, ok := strings.Cut(a.lit, "="); ok {
				c.addAlias(a)
				c.script(v, depth+1)
			}
		}
	case name == "hash":
		// hash -p PATH NAME runs PATH for NAME, like an alias.
		for i, a := range args {
			if !a.exact || a.lit == "-p" && i+2 < len(args) && (!args[i+1].exact || !args[i+2].exact) {
				c.unknown(render(ws), "hash with words only known when it runs")
				return
			}
			if a.lit == "-p" && i+2 < len(args) {
				q, err := syntax.Quote(args[i+1].lit, syntax.LangBash)
				if err != nil {
					c.unknown(render(ws), "hash -p of a path that cannot be quoted")
					return
				}
				c.addAlias(literal(args[i+2].lit + "=" + q))
				return
			}
		}
	case name == "bind":
		c.bind(ws)
	case name == "read" || name == "printf" || name == "mapfile" || name == "readarray":
		// read PROMPT_COMMAND, printf -v 'BASH_ALIASES[g]' ...: a hook set from what runs.
		for _, a := range args {
			if n, _, _ := strings.Cut(a.lit, "["); a.exact && hookVars[n] != "" {
				c.unknown(render(ws), n+" set from words only known when it runs")
			}
		}
	case name == "set":
		c.setParams(args)
	case name == "shift":
		c.shiftParams(args)
	case name == "trap":
		if len(args) > 0 {
			if !args[0].exact {
				c.unknown(render(ws), "a trap whose action is only known when it runs")
				return
			}
			c.script(args[0].lit, depth+1)
		}
	case name == "find":
		c.findExec(args, st, depth)
	default:
		w, ok := wrappers[name]
		if ok {
			c.wrapped(name, w, args, st, depth, piped)
		}
	}
}

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

// wrapped checks the command a wrapper runs.
func (c *checker) wrapped(name string, w wrapper, args []word, st *syntax.Stmt, depth int, piped bool) {
	valued := strings.Fields(w.valued)
	scriptOpts := strings.Fields(w.script)
	// A script option may come after positional words (su USER -c SCRIPT, flock FILE -c
	// SCRIPT): look for it everywhere.
	for k, a := range args {
		if !a.exact {
			continue
		}
		opt, val, hasVal := strings.Cut(a.lit, "=")
		if !contains(scriptOpts, opt) {
			continue
		}
		switch {
		case hasVal:
			c.script(val, depth+1)
		case k+1 < len(args) && args[k+1].exact:
			c.script(args[k+1].lit, depth+1)
		case k+1 < len(args):
			c.unknown(render(args), name+" runs a script only known when it runs")
		}
		return
	}
	i := 0
	interactive := false
	for i < len(args) {
		a := args[i]
		if w.assigns && envAssignment(a) {
			// env and sudo take any word with '=' before the command for a variable
			// (A%=1 too); BASH_FUNC_NAME%%=() {...} hands bash a function.
			vname, val, _ := strings.Cut(a.lit, "=")
			if fname, ok := strings.CutPrefix(vname, "BASH_FUNC_"); ok {
				if !a.exact {
					c.unknown(render(args), "a function passed to bash in the environment, only known when it runs")
				} else {
					c.script(strings.TrimSuffix(fname, "%%")+" "+val, depth+1)
				}
			} else if hookVars[vname] != "" {
				// env PROMPT_COMMAND=... bash -i: a hook of the shell it starts.
				v := literal(val)
				v.exact = a.exact
				c.hook(vname, "", false, v, depth)
			}
			i++
			continue
		}
		if !a.exact {
			break // an option or the command: either way only known at run time
		}
		if a.lit == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a.lit, "-") || a.lit == "-" {
			break
		}
		opt, val, hasVal := strings.Cut(a.lit, "=")
		if name == "env" && (opt == "-S" || opt == "--split-string") {
			// env -S 'cmd args': the string is split into words that continue the command.
			text := val
			if !hasVal {
				if i+1 >= len(args) || !args[i+1].exact {
					c.unknown(render(args), "env -S with words only known when it runs")
					return
				}
				text = args[i+1].lit
				i++
			}
			i++
			split := splitWords(text)
			if split == nil {
				c.unknown(text, "env -S string the shell parser cannot read")
				return
			}
			args = append(append(append([]word{}, args[:i]...), split...), args[i:]...)
			continue
		}
		if (name == "sudo" || name == "doas") && (opt == "-s" || opt == "-i" || opt == "--shell" || opt == "--login") {
			interactive = true
		}
		i++
		if contains(valued, opt) && !hasVal {
			i++
		}
	}
	i += w.skip
	if i >= len(args) {
		return
	}
	rest := args[i:]
	switch {
	case w.joinAll || interactive:
		text, ok := joinExact(rest)
		if !ok {
			c.unknown(render(rest), name+" runs words only known when it runs")
			return
		}
		c.script(text, depth+1)
	case w.stdin:
		c.command(append(append([]word{}, rest...), unknownWord), st, depth+1, false)
	default:
		c.command(rest, st, depth+1, piped)
	}
}

// findExec checks the commands of find -exec, -execdir, -ok and -okdir; {} is unknown.
func (c *checker) findExec(args []word, st *syntax.Stmt, depth int) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact || (a.lit != "-exec" && a.lit != "-execdir" && a.lit != "-ok" && a.lit != "-okdir") {
			continue
		}
		var inner []word
		for i++; i < len(args); i++ {
			if args[i].exact && (args[i].lit == ";" || args[i].lit == "+") {
				break
			}
			if args[i].exact && strings.Contains(args[i].lit, "{}") {
				inner = append(inner, word{g: glob{{kind: gStar}}})
				continue
			}
			inner = append(inner, args[i])
		}
		c.command(inner, st, depth+1, false)
	}
}

// shell checks what a shell runs: -c SCRIPT, a script file, or its standard input when that
// is a here-document, a here-string, a file or a pipe.
func (c *checker) shell(args []word, st *syntax.Stmt, depth int, piped bool) {
	dashC := false
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			c.unknown(render(args), "shell options only known when it runs")
			return
		}
		if a.lit == "--" || a.lit == "-" {
			i++
			break
		}
		if !shellOption.MatchString(a.lit) {
			// Not an option the shell knows the shape of: it is the script (or the shell fails
			// on it); checking it as the script is the safe reading.
			break
		}
		if strings.HasPrefix(a.lit, "--") {
			if a.lit == "--rcfile" || a.lit == "--init-file" {
				i++
			}
			continue
		}
		flags := a.lit[1:]
		if strings.ContainsRune(flags, 'c') {
			dashC = true
		}
		if strings.ContainsAny(flags, "oO") {
			i++ // -o option / -O shopt take a value
		}
	}
	if dashC {
		if i >= len(args) {
			return
		}
		if !args[i].exact {
			c.unknown(render(args), "the shell's -c script is only known when it runs")
			return
		}
		// sh -c SCRIPT NAME ARGS...: ARGS are its positional parameters.
		save := c.pos
		c.pos = []*params{{}}
		if i+2 < len(args) {
			c.pos[0].args = args[i+2:]
		}
		c.script(args[i].lit, depth+1)
		c.pos = save
		return
	}
	save := c.pos
	defer func() { c.pos = save }()
	c.pos = []*params{nil}
	if i < len(args) {
		c.pos = []*params{{args: args[i+1:]}}
		c.file(args[i], depth)
		return
	}
	// No script: the shell reads its standard input.
	for _, r := range st.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			c.literalScript(r.Hdoc, depth)
			return
		case syntax.WordHdoc:
			c.literalScript(r.Word, depth)
			return
		case syntax.RdrIn:
			ws := words(r.Word, nil)
			if len(ws) == 1 {
				c.file(ws[0], depth)
			} else {
				c.unknown("", "a shell reading a script only known when it runs")
			}
			return
		}
	}
	if piped {
		c.unknown(render(args), "a shell reading its commands from a pipe")
	}
}

// strayComment reports a comment that does not start a word: the parser ends a word such
// as 0""# there and drops the rest of the line as a comment, where bash keeps the # in the
// word and runs what follows. A line read differently from bash is not checked by guess.
func strayComment(f *syntax.File, src string) bool {
	stray := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if cm, ok := n.(*syntax.Comment); ok {
			off := int(cm.Hash.Offset())
			if off > 0 && off <= len(src) && !strings.ContainsRune(" \t\n;&|()<>", rune(src[off-1])) {
				stray = true
			}
		}
		return !stray
	})
	return stray
}

// shellOption is the shape of a shell option word: -abc, +abc, --long-name.
var shellOption = lazyregexp.New(`^(?:[-+][A-Za-z]+|--[a-z][a-z-]*)$`)

// literalScript checks a here-document or here-string fed to a shell.
func (c *checker) literalScript(w *syntax.Word, depth int) {
	if w == nil {
		return
	}
	ev := evalParts(w.Parts)
	if !ev.exact {
		c.unknown(ev.lit, "a here-document with parts only known when it runs")
		return
	}
	c.script(ev.lit, depth+1)
}

// file checks a script file the line runs.
func (c *checker) file(w word, depth int) {
	if !w.exact {
		c.unknown(w.lit, "runs a script file only known when the line runs")
		return
	}
	if c.env.ReadFile == nil {
		c.unknown(w.lit, "runs the script file "+quote(w.lit)+", which the rules cannot see")
		return
	}
	p := w.lit
	if !filepath.IsAbs(p) && c.env.Dir != "" {
		p = filepath.Join(c.env.Dir, p)
	}
	b, err := c.env.ReadFile(p)
	if err != nil || len(b) > maxScript {
		c.unknown(w.lit, "runs the script file "+quote(w.lit)+", which cannot be read now")
		return
	}
	c.script(string(b), depth+1)
}

// envAssignment reports whether env or sudo takes a word before the command for a variable:
// '=' after a non-empty name that does not start with '-' (env takes A%=1 too, which the
// shell would not; the value may be unknown).
func envAssignment(w word) bool {
	for k, t := range w.g {
		if t.kind != gLit {
			return false
		}
		if t.r == '=' {
			return k > 0
		}
		if k == 0 && t.r == '-' {
			return false
		}
	}
	return false
}

func joinExact(ws []word) (string, bool) {
	parts := make([]string, len(ws))
	for i, w := range ws {
		if !w.exact {
			return "", false
		}
		parts[i] = w.lit
	}
	return strings.Join(parts, " "), true
}

// splitWords splits text into words the way env -S does, approximated by the shell parser;
// nil when it cannot.
func splitWords(text string) []word {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	var out []word
	for _, w := range call.Args {
		out = append(out, words(w, nil)...)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// render shows words as a command line: literal words as written, others as their pattern.
func render(ws []word) string {
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		if w.exact {
			if q, err := syntax.Quote(w.lit, syntax.LangBash); err == nil {
				parts = append(parts, q)
				continue
			}
			parts = append(parts, fmt.Sprintf("%q", w.lit))
			continue
		}
		parts = append(parts, "…")
	}
	return strings.Join(parts, " ")
}

func stagesText(stages [][]cmd) string {
	var parts []string
	for _, s := range stages {
		if len(s) == 0 || s[0].unknown {
			parts = append(parts, "…")
			continue
		}
		parts = append(parts, render(s[0].ws))
	}
	return strings.Join(parts, " | ")
}

func shorten(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

func quote(s string) string { return `"` + s + `"` }
