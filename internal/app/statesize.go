package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"toolhost/authz"
	"toolhost/internal/sysfile"
	"toolhost/store"
)

// recordingsDir, in the state directory, holds the terminal sessions' recordings.
const recordingsDir = "recordings"

// StatePart is one part of the state directory and what it takes on disk.
type StatePart struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	Detail string `json:"detail,omitempty"`
}

// stateParts names the parts by the top-level entries of the state directory; entries no part
// names are "other".
var stateParts = []struct {
	name    string
	matches func(entry string) bool
	detail  string
}{
	{"database", func(e string) bool { return strings.HasPrefix(e, "toolhost.db") }, ""},
	{"audit log", func(e string) bool { return strings.HasPrefix(e, "audit") }, ""},
	{"execution journals", func(e string) bool { return e == "executions" }, "calls on their way into the database"},
	{"recordings", func(e string) bool { return e == recordingsDir }, "terminal sessions as asciicast, each bounded"},
	{"spilled results", func(e string) bool { return e == "results" }, "long results for read_tool_result"},
}

// StateSizes adds up the state directory by part: the database (with how much of it is free,
// which `toolhost compact` gives back), the audit log, the execution journals, the terminal
// recordings, the spilled results and the rest. For `toolhost doctor` and the console's
// Health page.
func (a *App) StateSizes(ctx context.Context) ([]StatePart, error) {
	entries, err := os.ReadDir(a.StateDir)
	if err != nil {
		return nil, err
	}
	parts := make([]StatePart, len(stateParts)+1)
	for i, p := range stateParts {
		parts[i] = StatePart{Name: p.name, Detail: p.detail}
	}
	other := &parts[len(parts)-1]
	other.Name = "other"
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := sysfile.TreeSize(ctx, filepath.Join(a.StateDir, e.Name()))
		if err != nil {
			return nil, err
		}
		part := other
		for i, p := range stateParts {
			if p.matches(e.Name()) {
				part = &parts[i]
				break
			}
		}
		part.Bytes += n
	}
	if a.Store != nil && a.Store.Err() == nil {
		if free, file, err := a.Store.FreeBytes(ctx); err == nil && file > 0 {
			parts[0].Detail = fmt.Sprintf("%s of it free (toolhost compact gives it back)", HumanBytes(free))
		}
	}
	if files, err := store.AuditFiles(a.StateDir); err == nil {
		parts[1].Detail = fmt.Sprintf("audit.jsonl and %d rotated files, compressed (the newest [audit] keep stay)", len(files))
	}
	return parts, nil
}

// HumanBytes renders n as people read sizes: 512 B, 3.4 KiB, 12.0 MiB.
func HumanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// Compaction at start: a server rewrites the state file when at least compactMinFree of it,
// and at least compactFreeShare of it, is free, and no other server uses the state directory
// (they would wait for the file while it is rewritten).
const (
	compactMinFree   = 32 << 20
	compactFreeShare = 2 // free >= file / compactFreeShare
	// compactAtStartMaxBytes bounds the file a server compacts on its own: writes wait while it
	// runs (about 10 s for 700 MB on a loaded two-core machine, past the store's lock timeout),
	// so a larger file is left to `toolhost compact`, which the log names.
	compactAtStartMaxBytes = 256 << 20
)

// ErrServersRunning: `toolhost compact` found toolhost servers using the state directory.
var ErrServersRunning = errors.New("toolhost servers use this state directory")

// CompactState rewrites the state file without its free pages (store.Compact), refusing while
// another toolhost server uses the state directory: it would wait for the file as long as the
// rewrite takes, and a model's calls with it.
func (a *App) CompactState(ctx context.Context) (store.CompactReport, error) {
	pids, err := authz.LiveServers(a.StateDir)
	if err != nil {
		return store.CompactReport{}, err
	}
	if len(pids) > 0 {
		return store.CompactReport{}, fmt.Errorf("%w (pids %v); stop them first, or let the next server to start alone compact it", ErrServersRunning, pids)
	}
	if err := a.Store.Err(); err != nil {
		return store.CompactReport{}, err
	}
	return a.Store.Compact(ctx)
}

// compactAtStart compacts the state file when enough of it is free and this server is the
// only one on the state directory. Run in the background after the server started.
func (a *App) compactAtStart(ctx context.Context) {
	if a.Store.Err() != nil {
		return
	}
	free, file, err := a.Store.FreeBytes(ctx)
	if err != nil || free < compactMinFree || free < file/compactFreeShare {
		return
	}
	if file > compactAtStartMaxBytes {
		a.Logger.Warn("state file not compacted at start: too large to rewrite while serving; stop the servers and run toolhost compact", "file", HumanBytes(file), "free", HumanBytes(free))
		return
	}
	if pids, err := authz.LiveServers(a.StateDir); err != nil || len(pids) > 0 {
		a.Logger.Info("state file not compacted at start: other toolhost servers use it", "free", HumanBytes(free), "servers", pids)
		return
	}
	start := time.Now()
	rep, err := a.Store.Compact(ctx)
	if err != nil {
		if ctx.Err() == nil {
			a.Logger.Warn("compact state file", "path", a.Store.Path(), "err", err)
		}
		return
	}
	a.Logger.Info("compacted the state file", "path", a.Store.Path(), "before", HumanBytes(rep.Before), "after", HumanBytes(rep.After), "took", time.Since(start).Round(time.Millisecond))
}
