package fsread

import (
	"container/heap"
	"context"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// DefaultMaxResults caps Glob results.
const DefaultMaxResults = 200

// Sort orders for Glob.
const (
	SortByMTime = "mtime" // newest first: what changed recently is what matters most
	SortByPath  = "path"
)

// GlobOptions configures Glob.
type GlobOptions struct {
	// Screen withholds entries (nil: none).
	Screen Screen
	// MaxResults caps the matches returned (default DefaultMaxResults).
	MaxResults int
	// SortBy is SortByMTime (default) or SortByPath.
	SortBy string
	// IncludeHidden matches dot files and enters dot directories. It is
	// implied when the pattern itself spells out a dot name (".env").
	IncludeHidden bool
	// IncludeIgnored matches paths excluded by .gitignore rules.
	IncludeIgnored bool
	// IncludeDirs returns matching directories as well as files.
	IncludeDirs bool
	// Plan, when set, may replay the walk under a directory from the working-directory index:
	// the files in walk order and what the walk would skip (ok false: walk).
	Plan func(walkBase string) (GlobPlan, bool)
}

// GlobPlan is a walk done beforehand: the regular files under a directory in walk order.
type GlobPlan struct {
	Files []string
	Stats WalkStats
}

// globPlanned matches a plan's files as Glob matches the walk's.
func globPlanned(ctx context.Context, root *os.Root, walkBase, rest string, opts GlobOptions, plan GlobPlan) (GlobResult, error) {
	var res GlobResult
	strip := len(walkBase)
	if strip > 0 {
		strip++
	}
	h := &matchHeap{byPath: opts.SortBy == SortByPath}
	for _, rel := range plan.Files {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if ok, _ := doublestar.Match(rest, rel[strip:]); !ok {
			continue
		}
		res.Total++
		if h.byPath && h.Len() >= opts.MaxResults {
			continue
		}
		m := GlobMatch{Path: rel, Type: TypeFile}
		info, err := root.Lstat(osName(rel))
		if err != nil {
			res.Total-- // gone since it was indexed
			continue
		}
		m.Type, m.Size, m.ModTime = entryType(info.Mode()), info.Size(), info.ModTime()
		h.keep(m, opts.MaxResults)
	}
	res.setStats(plan.Stats)
	res.setMatches(h)
	return res, nil
}

// GlobMatch is one matching path.
type GlobMatch struct {
	Path    string // slash-separated, relative to the root
	Type    EntryType
	Size    int64
	ModTime time.Time
}

// GlobResult is what Glob found.
type GlobResult struct {
	Matches []GlobMatch
	// Total counts every match; Omitted = Total - len(Matches).
	Total     int
	Truncated bool
	Omitted   int
	// Visited counts entries examined; the other counts are entries left
	// out by the default filters and limits.
	Visited       int
	HiddenSkipped int
	// Withheld counts entries the Screen left out.
	Withheld       int
	IgnoredSkipped int
	DepthLimited   int
	Errors         int
	// VisitLimited is true when the walk stopped at DefaultMaxVisit, so
	// Total is a lower bound.
	VisitLimited bool
}

// Glob finds paths under base (relative to root) matching pattern. The
// pattern uses doublestar syntax ("**" spans directories, "{a,b}"
// alternatives) and is matched against the path relative to base; a pattern
// without "/" matches names at any depth, as "**/pattern" would, because that
// is what people mean by "*.go". The static prefix of the pattern is walked
// directly, and patterns without "**" do not descend deeper than they can
// match.
func Glob(ctx context.Context, root *os.Root, base, pattern string, opts GlobOptions) (GlobResult, error) {
	var res GlobResult
	base, err := cleanRel(base)
	if err != nil {
		return res, err
	}
	// A backslash escapes the next character, as in every glob; it is never a separator.
	pattern = strings.TrimPrefix(pattern, "./")
	pattern = strings.TrimPrefix(pattern, "/")
	if pattern == "" {
		return res, fmt.Errorf("empty pattern: %w", ErrBadPattern)
	}
	if !doublestar.ValidatePattern(pattern) {
		return res, fmt.Errorf("glob %q: %w", pattern, ErrBadPattern)
	}
	if !strings.Contains(pattern, "/") {
		pattern = "**/" + pattern
	}
	if opts.MaxResults <= 0 {
		opts.MaxResults = DefaultMaxResults
	}
	switch opts.SortBy {
	case "":
		opts.SortBy = SortByMTime
	case SortByMTime, SortByPath:
	default:
		return res, fmt.Errorf("sort_by %q (want mtime or path): %w", opts.SortBy, ErrInvalidOptions)
	}
	prefix, rest := doublestar.SplitPattern(pattern)
	if prefix == "." {
		prefix = ""
	}
	walkBase := base
	if prefix != "" {
		walkBase = joinRel(base, prefix)
		if _, err := cleanRel(walkBase); err != nil {
			return res, err
		}
	}
	fi, err := root.Stat(osName(walkBase))
	if err != nil {
		if os.IsNotExist(err) && prefix != "" {
			return res, nil // the static part does not exist: no matches
		}
		return res, fmt.Errorf("file_search: %w", err)
	}
	if !fi.IsDir() {
		if prefix != "" {
			return res, nil // the static part names a file: nothing below it
		}
		return res, fmt.Errorf("file_search %s: %w", walkBase, ErrNotDir)
	}
	// A pattern that spells out a dot name ("**/.env", ".github/**") asks
	// for hidden files; hiding them anyway would only confuse.
	wo := walkOptions{hidden: opts.IncludeHidden || namesDotFile(rest), noIgnore: opts.IncludeIgnored, screen: opts.Screen}
	if !strings.Contains(rest, "**") {
		wo.maxDepth = strings.Count(rest, "/") + 1
	}
	strip := len(walkBase)
	if strip > 0 {
		strip++
	}
	if opts.Plan != nil {
		// The index replays the walk: only a "**" pattern (no depth bound) over the default
		// filters, below the pattern's static prefix.
		if !strings.Contains(rest, "**") || wo.hidden || wo.noIgnore {
			opts.Plan = nil
		} else if plan, ok := opts.Plan(walkBase); ok {
			return globPlanned(ctx, root, walkBase, rest, opts, plan)
		}
	}
	h := &matchHeap{byPath: opts.SortBy == SortByPath}
	st, err := walk(ctx, root, walkBase, wo, func(d *dirHandle, e dirent, rel string, depth int) error {
		if e.mode.IsDir() && !opts.IncludeDirs {
			return nil
		}
		ok, _ := doublestar.Match(rest, rel[strip:])
		if !ok {
			return nil
		}
		res.Total++
		if h.byPath && h.Len() >= opts.MaxResults {
			return nil // depth-first order is path order: later ones never win
		}
		m := GlobMatch{Path: rel, Type: entryType(e.mode)}
		if info, err := d.root.Lstat(e.name); err == nil {
			m.Type, m.Size, m.ModTime = entryType(info.Mode()), info.Size(), info.ModTime()
		}
		h.keep(m, opts.MaxResults)
		return nil
	})
	res.setStats(st)
	if err != nil {
		return res, fmt.Errorf("file_search: %w", err)
	}
	res.setMatches(h)
	return res, nil
}

// setStats copies what the walk counted into the result.
func (res *GlobResult) setStats(st WalkStats) {
	res.Visited, res.HiddenSkipped, res.IgnoredSkipped, res.Withheld = st.Visited, st.HiddenSkipped, st.IgnoredSkipped, st.Withheld
	res.DepthLimited, res.Errors, res.VisitLimited = st.DepthLimited, st.Errors, st.VisitLimited
}

// setMatches puts the matches kept in order, and counts those left out.
func (res *GlobResult) setMatches(h *matchHeap) {
	res.Matches = h.items
	sort.Slice(res.Matches, func(i, j int) bool { return h.better(res.Matches[i], res.Matches[j]) })
	res.Omitted = res.Total - len(res.Matches)
	res.Truncated = res.Omitted > 0
}

// keep adds m to the matches, dropping the worst when there are more than limit.
func (h *matchHeap) keep(m GlobMatch, limit int) {
	heap.Push(h, m)
	if h.Len() > limit {
		heap.Pop(h)
	}
}

// matchHeap keeps the best MaxResults matches with the worst on top.
type matchHeap struct {
	items  []GlobMatch
	byPath bool
}

func (h *matchHeap) better(a, b GlobMatch) bool {
	if !h.byPath && !a.ModTime.Equal(b.ModTime) {
		return a.ModTime.After(b.ModTime)
	}
	return pathLess(a.Path, b.Path)
}

func (h *matchHeap) Len() int           { return len(h.items) }
func (h *matchHeap) Less(i, j int) bool { return h.better(h.items[j], h.items[i]) }
func (h *matchHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *matchHeap) Push(x any)         { h.items = append(h.items, x.(GlobMatch)) }
func (h *matchHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// globMatchName reports whether a name or path matches an include/exclude
// glob: patterns without "/" match the base name, others the path relative
// to the search base.
func globMatchName(pattern, relToBase string) bool {
	if !strings.Contains(pattern, "/") {
		ok, _ := doublestar.Match(pattern, path.Base(relToBase))
		return ok
	}
	ok, _ := doublestar.Match(strings.TrimPrefix(pattern, "/"), relToBase)
	return ok
}

func doublestarValid(p string) bool { return doublestar.ValidatePattern(p) }

// namesDotFile reports whether a pattern segment starts with a literal dot.
func namesDotFile(pattern string) bool {
	for _, seg := range strings.Split(pattern, "/") {
		if strings.HasPrefix(seg, ".") && seg != "." && seg != ".." {
			return true
		}
	}
	return false
}
