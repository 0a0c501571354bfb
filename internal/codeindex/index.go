// Package codeindex is the working-directory index: a trigram index of file contents in the
// style of Google's codesearch (the postings of every 3-byte shingle; a regexp becomes the
// trigrams every match must contain; their postings are intersected and only the files left
// are read) plus a snapshot of the walk grep_search does, so that a repeated search on a large
// tree reads a few files instead of all of them.
//
// A stale index never gives a wrong answer. The candidates are read from the disk, so a match
// is always real; what could go wrong is a file that changed or appeared since it was indexed
// and now matches without being a candidate. Three things prevent it: file-system
// notifications (fsnotify) mark every changed file dirty and every changed directory for a new
// listing, and dirty files are always read; before each query a barrier (a change to a file
// of the index's own, watched by the same notifier) makes sure every notification sent before
// the query has been handled; and when notifications cannot be trusted (a watch could not be
// added, the kernel's queue overflowed) each query checks the files in its scope against their
// size, modification and change times and inode before answering. The index is on disk under
// the state directory (segments of postings, mapped into memory, and a manifest); a process
// that opens it checks every file the same way before using it.
//
// The index serves the default search: no hidden files, .gitignore applied. A search with
// include_hidden or include_ignored, below a directory the index does not cover, or while the
// index is being built walks the tree as before.
package codeindex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"toolhost/internal/fsread"
)

// Defaults of Config.
const (
	DefaultMaxFiles     = 1_000_000
	DefaultMaxFileBytes = 4 << 20
	DefaultMaxBytes     = 8 << 30
)

// Config configures an Index.
type Config struct {
	// Dir is where the index lives on disk (one directory per working directory).
	Dir string
	// Root is the working directory; RootPath its canonical path.
	Root     *os.Root
	RootPath string
	// Screen withholds what the guard withholds in the working directory without grants:
	// those files are never read into the index.
	Screen fsread.Screen
	// MaxFiles bounds the files indexed: a larger tree is not indexed (searches walk it).
	MaxFiles int
	// MaxFileBytes: larger files are not indexed but read by every search.
	MaxFileBytes int64
	// MaxBytes bounds the content indexed in all: past it, the index is not built.
	MaxBytes int64
	// NoWatch turns file-system notifications off: every query then checks its scope's files
	// against their times (slower, still exact).
	NoWatch bool
	// Symbols, when set, lists the names a file defines: they are indexed too, so that a
	// lookup by name reads only the files that define it (SymbolQuery).
	Symbols func(rel string, src []byte, emit func(name string))
	// OnChange, when set, hears the paths notifications named (files and directories that
	// changed, appeared or went), after the index took them in: language servers learn of
	// changes made outside toolhost this way.
	OnChange func(rels []string)
	Logger   *slog.Logger
}

// ErrTooLarge is returned by Build for a tree past the configured bounds.
var ErrTooLarge = errors.New("the working directory is larger than the index may be")

// Index is one working directory's index. Its methods are safe for concurrent use.
type Index struct {
	cfg Config
	log *slog.Logger
	// beforeWatch runs after a build's state is in use and before its directories are
	// watched (tests: a change lands in that gap).
	beforeWatch func()

	mu    sync.Mutex
	st    *state // nil: not built or loaded
	phase string // "", "building", "loading"
	err   error  // the last build's failure
	// builtAt and buildTime describe the state in use.
	builtAt   time.Time
	buildTime time.Duration
	serial    atomic.Uint32 // segment serial numbers

	w       *watcher
	kick    chan struct{} // wakes the updater
	closed  chan struct{}
	wg      sync.WaitGroup
	persist bool // this process owns the on-disk copy (holds the lock)
	started bool // StartBuild ran
	updOnce sync.Once
	unlock  func()

	// Queries and Updates count what happened, for status and tests.
	Queries, Served, Updates atomic.Int64
	lastUpdate               atomic.Int64 // unix nanoseconds of the last applied change
}

// file flags
const (
	fBinary    = 1 << iota // NUL in the head: grep skips it
	fUnindexed             // too large, unreadable or refused: every search reads it
	fGone                  // no longer in the tree
	fFoldKS                // holds the Kelvin sign or the long s
)

// kinds of directory entries
const (
	kFile = iota
	kDir
	kOther      // symlink, FIFO, socket, device: listed by the walk, never searched
	kDepth      // a directory at the depth limit
	kUnreadable // a directory that could not be listed
)

type entry struct {
	name string
	kind uint8
	id   uint32 // kFile: the file's id
}

// dirNode is one directory of the walk: its entries in walk order and what was left out.
type dirNode struct {
	rel      string
	entries  []entry
	hidden   int
	ignored  int
	withheld []string // rel of each withheld entry
	hasIgn   bool     // holds a .gitignore
}

// fileNode is one file, by id (ids are never reused while a process runs).
type fileNode struct {
	rel   string
	size  int64
	mtime int64
	ctime int64
	ino   uint64
	sid   uint32 // serial of the segment holding its trigrams; 0: not indexed (read it)
	flags uint8
}

// state is everything a query needs; a build makes a new one and swaps it in.
type state struct {
	dirs  map[string]*dirNode
	files []fileNode
	byRel map[string]uint32
	segs  []*segment // on disk, then in memory (recent changes)
	mem   map[uint32][]uint32
	// dirty are files whose content changed since they were indexed; pending are
	// directories to list again.
	dirty   map[uint32]uint64 // the notification that made it dirty
	gen     uint64
	pending map[string]struct{}
	// changed are the paths notified since the last update (for Config.OnChange).
	changed []string
	// reconcile asks for a new walk of everything (ignore rules changed, events lost).
	reconcile  bool
	depthLimit bool
	bytes      int64
}

func newState() *state {
	return &state{dirs: map[string]*dirNode{}, byRel: map[string]uint32{}, mem: map[uint32][]uint32{},
		dirty: map[uint32]uint64{}, pending: map[string]struct{}{}}
}

// Open returns the index of a working directory. Nothing is read yet: Load or Build does it.
func Open(cfg Config) *Index {
	if cfg.MaxFiles <= 0 {
		cfg.MaxFiles = DefaultMaxFiles
	}
	if cfg.MaxFileBytes <= 0 {
		cfg.MaxFileBytes = DefaultMaxFileBytes
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	ix := &Index{cfg: cfg, log: cfg.Logger, kick: make(chan struct{}, 1), closed: make(chan struct{})}
	ix.serial.Store(uint32(time.Now().UnixNano() & 0xffff))
	return ix
}

// Ready reports whether queries are served from the index.
func (ix *Index) Ready() bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.st != nil
}

// Busy reports whether a build or load is under way.
func (ix *Index) Busy() bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.phase != ""
}

// Close stops watching, writes the recent changes to disk when this process owns the index,
// and releases the segments.
func (ix *Index) Close() error {
	select {
	case <-ix.closed:
		return nil
	default:
	}
	close(ix.closed)
	ix.wg.Wait()
	if ix.w != nil {
		ix.w.close()
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	var err error
	if ix.st != nil && ix.persist && len(ix.st.mem) > 0 {
		err = ix.flushLocked()
	}
	if ix.st != nil {
		for _, s := range ix.st.segs {
			s.close()
		}
		ix.st = nil
	}
	if ix.unlock != nil {
		ix.unlock()
	}
	return err
}

// Build walks the working directory and indexes every file (or, when old is the state in
// use, only what changed since). It replaces the state in use when done.
func (ix *Index) Build(ctx context.Context) error {
	if !ix.begin("building") {
		return errors.New("a build is already under way")
	}
	ix.mu.Lock()
	old := ix.st
	ix.mu.Unlock()
	err := ix.build(ctx, old)
	ix.end(err)
	return err
}

func (ix *Index) begin(phase string) bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.phase != "" {
		return false
	}
	ix.phase = phase
	return true
}

func (ix *Index) end(err error) {
	ix.mu.Lock()
	ix.phase = ""
	ix.err = err
	ix.mu.Unlock()
}

// build makes a new state from a walk; files unchanged since old keep their postings.
func (ix *Index) build(ctx context.Context, old *state) error {
	start := time.Now()
	if err := ix.claimDir(); err != nil {
		return err
	}
	st := newStateAfter(old)
	// The walk feeds the workers as it goes; both change st under bm.
	b := &builder{ix: ix, st: st, old: old, jobs: make(chan job, 1024)}
	in := ix.newIndexer(st, true, &b.bm, nil)
	done := make(chan error, 1)
	go func() { done <- in.run(ctx, b.jobs) }()
	_, err := fsread.Walk(ctx, ix.cfg.Root, ".", fsread.WalkOptions{Screen: ix.cfg.Screen, Skipped: b.skipped},
		func(e fsread.WalkEntry) error { return b.visit(ctx, e) })
	close(b.jobs)
	ierr := <-done
	if err == nil {
		err = ierr
	}
	if err != nil {
		for _, s := range st.segs {
			s.close()
			os.Remove(s.name)
		}
		return err
	}
	if old != nil {
		st.keepSegments(old)
	}
	if st.bytes > ix.cfg.MaxBytes {
		return fmt.Errorf("%w: %d bytes of text, over the bound of %d", ErrTooLarge, st.bytes, ix.cfg.MaxBytes)
	}
	return ix.install(st, start)
}

// claimDir makes the index's directory and takes its lock, once: one process keeps an index.
func (ix *Index) claimDir() error {
	if err := os.MkdirAll(ix.cfg.Dir, 0o700); err != nil {
		return err
	}
	if ix.unlock == nil {
		if unlock, err := lockDir(ix.cfg.Dir); err == nil {
			ix.unlock, ix.persist = unlock, true
		}
	}
	if !ix.persist {
		return errors.New("another toolhost process is building or keeping this index")
	}
	return nil
}

// newStateAfter is an empty state for a build that follows old: old's files keep their ids
// (segments map their files to them), marked gone until the walk sees them.
func newStateAfter(old *state) *state {
	st := newState()
	if old != nil {
		st.files = make([]fileNode, len(old.files))
		for i, f := range old.files {
			f.flags |= fGone
			st.files[i] = f
		}
	}
	st.dirs["."] = &dirNode{rel: "."}
	return st
}

// builder is one build's walk: it records what the walk sees in st and sends the files to
// index to the workers.
type builder struct {
	ix    *Index
	st    *state
	old   *state
	bm    sync.Mutex // st is shared with the workers
	count int
	jobs  chan job
}

// skipped records an entry the walk left out in its directory's counts.
func (b *builder) skipped(rel string, isDir bool, why fsread.SkipReason) {
	b.bm.Lock()
	defer b.bm.Unlock()
	st := b.st
	d := st.dirs[parentOf(rel)]
	d.noteSkipped(rel, isDir, why)
	switch why {
	case fsread.SkipDepth:
		d.entries = append(d.entries, entry{name: baseName(rel), kind: kDepth})
		st.depthLimit = true
	case fsread.SkipUnreadable:
		delete(st.dirs, rel)
	}
}

// noteSkipped records in d an entry a walk left out: counted (hidden, ignored), named
// (withheld) or listed (unreadable). A directory at the depth limit is the caller's to record.
func (d *dirNode) noteSkipped(rel string, isDir bool, why fsread.SkipReason) {
	switch why {
	case fsread.SkipHidden:
		d.hidden++
	case fsread.SkipIgnored:
		d.ignored++
	case fsread.SkipWithheld:
		d.withheld = append(d.withheld, withheldName(rel, isDir))
	case fsread.SkipUnreadable:
		d.entries = append(d.entries, entry{name: baseName(rel), kind: kUnreadable})
	}
}

// visit records an entry in its directory; a file is then kept (unchanged) or sent to index.
func (b *builder) visit(ctx context.Context, e fsread.WalkEntry) error {
	b.bm.Lock()
	st := b.st
	d := st.dirs[parentOf(e.Rel)]
	switch e.Type {
	case fsread.TypeDir:
		d.entries = append(d.entries, entry{name: e.Name, kind: kDir})
		st.dirs[e.Rel] = &dirNode{rel: e.Rel}
	case fsread.TypeFile:
		id, changed, err := b.file(d, e)
		b.bm.Unlock()
		if err != nil || !changed {
			return err
		}
		e.Retain()
		select {
		case b.jobs <- job{id: id, entry: &e}:
		case <-ctx.Done():
			e.Release()
			return ctx.Err()
		}
		return nil
	default:
		d.entries = append(d.entries, entry{name: e.Name, kind: kOther})
	}
	b.bm.Unlock()
	return nil
}

// file records a file in its directory under the bounds and returns its id; changed is false
// when it is as the old state has it and keeps its postings. b.bm is held.
func (b *builder) file(d *dirNode, e fsread.WalkEntry) (id uint32, changed bool, err error) {
	st, cfg := b.st, b.ix.cfg
	if e.Name == ".gitignore" {
		d.hasIgn = true
	}
	b.count++
	if b.count > cfg.MaxFiles {
		return 0, false, fmt.Errorf("%w: more than %d files", ErrTooLarge, cfg.MaxFiles)
	}
	if st.bytes > cfg.MaxBytes {
		return 0, false, fmt.Errorf("%w: over %d bytes of text", ErrTooLarge, cfg.MaxBytes)
	}
	id = st.fileID(e.Rel)
	d.entries = append(d.entries, entry{name: e.Name, kind: kFile, id: id})
	f := &st.files[id]
	f.flags &^= fGone
	if old := b.old; old != nil && f.sid != 0 {
		if size, fid, err := e.Stat(); err == nil && f.same(size, fid) && old.segHolds(f.sid) {
			if _, dirty := old.dirty[id]; !dirty {
				st.bytes += f.size
				return id, false, nil
			}
		}
	}
	f.sid, f.flags = 0, 0
	return id, true, nil
}

// keepSegments keeps the segments of old that still hold a live file's postings (and, for the
// in-memory one, those postings); the others go.
func (st *state) keepSegments(old *state) {
	for _, s := range old.segs {
		if !st.anyIn(s.sid) {
			continue
		}
		st.segs = append(st.segs, s)
		if s.name == "" {
			for id, tris := range old.mem {
				if st.files[id].sid == s.sid {
					st.mem[id] = tris
				}
			}
		}
	}
}

// install makes st the index's state and saves it, closes the segments only the previous
// state used, and watches the tree from now on.
func (ix *Index) install(st *state, start time.Time) error {
	ix.mu.Lock()
	prev := ix.st
	ix.st = st
	ix.builtAt, ix.buildTime = time.Now(), time.Since(start)
	err := ix.saveLocked()
	ix.mu.Unlock()
	if prev != nil {
		for _, s := range prev.segs {
			if !slices.Contains(st.segs, s) {
				s.close()
			}
		}
	}
	ix.removeStale(st)
	if ix.beforeWatch != nil {
		ix.beforeWatch()
	}
	ix.startWatching(st)
	ix.lastUpdate.Store(time.Now().UnixNano())
	return err
}

// fileID returns the id of rel, a new one if it has none.
func (st *state) fileID(rel string) uint32 {
	if id, ok := st.byRel[rel]; ok {
		return id
	}
	id := uint32(len(st.files))
	st.files = append(st.files, fileNode{rel: rel})
	st.byRel[rel] = id
	return id
}

// same reports whether a stat still describes the indexed file.
func (f *fileNode) same(size int64, id fsread.FileID) bool {
	return f.size == size && f.mtime == id.Mtime && f.ctime == id.Ctime && f.ino == id.Ino
}

func (st *state) segHolds(sid uint32) bool {
	for _, s := range st.segs {
		if s.sid == sid {
			return true
		}
	}
	return false
}

func (st *state) anyIn(sid uint32) bool {
	for i := range st.files {
		if st.files[i].sid == sid && st.files[i].flags&fGone == 0 {
			return true
		}
	}
	return false
}

// withheldName records a withheld entry: its path, with a trailing slash for a directory.
func withheldName(rel string, isDir bool) string {
	if isDir {
		return rel + "/"
	}
	return rel
}

func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return "."
}

// job is one file to index: its id and, from a walk, its entry (opened through its directory);
// without one the file is opened by path.
type job struct {
	id    uint32
	entry *fsread.WalkEntry
}

// indexer reads files and adds their trigrams to segments: on disk (a build) or in memory
// (recent changes). Files are read without mu; what is learnt is applied to st with mu held.
// gens, for recent changes, holds the notification each dirty file was read for: it stays
// dirty when a newer one came meanwhile. Two segment builders take turns, so that one is
// encoded and written while the workers fill the other.
type indexer struct {
	ix     *Index
	st     *state
	toDisk bool
	mu     sync.Locker
	gens   map[uint32]uint64

	bmu  sync.Mutex
	cur  *segmentBuilder
	free chan *segmentBuilder
	emu  sync.Mutex
	err  error
}

func (ix *Index) newIndexer(st *state, toDisk bool, mu sync.Locker, gens map[uint32]uint64) *indexer {
	in := &indexer{ix: ix, st: st, toDisk: toDisk, mu: mu, gens: gens, free: make(chan *segmentBuilder, 1)}
	in.cur = &segmentBuilder{}
	if toDisk {
		sc := &encodeScratch{}
		in.cur = newDiskBuilder(sc)
		in.free <- newDiskBuilder(sc)
	}
	return in
}

func (in *indexer) fail(err error) {
	in.emu.Lock()
	if in.err == nil {
		in.err = err
	}
	in.emu.Unlock()
}

// run indexes the files jobs sends, with one worker per CPU, and writes what is left.
func (in *indexer) run(ctx context.Context, jobs <-chan job) error {
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := newExtractor()
			for j := range jobs {
				if ctx.Err() != nil {
					if j.entry != nil {
						j.entry.Release()
					}
					continue
				}
				in.one(ctx, x, j)
			}
		}()
	}
	wg.Wait()
	if in.err != nil {
		return in.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return in.flush(in.cur)
}

// one reads one file and adds it.
func (in *indexer) one(ctx context.Context, x *extractor, j job) {
	ix, st := in.ix, in.st
	var (
		rc   io.ReadCloser
		size int64
		fid  fsread.FileID
		err  error
	)
	in.mu.Lock()
	rel := st.files[j.id].rel
	in.mu.Unlock()
	if j.entry != nil {
		rc, size, fid, err = j.entry.OpenFile()
		j.entry.Release()
	} else {
		var f *os.File
		if f, err = openNoFollow(ix.cfg.Root, filepath.FromSlash(rel)); err == nil {
			var fi os.FileInfo
			if fi, err = f.Stat(); err == nil && !fi.Mode().IsRegular() {
				err = fsread.ErrNotRegular
			}
			if err == nil {
				size = fi.Size()
				fid, _ = fsread.IdentityOf(fi)
			}
			rc = f
		}
	}
	flags := uint8(0)
	var tris []uint32
	switch {
	case err != nil:
		flags = fUnindexed
	case ix.cfg.Screen != nil && ix.cfg.Screen.Opened(rel, fid) != nil:
		flags = fUnindexed
	case size > ix.cfg.MaxFileBytes:
		flags = fUnindexed
	default:
		var ok bool
		var data []byte
		tris, data, flags, ok = x.read(rc, size)
		if !ok {
			flags = fUnindexed
		} else if ix.cfg.Symbols != nil && flags&fBinary == 0 {
			tris = x.addSymbols(tris, func(emit func(string)) { ix.cfg.Symbols(rel, data, emit) })
		}
	}
	if rc != nil {
		rc.Close()
	}
	in.mu.Lock()
	f := &st.files[j.id]
	f.size, f.mtime, f.ctime, f.ino = size, fid.Mtime, fid.Ctime, fid.Ino
	f.flags, f.sid = flags, 0
	if flags&fUnindexed != 0 {
		if gen, ok := in.gens[j.id]; ok && st.dirty[j.id] == gen {
			delete(st.dirty, j.id) // read by every search anyway
		}
	} else {
		st.bytes += size
	}
	in.mu.Unlock()
	if flags&fUnindexed != 0 {
		return
	}
	in.bmu.Lock()
	in.cur.add(j.id, tris)
	var full *segmentBuilder
	if in.toDisk && in.cur.full() {
		full = in.cur
		select {
		case in.cur = <-in.free:
		case <-ctx.Done():
			in.cur = &segmentBuilder{}
		}
	}
	in.bmu.Unlock()
	if full != nil {
		if err := in.flush(full); err != nil {
			in.fail(err)
		}
		full.reset()
		select {
		case in.free <- full:
		default:
		}
	}
}

// flush turns a builder's files into a segment and points the files at it.
func (in *indexer) flush(b *segmentBuilder) error {
	if len(b.globals) == 0 {
		return nil
	}
	ix, st := in.ix, in.st
	sid := ix.serial.Add(1)
	var s *segment
	if in.toDisk {
		name := filepath.Join(ix.cfg.Dir, fmt.Sprintf("seg-%08x-%d.tri", sid, time.Now().UnixNano()))
		if err := b.write(name); err != nil {
			return err
		}
		var err error
		if s, err = openSegment(name); err != nil {
			return err
		}
	} else {
		s = b.memory()
	}
	s.sid = sid
	in.mu.Lock()
	defer in.mu.Unlock()
	start := 0
	for i, g := range b.globals {
		if !in.toDisk {
			st.mem[g] = slices.Clone(b.tris[start:b.ends[i]])
			start = b.ends[i]
		}
		st.files[g].sid = sid
		if gen, ok := in.gens[g]; ok && st.dirty[g] == gen {
			delete(st.dirty, g)
		}
	}
	st.segs = append(st.segs, s)
	return nil
}

// indexIDs indexes files by id (recent changes), opening each by path.
func (ix *Index) indexIDs(ctx context.Context, st *state, ids []uint32, mu sync.Locker, gens map[uint32]uint64) error {
	jobs := make(chan job, len(ids))
	for _, id := range ids {
		jobs <- job{id: id}
	}
	close(jobs)
	return ix.newIndexer(st, false, mu, gens).run(ctx, jobs)
}

// extractor finds the distinct folded trigrams of a file with a bitmap of all 2^24 trigrams.
type extractor struct {
	seen []uint64
	buf  []byte
	out  []uint32
}

func newExtractor() *extractor { return &extractor{seen: make([]uint64, 1<<24/64)} }

var (
	kelvin = []byte("\u212A")
	longS  = []byte("\u017F")
)

// addSymbols adds the keys of the names a file defines (both cases) to its keys, once each.
func (x *extractor) addSymbols(keys []uint32, names func(emit func(string))) []uint32 {
	n := len(keys)
	names(func(name string) {
		keys = append(keys, symbolKey(name), foldedSymbolKey(name))
	})
	if len(keys) > n {
		sym := keys[n:]
		slices.Sort(sym)
		keys = append(keys[:n], slices.Compact(sym)...)
	}
	x.out = keys
	return keys
}

// read reads the file (size bytes as seen at open) and returns its trigrams, its text and
// flags. ok is false when it could not be read whole.
func (x *extractor) read(r io.Reader, size int64) ([]uint32, []byte, uint8, bool) {
	if int64(cap(x.buf)) < size {
		x.buf = make([]byte, size)
	}
	data := x.buf[:size]
	n, err := io.ReadFull(r, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, nil, 0, false
	}
	data = data[:n]
	if bytes.IndexByte(data[:min(len(data), fsread.BinarySniffLen)], 0) >= 0 {
		return nil, nil, fBinary, true
	}
	// grep stops at a NUL after the head; indexing past it would only add candidates.
	if z := bytes.IndexByte(data, 0); z >= 0 {
		data = data[:z]
	}
	var flags uint8
	if bytes.Contains(data, kelvin) || bytes.Contains(data, longS) {
		flags |= fFoldKS
	}
	x.out = x.out[:0]
	if len(data) >= 3 {
		t := uint32(fold(data[0]))<<8 | uint32(fold(data[1]))
		for _, c := range data[2:] {
			t = (t<<8 | uint32(fold(c))) & 0xffffff
			w, bit := t>>6, uint64(1)<<(t&63)
			if x.seen[w]&bit == 0 {
				x.seen[w] |= bit
				x.out = append(x.out, t)
			}
		}
		for _, t := range x.out {
			x.seen[t>>6] = 0
		}
	}
	return x.out, data, flags, true
}

// dirtyIDs returns the dirty files in id order.
func (st *state) dirtyIDs() []uint32 {
	out := make([]uint32, 0, len(st.dirty))
	for id := range st.dirty {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
