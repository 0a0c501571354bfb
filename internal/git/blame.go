package git

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"toolhost/internal/lazyregexp"
)

// BlameOptions selects the lines to blame.
type BlameOptions struct {
	// Path is relative to the work tree root.
	Path string
	// Rev is a commit id (from Resolve); empty blames the work tree version, uncommitted lines
	// included.
	Rev string
	// Start and End bound the lines (1-based, inclusive); zero means the first or last line.
	Start, End int
}

// BlameLine is one line with the commit that last changed it.
type BlameLine struct {
	Line int
	Text string
	// Commit is the id ("0000000..." for a line not committed yet).
	Commit  string
	Author  string
	Date    string // YYYY-MM-DD
	Summary string
}

// Blame runs `git blame --porcelain` on a line range.
func (p *Repo) Blame(ctx context.Context, o BlameOptions) ([]BlameLine, error) {
	if o.Start < 0 || o.End < 0 || (o.End > 0 && o.Start > o.End) {
		return nil, fmt.Errorf("%w: bad line range %d-%d", ErrInvalidRef, o.Start, o.End)
	}
	opts := []string{"--porcelain"}
	if o.Start > 0 || o.End > 0 {
		opts = append(opts, "-L", lineRange(o.Start, o.End))
	}
	// git blame does not take --end-of-options (2.39); the revision is a hexadecimal id.
	c := command{sub: "blame", read: true, opts: opts, paths: []string{o.Path}}
	if o.Rev != "" {
		if !isHex(o.Rev) {
			return nil, fmt.Errorf("%w: blame needs a resolved commit id", ErrInvalidRef)
		}
		c.revs = []string{o.Rev}
	}
	res, err := p.run(ctx, c)
	if ge, ok := err.(*Error); ok && o.End > 0 {
		// "file x has only N lines": blame what there is.
		if m := onlyLines.FindStringSubmatch(ge.Stderr); m != nil {
			n, _ := strconv.Atoi(m[1])
			if n >= max(o.Start, 1) {
				c.opts = []string{"--porcelain", "-L", lineRange(o.Start, n)}
				res, err = p.run(ctx, c)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return ParseBlame(res.stdout)
}

var onlyLines = lazyregexp.New(`has only (\d+) lines?`)

func lineRange(start, end int) string {
	s := strconv.Itoa(max(start, 1)) + ","
	if end > 0 {
		s += strconv.Itoa(end)
	}
	return s
}

type blameCommit struct {
	author, date, summary string
}

// ParseBlame parses `git blame --porcelain`: a header "<id> <orig> <final> [<count>]" per line,
// commit details the first time a commit appears, and the line's text after a tab.
func ParseBlame(data []byte) ([]BlameLine, error) {
	commits := map[string]*blameCommit{}
	var out []BlameLine
	var cur *BlameLine
	for _, l := range strings.Split(string(data), "\n") {
		if cur == nil {
			if l == "" {
				continue
			}
			f := strings.Fields(l)
			if len(f) < 3 || len(f[0]) < 7 || !isHexOrZero(f[0]) {
				return nil, fmt.Errorf("%w: malformed blame header %q", ErrFailed, truncate(l, 80))
			}
			n, err := strconv.Atoi(f[2])
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("%w: malformed blame line number %q", ErrFailed, truncate(l, 80))
			}
			cur = &BlameLine{Commit: f[0], Line: n}
			if commits[f[0]] == nil {
				commits[f[0]] = &blameCommit{}
			}
			continue
		}
		if text, ok := strings.CutPrefix(l, "\t"); ok {
			cur.Text = text
			out = append(out, *cur)
			cur = nil
			continue
		}
		key, val, _ := strings.Cut(l, " ")
		bc := commits[cur.Commit]
		switch key {
		case "author":
			bc.author = val
		case "author-time":
			if t, err := strconv.ParseInt(val, 10, 64); err == nil {
				bc.date = time.Unix(t, 0).UTC().Format("2006-01-02")
			}
		case "summary":
			bc.summary = val
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%w: blame output ended inside a record", ErrFailed)
	}
	for i := range out {
		bc := commits[out[i].Commit]
		out[i].Author, out[i].Date, out[i].Summary = bc.author, bc.date, bc.summary
	}
	return out, nil
}

func isHexOrZero(s string) bool { return isHex(s) }

// RenderBlame groups consecutive lines of the same commit under one header:
//
//	abc1234 2024-05-01 Alice: subject
//	   12  code
//	   13  code
func RenderBlame(lines []BlameLine) string {
	if len(lines) == 0 {
		return "no lines"
	}
	var b strings.Builder
	prev := ""
	for _, l := range lines {
		if l.Commit != prev {
			if strings.Trim(l.Commit, "0") == "" {
				b.WriteString("not committed yet\n")
			} else {
				fmt.Fprintf(&b, "%s %s %s: %s\n", short(l.Commit), l.Date, l.Author, l.Summary)
			}
			prev = l.Commit
		}
		fmt.Fprintf(&b, "%5d  %s\n", l.Line, l.Text)
	}
	return strings.TrimRight(b.String(), "\n")
}
