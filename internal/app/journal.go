package app

import (
	"context"
	"path/filepath"

	"toolhost/internal/edit"
)

// sweepEntries bounds the start-up walk that looks for stale temporary files in the working
// directory, so a huge tree costs a bounded amount of background I/O.
const sweepEntries = 200_000

// openJournal opens the edit journal in the state directory, which finishes or undoes every edit
// a crashed toolhost process left half done, and sweeps the working directory in the background
// for temporary files that no live process owns, once the server has settled (startup.go). A
// server (background) recovers once it has answered its first tools/list, or when a request
// needs it first: every call waits for the recovery (prepareMiddleware), so none can touch a
// file before it.
func (a *App) openJournal(background bool) {
	dir := filepath.Join(a.StateDir, "journal")
	j := edit.NewJournal(dir, a.Logger)
	a.Journal = j
	recover := func() error {
		rep, err := j.Open()
		switch {
		case err != nil && j.Disabled():
			// File operations still work, all or nothing while the process lives; only a crash
			// in the middle of a multi-file write is not covered.
			a.Logger.Error("edit journal unavailable; multi-file writes are not crash-atomic", "dir", dir, "err", err)
		case err != nil:
			// Some transaction could not be recovered; it stays for the next start.
			a.Logger.Error("edit journal recovery incomplete", "err", err)
		}
		if n := rep.RolledForward + rep.RolledBack; n > 0 {
			a.Logger.Warn("finished edits interrupted by a crash", "rolled_forward", rep.RolledForward, "rolled_back", rep.RolledBack, "files", len(rep.Paths))
		}
		return nil
	}
	if background {
		a.prepare(recover)
	} else {
		recover()
	}
	a.afterSettled(func(ctx context.Context) {
		if n := edit.SweepTemps(ctx, a.Guard.Root(), sweepEntries); n > 0 {
			a.Logger.Info("removed stale temporary files", "count", n)
		}
	})
}
