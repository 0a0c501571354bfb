package authz

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"toolhost/internal/fsread"
)

// fileKey identifies a file by device and inode; the zero value means "not known".
type fileKey struct{ dev, ino uint64 }

// Withhold reports whether a walk below the target (a listing, a glob, a search) must leave out
// the entry rel, relative to t.Root: a protected or secret path (toolhost's own state, .git
// config and hooks, ~/.ssh, a .env file outside the working directory, ...) that the grant
// which allowed the target does not name. So a walk reveals exactly the names and contents a
// direct read of each entry would, whatever directory it starts from.
func (t *Target) Withhold(rel string, isDir bool) bool {
	g := t.guard
	if g == nil {
		return false
	}
	if t.dir == g.workdir && g.rules().plainInside && !hasGitName(rel) {
		// The common walk: inside a working directory that holds none of toolhost's files and
		// no credential store, only .git internals can be protected.
		return false
	}
	c := filepath.Join(t.dir, filepath.FromSlash(rel))
	inside := within(c, g.workdir)
	a, ok := g.protectedAnchor(c, inside, false, false)
	if !ok {
		a, ok = g.secretAnchor(c, inside)
	}
	if !ok {
		return false
	}
	return t.grant == nil || !t.grant.covers(c) || !t.grant.namesAnchor(a)
}

// hasGitName reports whether a component of the slash-separated rel is .git in any case (the
// first component of the working directory's own path is not in rel; its repository root is).
func hasGitName(rel string) bool {
	for {
		i := strings.IndexByte(rel, '/')
		comp := rel
		if i >= 0 {
			comp = rel[:i]
		}
		if len(comp) == 4 && strings.EqualFold(comp, ".git") {
			return true
		}
		if i < 0 {
			return false
		}
		rel = rel[i+1:]
	}
}

// WorkDirScreen screens a walk of the working directory that no request opened (a did-you-mean
// lookup): it withholds what a walk of a Target there would.
func (g *Guard) WorkDirScreen() fsread.Screen {
	return &Target{Root: g.root, Rel: ".", Canonical: g.workdir, guard: g, dir: g.workdir}
}

// Opened vets a file opened to read its contents below the target (fsread.Screen): the file the
// guard decided on must be the one that was opened, and a file with several hard links is read
// only when a grant names it or all its links are inside the working directory.
func (t *Target) Opened(rel string, id fsread.FileID) error {
	return t.vet(rel, fileKey{id.Dev, id.Ino}, id.Nlink, id.Ctime)
}

func (t *Target) vet(rel string, k fileKey, nlink uint64, ctime int64) error {
	g := t.guard
	if g == nil {
		return nil
	}
	c := filepath.Join(t.dir, filepath.FromSlash(rel))
	if c == t.Canonical && t.Decision.id != (fileKey{}) && t.Decision.id != k {
		return &Denial{Code: CodeChanged, Canonical: c, Access: "read",
			Message:  fmt.Sprintf("%s was replaced by another file while it was being opened", shorten(c)),
			NextStep: "retry; if it keeps changing, something else is rewriting it"}
	}
	if nlink <= 1 {
		return nil
	}
	if t.grant != nil && t.grant.Path == c {
		return nil // a grant naming the file is the user's word on it
	}
	if g.links.onlyInside(context.Background(), k, nlink, ctime) {
		return nil
	}
	d := &Denial{Code: CodeHardLink, Canonical: c, Access: "read", Message: sharedMessage(c, nlink)}
	if t.readAccess != "" {
		d.NextStep = g.requestAuthorizationCall(c, t.readAccess)
	}
	return d
}

// sharedMessage explains a refused read of a file with several hard links.
func sharedMessage(c string, nlink uint64) string {
	return fmt.Sprintf("%s has %d hard links and not all of them are inside the working directory, so it may be a credential stored elsewhere; only a grant naming it allows reading it", shorten(c), nlink)
}

// Limits of the hard-link census.
const (
	// linkWalkMax bounds the entries one census of the working directory looks at; a larger
	// tree proves fewer files linked only inside (they are refused, never allowed wrongly).
	linkWalkMax = 200_000
	// linkCensusInterval is the least time between two censuses, so a burst of reads of files
	// the census cannot vouch for costs one walk, not one each.
	linkCensusInterval = 2 * time.Second
	// linkClockSlack covers the coarse clock of file timestamps.
	linkClockSlack = 20 * time.Millisecond
)

// linkIndex answers "are all the links of this file inside the working directory?" from a census
// of the multiply-linked regular files in it: a file is linked only inside when the census found
// as many of its names inside as it has links. Building one costs an lstat per file, so it is
// built only when a multiply-linked file is read, and kept: its answer about a file stands while
// the file's status change time (which every link and unlink updates) is the one the census saw.
type linkIndex struct {
	dir string

	mu     sync.Mutex
	built  time.Time // when the last census started
	counts map[fileKey]linkSeen
}

// linkSeen is what a census saw of one file: its names inside and its status change time.
type linkSeen struct {
	names uint64
	ctime int64
}

func (x *linkIndex) onlyInside(ctx context.Context, k fileKey, nlink uint64, ctime int64) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.counts != nil {
		s, seen := x.counts[k]
		switch {
		case seen && s.ctime == ctime:
			return s.names == nlink // unchanged since the census counted it
		case !seen && ctime < x.built.Add(-linkClockSlack).UnixNano():
			return false // unchanged since before the census, which found no name of it inside
		case time.Since(x.built) < linkCensusInterval:
			return false // cannot vouch for it yet: refused, never allowed on a guess
		}
	}
	x.built = time.Now()
	x.counts = x.census(ctx)
	s := x.counts[k]
	return s.names == nlink && s.ctime == ctime
}

// census walks the working directory without following symlinks and counts the names of every
// multiply-linked regular file.
func (x *linkIndex) census(ctx context.Context) map[fileKey]linkSeen {
	counts := map[fileKey]linkSeen{}
	seen := 0
	filepath.WalkDir(x.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: its links stay uncounted, so they prove nothing
		}
		if seen++; seen > linkWalkMax {
			return filepath.SkipAll
		}
		if seen%1024 == 0 && ctx.Err() != nil {
			return filepath.SkipAll
		}
		if !d.Type().IsRegular() {
			return nil
		}
		var st statT
		if lstat(p, &st) != nil || st.Nlink < 2 || st.Mode&sIFMT != sIFREG {
			return nil
		}
		k := statKey(&st)
		counts[k] = linkSeen{names: counts[k].names + 1, ctime: ctimeOf(&st)}
		return nil
	})
	return counts
}

// compile-time check that a Target screens walks.
var _ fsread.Screen = (*Target)(nil)
