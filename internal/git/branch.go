package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Branch is a local branch.
type Branch struct {
	Name     string
	Current  bool
	Upstream string
	// Track is git's ahead/behind text ("ahead 1, behind 2", "gone"; empty when in sync).
	Track   string
	Commit  string
	Date    string
	Subject string
}

const branchFormat = "%(HEAD)%00%(refname:short)%00%(upstream:short)%00%(upstream:track,nobracket)%00%(objectname:short)%00%(committerdate:short)%00%(contents:subject)"

// Branches lists local branches, most recently committed first.
func (p *Repo) Branches(ctx context.Context) ([]Branch, error) {
	res, err := p.run(ctx, command{sub: "for-each-ref", read: true,
		opts: []string{"--format=" + branchFormat, "--sort=-committerdate", "refs/heads/"}})
	if err != nil {
		return nil, err
	}
	return ParseBranches(res.stdout)
}

// ParseBranches parses Branches' format: one line per branch, fields separated by NUL.
func ParseBranches(data []byte) ([]Branch, error) {
	var out []Branch
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if l == "" {
			continue
		}
		f := strings.Split(l, "\x00")
		if len(f) != 7 {
			return nil, fmt.Errorf("%w: malformed branch record %q", ErrFailed, truncate(l, 80))
		}
		out = append(out, Branch{Current: f[0] == "*", Name: f[1], Upstream: f[2], Track: f[3], Commit: f[4], Date: f[5], Subject: f[6]})
	}
	return out, nil
}

// RenderBranches lists branches one per line, the current one marked with '*'.
func RenderBranches(bs []Branch, limit int) string {
	if len(bs) == 0 {
		return "no branches yet (no commits)"
	}
	if limit <= 0 {
		limit = 100
	}
	var b strings.Builder
	for i, br := range bs {
		if i == limit {
			fmt.Fprintf(&b, "... %d more branches\n", len(bs)-limit)
			break
		}
		mark := " "
		if br.Current {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s %s %s %s", mark, br.Name, br.Commit, br.Date)
		if br.Upstream != "" {
			fmt.Fprintf(&b, " [%s", br.Upstream)
			if br.Track != "" {
				fmt.Fprintf(&b, ": %s", br.Track)
			}
			b.WriteString("]")
		}
		fmt.Fprintf(&b, " %s\n", br.Subject)
	}
	return strings.TrimRight(b.String(), "\n")
}

// CheckBranchName refuses names that are not valid branch names (git check-ref-format --branch),
// after the rules of CheckRef.
func (p *Repo) CheckBranchName(ctx context.Context, name string) error {
	if err := CheckRef(name); err != nil {
		return err
	}
	if _, err := p.run(ctx, command{sub: "check-ref-format", read: true, opts: []string{"--branch", name}}); err != nil {
		return fmt.Errorf("%w: %q is not a valid branch name", ErrInvalidRef, truncate(name, 60))
	}
	return nil
}

// CreateBranch creates branch name at commit start (an id from Resolve) without switching to it.
func (p *Repo) CreateBranch(ctx context.Context, name, start string) error {
	if err := p.CheckBranchName(ctx, name); err != nil {
		return err
	}
	_, err := p.run(ctx, command{sub: "branch", opts: []string{"--no-track"}, revs: []string{name, start}, endOpts: true})
	return err
}

// Switch checks out branch name. git refuses (ErrLocalChanges) rather than overwrite uncommitted
// changes or untracked files; changes that do not conflict are carried over, as git does.
func (p *Repo) Switch(ctx context.Context, name string) error {
	if err := p.CheckBranchName(ctx, name); err != nil {
		return err
	}
	_, err := p.run(ctx, command{sub: "switch", revs: []string{name}, endOpts: true})
	return err
}

// CurrentBranch returns the branch HEAD is on, or "" when HEAD is detached.
func (p *Repo) CurrentBranch(ctx context.Context) string {
	res, err := p.run(ctx, command{sub: "symbolic-ref", read: true, opts: []string{"--quiet", "--short", "HEAD"}})
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(res.stdout))
}

// Stage adds paths (relative to the work tree root) to the index, deletions included.
func (p *Repo) Stage(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return fmt.Errorf("%w: no paths", ErrPathspec)
	}
	_, err := p.run(ctx, command{sub: "add", opts: []string{"--all"}, paths: paths})
	return err
}

// Unstage removes paths from the index, keeping the work tree as it is. In a repository without
// commits the paths become untracked again.
func (p *Repo) Unstage(ctx context.Context, paths []string) error {
	if len(paths) == 0 {
		return fmt.Errorf("%w: no paths", ErrPathspec)
	}
	if !p.HasCommits(ctx) {
		_, err := p.run(ctx, command{sub: "rm", opts: []string{"--cached", "-r", "--quiet"}, paths: paths})
		return err
	}
	_, err := p.run(ctx, command{sub: "restore", opts: []string{"--staged"}, paths: paths})
	return err
}

// CommitOptions is a commit to make.
type CommitOptions struct {
	Message string
	// Amend replaces the last commit; refused once that commit is on a remote-tracking branch.
	Amend bool
}

// CommitResult describes the commit made.
type CommitResult struct {
	ID, Short, Branch, Subject string
	Stats                      []FileStat
	// HookOutput is what hooks printed (git's own chatter removed).
	HookOutput string
}

// Commit records the index as a new commit (or amends the last one). The author comes from the
// user's git configuration; hooks run as git runs them. An empty message is refused unless
// amending (which keeps the old message).
func (p *Repo) Commit(ctx context.Context, o CommitOptions) (*CommitResult, error) {
	msg := strings.TrimSpace(o.Message)
	if msg == "" && !o.Amend {
		return nil, fmt.Errorf("%w: empty commit message", ErrInvalidRef)
	}
	if strings.ContainsRune(msg, 0) {
		return nil, fmt.Errorf("%w: the message holds a NUL byte", ErrInvalidRef)
	}
	opts := []string{}
	c := command{sub: "commit"}
	if o.Amend {
		if !p.HasCommits(ctx) {
			return nil, &Error{Kind: ErrNoCommits, Args: []string{"commit", "--amend"}}
		}
		pushed, err := p.onRemote(ctx, "HEAD")
		if err != nil {
			return nil, err
		}
		if len(pushed) > 0 {
			return nil, &Error{Kind: ErrPushed, Args: []string{"commit", "--amend"},
				Stderr: "HEAD is already on " + strings.Join(pushed, ", ") + "; amending it would rewrite published history", Files: pushed}
		}
		opts = append(opts, "--amend")
	}
	if msg != "" {
		opts = append(opts, "--file=-")
		c.stdin = []byte(msg + "\n")
	} else {
		opts = append(opts, "--no-edit")
	}
	c.opts = opts
	res, err := p.run(ctx, c)
	if err != nil {
		if ge, ok := err.(*Error); ok && ge.Kind == ErrFailed && p.hasCommitHooks() {
			ge.Kind = ErrHook
			ge.Stderr = strings.TrimSpace(string(res.stdout) + "\n" + ge.Stderr)
		}
		return nil, err
	}
	out := &CommitResult{HookOutput: hookChatter(string(res.stdout) + res.stderr)}
	log, err := p.run(ctx, command{sub: "log", read: true, opts: []string{"-1", "--format=%H%x00%h%x00%s%x00", "--numstat", "-z", "--no-color"}, revs: []string{"HEAD"}, endOpts: true, dashDash: true})
	if err != nil {
		return nil, err
	}
	head, stats, _ := strings.Cut(string(log.stdout), "\x00\x00")
	f := strings.SplitN(head, "\x00", 3)
	if len(f) == 3 {
		out.ID, out.Short, out.Subject = f[0], f[1], f[2]
	}
	if s, err := ParseNumStat([]byte(strings.TrimLeft(stats, "\n"))); err == nil {
		out.Stats = s
	}
	out.Branch = p.CurrentBranch(ctx)
	return out, nil
}

// hookChatter keeps what hooks printed from a successful commit's output, dropping git's own
// summary lines ("[main abc1234] subject", " 2 files changed, ...", " create mode ...").
func hookChatter(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "",
			strings.HasPrefix(t, "[") && strings.Contains(t, "] "),
			strings.Contains(t, "file changed"), strings.Contains(t, "files changed"),
			strings.HasPrefix(t, "create mode"), strings.HasPrefix(t, "delete mode"),
			strings.HasPrefix(t, "rename "), strings.HasPrefix(t, "mode change"),
			strings.HasPrefix(t, "Date:"), strings.HasPrefix(t, "rewrite "), strings.HasPrefix(t, "copy "):
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

// onRemote lists the remote-tracking branches that contain rev.
func (p *Repo) onRemote(ctx context.Context, rev string) ([]string, error) {
	id, err := p.Resolve(ctx, rev)
	if err != nil {
		return nil, err
	}
	res, err := p.run(ctx, command{sub: "for-each-ref", read: true, opts: []string{"--format=%(refname:short)", "--contains=" + id, "refs/remotes/"}})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(res.stdout)), "\n") {
		if l != "" && !strings.HasSuffix(l, "/HEAD") {
			out = append(out, l)
		}
	}
	return out, nil
}

// hasCommitHooks reports whether a hook that can refuse a commit is installed.
func (p *Repo) hasCommitHooks() bool {
	dir := filepath.Join(p.CommonDir, "hooks")
	res, err := p.run(context.Background(), command{sub: "rev-parse", read: true, opts: []string{"--git-path", "hooks"}})
	if err == nil {
		if d := strings.TrimSpace(string(res.stdout)); d != "" {
			if !filepath.IsAbs(d) {
				d = filepath.Join(p.Top, d)
			}
			dir = d
		}
	}
	for _, h := range []string{"pre-commit", "commit-msg", "prepare-commit-msg", "pre-merge-commit"} {
		if fi, err := os.Stat(filepath.Join(dir, h)); err == nil && fi.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}
