package codeindex

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"toolhost/internal/fsread"
)

var errNotReady = errors.New("the index cannot answer this query")

// barrierName is the file of the index's own whose change events mark "every notification
// before this one was handled": one inotify instance delivers its events in order.
const barrierName = "barrier"

// barrierWait bounds how long a query waits for its barrier event; past it the query checks
// file times instead.
const barrierWait = 500 * time.Millisecond

// updateDelay gathers the notifications of a burst of changes into one update.
const updateDelay = 30 * time.Millisecond

// watcher holds the notifier of one index.
type watcher struct {
	w           *fsnotify.Watcher
	root        string // canonical working directory
	barrierFile string // the barrier file
	bmu         sync.Mutex
	seen        chan struct{}
	mu          sync.Mutex
	ok          bool // every directory watched, no event lost
	dirs        map[string]bool
	done        chan struct{}
	once        sync.Once
}

// startWatching watches every directory of st (and the barrier), and starts the goroutines that
// turn notifications into updates.
func (ix *Index) startWatching(st *state) {
	if ix.cfg.NoWatch {
		return
	}
	ix.mu.Lock()
	w := ix.w
	ix.mu.Unlock()
	barrierOK := true
	if w == nil {
		fw, err := fsnotify.NewBufferedWatcher(4096)
		if err != nil {
			ix.log.Warn("index: no file-system notifications; every search checks file times", "err", err)
			return
		}
		// A barrier file of this process's own: another process's barrier events must not end
		// this one's wait early.
		w = &watcher{w: fw, root: ix.cfg.RootPath, barrierFile: filepath.Join(ix.cfg.Dir, fmt.Sprintf("%s-%d-%d", barrierName, os.Getpid(), time.Now().UnixNano())),
			seen: make(chan struct{}, 1), dirs: map[string]bool{}, done: make(chan struct{})}
		barrierOK = os.WriteFile(w.barrierFile, nil, 0o600) == nil && fw.Add(ix.cfg.Dir) == nil
		ix.mu.Lock()
		ix.w = w
		ix.mu.Unlock()
		ix.wg.Add(1)
		go ix.events(w)
		ix.updOnce.Do(func() {
			ix.wg.Add(1)
			go ix.updater()
		})
	} else {
		// A new build: not trusted until its directories are watched and listed again.
		w.mu.Lock()
		w.ok = false
		w.mu.Unlock()
	}
	ix.mu.Lock()
	dirs := make([]string, 0, len(st.dirs))
	for rel := range st.dirs {
		dirs = append(dirs, rel)
	}
	ix.mu.Unlock()
	all := barrierOK
	for _, rel := range dirs {
		all = w.add(rel) && all
	}
	// A change made after the build listed a directory and before its watch was added has no
	// event: every directory is listed again (files compared by size and times), and until
	// then queries do not trust the notifier.
	ix.mu.Lock()
	if ix.st == st {
		for _, rel := range dirs {
			st.pending[rel] = struct{}{}
		}
	}
	ix.mu.Unlock()
	w.mu.Lock()
	w.ok = all
	w.mu.Unlock()
	ix.poke()
}

func (w *watcher) abs(rel string) string {
	if rel == "." {
		return w.root
	}
	return filepath.Join(w.root, filepath.FromSlash(rel))
}

// add watches a directory; a failure (the user's inotify watch limit) makes the index check
// file times on every query instead.
func (w *watcher) add(rel string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dirs[rel] {
		return true
	}
	if err := w.w.Add(w.abs(rel)); err != nil {
		w.ok = false
		return false
	}
	w.dirs[rel] = true
	return true
}

func (w *watcher) remove(rel string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for d := range w.dirs {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			_ = w.w.Remove(w.abs(d))
			delete(w.dirs, d)
		}
	}
}

func (w *watcher) healthy() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ok
}

func (w *watcher) close() {
	w.once.Do(func() {
		close(w.done)
		w.w.Close()
		os.Remove(w.barrierFile)
	})
}

// barrier changes the barrier file and waits until its event arrives: every event queued
// before it has then been handled. It reports false when the event did not come in time.
func (w *watcher) barrier(ctx context.Context) bool {
	if !w.healthy() {
		return false
	}
	w.bmu.Lock()
	defer w.bmu.Unlock()
	select {
	case <-w.seen: // a late one from an earlier timeout
	default:
	}
	now := time.Now()
	if err := os.Chtimes(w.barrierFile, now, now); err != nil {
		return false
	}
	t := time.NewTimer(barrierWait)
	defer t.Stop()
	select {
	case <-w.seen:
		return true
	case <-t.C:
	case <-ctx.Done():
	case <-w.done:
	}
	return false
}

// events turns notifications into dirty files and directories to list again.
func (ix *Index) events(w *watcher) {
	defer ix.wg.Done()
	for {
		select {
		case <-ix.closed:
			return
		case <-w.done:
			return
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			if ev.Name == w.barrierFile {
				select {
				case w.seen <- struct{}{}:
				default:
				}
				continue
			}
			rel, err := filepath.Rel(w.root, ev.Name)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			ix.note(filepath.ToSlash(rel), ev.Op)
		case err, ok := <-w.w.Errors:
			if !ok {
				return
			}
			// Events were lost (the kernel queue overflowed): only a new walk knows what changed.
			ix.log.Warn("index: file-system notifications lost; checking the whole tree again", "err", err)
			w.mu.Lock()
			w.ok = false
			w.mu.Unlock()
			ix.mu.Lock()
			if ix.st != nil {
				ix.st.reconcile = true
			}
			ix.mu.Unlock()
			ix.poke()
		}
	}
}

// note records one notification.
func (ix *Index) note(rel string, op fsnotify.Op) {
	ix.mu.Lock()
	st := ix.st
	if st == nil {
		ix.mu.Unlock()
		return
	}
	if rel == "." {
		rel = ""
	}
	dir := parentOf(rel)
	if strings.HasSuffix(rel, "/.gitignore") || rel == ".gitignore" {
		st.reconcile = true // what is ignored changed: a new walk decides
	}
	if op.Has(fsnotify.Create) || op.Has(fsnotify.Remove) || op.Has(fsnotify.Rename) {
		if rel == "" {
			st.reconcile = true // the working directory itself
		} else {
			st.pending[dir] = struct{}{}
		}
	}
	if op.Has(fsnotify.Write) || op.Has(fsnotify.Create) || op.Has(fsnotify.Chmod) {
		if id, ok := st.byRel[rel]; ok {
			st.gen++
			st.dirty[id] = st.gen
		}
	}
	if rel != "" && len(st.changed) < maxChanged {
		st.changed = append(st.changed, rel)
	}
	ix.mu.Unlock()
	ix.poke()
}

func (ix *Index) poke() {
	select {
	case ix.kick <- struct{}{}:
	default:
	}
}

// updater applies notifications in the background: lists changed directories again, reads
// dirty files into an in-memory segment, and walks everything again when told to.
func (ix *Index) updater() {
	defer ix.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-ix.closed; cancel() }()
	for {
		select {
		case <-ix.closed:
			return
		case <-ix.kick:
		}
		t := time.NewTimer(updateDelay)
		select {
		case <-ix.closed:
			t.Stop()
			return
		case <-t.C:
		}
		ix.update(ctx)
	}
}

// update brings the state up to date with the notifications so far.
func (ix *Index) update(ctx context.Context) {
	ix.mu.Lock()
	st := ix.st
	if st == nil || ix.phase != "" {
		ix.mu.Unlock()
		return
	}
	if st.reconcile {
		ix.mu.Unlock()
		if ix.begin("building") {
			err := ix.build(ctx, st)
			ix.end(err)
			if err != nil {
				ix.log.Warn("index: rebuild failed; searches walk the tree", "err", err)
			}
		}
		ix.Updates.Add(1)
		ix.lastUpdate.Store(time.Now().UnixNano())
		return
	}
	ix.relistLocked(ctx, st)
	ids := st.dirtyIDs()
	gens := make(map[uint32]uint64, len(ids))
	for _, id := range ids {
		gens[id] = st.dirty[id]
	}
	changed := st.changed
	st.changed = nil
	ix.mu.Unlock()
	if len(changed) > 0 && ix.cfg.OnChange != nil {
		ix.cfg.OnChange(changed)
	}
	if len(ids) > 0 {
		if err := ix.indexIDs(ctx, st, ids, &ix.mu, gens); err != nil && ctx.Err() == nil {
			ix.log.Warn("index: update failed", "err", err)
		}
	}
	ix.mu.Lock()
	ix.compactLocked(st)
	ix.mu.Unlock()
	ix.Updates.Add(1)
	ix.lastUpdate.Store(time.Now().UnixNano())
}

// maxChanged bounds the paths one update reports to Config.OnChange.
const maxChanged = 10_000

// maxMemSegments bounds the in-memory segments of recent changes before they are merged;
// maxMemFiles bounds their files before they are written to disk.
const (
	maxMemSegments = 16
	maxMemFiles    = 4096
)

// compactLocked merges the in-memory segments, and writes them to disk when they grow.
func (ix *Index) compactLocked(st *state) {
	if ix.st != st {
		return
	}
	if len(st.mem) > maxMemFiles && ix.persist {
		if err := ix.flushLocked(); err != nil {
			ix.log.Warn("index: writing recent changes failed", "err", err)
		}
		return
	}
	n := 0
	for _, s := range st.segs {
		if s.name == "" {
			n++
		}
	}
	if n <= maxMemSegments {
		return
	}
	b := &segmentBuilder{}
	for id, tris := range st.mem {
		if st.files[id].flags&fGone == 0 && st.segHoldsFile(id) {
			b.add(id, tris)
		}
	}
	s := b.memory()
	s.sid = ix.serial.Add(1)
	segs := st.segs[:0]
	for _, o := range st.segs {
		if o.name != "" {
			segs = append(segs, o)
		}
	}
	st.segs = append(segs, s)
	mem := map[uint32][]uint32{}
	for _, g := range b.globals {
		st.files[g].sid = s.sid
		mem[g] = st.mem[g]
	}
	st.mem = mem
}

// segHoldsFile reports whether the file's current postings are in an in-memory segment.
func (st *state) segHoldsFile(id uint32) bool {
	sid := st.files[id].sid
	for _, s := range st.segs {
		if s.sid == sid {
			return s.name == ""
		}
	}
	return false
}

// relistLocked lists the pending directories again (parents first) and applies what changed:
// files that appeared or changed become dirty, files and directories that went are dropped,
// new directories are walked and watched.
func (ix *Index) relistLocked(ctx context.Context, st *state) {
	pend := make([]string, 0, len(st.pending))
	for d := range st.pending {
		pend = append(pend, d)
	}
	clear(st.pending)
	slices.SortFunc(pend, func(a, b string) int {
		if c := strings.Count(a, "/") - strings.Count(b, "/"); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for _, rel := range pend {
		if _, ok := st.dirs[rel]; !ok {
			continue // gone, or new below a directory listed just now (walked already)
		}
		if err := ix.relistOne(ctx, st, rel); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // its parent's listing drops it
			}
			st.reconcile = true
		}
	}
}

// listing is one directory as a walk sees it now.
type listing struct {
	node  *dirNode
	files map[string]fsread.FileID
	sizes map[string]int64
	dirs  []string
}

// listDir lists rel alone: its entries, what the filters leave out, and each file's stat.
func (ix *Index) listDir(ctx context.Context, rel string) (*listing, error) {
	l := &listing{node: &dirNode{rel: rel}, files: map[string]fsread.FileID{}, sizes: map[string]int64{}}
	_, err := fsread.Walk(ctx, ix.cfg.Root, rel, fsread.WalkOptions{Screen: ix.cfg.Screen, MaxDepth: 1, Skipped: func(r string, isDir bool, why fsread.SkipReason) {
		l.node.noteSkipped(r, isDir, why)
	}}, func(e fsread.WalkEntry) error {
		switch e.Type {
		case fsread.TypeDir:
			l.node.entries = append(l.node.entries, entry{name: e.Name, kind: kDir})
			l.dirs = append(l.dirs, e.Rel)
		case fsread.TypeFile:
			if e.Name == ".gitignore" {
				l.node.hasIgn = true
			}
			l.node.entries = append(l.node.entries, entry{name: e.Name, kind: kFile})
			if size, id, err := e.Stat(); err == nil {
				l.files[e.Name], l.sizes[e.Name] = id, size
			}
		default:
			l.node.entries = append(l.node.entries, entry{name: e.Name, kind: kOther})
		}
		return nil
	})
	return l, err
}

func baseName(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[i+1:]
	}
	return rel
}

// relistOne lists rel again and applies the differences.
func (ix *Index) relistOne(ctx context.Context, st *state, rel string) error {
	l, err := ix.listDir(ctx, rel)
	if err != nil {
		return err
	}
	old := st.dirs[rel]
	if old.hasIgn != l.node.hasIgn {
		st.reconcile = true
	}
	now := map[string]entry{}
	for _, e := range l.node.entries {
		now[e.name] = e
	}
	for _, e := range old.entries {
		n, still := now[e.name]
		child := joinRel(rel, e.name)
		switch {
		case e.kind == kFile && (!still || n.kind != kFile):
			st.dropFile(e.id)
		case e.kind == kDir && (!still || n.kind != kDir):
			ix.dropDir(st, child)
		}
	}
	for i, e := range l.node.entries {
		child := joinRel(rel, e.name)
		switch e.kind {
		case kFile:
			id := st.fileID(child)
			l.node.entries[i].id = id
			f := &st.files[id]
			fid, stat := l.files[e.name]
			if f.flags&fGone != 0 || !stat || !f.same(l.sizes[e.name], fid) {
				f.flags &^= fGone
				st.gen++
				st.dirty[id] = st.gen
			}
		case kDir:
			if _, known := st.dirs[child]; !known {
				ix.addTree(ctx, st, child)
			}
		}
	}
	st.dirs[rel] = l.node
	return nil
}

// dropFile forgets a file that left the tree.
func (st *state) dropFile(id uint32) {
	f := &st.files[id]
	f.flags |= fGone
	delete(st.byRel, f.rel)
	delete(st.dirty, id)
	delete(st.mem, id)
}

// dropDir forgets a directory and everything below it.
func (ix *Index) dropDir(st *state, rel string) {
	for d, n := range st.dirs {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			for _, e := range n.entries {
				if e.kind == kFile {
					st.dropFile(e.id)
				}
			}
			delete(st.dirs, d)
		}
	}
	if ix.w != nil {
		ix.w.remove(rel)
	}
}

// addTree walks a directory that appeared, adds it (every file dirty) and watches it.
func (ix *Index) addTree(ctx context.Context, st *state, rel string) {
	st.dirs[rel] = &dirNode{rel: rel}
	var added []string
	added = append(added, rel)
	_, err := fsread.Walk(ctx, ix.cfg.Root, rel, fsread.WalkOptions{Screen: ix.cfg.Screen, Skipped: func(r string, isDir bool, why fsread.SkipReason) {
		d := st.dirs[parentOf(r)]
		if d == nil {
			return
		}
		d.noteSkipped(r, isDir, why)
		switch why {
		case fsread.SkipDepth:
			st.reconcile = true // deeper than a relative walk may go: a full walk decides
		case fsread.SkipUnreadable:
			delete(st.dirs, r)
		}
	}}, func(e fsread.WalkEntry) error {
		d := st.dirs[parentOf(e.Rel)]
		if d == nil {
			return nil
		}
		switch e.Type {
		case fsread.TypeDir:
			d.entries = append(d.entries, entry{name: e.Name, kind: kDir})
			st.dirs[e.Rel] = &dirNode{rel: e.Rel}
			added = append(added, e.Rel)
		case fsread.TypeFile:
			if e.Name == ".gitignore" {
				d.hasIgn = true
				st.reconcile = true
			}
			id := st.fileID(e.Rel)
			st.files[id].flags &^= fGone
			st.files[id].sid = 0
			st.gen++
			st.dirty[id] = st.gen
			d.entries = append(d.entries, entry{name: e.Name, kind: kFile, id: id})
		default:
			d.entries = append(d.entries, entry{name: e.Name, kind: kOther})
		}
		return nil
	})
	if err != nil {
		st.reconcile = true
	}
	if ix.w != nil {
		for _, d := range added {
			ix.w.add(d)
		}
	}
}

// sweepLocked checks every directory and file under base against the disk (listing and
// stat), for queries made while notifications cannot be trusted.
func (ix *Index) sweepLocked(ctx context.Context, st *state, base string) {
	for d := range st.dirs {
		if under(d, base) {
			st.pending[d] = struct{}{}
		}
	}
	ix.relistLocked(ctx, st)
}
