package git

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// DiffOptions chooses what a diff compares.
type DiffOptions struct {
	// Staged compares the index with HEAD (or with Range.To when set).
	Staged bool
	// Range, when set, compares the work tree (or index) with Range.To when From is empty, or
	// two commits otherwise. Nil compares the work tree with the index.
	Range *Range
	// Paths limits the diff (relative to the work tree root).
	Paths []string
	// Context is the number of context lines; negative means git's default (3).
	Context int
}

func (o DiffOptions) command(opts ...string) (command, error) {
	c := command{sub: "diff", read: true, opts: append([]string{"--no-color", "--no-ext-diff", "-M"}, opts...), paths: o.Paths, dashDash: true, endOpts: true}
	if o.Context >= 0 {
		c.opts = append(c.opts, "-U"+strconv.Itoa(o.Context))
	}
	if o.Staged {
		c.opts = append(c.opts, "--cached")
	}
	if o.Range != nil {
		if o.Staged && o.Range.From != "" {
			return command{}, fmt.Errorf("%w: staged compares the index with one ref, not a range", ErrInvalidRef)
		}
		c.revs = o.Range.Args()
	}
	return c, nil
}

// Diff returns the unified diff. Truncated says the output passed the runner's cap and was cut.
func (p *Repo) Diff(ctx context.Context, o DiffOptions) (text []byte, truncated bool, err error) {
	c, err := o.command("--patch")
	if err != nil {
		return nil, false, err
	}
	res, err := p.run(ctx, c)
	if err != nil {
		return nil, false, err
	}
	return res.stdout, res.truncated, nil
}

// FileStat is one file of a diffstat. Binary files have no line counts.
type FileStat struct {
	Path, Orig     string
	Added, Deleted int
	Binary         bool
}

// NumStat returns the diffstat of the same comparison as Diff.
func (p *Repo) NumStat(ctx context.Context, o DiffOptions) ([]FileStat, error) {
	o.Context = -1
	c, err := o.command("--numstat", "-z")
	if err != nil {
		return nil, err
	}
	res, err := p.run(ctx, c)
	if err != nil {
		return nil, err
	}
	return ParseNumStat(res.stdout)
}

// ParseNumStat parses `git diff --numstat -z`: "added\tdeleted\tpath\0", or for a rename
// "added\tdeleted\t\0old\0new\0"; binary files count "-".
func ParseNumStat(data []byte) ([]FileStat, error) {
	fields := splitNUL(data)
	var out []FileStat
	for i := 0; i < len(fields); i++ {
		parts := strings.SplitN(fields[i], "\t", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("%w: malformed numstat record %q", ErrFailed, truncate(fields[i], 80))
		}
		fs := FileStat{Path: parts[2]}
		if parts[0] == "-" && parts[1] == "-" {
			fs.Binary = true
		} else {
			a, err1 := strconv.Atoi(parts[0])
			d, err2 := strconv.Atoi(parts[1])
			if err1 != nil || err2 != nil || a < 0 || d < 0 {
				return nil, fmt.Errorf("%w: malformed numstat counts %q", ErrFailed, truncate(fields[i], 80))
			}
			fs.Added, fs.Deleted = a, d
		}
		if fs.Path == "" {
			if i+2 >= len(fields) {
				return nil, fmt.Errorf("%w: rename record without its paths", ErrFailed)
			}
			fs.Orig, fs.Path = fields[i+1], fields[i+2]
			i += 2
		}
		out = append(out, fs)
	}
	return out, nil
}

// RenderStat is the compact diffstat: a totals line, then "+added -deleted path" per file.
func RenderStat(stats []FileStat, limit int) string {
	if len(stats) == 0 {
		return "no changes"
	}
	if limit <= 0 {
		limit = 500
	}
	added, deleted, w := 0, 0, 0
	for _, s := range stats {
		added += s.Added
		deleted += s.Deleted
		w = max(w, len(statCounts(s)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s changed, +%d -%d\n", len(stats), plural(len(stats), "file", "files"), added, deleted)
	for i, s := range stats {
		if i == limit {
			fmt.Fprintf(&b, "... %d more files (pass paths to narrow)\n", len(stats)-limit)
			break
		}
		path := s.Path
		if s.Orig != "" {
			path = s.Orig + " -> " + s.Path
		}
		fmt.Fprintf(&b, "%-*s %s\n", w, statCounts(s), path)
	}
	return strings.TrimRight(b.String(), "\n")
}

func statCounts(s FileStat) string {
	if s.Binary {
		return "binary"
	}
	return fmt.Sprintf("+%d -%d", s.Added, s.Deleted)
}

// NameStatus is one path changed against a base, with git's status letter (A, M, D, R, C, T).
type NameStatus struct {
	Status     byte
	Path, Orig string
}

// ParseNameStatus parses `git diff --name-status -z`: "X\0path\0", or "R100\0old\0new\0".
func ParseNameStatus(data []byte) ([]NameStatus, error) {
	fields := splitNUL(data)
	var out []NameStatus
	for i := 0; i < len(fields); i++ {
		code := fields[i]
		if code == "" || i+1 >= len(fields) {
			return nil, fmt.Errorf("%w: malformed name-status record %q", ErrFailed, truncate(code, 40))
		}
		ns := NameStatus{Status: code[0], Path: fields[i+1]}
		i++
		if ns.Status == 'R' || ns.Status == 'C' {
			if i+1 >= len(fields) {
				return nil, fmt.Errorf("%w: rename record without its new path", ErrFailed)
			}
			ns.Orig, ns.Path = ns.Path, fields[i+1]
			i++
		}
		out = append(out, ns)
	}
	return out, nil
}

// Changed is the answer of ChangedFiles.
type Changed struct {
	// Base is the commit compared against (the merge base), BaseRef what it was found from.
	Base, BaseRef string
	Files         []NameStatus
	Untracked     []string
}

// ChangedFiles lists the files that differ between base (a commit id; empty in a repository with
// no commits) and the work tree, staged or not, plus untracked files.
func (p *Repo) ChangedFiles(ctx context.Context, base string, paths []string) (*Changed, error) {
	ch := &Changed{Base: base}
	if base != "" {
		res, err := p.run(ctx, command{sub: "diff", read: true,
			opts: []string{"--no-color", "--no-ext-diff", "--name-status", "-z", "-M"}, revs: []string{base}, endOpts: true,
			paths: paths, dashDash: true})
		if err != nil {
			return nil, err
		}
		if ch.Files, err = ParseNameStatus(res.stdout); err != nil {
			return nil, err
		}
	} else {
		// No commits: everything in the index is new.
		res, err := p.run(ctx, command{sub: "ls-files", read: true, opts: []string{"-z", "--cached"}, paths: paths, dashDash: true})
		if err != nil {
			return nil, err
		}
		for _, f := range splitNUL(res.stdout) {
			ch.Files = append(ch.Files, NameStatus{Status: 'A', Path: f})
		}
	}
	res, err := p.run(ctx, command{sub: "ls-files", read: true, opts: []string{"-z", "--others", "--exclude-standard"}, paths: paths, dashDash: true})
	if err != nil {
		return nil, err
	}
	ch.Untracked = splitNUL(res.stdout)
	return ch, nil
}

// MergeBase returns the best common ancestor of two commits.
func (p *Repo) MergeBase(ctx context.Context, a, b string) (string, error) {
	res, err := p.run(ctx, command{sub: "merge-base", read: true, revs: []string{a, b}, endOpts: true})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(res.stdout)), nil
}

// RenderChanged lists changed files one per line with their status letter; untracked files get '?'.
func RenderChanged(ch *Changed, limit int) string {
	if limit <= 0 {
		limit = 500
	}
	var b strings.Builder
	n := len(ch.Files) + len(ch.Untracked)
	switch {
	case ch.Base == "":
		fmt.Fprintf(&b, "%d %s (no commits yet: everything is new)\n", n, plural(n, "file", "files"))
	default:
		fmt.Fprintf(&b, "%d %s changed against %s (merge base %s), committed or not\n", n, plural(n, "file", "files"), ch.BaseRef, short(ch.Base))
	}
	i := 0
	line := func(s string) bool {
		if i == limit {
			fmt.Fprintf(&b, "... %d more (pass paths to narrow)\n", n-limit)
			return false
		}
		i++
		b.WriteString(s + "\n")
		return true
	}
	for _, f := range ch.Files {
		p := f.Path
		if f.Orig != "" {
			p = f.Orig + " -> " + f.Path
		}
		if !line(string(f.Status) + " " + p) {
			return strings.TrimRight(b.String(), "\n")
		}
	}
	for _, u := range ch.Untracked {
		if !line("? " + u) {
			break
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
