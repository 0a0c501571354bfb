package fsread

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"sort"
	"sync/atomic"

	"toolhost/internal/ignore"
)

// Walk limits shared by list_dir, file_search and grep_search.
const (
	// DefaultMaxWalkDepth bounds how deep walks go. A 10,000-deep tree
	// answers quickly with the depth cut counted in the result.
	DefaultMaxWalkDepth = 128
	// DefaultMaxVisit bounds how many directory entries one walk looks at,
	// so that a walk over a huge tree answers in bounded time.
	DefaultMaxVisit = 2_000_000
	// readDirBatch is how many entries are read per getdents round trip.
	readDirBatch = 4096
)

// dirent is the part of a directory entry the walks keep: 200,000 of them
// must stay small.
type dirent struct {
	name string
	mode fs.FileMode // type bits only
}

// readDirSorted lists a directory through its own root in batches, sorted by
// name, honouring ctx between batches.
func readDirSorted(ctx context.Context, dir *os.Root) ([]dirent, error) {
	f, err := dir.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readDirSortedFile(ctx, dir, f)
}

func readDirSortedFile(ctx context.Context, dir *os.Root, f *os.File) ([]dirent, error) {
	out, err := readDirents(ctx, dir, f)
	if err != nil {
		return out, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// dirHandle is an open directory shared between the walker and the workers
// that open files in it. Opening a file by name relative to its directory
// costs one openat instead of one per path component, which matters for
// grep over tens of thousands of files.
type dirHandle struct {
	root *os.Root
	// dir is the open directory itself; on Linux workers open entries
	// with openat on its descriptor (see openEntry).
	dir  *os.File
	rel  string
	refs atomic.Int32
}

func (d *dirHandle) retain() { d.refs.Add(1) }

func (d *dirHandle) release() {
	if d.refs.Add(-1) == 0 {
		if d.dir != nil {
			d.dir.Close()
		}
		d.root.Close()
	}
}

// WalkStats counts what a walk skipped, for the "left out" figures.
type WalkStats struct {
	Visited        int // entries looked at
	HiddenSkipped  int
	Withheld       int // entries the screen left out
	IgnoredSkipped int
	DepthLimited   int // directories not entered because of the depth limit
	Errors         int // directories that could not be read (also symlink escapes)
	VisitLimited   bool
}

// walkOptions configures walk.
type walkOptions struct {
	hidden   bool // include dot files
	noIgnore bool // do not apply .gitignore rules
	maxDepth int  // entries deeper than this are not visited; 0 = default
	screen   Screen
	// skipDir, when set, prunes a directory before it is entered (used for
	// exclude globs and glob prefix pruning).
	skipDir func(rel string, depth int) bool
	// skipped, when set, hears of each entry the filters left out (the index
	// keeps the counts per directory).
	skipped func(rel string, isDir bool, why SkipReason)
}

// SkipReason says why a walk left an entry out.
type SkipReason int

// The reasons a walk leaves an entry out; Walk's hooks hear them.
const (
	SkipHidden     SkipReason = iota + 1 // a dot name (include_hidden shows it)
	SkipWithheld                         // the screen withheld it
	SkipIgnored                          // a .gitignore rule (include_ignored shows it)
	SkipDepth                            // a directory at the depth limit, not entered
	SkipUnreadable                       // a directory that could not be opened or listed
)

func (o *walkOptions) skip(rel string, isDir bool, why SkipReason) {
	if o.skipped != nil {
		o.skipped(rel, isDir, why)
	}
}

// walkVisit is called for every entry that survives the hidden and ignore
// filters, in depth-first order with names sorted inside each directory.
// The handle is valid during the call; retain it to use it later.
type walkVisit func(d *dirHandle, e dirent, rel string, depth int) error

// errStopWalk ends a walk early without error.
var errStopWalk = errors.New("stop walk")

// walk visits the tree under base (relative to root) depth first. It never
// follows symlinks, never enters a directory ignored by .gitignore (unless
// noIgnore), and stops at maxDepth and DefaultMaxVisit.
func walk(ctx context.Context, root *os.Root, base string, o walkOptions, visit walkVisit) (WalkStats, error) {
	var st WalkStats
	if o.maxDepth <= 0 || o.maxDepth > DefaultMaxWalkDepth {
		o.maxDepth = DefaultMaxWalkDepth
	}
	top, err := root.OpenRoot(osName(base))
	if err != nil {
		return st, err
	}
	var m *ignore.Matcher
	if !o.noIgnore {
		m = ignore.ForDir(ctx, root, base)
	}
	first, err := openWalkDir(ctx, root, top, base, 1, m, o.noIgnore)
	if err != nil {
		return st, err
	}
	stack := []*walkDir{first}
	defer func() {
		for _, f := range stack {
			f.d.release()
		}
	}()
	for len(stack) > 0 {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		f := stack[len(stack)-1]
		if f.next >= len(f.entries) {
			f.d.release()
			stack = stack[:len(stack)-1]
			continue
		}
		e := f.entries[f.next]
		f.next++
		st.Visited++
		if st.Visited > DefaultMaxVisit {
			st.VisitLimited = true
			return st, nil
		}
		rel := joinRel(f.d.rel, e.name)
		if o.leftOut(&st, f, e, rel) {
			continue
		}
		if err := visit(f.d, e, rel, f.depth); err != nil {
			if errors.Is(err, errStopWalk) {
				return st, nil
			}
			return st, err
		}
		if !e.mode.IsDir() {
			continue
		}
		sub, err := o.enter(ctx, root, &st, f, e, rel)
		if err != nil {
			return st, err
		}
		if sub != nil {
			stack = append(stack, sub)
		}
	}
	return st, nil
}

// walkDir is a directory on the walk's stack: its entries and how far the walk has come.
type walkDir struct {
	d       *dirHandle
	entries []dirent
	next    int
	m       *ignore.Matcher
	depth   int // depth of the entries in this directory
}

// openWalkDir opens the directory r (at rel, entries at depth) and lists it sorted; its own
// .gitignore, if any, extends the parent's matcher.
func openWalkDir(ctx context.Context, root, r *os.Root, rel string, depth int, parent *ignore.Matcher, noIgnore bool) (*walkDir, error) {
	d := &dirHandle{root: r, rel: rel}
	d.refs.Store(1)
	df, err := r.Open(".")
	if err != nil {
		d.release()
		return nil, err
	}
	d.dir = df
	entries, err := readDirSortedFile(ctx, r, df)
	if err != nil {
		d.release()
		return nil, err
	}
	fm := parent
	// The base's own .gitignore is already in the ForDir matcher.
	if !noIgnore && depth > 1 {
		fm = withGitignore(fm, root, rel, entries)
	}
	return &walkDir{d: d, entries: entries, m: fm, depth: depth}, nil
}

// withGitignore is the matcher for the directory rel: parent's, extended by rel's own
// .gitignore when its entries hold one.
func withGitignore(parent *ignore.Matcher, root *os.Root, rel string, entries []dirent) *ignore.Matcher {
	for _, e := range entries {
		if e.name == ".gitignore" {
			return parent.Enter(root, rel)
		}
	}
	return parent
}

// leftOut reports whether the walk passes over entry e of f (hidden, .git, withheld,
// ignored, or a directory skipDir prunes), counting and telling why.
func (o *walkOptions) leftOut(st *WalkStats, f *walkDir, e dirent, rel string) bool {
	isDir := e.mode.IsDir()
	switch {
	case !o.hidden && isHidden(e.name):
		st.HiddenSkipped++
		o.skip(rel, isDir, SkipHidden)
	case e.name == ".git" && isDir:
		// always left out, so not counted as skipped
	case withhold(o.screen, rel, isDir):
		st.Withheld++
		o.skip(rel, isDir, SkipWithheld)
	case !o.noIgnore && f.m.Ignored(rel, isDir):
		st.IgnoredSkipped++
		o.skip(rel, isDir, SkipIgnored)
	case isDir && o.skipDir != nil && o.skipDir(rel, f.depth):
	default:
		return false
	}
	return true
}

// enter opens the directory e of f for the walk to go down into; nil when it stands at the
// depth limit or cannot be read (counted and told). The only error is the walk's cancellation.
func (o *walkOptions) enter(ctx context.Context, root *os.Root, st *WalkStats, f *walkDir, e dirent, rel string) (*walkDir, error) {
	if f.depth >= o.maxDepth {
		st.DepthLimited++
		o.skip(rel, true, SkipDepth)
		return nil, nil
	}
	sub, err := f.d.root.OpenRoot(e.name)
	if err != nil {
		st.Errors++
		o.skip(rel, true, SkipUnreadable)
		return nil, nil
	}
	nf, err := openWalkDir(ctx, root, sub, rel, f.depth+1, f.m, o.noIgnore)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		st.Errors++
		o.skip(rel, true, SkipUnreadable)
		return nil, nil
	}
	return nf, nil
}

// openEntryRoot opens name in d through the os.Root, refusing to block on a
// FIFO or following a final symlink; it reports the size, whether the entry
// is a regular file, and its identity.
func openEntryRoot(d *dirHandle, name string) (io.ReadCloser, int64, bool, FileID, error) {
	f, err := d.root.OpenFile(name, os.O_RDONLY|nonblockFlag|nofollowFlag, 0)
	if err != nil {
		return nil, 0, false, FileID{}, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, false, FileID{}, err
	}
	id, _ := fileID(st)
	return f, st.Size(), st.Mode().IsRegular(), id, nil
}
