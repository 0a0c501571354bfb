package cmdrules

import (
	"errors"
	"strings"

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
	switch {
	case v.Reason != "":
		s += " (" + v.Reason + ")"
	case v.Rule != "":
		s += " (rule " + quote(v.Rule) + ")"
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
		case *syntax.CmdSubst, *syntax.ProcSubst:
			c.substitution(nodeText(n))
		case *syntax.Stmt:
			c.redirects(n)
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
		if st.Background && len(ws) > 0 {
			c.background(ws)
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
