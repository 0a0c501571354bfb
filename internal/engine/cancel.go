package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"toolhost/authz"
)

// watchLocked starts the cancel-request watcher if it is not running. It runs only while this
// process has running executions, so an idle server does no polling.
func (e *Engine) watchLocked() {
	if e.watching || e.closed {
		return
	}
	e.watching = true
	go e.watch()
}

// watch polls the cancel directory for requests naming this process's running executions.
func (e *Engine) watch() {
	t := time.NewTicker(cancelPoll)
	defer t.Stop()
	for range t.C {
		e.mu.Lock()
		if len(e.running) == 0 || e.closed {
			e.watching = false
			e.mu.Unlock()
			return
		}
		e.mu.Unlock()
		ents, err := os.ReadDir(e.cancelDir())
		if err != nil {
			continue
		}
		for _, ent := range ents {
			e.mu.Lock()
			x := e.running[ent.Name()]
			e.mu.Unlock()
			if x != nil {
				os.Remove(filepath.Join(e.cancelDir(), ent.Name()))
				e.logger.Info("execution cancelled by another process", "exec", ent.Name())
				x.requestCancel()
			}
		}
	}
}

// visible reports whether viewer may see r: admins see everything, others their own.
func visible(viewer authz.Principal, r *Record) bool {
	return viewer.Tier == authz.TierAdmin || r.Principal == viewer.Name
}

// Cancel stops a running execution of this or another process and returns its record once it
// has ended (status cancelled, or whatever it ended with first). It kills the process trees of
// terminal work through the handlers' contexts. ErrNotFound: no execution with that id that the
// viewer may see; ErrFinished: it has already ended (the record is returned too).
func (e *Engine) Cancel(ctx context.Context, viewer authz.Principal, id string) (Record, error) {
	if !ValidID(id) {
		return Record{}, ErrNotFound
	}
	e.mu.Lock()
	x := e.running[id]
	e.mu.Unlock()
	if x != nil {
		r := x.snapshot()
		if !visible(viewer, &r) {
			return Record{}, ErrNotFound
		}
		x.requestCancel()
		select {
		case <-x.done:
		case <-ctx.Done():
			return x.snapshot(), ctx.Err()
		}
		return x.snapshot(), nil
	}
	r, err := e.Get(ctx, viewer, id)
	if err != nil {
		return Record{}, err
	}
	if r.Finished() {
		return r, ErrFinished
	}
	// Running in another process: leave a request its owner picks up, then wait for the end.
	if err := os.WriteFile(filepath.Join(e.cancelDir(), id), []byte(viewer.Name+"\n"), 0o600); err != nil {
		return r, err
	}
	t := time.NewTicker(cancelPoll / 2)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-t.C:
		}
		for _, j := range e.liveJournals() {
			if j.ID == id && j.Finished() {
				return j, nil
			}
		}
		if got, err := e.stored(ctx, id); err == nil {
			return got, nil
		}
		if !e.ownerAlive(r.Owner) {
			// The owner died; the next process to start marks the record failed.
			os.Remove(filepath.Join(e.cancelDir(), id))
			return r, nil
		}
	}
}

// Active returns the executions running now in every process on the state directory that the
// viewer may see, oldest first.
func (e *Engine) Active(ctx context.Context, viewer authz.Principal) []Record {
	var out []Record
	e.mu.Lock()
	for _, x := range e.running {
		if visible(viewer, &x.rec) {
			out = append(out, x.rec)
		}
	}
	e.mu.Unlock()
	for _, r := range e.liveJournals() {
		if !r.Finished() && visible(viewer, &r) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b Record) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// ActiveCount is the number of executions running in this process that viewer may see.
func (e *Engine) ActiveCount(viewer authz.Principal) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, x := range e.running {
		if visible(viewer, &x.rec) {
			n++
		}
	}
	return n
}
