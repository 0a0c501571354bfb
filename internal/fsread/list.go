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
	type pending struct {
		rel   string
		depth int
		m     *ignore.Matcher
	}
	queue := []pending{{rel, 1, m}}
	counted := 0
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if res.Truncated && counted > countAfterTruncation {
			res.OmittedIsLowerBound = true
			break
		}
		p := queue[0]
		queue = queue[1:]
		dir, err := root.OpenRoot(osName(p.rel))
		if err != nil {
			res.Errors++
			continue
		}
		entries, err := readDirSorted(ctx, dir)
		if err != nil {
			dir.Close()
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			res.Errors++
			continue
		}
		dm := p.m
		// The listed directory's own .gitignore is already in ForDir's
		// matcher; deeper ones are added here.
		if !opts.IncludeIgnored && p.depth > 1 {
			for _, e := range entries {
				if e.name == ".gitignore" {
					dm = dm.Enter(root, p.rel)
					break
				}
			}
		}
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
				if p.depth < maxDepth {
					queue = append(queue, pending{erel, p.depth + 1, dm})
				} else {
					res.DepthLimited++
				}
			}
			if len(res.Entries) >= opts.MaxEntries {
				res.Truncated = true
				res.Omitted++
				counted++
				continue
			}
			de := DirEntry{Path: erel, Type: entryType(e.mode), Depth: p.depth}
			if info, err := dir.Lstat(e.name); err == nil {
				de.Type = entryType(info.Mode())
				de.Size, de.ModTime = info.Size(), info.ModTime()
			} else {
				res.Errors++
			}
			if de.Type == TypeSymlink {
				if target, err := dir.Readlink(e.name); err == nil {
					de.LinkTarget = target
				}
			}
			res.Entries = append(res.Entries, de)
		}
		dir.Close()
	}
	sort.Slice(res.Entries, func(i, j int) bool { return pathLess(res.Entries[i].Path, res.Entries[j].Path) })
	return res, nil
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
