package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"toolhost/consolidated"
	"toolhost/store"
)

// stateCheckDelay and stateCheckMaxBytes bound the integrity check a server runs at start: after
// the first requests (so it does not slow the start), and only on files small enough to read in a
// moment; `toolhost doctor` checks any size.
const (
	stateCheckDelay    = 2 * time.Second
	stateCheckMaxBytes = 64 << 20
)

// openState opens the state store. When that fails for a reason other than a newer schema (which
// the user must fix by upgrading), the server still starts: file, terminal, web and build
// operations do not need the state, and every state operation answers with the cause (see
// store.Unavailable and consolidated's state_unavailable). The cause is logged at start, with the
// path and what to run.
//
// On a first start (no state file yet) the file is created in the background: the first state
// operation waits for it, tools/list does not (store.Options.CreateInBackground).
func (a *App) openState(ctx context.Context) error {
	au := a.Config.Audit
	st, err := store.Open(ctx, a.StateDir, store.Options{CreateInBackground: true,
		AuditMaxBytes: au.MaxBytes, AuditMaxAge: au.MaxAge.Duration, AuditKeep: au.Keep})
	if err == nil {
		// Not closed with the app: calls still running at Close may read it, and an idle
		// handle lets go of the file by itself (see store's handle.go).
		a.Store = st
		go func() {
			if err := st.Err(); err != nil {
				a.logStateUnavailable(err) // the creation in the background failed
			}
		}()
		return nil
	}
	if errors.Is(err, store.ErrNewerSchema) || ctx.Err() != nil {
		return err
	}
	a.logStateUnavailable(err)
	a.Store = store.Unavailable(a.StateDir, err)
	return nil
}

func (a *App) logStateUnavailable(err error) {
	a.Logger.Error("state unavailable: state operations (todos, memory, grants) will fail until it is fixed; file and terminal operations work; run `toolhost doctor`",
		"path", filepath.Join(a.StateDir, "toolhost.db"), "err", err)
}

// StateErr returns why the state store is unavailable, or nil.
func (a *App) StateErr() error { return a.Store.Err() }

// CheckStateLater, once the server has started, compacts the state file in the background when
// most of it is free (compactAtStart), then reads it whole and logs damage with the path and the
// fix. Servers call it; one-shot commands do not.
func (a *App) CheckStateLater() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-time.After(stateCheckDelay):
		case <-ctx.Done():
			return
		}
		// Err waits for a state file still being created (a first start).
		if a.Store.Err() != nil {
			return
		}
		a.compactAtStart(ctx)
		if fi, err := os.Stat(a.Store.Path()); err != nil || fi.Size() > stateCheckMaxBytes {
			return
		}
		if err := a.Store.Check(ctx); err != nil && ctx.Err() == nil {
			a.Logger.Error("state file damaged: run `toolhost doctor --repair` (it keeps a copy and rebuilds what can be read)", "path", a.Store.Path(), "err", err)
		}
	}()
	a.onClose(func() error { cancel(); <-done; return nil })
}

// openSpill prepares the directory for results too large to return at once. A state directory
// that cannot hold it leaves results cut without a read_tool_result id, which the model is told.
func (a *App) openSpill() *consolidated.Spill {
	dir := filepath.Join(a.StateDir, "results")
	sp, err := consolidated.NewSpill(dir)
	if err != nil {
		a.Logger.Warn("large results will be cut without a read_tool_result id", "err", fmt.Errorf("state dir: %w", err))
		return nil
	}
	return sp
}
