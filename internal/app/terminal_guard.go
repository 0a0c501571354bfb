package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"toolhost/authz"
	"toolhost/authz/cmdrules"
	"toolhost/internal/config"
	"toolhost/internal/sandbox"
	"toolhost/internal/terminal"
	"toolhost/store"
)

// terminalGuard is what stands between a model and the commands it runs: the Landlock
// policy of each command and session (the configured mode plus the grants active when it
// starts) and the command rules checked on every line.
type terminalGuard struct {
	guard  *authz.Guard
	status sandbox.Status
	base   sandbox.Policy
	rules  *cmdrules.Rules
	// env is set in every child: TMPDIR when the system temp dir holds a protected path (it
	// can then only be written below, not at its top).
	env map[string]string
}

// openTerminalGuard works out the sandbox status and the base policy, and compiles the
// rules (already checked for syntax by config.Load; flags and tests may bypass it).
func (a *App) openTerminalGuard() (*terminalGuard, error) {
	tc := a.Config.Terminal
	mode, err := sandbox.ParseMode(tc.Sandbox)
	if err != nil {
		return nil, err
	}
	rules, err := cmdrules.New(tc.Rules, tc.RulesUnmatched, tc.UseDefaultRules())
	if err != nil {
		return nil, fmt.Errorf("terminal.rules: %w", err)
	}
	tg := &terminalGuard{guard: a.Guard, status: sandbox.Check(mode, tc.AllowUnsandboxed), rules: rules}
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
	if tg.status.Effective != sandbox.ModeOff && !tg.status.Refusing {
		if err := tg.privateTemp(a); err != nil {
			return nil, err
		}
	}
	return tg, nil
}

// privateTemp gives commands a TMPDIR of their own when a protected path lies inside a temp
// directory: the sandbox can then not let them create entries at the temp dir's top (mktemp,
// here-documents), only below it.
func (tg *terminalGuard) privateTemp(a *App) error {
	blocked := false
	for _, t := range tg.base.Temp {
		ct := sandbox.Canonical(t)
		for _, p := range append(append([]string{}, tg.base.Protected...), tg.base.Hidden...) {
			if cp := sandbox.Canonical(p); cp == ct || strings.HasPrefix(cp, ct+"/") {
				blocked = true
			}
		}
	}
	if !blocked {
		return nil
	}
	dir, err := os.MkdirTemp("", "toolhost-tmp-")
	if err != nil {
		return fmt.Errorf("terminal temp dir: %w", err)
	}
	a.closers = append(a.closers, func() error { return os.RemoveAll(dir) })
	tg.base.Temp = append(tg.base.Temp, dir)
	tg.env = map[string]string{"TMPDIR": dir}
	return nil
}

// policy is terminal.Config.Sandbox: the base policy plus the conversation's terminal write
// grants active now.
func (tg *terminalGuard) policy(ctx context.Context, conv, cwd string) (*sandbox.Policy, error) {
	if tg.status.Refusing {
		return nil, fmt.Errorf("%w: %s", sandbox.ErrUnavailable, tg.status.Problem)
	}
	p := tg.status.Policy(tg.base)
	if p == nil || p.Mode != sandbox.ModeWorkspaceWrite {
		return p, nil
	}
	grants, err := tg.guard.TerminalWritePaths(ctx, conv)
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
	if l.Unknown {
		if !tg.rules.CanRefuse() {
			return nil
		}
		return &cmdrules.Refusal{Line: l.Text, Dir: l.Dir, Verdict: cmdrules.Verdict{Action: cmdrules.Ask,
			Command: l.Text, Reason: "editing keys (tab, arrows, ctrl-r...) changed the line, so what would run is unknown"}}
	}
	v := tg.rules.Check(l.Text, cmdrules.Env{Dir: l.Dir, ReadFile: readScript})
	switch {
	case v.Incomplete && !l.Foreground:
		return terminal.ErrIncomplete
	case v.Unparsed && l.Foreground:
		return nil // input for the program running in the session, not shell
	case v.Action == cmdrules.Allow:
		return nil
	case v.Action == cmdrules.Deny:
		return &cmdrules.Refusal{Verdict: v, Line: l.Text, Dir: l.Dir}
	}
	if _, ok, err := tg.guard.CommandGranted(ctx, conv, l.Dir, l.Text); err != nil {
		return err
	} else if ok {
		return nil
	}
	ap, err := tg.guard.RequestCommand(ctx, authz.CommandRequest{Conversation: conv, Dir: l.Dir, Command: l.Text, Reason: v.Reason})
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
	return a.termGuard.status
}

// CommandRules are the terminal's command rules (configured, then the defaults), for
// `toolhost rules test`.
func (a *App) CommandRules() *cmdrules.Rules {
	if a.termGuard == nil {
		return &cmdrules.Rules{}
	}
	return a.termGuard.rules
}

// MarkServer marks this process as a toolhost server for the operator checks (child
// subreaper, not dumpable, named and recorded in the state directory; see authz) and logs
// what the terminal sandbox enforces. Call it from commands that serve a model (stdio,
// serve); the record is removed when the app closes.
func (a *App) MarkServer() error {
	release, err := authz.MarkServer(a.StateDir, a.Logger)
	if err != nil {
		return err
	}
	if err := authz.ScrubEnviron(a.scrubEnv()); err != nil {
		a.Logger.Warn("secret variables stay readable in /proc/PID/environ by root", "err", err)
	}
	a.closers = append(a.closers, func() error { release(); return nil })
	st := a.SandboxStatus()
	if st.Refusing || st.Mode != sandbox.ModeOff && st.Effective == sandbox.ModeOff {
		a.Logger.Warn(st.Summary())
	} else {
		a.Logger.Info(st.Summary())
	}
	return nil
}
