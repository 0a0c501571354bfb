package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"toolhost/authz"
	"toolhost/authz/cmdrules"
	"toolhost/internal/config"
	"toolhost/internal/owner"
	"toolhost/internal/sandbox"
	"toolhost/internal/terminal"
	"toolhost/store"
)

// terminalGuard is what stands between a model and the commands it runs: the Landlock
// policy of each command and session (the configured mode plus the grants active when it
// starts) and the command rules checked on every line.
type terminalGuard struct {
	guard *authz.Guard
	// runner names the tool whose commands this guards, for authz (which knows none by
	// name): set from the terminal tool's table when the app builds it.
	runner authz.Runner
	base   sandbox.Policy
	// env is set in every child: TMPDIR when the system temp dir holds a protected path (it
	// can then only be written below, not at its top).
	env map[string]string
	// tempDir is that private TMPDIR ("" when none): named at open, made by prepare.
	tempDir string
	// made says prepare created tempDir, so that close removes it (and nothing else).
	made atomic.Bool
	// prepare works out, once, what takes time and no tools/list needs: the Landlock
	// self-test, the compiled rules and the private TMPDIR. The first command (or status
	// query) pays for it instead of every start.
	prepare func() *guardState
}

// guardState is what terminalGuard.prepare worked out.
type guardState struct {
	status sandbox.Status
	rules  *cmdrules.Rules
	// err refuses every command: the private TMPDIR could not be made.
	err error
}

// openTerminalGuard checks the [terminal] configuration (the mode, the rules' syntax, the
// writable paths) and works out the base policy; the rest is prepared on first use.
func (a *App) openTerminalGuard() (*terminalGuard, error) {
	tc := a.Config.Terminal
	mode, err := sandbox.ParseMode(tc.Sandbox)
	if err != nil {
		return nil, err
	}
	// config.Load checked the rules already; flags and tests may bypass it. Only the
	// configured rules can be wrong (the defaults are tested), so only they are parsed now.
	if len(tc.Rules) > 0 || tc.RulesUnmatched != "" {
		if _, err := cmdrules.New(tc.Rules, tc.RulesUnmatched, false); err != nil {
			return nil, fmt.Errorf("terminal.rules: %w", err)
		}
	}
	tg := &terminalGuard{guard: a.Guard}
	home, _ := os.UserHomeDir()
	writable := append([]string{a.Workdir}, sandbox.BuildCaches(home, os.Getenv)...)
	for _, w := range tc.Writable {
		p, err := canonicalPath(w)
		if err != nil {
			return nil, fmt.Errorf("terminal.writable %s: %w", w, err)
		}
		writable = append(writable, p)
	}
	cfgFile := a.Config.Path
	if cfgFile == "" {
		cfgFile = config.DefaultPath()
	}
	protected := []string{a.StateDir, cfgFile, a.SwitchesFile(), a.TokenFile(), a.PromptsDir}
	if a.Config.LogFile != "" {
		if p, err := canonicalPath(a.Config.LogFile); err == nil {
			protected = append(protected, p)
		}
	}
	// The state directory holds the token and the store; the config file may hold a token.
	hidden := []string{a.StateDir, a.TokenFile()}
	if strings.TrimSpace(a.Config.HTTP.Token) != "" {
		hidden = append(hidden, cfgFile)
	}
	temp := sandbox.TempDirs()
	tg.base = sandbox.Policy{Writable: writable, Temp: temp, Protected: protected, Hidden: hidden}
	if mode != sandbox.ModeOff {
		tg.namePrivateTemp()
	}
	tg.prepare = sync.OnceValue(func() *guardState {
		st := &guardState{status: sandbox.Check(mode, tc.AllowUnsandboxed)}
		if st.rules, err = cmdrules.New(tc.Rules, tc.RulesUnmatched, tc.UseDefaultRules()); err != nil {
			st.err = fmt.Errorf("terminal.rules: %w", err)
		}
		if tg.tempDir != "" && st.err == nil {
			if err := os.Mkdir(tg.tempDir, 0o700); err != nil {
				// Its name is secret until a child sees it, so an existing one was not
				// made by chance: commands are refused rather than share it.
				st.err = fmt.Errorf("%w: the private temp dir for commands cannot be made: %v", sandbox.ErrUnavailable, err)
			} else {
				tg.made.Store(true)
			}
		}
		return st
	})
	a.onClose(tg.close)
	return tg, nil
}

// namePrivateTemp gives commands a TMPDIR of their own when a protected path lies inside a
// temp directory: the sandbox can then not let them create entries at the temp dir's top
// (mktemp, here-documents), only below it. The name is chosen now (children's environment is
// fixed at open) and unguessable; prepare makes the directory, and fails rather than use one
// that someone else made first.
func (tg *terminalGuard) namePrivateTemp() {
	var own []string
	for _, p := range append(append([]string{}, tg.base.Protected...), tg.base.Hidden...) {
		own = append(own, sandbox.Canonical(p))
	}
	blocked := false
	for _, t := range tg.base.Temp {
		ct := sandbox.Canonical(t)
		for _, cp := range own {
			if cp == ct || strings.HasPrefix(cp, ct+"/") {
				blocked = true
			}
		}
	}
	if !blocked {
		return
	}
	var rnd [12]byte
	_, _ = rand.Read(rnd[:])
	// The owner ID lets a later start remove the directory of a process that was killed.
	tg.tempDir = filepath.Join(os.TempDir(), terminal.PrivateTempPrefix+owner.Self().String()+"-"+hex.EncodeToString(rnd[:]))
	tg.base.Temp = append(tg.base.Temp, tg.tempDir)
	tg.env = map[string]string{"TMPDIR": tg.tempDir}
}

// close removes the private TMPDIR if prepare made it.
func (tg *terminalGuard) close() error {
	if tg.made.Load() {
		return os.RemoveAll(tg.tempDir)
	}
	return nil
}

// policy is terminal.Config.Sandbox: the base policy plus the conversation's terminal write
// grants active now.
func (tg *terminalGuard) policy(ctx context.Context, conv, cwd string) (*sandbox.Policy, error) {
	st := tg.prepare()
	if st.err != nil {
		return nil, st.err
	}
	if st.status.Refusing {
		return nil, fmt.Errorf("%w: %s", sandbox.ErrUnavailable, st.status.Problem)
	}
	p := st.status.Policy(tg.base)
	if p == nil || p.Mode != sandbox.ModeWorkspaceWrite {
		return p, nil
	}
	grants, err := tg.guard.WritePaths(ctx, conv, tg.runner)
	switch {
	case errors.Is(err, store.ErrUnavailable) || errors.Is(err, store.ErrDamaged):
		// Without the state, no granted path is writable: the narrower policy, so terminals
		// keep working inside the working directory.
		slog.Warn("terminal: write grants unreadable, commands get the base sandbox policy", "err", err)
		grants = nil
	case err != nil:
		return nil, fmt.Errorf("terminal write grants: %w", err)
	}
	p.Writable = append([]string(nil), p.Writable...)
	for _, g := range grants {
		if g.Recursive {
			p.Writable = append(p.Writable, g.Path)
			continue
		}
		// Landlock rules on a directory cover its whole tree; a grant on a directory alone
		// cannot be expressed and is not applied (ask for it recursively). A file is exact.
		if fi, err := os.Stat(g.Path); err == nil && !fi.IsDir() {
			p.Writable = append(p.Writable, g.Path)
		}
	}
	return p, nil
}

// CanWrite says whether a command of conv started now may write path, and whether path is
// one of toolhost's own (never writable).
func (tg *terminalGuard) CanWrite(ctx context.Context, conv, path string) (ok, protected bool) {
	p, err := tg.policy(ctx, conv, "")
	if err != nil {
		return false, false
	}
	return p.CanWrite(path)
}

// check is terminal.Config.Check: the rules, then the user's approvals of asked commands.
func (tg *terminalGuard) check(ctx context.Context, conv string, l terminal.Line) error {
	rules := tg.prepare().rules
	if rules == nil {
		return tg.prepare().err
	}
	if l.Unknown {
		if !rules.CanRefuse() {
			return nil
		}
		return &cmdrules.Refusal{Line: l.Text, Dir: l.Dir, Verdict: cmdrules.Verdict{Action: cmdrules.Ask,
			Command: l.Text, Reason: "editing keys (tab, arrows, ctrl-r...) changed the line, so what would run is unknown"}}
	}
	v := rules.Check(l.Text, cmdrules.Env{Dir: l.Dir, ReadFile: readScript, Defs: sessionDefs(l.Memory)})
	switch {
	case v.Incomplete && !l.ForegroundShell:
		// The shell at its prompt waits for the rest, a program in the foreground reads it
		// as input: nothing runs yet, the terminal types it and checks what follows with it.
		return terminal.ErrIncomplete
	case v.Unparsed && l.Foreground && !l.ForegroundShell:
		return nil // input for the program running in the session, not shell
	case v.Action == cmdrules.Allow:
		return nil
	case v.Action == cmdrules.Deny:
		return &cmdrules.Refusal{Verdict: v, Line: l.Text, Dir: l.Dir}
	}
	cmd := authz.CommandRequest{Conversation: conv, Tool: tg.runner.Tool, Dir: l.Dir, Command: l.Text, Reason: v.Reason}
	if _, ok, err := tg.guard.CommandGranted(ctx, cmd); err != nil {
		return err
	} else if ok {
		return nil
	}
	ap, err := tg.guard.RequestCommand(ctx, cmd)
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

// sessionDefs are the aliases and functions a session's earlier lines defined, kept in its
// terminal memory; nil for run_command.
func sessionDefs(m *terminal.CheckMemory) *cmdrules.Defs {
	if m == nil {
		return nil
	}
	if d, ok := m.Load().(*cmdrules.Defs); ok {
		return d
	}
	d := &cmdrules.Defs{}
	if m.CompareAndSwap(nil, d) {
		return d
	}
	return m.Load().(*cmdrules.Defs)
}

// readScript reads a script a line runs (source, bash FILE) so the rules can check it: a
// regular file only (a FIFO must not block the check), at most 256 KiB.
func readScript(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Base(path))
	}
	return io.ReadAll(io.LimitReader(f, 256<<10+1))
}

// SandboxStatus says what the terminal sandbox enforces here, for the startup line and
// `toolhost doctor`.
func (a *App) SandboxStatus() sandbox.Status {
	if a.termGuard == nil {
		return sandbox.Status{Mode: sandbox.ModeOff, Effective: sandbox.ModeOff}
	}
	return a.termGuard.prepare().status
}

// CommandRules are the terminal's command rules (configured, then the defaults), for
// `toolhost rules test`.
func (a *App) CommandRules() *cmdrules.Rules {
	if a.termGuard == nil {
		return &cmdrules.Rules{}
	}
	if rules := a.termGuard.prepare().rules; rules != nil {
		return rules
	}
	return &cmdrules.Rules{}
}

// markServer marks this process as a toolhost server for the operator checks (child
// subreaper, not dumpable, named and recorded in the state directory; see authz) and logs
// what the terminal sandbox enforces. OpenEngines calls it for an app that serves a model
// (config.Config.Serve: stdio, serve); the record is removed when the app closes. The marking
// waits until the server has answered its first tools/list (which needs none of it) or a
// request needs it; every call waits for it, so no call starts a child before, and a failure
// is what Prepared returns: the server must stop.
func (a *App) markServer() {
	var release func()
	a.prepare(func() error {
		var err error
		if release, err = authz.MarkServer(a.StateDir, a.Logger); err != nil {
			return err
		}
		if err := authz.ScrubEnviron(a.scrubEnv()); err != nil {
			a.Logger.Warn("secret variables stay readable in /proc/PID/environ by root", "err", err)
		}
		return nil
	})
	a.onClose(func() error {
		if a.prepared(context.Background()); release != nil {
			release()
		}
		return nil
	})
	// The Landlock self-test behind the status line waits until the server has answered
	// its first tools/list (a command before that runs it at once).
	a.afterSettled(func(context.Context) {
		st := a.SandboxStatus()
		if st.Refusing || st.Mode != sandbox.ModeOff && st.Effective == sandbox.ModeOff {
			a.Logger.Warn(st.Summary())
		} else {
			a.Logger.Info(st.Summary())
		}
	})
}
