package fsread

import (
	"context"
	"io"
	"io/fs"
	"os"
)

// WalkOptions configures Walk: the filters of grep_search and file_search, and a hook that
// hears what they leave out.
type WalkOptions struct {
	// Screen withholds entries (nil: none).
	Screen         Screen
	IncludeHidden  bool
	IncludeIgnored bool
	// MaxDepth bounds the depth of visited entries (entries of base are at depth 1); 0 means
	// DefaultMaxWalkDepth. A directory at the limit is visited but not entered.
	MaxDepth int
	// Skipped, when set, hears of each entry the filters leave out, with the reason.
	Skipped func(rel string, isDir bool, why SkipReason)
}

// WalkEntry is one entry Walk visits: a directory (entered after the call), a regular file,
// or something else (a symlink, a FIFO), which is never opened.
type WalkEntry struct {
	Rel   string // slash-separated, relative to the root
	Name  string
	Depth int
	Type  EntryType
	d     *dirHandle
}

// Walk visits the tree under base (relative to root) the way grep_search and file_search do:
// depth first with the names of each directory sorted, never following symlinks, leaving out
// .git, dot names, .gitignored paths and what the screen withholds (as the options say), and
// stopping at the depth and visit limits. It is what the working-directory index records.
func Walk(ctx context.Context, root *os.Root, base string, o WalkOptions, visit func(WalkEntry) error) (WalkStats, error) {
	base, err := cleanRel(base)
	if err != nil {
		return WalkStats{}, err
	}
	wo := walkOptions{hidden: o.IncludeHidden, noIgnore: o.IncludeIgnored, maxDepth: o.MaxDepth, screen: o.Screen, skipped: o.Skipped}
	return walk(ctx, root, base, wo, func(d *dirHandle, e dirent, rel string, depth int) error {
		return visit(WalkEntry{Rel: rel, Name: e.name, Depth: depth, Type: entryType(e.mode), d: d})
	})
}

// Retain keeps the entry's directory open after the visit returns, so that Open can be called
// later (from another goroutine); Release gives it back. Every Retain needs its Release.
func (e WalkEntry) Retain() { e.d.retain() }

// Release undoes a Retain.
func (e WalkEntry) Release() { e.d.release() }

// OpenFile opens a regular file entry for reading through its directory (one openat, no
// symlink followed, no FIFO blocked on) and reports its size and identity. Call it during the
// visit, or between Retain and Release.
func (e WalkEntry) OpenFile() (io.ReadCloser, int64, FileID, error) {
	f, size, regular, id, err := openEntry(e.d, e.Name)
	if err != nil {
		return nil, 0, FileID{}, err
	}
	if !regular {
		f.Close()
		return nil, 0, FileID{}, ErrNotRegular
	}
	return f, size, id, nil
}

// StatFile reports the size and identity of a regular file under root without reading it
// (rel slash-separated, no final symlink followed), for checking an index entry against the
// file system.
func StatFile(root *os.Root, rel string) (int64, FileID, error) {
	return regularStat(root.Lstat(osName(rel)))
}

// regularStat is the size and identity of an Lstat's answer: a regular file, or ErrNotRegular.
func regularStat(fi os.FileInfo, err error) (int64, FileID, error) {
	if err != nil {
		return 0, FileID{}, err
	}
	if !fi.Mode().IsRegular() {
		return 0, FileID{}, ErrNotRegular
	}
	id, _ := fileID(fi)
	return fi.Size(), id, nil
}

// BinarySniffLen is how much of a file's head grep_search looks at for a NUL byte before it
// calls the file binary and skips it; after the head, a NUL ends the searched part.
const BinarySniffLen = binarySniffLen

// MatchGlobs reports whether relToBase (a path relative to the search base) matches one of
// grep_search's include or exclude globs: a glob without "/" matches the base name, others the
// whole relative path.
func MatchGlobs(globs []string, relToBase string) bool { return anyGlob(globs, relToBase) }

// Stat reports the size and identity of the entry (a regular file, no symlink followed)
// without opening it.
func (e WalkEntry) Stat() (int64, FileID, error) {
	return regularStat(e.d.root.Lstat(e.Name))
}

// IdentityOf returns the identity of a file from its FileInfo (false where the platform does
// not tell).
func IdentityOf(fi fs.FileInfo) (FileID, bool) { return fileID(fi) }
