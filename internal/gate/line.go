package gate

import (
	"context"
	"errors"
	"sync"

	"toolhost/authz"
	"toolhost/authz/cmdrules"
)

// A Line is a shell line about to run: a run_command's command, or a line submitted to a
// session.
type Line struct {
	// Text is the line as it will run.
	Text string
	// Dir is where it runs: the command's directory, or the session shell's current one.
	Dir string
	// Session is the session's id; empty for run_command.
	Session string
	// Unknown says editing keys (tab, arrows, ctrl-r, ...) changed the line in ways the
	// terminal cannot follow, so Text is only what was typed.
	Unknown bool
	// Foreground says a program was running in the session: the line probably goes to it (a
	// REPL, a prompt), not to the shell.
	Foreground bool
	// ForegroundShell says that program reads lines as commands: a shell (bash, sh -i, a
	// shell script), or a program relaying to one (ssh, docker, tmux). The line is then a
	// command line, as at the prompt.
	ForegroundShell bool
	// Memory is the session's: what Check learned from its earlier lines (the aliases and
	// functions they defined). Nil for run_command, which runs in a shell of its own.
	Memory *Memory
}

// Memory is a session's storage for Check, kept as long as its shell: Check stores the
// definitions its lines made there and reads them back for the session's later lines.
type Memory struct{ defs cmdrules.Defs }

// ErrIncomplete, returned by Check, says the line is an unfinished shell statement (an open
// quote, a `for` without `done`): the shell waits for more and runs nothing yet, so the
// terminal types it and checks it again together with the next line.
var ErrIncomplete = errors.New("unfinished shell statement")

// Check decides a line before it runs: the command rules, then the user's approvals of lines
// they ask about (a line not yet approved files a request and is refused with its id). A line
// the user typed (WithUser) is read but never refused (checkUser). It returns nil when the
// line may run, a *cmdrules.Refusal, ErrIncomplete, or an error of the state.
func (g *Gate) Check(ctx context.Context, conv string, l Line) error {
	if g == nil {
		return nil
	}
	st := g.prepare()
	if st.rules == nil {
		return st.err
	}
	if ByUser(ctx) {
		return g.checkUser(st.rules, l)
	}
	if l.Unknown {
		if !st.rules.CanRefuse() {
			return nil
		}
		return &cmdrules.Refusal{Line: l.Text, Dir: l.Dir, Verdict: cmdrules.Verdict{Action: cmdrules.Ask,
			Command: l.Text, Reason: "editing keys (tab, arrows, ctrl-r...) changed the line, so what would run is unknown"}}
	}
	v := g.verdict(st.rules, l)
	switch {
	case v.Incomplete && !l.ForegroundShell:
		// The shell at its prompt waits for the rest, a program in the foreground reads it
		// as input: nothing runs yet, the terminal types it and checks what follows with it.
		return ErrIncomplete
	case v.Unparsed && l.Foreground && !l.ForegroundShell:
		return nil // input for the program running in the session, not shell
	case v.Action == cmdrules.Allow:
		return nil
	case v.Action == cmdrules.Deny:
		return &cmdrules.Refusal{Verdict: v, Line: l.Text, Dir: l.Dir}
	}
	guard := g.cfg.Guard
	if guard == nil {
		return &cmdrules.Refusal{Verdict: v, Line: l.Text, Dir: l.Dir}
	}
	cmd := authz.CommandRequest{Conversation: conv, Tool: g.cfg.Runner.Tool, Dir: l.Dir, Command: l.Text, Reason: v.Reason}
	if _, ok, err := guard.CommandGranted(ctx, cmd); err != nil {
		return err
	} else if ok {
		return nil
	}
	ap, err := guard.RequestCommand(ctx, cmd)
	if errors.Is(err, authz.ErrInvalidGrant) {
		// Not showable to the user (control characters, too long): it cannot be approved.
		return &cmdrules.Refusal{Verdict: cmdrules.Verdict{Action: cmdrules.Deny, Command: v.Command,
			Reason: v.Reason + "; the line cannot be shown to the user for approval (control characters or longer than 8 KiB)"}, Line: l.Text, Dir: l.Dir}
	}
	if err != nil {
		return err
	}
	return &cmdrules.Refusal{Verdict: v, Line: l.Text, Dir: l.Dir, RequestID: ap.ID}
}

// Explain is the verdict of the command rules on a line run in dir, exactly as Check reaches
// it, and, when the rules ask, whether conv already holds the user's approval of that line.
// It files no request: `toolhost rules test` prints it.
func (g *Gate) Explain(ctx context.Context, conv string, l Line) (v cmdrules.Verdict, approved bool, err error) {
	if g == nil {
		return cmdrules.Verdict{Action: cmdrules.Allow}, false, nil
	}
	st := g.prepare()
	if st.rules == nil {
		return cmdrules.Verdict{}, false, st.err
	}
	v = g.verdict(st.rules, l)
	if v.Action == cmdrules.Ask && conv != "" && g.cfg.Guard != nil {
		_, approved, err = g.cfg.Guard.CommandGranted(ctx, authz.CommandRequest{Conversation: conv,
			Tool: g.cfg.Runner.Tool, Dir: l.Dir, Command: l.Text, Reason: v.Reason})
	}
	return v, approved, err
}

// verdict runs the rules on l with the session's definitions and the scripts it sources.
func (g *Gate) verdict(rules *cmdrules.Rules, l Line) cmdrules.Verdict {
	if g == nil || l.Memory != nil {
		return rules.Check(l.Text, cmdrules.Env{Dir: l.Dir, ReadFile: readScript, Defs: l.Memory.defsPtr()})
	}
	key := verdictKey{l.Text, l.Dir}
	if v, ok := g.verdicts.get(key); ok {
		return v
	}
	read := false
	v := rules.Check(l.Text, cmdrules.Env{Dir: l.Dir, ReadFile: func(path string) ([]byte, error) {
		read = true
		return readScript(path)
	}})
	if !read {
		g.verdicts.put(key, v)
	}
	return v
}

// verdictCache keeps the command rules' verdicts on lines that run in a shell of their own
// (run_command, tasks) and read no script file: the rules are fixed for a gate's life, so such
// a verdict is a function of the line and its directory alone, and parsing it again was a
// quarter of the gate's work per start. The user's approvals are asked each time.
type verdictCache struct {
	mu sync.Mutex
	m  map[verdictKey]cmdrules.Verdict
}

type verdictKey struct{ text, dir string }

// maxVerdicts bounds the cache; when full it starts over.
const maxVerdicts = 512

func (c *verdictCache) get(k verdictKey) (cmdrules.Verdict, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *verdictCache) put(k verdictKey, v cmdrules.Verdict) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxVerdicts {
		c.m = map[verdictKey]cmdrules.Verdict{}
	}
	c.m[k] = v
}

// MarshalJSON encodes what the memory holds: a session kept by the terminal host carries its
// memory to the server that checks its lines, and back.
func (m *Memory) MarshalJSON() ([]byte, error) { return m.defs.MarshalJSON() }

// UnmarshalJSON replaces the memory with an encoded one.
func (m *Memory) UnmarshalJSON(b []byte) error { return m.defs.UnmarshalJSON(b) }

// defsPtr is the session's definitions; nil for run_command.
func (m *Memory) defsPtr() *cmdrules.Defs {
	if m == nil {
		return nil
	}
	return &m.defs
}
