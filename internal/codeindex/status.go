package codeindex

import (
	"context"
	"os"
	"path/filepath"
	"time"
)

// Status describes an index for `toolhost index status` and the console.
type Status struct {
	// State is "ready" (in use by this process), "stored" (on disk), "building", "loading",
	// "absent" or "failed".
	State string `json:"state"`
	Dir   string `json:"dir"`
	Files int    `json:"files"`
	Dirs  int    `json:"dirs"`
	// Bytes is the text indexed; DiskBytes what the index takes on disk.
	Bytes     int64 `json:"bytes"`
	DiskBytes int64 `json:"disk_bytes"`
	Segments  int   `json:"segments"`
	// Dirty counts files changed since they were indexed (read by every search until the
	// index catches up).
	Dirty int `json:"dirty"`
	// Rewalk says a new walk of the whole tree is due (ignore rules changed, notifications
	// were lost); searches walk until it is done.
	Rewalk   bool          `json:"rewalk,omitempty"`
	Watching bool          `json:"watching"`
	BuiltAt  time.Time     `json:"built_at,omitzero"`
	Build    time.Duration `json:"build_ns,omitempty"`
	Error    string        `json:"error,omitempty"`
	Queries  int64         `json:"queries"`
	Served   int64         `json:"served"`
}

// Status reports the index as this process sees it.
func (ix *Index) Status() Status {
	s := Status{Dir: ix.cfg.Dir, Queries: ix.Queries.Load(), Served: ix.Served.Load()}
	ents, _ := os.ReadDir(ix.cfg.Dir)
	for _, e := range ents {
		if fi, err := os.Stat(filepath.Join(ix.cfg.Dir, e.Name())); err == nil {
			s.DiskBytes += fi.Size()
		}
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	switch {
	case ix.phase != "":
		s.State = ix.phase
	case ix.st != nil:
		s.State = "ready"
	case ix.err != nil:
		s.State = "failed"
	default:
		s.State = "absent"
		if m, err := readManifest(ix.cfg.Dir); err == nil {
			// Stored by another process; it is brought up to date when a process opens it.
			s.State = "stored"
			for _, f := range m.Files {
				if f.Flags&fGone == 0 {
					s.Files++
				}
			}
			s.Dirs, s.Bytes, s.Segments, s.BuiltAt, s.Build = len(m.Dirs), m.Bytes, len(m.Segments), m.BuiltAt, m.Build
		}
	}
	if ix.err != nil {
		s.Error = ix.err.Error()
	}
	if st := ix.st; st != nil {
		for i := range st.files {
			if st.files[i].flags&fGone == 0 {
				s.Files++
			}
		}
		s.Dirs, s.Bytes, s.Segments, s.Dirty = len(st.dirs), st.bytes, len(st.segs), len(st.dirty)+len(st.pending)
		s.Rewalk = st.reconcile
		s.BuiltAt, s.Build = ix.builtAt, ix.buildTime
		s.Watching = ix.w != nil && ix.w.healthy()
	}
	return s
}

// LastUpdate is when the index last applied a change (zero before the first).
func (ix *Index) LastUpdate() time.Time {
	n := ix.lastUpdate.Load()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// Sync waits until every notification of a change made before the call has been recorded
// (the barrier queries use), so that Status tells of it.
func (ix *Index) Sync(ctx context.Context) bool {
	ix.mu.Lock()
	w := ix.w
	ix.mu.Unlock()
	return w != nil && w.barrier(ctx)
}

// StartBuild builds (or, when an index is on disk, loads and brings up to date) the index in
// the background; Close stops it. It does nothing while a build runs or once the index is
// ready.
func (ix *Index) StartBuild() {
	ix.mu.Lock()
	busy := ix.st != nil || ix.phase != "" || ix.started
	ix.started = true
	ix.mu.Unlock()
	if busy {
		return
	}
	select {
	case <-ix.closed:
		return
	default:
	}
	ix.wg.Add(1)
	go func() {
		defer ix.wg.Done()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-ix.closed:
				cancel()
			case <-ctx.Done():
			}
		}()
		start := time.Now()
		var err error
		if ix.Exists() {
			if err = ix.Load(ctx); err != nil && ctx.Err() == nil {
				ix.log.Info("index: the stored index cannot be used; building it again", "err", err)
				ix.mu.Lock()
				ix.st = nil
				ix.mu.Unlock()
				err = ix.Build(ctx)
			}
		} else {
			err = ix.Build(ctx)
		}
		if err != nil {
			if ctx.Err() == nil {
				ix.log.Warn("index: not built; searches walk the tree", "err", err)
			}
			return
		}
		s := ix.Status()
		ix.log.Info("index ready", "files", s.Files, "bytes", s.Bytes, "took", time.Since(start).Round(time.Millisecond))
	}()
}

// HasSymbols reports whether the index keys files by the names they define (SymbolQuery works).
func (ix *Index) HasSymbols() bool { return ix.cfg.Symbols != nil }

// OnChange sets Config.OnChange (before the index is built).
func (ix *Index) OnChange(fn func(rels []string)) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.cfg.OnChange = fn
}
