package fsread

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"toolhost/internal/ignore"
)

// List defaults.
const (
	DefaultMaxEntries = 500
	// countAfterTruncation bounds the extra entries a truncated listing
	// looks at only to report how many were left out.
	countAfterTruncation = 100_000
)

// ListOptions configures ListDir.
type ListOptions struct {
	// Screen withholds entries (nil: none).
	Screen Screen
	// Recursive lists subdirectories too, breadth first, down to MaxDepth.
	Recursive bool
	// MaxDepth limits recursion (1 = only the directory itself). 0 means 1
	// without Recursive and DefaultMaxWalkDepth with it.
	MaxDepth int
	// IncludeHidden lists dot files, which are left out by default.
	IncludeHidden bool
	// IncludeIgnored lists paths matched by .gitignore rules.
	IncludeIgnored bool
	// MaxEntries caps the entries returned (default DefaultMaxEntries).
	MaxEntries int
}

// DirEntry is one listed entry.
type DirEntry struct {
	// Path is slash-separated and relative to the root.
	Path string
	Type EntryType
	// Size is in bytes (for symlinks, the link itself).
	Size    int64
	ModTime time.Time
	// Depth is 1 for entries directly in the listed directory.
	Depth int
	// LinkTarget is what a symlink points to, as stored (never followed).
	LinkTarget string
}

// ListResult is what ListDir found.
type ListResult struct {
	// Path is the listed directory, relative to the root ("" is the root).
	Path    string
	Entries []DirEntry
	// Truncated says entries were left out because of MaxEntries; Omitted
	// counts them (a lower bound when OmittedIsLowerBound).
	Truncated           bool
	Omitted             int
	OmittedIsLowerBound bool
	// HiddenSkipped and IgnoredSkipped count entries filtered out by
	// default; DepthLimited counts directories not entered.
	HiddenSkipped int
	// Withheld counts entries the Screen left out.
	Withheld       int
	IgnoredSkipped int
	DepthLimited   int
	// Errors counts entries or directories that could not be read.
	Errors int
}

// ListDir lists the directory rel. The result is sorted by path; with
// Recursive the entries are chosen breadth first, so a truncated listing
// shows the top levels completely before deeper ones. Symlinks are listed
// and never followed.
func ListDir(ctx context.Context, root *os.Root, rel string, opts ListOptions) (ListResult, error) {
	rel, err := cleanRel(rel)
	if err != nil {
		return ListResult{}, err
	}
	res := ListResult{Path: rel}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	maxDepth := opts.MaxDepth
	switch {
	case !opts.Recursive:
		maxDepth = 1
	case maxDepth <= 0 || maxDepth > DefaultMaxWalkDepth:
		maxDepth = DefaultMaxWalkDepth
	}
	fi, err := root.Stat(osName(rel))
	if err != nil {
		return res, fmt.Errorf("list_dir: %w", err)
	}
	if !fi.IsDir() {
		return res, fmt.Errorf("list_dir %s: %w", rel, ErrNotDir)
	}
	var m *ignore.Matcher
	if !opts.IncludeIgnored {
		m = ignore.ForDir(ctx, root, rel)
	}
	l := &lister{root: root, opts: opts, maxDepth: maxDepth, res: &res}
	queue := []pendingDir{{rel, 1, m}}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if res.Truncated && l.counted > countAfterTruncation {
			res.OmittedIsLowerBound = true
			break
		}
		p := queue[0]
		queue = queue[1:]
		subdirs, err := l.list(ctx, p)
		if err != nil {
			return res, err
		}
		queue = append(queue, subdirs...)
	}
	sort.Slice(res.Entries, func(i, j int) bool { return pathLess(res.Entries[i].Path, res.Entries[j].Path) })
	return res, nil
}

// pendingDir is a directory ListDir has yet to list.
type pendingDir struct {
	rel   string
	depth int
	m     *ignore.Matcher
}

// lister is one ListDir call: its options and the result it fills.
type lister struct {
	root     *os.Root
	opts     ListOptions
	maxDepth int
	res      *ListResult
	counted  int // entries counted past the cap
}

// list adds the entries of one directory to the result and returns its subdirectories to
// list next (when recursive and above the depth limit). The only error is cancellation.
func (l *lister) list(ctx context.Context, p pendingDir) ([]pendingDir, error) {
	opts, res := l.opts, l.res
	dir, err := l.root.OpenRoot(osName(p.rel))
	if err != nil {
		res.Errors++
		return nil, nil
	}
	defer dir.Close()
	entries, err := readDirSorted(ctx, dir)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res.Errors++
		return nil, nil
	}
	dm := p.m
	// The listed directory's own .gitignore is already in ForDir's
	// matcher; deeper ones are added here.
	if !opts.IncludeIgnored && p.depth > 1 {
		dm = withGitignore(dm, l.root, p.rel, entries)
	}
	var subdirs []pendingDir
	for _, e := range entries {
		if !opts.IncludeHidden && isHidden(e.name) {
			res.HiddenSkipped++
			continue
		}
		erel := joinRel(p.rel, e.name)
		isDir := e.mode.IsDir()
		// .git is always left out, like in every walk; listing it
		// by name still works. It is not counted: "skipped 1
		// gitignored" would send the model after a file it cannot get.
		if e.name == ".git" && isDir {
			continue
		}
		if withhold(opts.Screen, erel, isDir) {
			res.Withheld++
			continue
		}
		if !opts.IncludeIgnored && dm.Ignored(erel, isDir) {
			res.IgnoredSkipped++
			continue
		}
		if isDir && opts.Recursive {
			if p.depth < l.maxDepth {
				subdirs = append(subdirs, pendingDir{erel, p.depth + 1, dm})
			} else {
				res.DepthLimited++
			}
		}
		if len(res.Entries) >= opts.MaxEntries {
			res.Truncated = true
			res.Omitted++
			l.counted++
			continue
		}
		res.Entries = append(res.Entries, l.entry(dir, e, erel, p.depth))
	}
	return subdirs, nil
}

// entry describes one listed entry from its Lstat (and a symlink's target).
func (l *lister) entry(dir *os.Root, e dirent, erel string, depth int) DirEntry {
	de := DirEntry{Path: erel, Type: entryType(e.mode), Depth: depth}
	if info, err := dir.Lstat(e.name); err == nil {
		de.Type = entryType(info.Mode())
		de.Size, de.ModTime = info.Size(), info.ModTime()
	} else {
		l.res.Errors++
	}
	if de.Type == TypeSymlink {
		if target, err := dir.Readlink(e.name); err == nil {
			de.LinkTarget = target
		}
	}
	return de
}

// pathLess orders paths component by component, so a directory's children
// follow it directly ("a", "a/b", "a.txt" rather than "a", "a.txt", "a/b").
func pathLess(a, b string) bool {
	for {
		ai, bi := strings.IndexByte(a, '/'), strings.IndexByte(b, '/')
		ac, bc := a, b
		if ai >= 0 {
			ac = a[:ai]
		}
		if bi >= 0 {
			bc = b[:bi]
		}
		if ac != bc {
			return ac < bc
		}
		if ai < 0 || bi < 0 {
			return ai < 0 && bi >= 0
		}
		a, b = a[ai+1:], b[bi+1:]
	}
}
