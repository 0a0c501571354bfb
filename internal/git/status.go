package git

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Status is the parsed output of `git status --porcelain=v2 -z --branch --show-stash`.
type Status struct {
	// Branch is the current branch ("" when HEAD is detached).
	Branch string
	// OID is the commit HEAD points at ("" when there are no commits yet).
	OID      string
	Detached bool
	// Upstream is the upstream branch ("" when none); Ahead and Behind are counted against it
	// when HasCounts (an upstream that is gone has none).
	Upstream      string
	Ahead, Behind int
	HasCounts     bool
	Stashes       int
	Entries       []Entry
}

// Entry is one changed path. X is the staged (index) state and Y the work tree state, as in
// porcelain output: M modified, T type changed, A added, D deleted, R renamed, C copied,
// U unmerged, '.' unchanged; '?' untracked and '!' ignored use X only.
type Entry struct {
	// Kind is the porcelain record type: '1' ordinary, '2' renamed or copied, 'u' unmerged,
	// '?' untracked, '!' ignored.
	Kind byte
	X, Y byte
	Path string
	// Orig is the path before a rename or copy.
	Orig string
	// Submodule is the porcelain submodule field ("N..." for a plain file).
	Submodule string
}

// Staged reports whether the entry has changes in the index.
func (e Entry) Staged() bool { return (e.Kind == '1' || e.Kind == '2') && e.X != '.' }

// Unstaged reports whether the entry has changes in the work tree not yet staged.
func (e Entry) Unstaged() bool { return (e.Kind == '1' || e.Kind == '2') && e.Y != '.' }

// Conflicted reports an unmerged entry.
func (e Entry) Conflicted() bool { return e.Kind == 'u' }

// Untracked reports an untracked path.
func (e Entry) Untracked() bool { return e.Kind == '?' }

// Clean reports a work tree with nothing staged, changed, conflicted or untracked.
func (s *Status) Clean() bool {
	for _, e := range s.Entries {
		if e.Kind != '!' {
			return false
		}
	}
	return true
}

// Counts returns how many entries are staged, unstaged, untracked and conflicted.
func (s *Status) Counts() (staged, unstaged, untracked, conflicted int) {
	for _, e := range s.Entries {
		if e.Staged() {
			staged++
		}
		if e.Unstaged() {
			unstaged++
		}
		if e.Untracked() {
			untracked++
		}
		if e.Conflicted() {
			conflicted++
		}
	}
	return
}

// Status runs `git status` (porcelain v2) on the whole work tree or on paths (relative to Top).
func (p *Repo) Status(ctx context.Context, paths []string) (*Status, error) {
	res, err := p.run(ctx, command{sub: "status", read: true,
		opts:  []string{"--porcelain=v2", "-z", "--branch", "--show-stash", "--untracked-files=normal"},
		paths: paths})
	if err != nil {
		return nil, err
	}
	return ParseStatus(res.stdout)
}

// ParseStatus parses `git status --porcelain=v2 -z --branch [--show-stash]` output.
func ParseStatus(data []byte) (*Status, error) {
	st := &Status{}
	fields := splitNUL(data)
	for i := 0; i < len(fields); i++ {
		rec := fields[i]
		if rec == "" {
			continue
		}
		switch rec[0] {
		case '#':
			parseHeader(st, rec)
		case '1', '2', 'u':
			e, ok := parseChanged(rec)
			if !ok {
				return nil, fmt.Errorf("%w: malformed status record %q", ErrFailed, truncate(rec, 80))
			}
			if e.Kind == '2' {
				if i+1 >= len(fields) {
					return nil, fmt.Errorf("%w: rename record without its original path", ErrFailed)
				}
				i++
				e.Orig = fields[i]
			}
			st.Entries = append(st.Entries, e)
		case '?', '!':
			if len(rec) < 3 || rec[1] != ' ' {
				return nil, fmt.Errorf("%w: malformed status record %q", ErrFailed, truncate(rec, 80))
			}
			st.Entries = append(st.Entries, Entry{Kind: rec[0], X: rec[0], Y: rec[0], Path: rec[2:]})
		default:
			return nil, fmt.Errorf("%w: unknown status record %q", ErrFailed, truncate(rec, 80))
		}
	}
	return st, nil
}

func parseHeader(st *Status, rec string) {
	key, val, _ := strings.Cut(strings.TrimPrefix(rec, "# "), " ")
	switch key {
	case "branch.oid":
		if val != "(initial)" {
			st.OID = val
		}
	case "branch.head":
		if val == "(detached)" {
			st.Detached = true
		} else {
			st.Branch = val
		}
	case "branch.upstream":
		st.Upstream = val
	case "branch.ab":
		a, b, ok := strings.Cut(val, " ")
		if !ok {
			return
		}
		ahead, err1 := strconv.Atoi(strings.TrimPrefix(a, "+"))
		behind, err2 := strconv.Atoi(strings.TrimPrefix(b, "-"))
		if err1 == nil && err2 == nil {
			st.Ahead, st.Behind, st.HasCounts = ahead, behind, true
		}
	case "stash":
		if n, err := strconv.Atoi(val); err == nil {
			st.Stashes = n
		}
	}
}

// parseChanged parses a '1', '2' or 'u' record (without a rename's original path):
//
//	1 XY sub mH mI mW hH hI path
//	2 XY sub mH mI mW hH hI Xscore path
//	u XY sub m1 m2 m3 mW h1 h2 h3 path
func parseChanged(rec string) (Entry, bool) {
	n := map[byte]int{'1': 8, '2': 9, 'u': 10}[rec[0]]
	parts := strings.SplitN(rec, " ", n+1)
	if len(parts) != n+1 || len(parts[1]) != 2 || parts[n] == "" {
		return Entry{}, false
	}
	return Entry{Kind: rec[0], X: parts[1][0], Y: parts[1][1], Submodule: parts[2], Path: parts[n]}, true
}

// conflictNames describes unmerged XY pairs.
var conflictNames = map[string]string{
	"DD": "both deleted", "AU": "added by us", "UD": "deleted by them", "UA": "added by them",
	"DU": "deleted by us", "AA": "both added", "UU": "both modified",
}

// RenderOptions bound a rendered status.
type RenderOptions struct {
	// MaxPerSection caps the paths listed in each section (default 100); the rest are counted.
	MaxPerSection int
	// State is an operation in progress, from Repo.State.
	State State
	// Shallow marks a shallow clone.
	Shallow bool
}

// RenderStatus is the compact text of a status: a branch line, an in-progress line, then one
// section per kind of change with one path per line.
func RenderStatus(st *Status, o RenderOptions) string {
	if o.MaxPerSection <= 0 {
		o.MaxPerSection = 100
	}
	var b strings.Builder
	b.WriteString(BranchLine(st))
	if o.Shallow {
		b.WriteString(" (shallow clone: older history is missing)")
	}
	b.WriteByte('\n')
	if line := stateLine(o.State); line != "" {
		b.WriteString(line + "\n")
	}
	var conflicted, staged, unstaged, untracked []string
	for _, e := range st.Entries {
		switch {
		case e.Conflicted():
			name := conflictNames[string([]byte{e.X, e.Y})]
			if name == "" {
				name = "unmerged"
			}
			conflicted = append(conflicted, e.Path+" ("+name+")")
		case e.Untracked():
			untracked = append(untracked, e.Path)
		}
		if e.Staged() {
			staged = append(staged, string(e.X)+" "+entryPath(e))
		}
		if e.Unstaged() {
			unstaged = append(unstaged, string(e.Y)+" "+e.Path)
		}
	}
	if len(conflicted)+len(staged)+len(unstaged)+len(untracked) == 0 {
		b.WriteString("clean: nothing to commit\n")
	}
	section(&b, "conflicted", conflicted, o.MaxPerSection)
	section(&b, "staged", staged, o.MaxPerSection)
	section(&b, "unstaged", unstaged, o.MaxPerSection)
	section(&b, "untracked", untracked, o.MaxPerSection)
	return strings.TrimRight(b.String(), "\n")
}

// BranchLine describes HEAD: "branch main, upstream origin/main (ahead 1, behind 2)",
// "detached HEAD at abc1234" or "branch main, no commits yet".
func BranchLine(st *Status) string {
	var b strings.Builder
	switch {
	case st.Detached:
		fmt.Fprintf(&b, "detached HEAD at %s", short(st.OID))
	case st.OID == "":
		fmt.Fprintf(&b, "branch %s, no commits yet", st.Branch)
	default:
		fmt.Fprintf(&b, "branch %s", st.Branch)
	}
	if st.Upstream != "" {
		fmt.Fprintf(&b, ", upstream %s", st.Upstream)
		switch {
		case !st.HasCounts:
			b.WriteString(" (gone)")
		case st.Ahead == 0 && st.Behind == 0:
			b.WriteString(" (up to date)")
		default:
			fmt.Fprintf(&b, " (ahead %d, behind %d)", st.Ahead, st.Behind)
		}
	} else if !st.Detached && st.OID != "" {
		b.WriteString(", no upstream")
	}
	if st.Stashes > 0 {
		fmt.Fprintf(&b, "; %d stashed", st.Stashes)
	}
	return b.String()
}

func stateLine(s State) string {
	switch s {
	case StateMerge:
		return "merge in progress: resolve the conflicted files, stage them, then commit"
	case StateRebase:
		return "rebase in progress: resolve conflicts and stage them, then `git rebase --continue` in a terminal"
	case StateCherryPick:
		return "cherry-pick in progress: resolve conflicts and stage them, then commit"
	case StateRevert:
		return "revert in progress: resolve conflicts and stage them, then commit"
	case StateBisect:
		return "bisect in progress"
	}
	return ""
}

func entryPath(e Entry) string {
	if e.Kind == '2' && e.Orig != "" {
		return e.Orig + " -> " + e.Path
	}
	return e.Path
}

func section(b *strings.Builder, name string, items []string, max int) {
	if len(items) == 0 {
		return
	}
	fmt.Fprintf(b, "%s (%d):\n", name, len(items))
	for i, it := range items {
		if i == max {
			fmt.Fprintf(b, "  ... %d more (pass paths to narrow)\n", len(items)-max)
			break
		}
		b.WriteString("  " + it + "\n")
	}
}

func short(id string) string {
	if len(id) > 7 {
		return id[:7]
	}
	return id
}
