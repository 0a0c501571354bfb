package cmdrules

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"toolhost/internal/lazyregexp"
)

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
