package app

import (
	"errors"
	"os"
	"path/filepath"

	"toolhost/internal/config"
)

// ErrAutoApproveDefaultState: [guard] auto_approve on the user's default state directory.
var ErrAutoApproveDefaultState = errors.New("guard.auto_approve grants whatever a model asks for without asking; it is refused on your default state directory")

// AutoApproveNote heads every result while auto-approval is on, so that whoever reads a
// transcript knows nobody was asked.
const AutoApproveNote = "[toolhost auto_approve: requests for access are granted without asking the user]"

// checkAutoApprove refuses [guard] auto_approve on the user's default state directory (the one
// their editors' servers share, with their grants and history) and says loudly, at start, that
// it is on anywhere else.
func (a *App) checkAutoApprove() error {
	if !a.Config.Guard.AutoApprove {
		return nil
	}
	for _, def := range defaultStateDirs() {
		if samePath(a.StateDir, def) {
			return &startError{err: ErrAutoApproveDefaultState, detail: "give the disposable environment a state directory of its own: --state-dir DIR (or state_dir in its config)"}
		}
	}
	a.Logger.Warn("AUTO-APPROVE IS ON: every authorization request, command approval, outside path and local network address a model asks for is granted without asking anyone (guard.auto_approve); only for disposable environments",
		"state_dir", a.StateDir)
	a.Env.AutoApprove = AutoApproveNote
	return nil
}

// startError is a refusal to start with what to do about it.
type startError struct {
	err    error
	detail string
}

func (e *startError) Error() string { return e.err.Error() + ": " + e.detail }
func (e *startError) Unwrap() error { return e.err }

// defaultStateDirs are the state directories a user's own toolhost processes use: the XDG one
// this process resolves, and the one under HOME without XDG_STATE_HOME.
func defaultStateDirs() []string {
	out := []string{config.DefaultStateDir()}
	if home, err := os.UserHomeDir(); err == nil {
		out = append(out, filepath.Join(home, ".local", "state", "toolhost"))
	}
	return out
}

// samePath compares two paths after making them absolute and resolving what exists of them.
func samePath(a, b string) bool {
	canon := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	return canon(a) == canon(b)
}
