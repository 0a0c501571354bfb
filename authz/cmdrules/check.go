package cmdrules

import (
	"fmt"
	"path/filepath"
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

// Check decides a line of shell: every simple command in it — through ;, &&, ||, pipes,
// subshells, groups, $(...), backticks, process substitution, functions, here-documents fed
// to a shell, bash -c/sh -c, eval, source, alias and trap bodies, and the wrappers sudo,
// env, xargs, nice, timeout, nohup, exec, command, builtin, find -exec and the like — is
// matched against the rules in order (first match wins). A line that does not parse, and a
// command whose name or script is only known when it runs, is asked about whenever the
// rules could refuse anything; it is never allowed by a rule.
func (rs *Rules) Check(line string, env Env) Verdict {
	c := &checker{rs: rs, env: env}
	if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), ""); err != nil {
		v := Verdict{Unparsed: true, Incomplete: syntax.IsIncomplete(err), Command: shorten(line),
			Reason: "the shell parser cannot read it: " + shorten(err.Error())}
		if rs.CanRefuse() {
			v.Action = Ask
		}
		return v
	}
	c.script(line, 0)
	return c.v
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
	for _, st := range f.Stmts {
		c.walk(st, depth, false)
	}
}

// walk visits a node and everything in it. piped says st reads a pipe (not the first stage).
func (c *checker) walk(node syntax.Node, depth int, piped bool) {
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				c.pipeline(n, depth)
				return false
			}
		case *syntax.Stmt:
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

// call checks one simple command with its statement's redirections.
func (c *checker) call(st *syntax.Stmt, call *syntax.CallExpr, depth int, piped bool) {
	var ws []word
	for _, w := range call.Args {
		ws = append(ws, words(w)...)
	}
	if len(ws) == 0 {
		return
	}
	c.command(ws, st, depth, piped)
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
		c.file(args[0], depth)
	case name == "alias":
		for _, a := range args {
			if !a.exact {
				c.unknown(render(ws), "an alias defined from words only known when it runs")
				continue
			}
			if _, v, ok := strings.Cut(a.lit, "="); ok {
				c.script(v, depth+1)
			}
		}
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
		if w.assigns && isAssignment(a) {
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
		c.script(args[i].lit, depth+1)
		return
	}
	if i < len(args) {
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
			ws := words(r.Word)
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

// isAssignment reports whether a word is NAME=value (the value may be unknown).
func isAssignment(w word) bool {
	for k, t := range w.g {
		if t.kind != gLit {
			return false
		}
		r := t.r
		switch {
		case r == '=':
			return k > 0
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && k > 0:
		default:
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
		out = append(out, words(w)...)
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
