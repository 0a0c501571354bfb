package git

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// LogOptions selects commits.
type LogOptions struct {
	// Range limits the history; nil means everything reachable from HEAD.
	Range *Range
	Paths []string
	// Author and Since are passed to git as --author and --since (a regex and a date such as
	// "2 weeks ago" or "2024-05-01").
	Author, Since string
	// Limit caps the number of commits (default 20).
	Limit int
	// Full asks for the whole message and ISO dates.
	Full bool
}

// Commit is one commit of a log.
type Commit struct {
	ID, Short     string
	Parents       []string
	Author, Email string
	Date          string
	// Refs are the decorations ("HEAD -> main, tag: v1").
	Refs    string
	Subject string
	// Body is the message after the subject (Full only).
	Body string
}

const logFields = "%H%x1f%h%x1f%P%x1f%an%x1f%ae%x1f%ad%x1f%D%x1f%s"

// Log lists commits, newest first.
func (p *Repo) Log(ctx context.Context, o LogOptions) ([]Commit, error) {
	if o.Limit <= 0 {
		o.Limit = 20
	}
	for _, v := range []string{o.Author, o.Since} {
		if strings.ContainsRune(v, 0) || len(v) > 256 {
			return nil, fmt.Errorf("%w: author and since must be short text", ErrInvalidRef)
		}
	}
	format, date := logFields, "--date=short"
	if o.Full {
		format, date = logFields+"%x1f%b", "--date=iso-strict"
	}
	c := command{sub: "log", read: true, opts: []string{"--no-color", "-z", "--format=" + format, date, "-n", strconv.Itoa(o.Limit)},
		paths: o.Paths, dashDash: true, endOpts: true}
	if o.Author != "" {
		c.opts = append(c.opts, "--author="+o.Author)
	}
	if o.Since != "" {
		c.opts = append(c.opts, "--since="+o.Since)
	}
	if o.Range != nil {
		c.revs = o.Range.Args()
	} else {
		c.revs = []string{"HEAD"}
	}
	res, err := p.run(ctx, c)
	if err != nil {
		return nil, err
	}
	return ParseLog(res.stdout, o.Full)
}

// ParseLog parses the NUL-separated records of Log's format.
func ParseLog(data []byte, full bool) ([]Commit, error) {
	n := 8
	if full {
		n = 9
	}
	var out []Commit
	for _, rec := range splitNUL(data) {
		rec = strings.TrimPrefix(rec, "\n")
		f := strings.SplitN(rec, "\x1f", n)
		if len(f) != n || f[0] == "" {
			return nil, fmt.Errorf("%w: malformed log record %q", ErrFailed, truncate(rec, 80))
		}
		c := Commit{ID: f[0], Short: f[1], Author: f[3], Email: f[4], Date: f[5], Refs: f[6], Subject: f[7]}
		if f[2] != "" {
			c.Parents = strings.Fields(f[2])
		}
		if full {
			c.Body = strings.TrimRight(f[8], "\n")
		}
		out = append(out, c)
	}
	return out, nil
}

// RenderLog is one line per commit ("abc1234 2024-05-01 Alice: subject (HEAD -> main)"), or with
// full, a header and the whole message per commit.
func RenderLog(commits []Commit, full bool) string {
	if len(commits) == 0 {
		return "no commits match"
	}
	var b strings.Builder
	for i, c := range commits {
		if !full {
			fmt.Fprintf(&b, "%s %s %s: %s", c.Short, c.Date, c.Author, c.Subject)
			if c.Refs != "" {
				fmt.Fprintf(&b, " (%s)", c.Refs)
			}
			b.WriteByte('\n')
			continue
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "commit %s", c.ID)
		if c.Refs != "" {
			fmt.Fprintf(&b, " (%s)", c.Refs)
		}
		b.WriteByte('\n')
		if len(c.Parents) > 1 {
			shorts := make([]string, len(c.Parents))
			for j, p := range c.Parents {
				shorts[j] = short(p)
			}
			fmt.Fprintf(&b, "Merge: %s\n", strings.Join(shorts, " "))
		}
		fmt.Fprintf(&b, "Author: %s <%s>\nDate:   %s\n\n    %s\n", c.Author, c.Email, c.Date, c.Subject)
		if c.Body != "" {
			b.WriteString("\n")
			for _, l := range strings.Split(c.Body, "\n") {
				b.WriteString(strings.TrimRight("    "+l, " ") + "\n")
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// ShowOptions chooses what Show prints of a commit.
type ShowOptions struct {
	// Context is the number of context lines; negative means git's default (3).
	Context int
	// Only limits the diffstat and patch to Paths (repository-relative, literal); with Only
	// and no Paths, Show prints the header and message alone.
	Only  bool
	Paths []string
}

// Show renders one commit: header, message, diffstat and patch. Truncated says the output was
// cut at the runner's cap.
func (p *Repo) Show(ctx context.Context, id string, o ShowOptions) (text []byte, truncated bool, err error) {
	const format = "--format=commit %H%d%nAuthor: %an <%ae>%nDate:   %ad%n%n%w(0,4,4)%B"
	opts := []string{"--no-color", "--no-ext-diff", "-M", "--stat", "--patch", "--date=iso-strict", format}
	if o.Only && len(o.Paths) == 0 {
		opts = []string{"--no-color", "--no-patch", "--date=iso-strict", format}
	}
	if o.Context >= 0 {
		opts = append(opts, "-U"+strconv.Itoa(o.Context))
	}
	c := command{sub: "show", read: true, opts: opts, revs: []string{id}, endOpts: true, dashDash: true}
	if o.Only {
		c.paths = o.Paths
	}
	res, err := p.run(ctx, c)
	if err != nil {
		return nil, false, err
	}
	return res.stdout, res.truncated, nil
}

// CommitFiles lists every path a commit's patch can show: the paths changed against each of its
// parents (a merge's combined diff shows a subset of them), every path of a root commit, and for
// a rename both paths. Counts are against the parent that listed the path first.
func (p *Repo) CommitFiles(ctx context.Context, id string) ([]FileStat, error) {
	res, err := p.run(ctx, command{sub: "diff-tree", read: true,
		opts: []string{"--no-color", "--no-ext-diff", "-r", "-m", "--root", "-M", "--no-commit-id", "--numstat", "-z"},
		revs: []string{id}, endOpts: true})
	if err != nil {
		return nil, err
	}
	all, err := ParseNumStat(res.stdout)
	if err != nil {
		return nil, err
	}
	seen := map[[2]string]bool{}
	out := all[:0]
	for _, f := range all {
		k := [2]string{f.Orig, f.Path}
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out, nil
}

// Blob is an object's content, or a summary of it when it is binary or a tree.
type Blob struct {
	Type string // blob, tree, commit, tag
	Size int64
	// Text is the content (a blob), the listing (a tree), or empty when Binary.
	Text      []byte
	Binary    bool
	Truncated bool
}

// ReadObject reads the object id (from ResolveObject): a blob's content, a tree's listing.
func (p *Repo) ReadObject(ctx context.Context, id, typ string) (*Blob, error) {
	b := &Blob{Type: typ}
	switch typ {
	case "tree":
		res, err := p.run(ctx, command{sub: "ls-tree", read: true, opts: []string{"--name-only"}, revs: []string{id}, endOpts: true})
		if err != nil {
			return nil, err
		}
		b.Text, b.Truncated = res.stdout, res.truncated
		return b, nil
	case "blob":
	default:
		return nil, fmt.Errorf("%w: %s is a %s, not a file", ErrUnknownRevision, short(id), typ)
	}
	res, err := p.run(ctx, command{sub: "cat-file", read: true, opts: []string{"-s"}, revs: []string{id}})
	if err != nil {
		return nil, err
	}
	b.Size, _ = strconv.ParseInt(strings.TrimSpace(string(res.stdout)), 10, 64)
	res, err = p.run(ctx, command{sub: "cat-file", read: true, opts: []string{"blob"}, revs: []string{id}})
	if err != nil {
		return nil, err
	}
	b.Text, b.Truncated = res.stdout, res.truncated
	if looksBinary(b.Text) {
		b.Text, b.Binary = nil, true
	}
	return b, nil
}

// looksBinary applies git's own test: a NUL byte in the first 8000 bytes.
func looksBinary(b []byte) bool {
	n := min(len(b), 8000)
	for _, c := range b[:n] {
		if c == 0 {
			return true
		}
	}
	return false
}
