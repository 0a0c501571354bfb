package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"toolhost/internal/sandbox"
)

// Repo is a git work tree found from a directory.
type Repo struct {
	r *Runner
	// Top is the canonical root of the work tree; commands run there, and the paths git prints
	// and this package accepts are relative to it.
	Top string
	// GitDir is the repository's git directory (a worktree's own one for linked worktrees);
	// CommonDir holds objects, refs and hooks (the main repository's .git for a linked worktree).
	GitDir, CommonDir string
	// Shallow says the history is cut (a shallow clone): older commits are missing.
	Shallow bool
	// policy confines every git process started for this value (nil: unconfined).
	policy *sandbox.Policy
}

// Confined returns a copy of p whose git processes run under policy (nil: unconfined), such as
// the caller's policy widened to the work tree for a commit the guard approved.
func (p *Repo) Confined(policy *sandbox.Policy) *Repo {
	cp := *p
	cp.policy = policy
	return &cp
}

// Open finds the work tree that contains dir. ErrNotRepository when there is none (dir is not
// inside a repository, or only inside a .git directory or a bare repository). A directory seen
// before is answered from a cache that is checked against the file system (the git directory
// still exists, no repository appeared between dir and the root), which saves a git process on
// every call of a busy tool.
//
// Every git process started for the Repo returned, this discovery included, runs confined by
// policy: git runs commands the repository configures (hooks, core.fsmonitor, filters,
// textconv), which anyone who can write the repository can plant, so git gets the power of
// whoever asks for it and no more. Nil runs git unconfined.
func (r *Runner) Open(ctx context.Context, dir string, policy *sandbox.Policy) (*Repo, error) {
	if p := r.cached(dir); p != nil {
		p.policy = policy
		return p, nil
	}
	res, err := r.run(ctx, dir, policy, command{sub: "rev-parse", read: true,
		opts: []string{"--show-toplevel", "--absolute-git-dir", "--git-common-dir", "--is-shallow-repository"}})
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(res.stdout), "\n"), "\n")
	if len(lines) != 4 || lines[0] == "" {
		return nil, fmt.Errorf("%w: unexpected rev-parse output %q", ErrFailed, res.stdout)
	}
	top, err := filepath.EvalSymlinks(lines[0])
	if err != nil {
		return nil, fmt.Errorf("%w: work tree root: %v", ErrFailed, err)
	}
	common := lines[2]
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	p := &Repo{r: r, Top: top, GitDir: lines[1], CommonDir: filepath.Clean(common), Shallow: lines[3] == "true"}
	r.mu.Lock()
	if len(r.repos) >= maxCachedRepos {
		clear(r.repos)
	}
	r.repos[dir] = p
	r.mu.Unlock()
	return p.Confined(policy), nil
}

// maxCachedRepos bounds Open's cache.
const maxCachedRepos = 256

// cached returns the repository Open found for dir before, if it still holds.
func (r *Runner) cached(dir string) *Repo {
	r.mu.Lock()
	p := r.repos[dir]
	r.mu.Unlock()
	if p == nil {
		return nil
	}
	valid := func() bool {
		if _, err := os.Stat(p.GitDir); err != nil {
			return false
		}
		if _, err := os.Lstat(filepath.Join(p.Top, ".git")); err != nil {
			return false
		}
		// A repository made in between (git init in a subdirectory) now owns dir.
		for d := dir; d != p.Top; d = filepath.Dir(d) {
			if !within(d, p.Top) {
				return false
			}
			if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
				return false
			}
		}
		return true
	}
	if !valid() {
		r.mu.Lock()
		delete(r.repos, dir)
		r.mu.Unlock()
		return nil
	}
	cp := *p
	_, err := os.Stat(filepath.Join(p.CommonDir, "shallow"))
	cp.Shallow = err == nil
	return &cp
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// maxRefLen bounds a ref a caller may pass.
const maxRefLen = 1024

// CheckRef refuses a ref that could be read as an option or smuggle a second argument: empty, a
// leading '-', control characters or invalid UTF-8. Everything else is left to git, which
// resolves it or says it does not exist.
func CheckRef(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("%w: empty", ErrInvalidRef)
	case strings.HasPrefix(s, "-"):
		return fmt.Errorf("%w: %q starts with '-'", ErrInvalidRef, truncate(s, 60))
	case len(s) > maxRefLen:
		return fmt.Errorf("%w: longer than %d bytes", ErrInvalidRef, maxRefLen)
	case !utf8.ValidString(s):
		return fmt.Errorf("%w: not valid UTF-8", ErrInvalidRef)
	}
	for _, c := range s {
		if unicode.IsControl(c) {
			return fmt.Errorf("%w: %q holds a control character", ErrInvalidRef, truncate(s, 60))
		}
	}
	return nil
}

// ObjectPaths returns every path inside a tree that an object name "REV:path" may name: git
// splits at the first ':' outside braces, and versions differ on which braces count (2.39 every
// '{', later ones only "@{" and "^{"), so the text after each ':' is a candidate. Each is clean
// and relative to the work tree root (git reads "./x" from the directory it runs in, the root);
// "" is the root tree. A caller that screens what git reads screens them all. Nil when the name
// holds no ':' (it names a revision).
func ObjectPaths(name string) []string {
	var out []string
	for i := 0; i < len(name); i++ {
		if name[i] == ':' {
			out = append(out, strings.TrimPrefix(path.Clean("/"+name[i+1:]), "/"))
		}
	}
	return out
}

// Resolve turns a ref (branch, tag, HEAD~2, abc123, main@{upstream}) into the id of the commit it
// names. Only such ids reach the commands that use a ref.
func (p *Repo) Resolve(ctx context.Context, ref string) (string, error) {
	return p.resolve(ctx, ref, "^{commit}")
}

// ResolveObject resolves any object name (a commit, or REV:path) to its id and type.
func (p *Repo) ResolveObject(ctx context.Context, name string) (id, typ string, err error) {
	if id, err = p.resolve(ctx, name, ""); err != nil {
		return "", "", err
	}
	res, err := p.run(ctx, command{sub: "cat-file", read: true, opts: []string{"-t"}, revs: []string{id}})
	if err != nil {
		return "", "", err
	}
	return id, strings.TrimSpace(string(res.stdout)), nil
}

func (p *Repo) resolve(ctx context.Context, ref, suffix string) (string, error) {
	if err := CheckRef(ref); err != nil {
		return "", err
	}
	res, err := p.run(ctx, command{sub: "rev-parse", read: true, opts: []string{"--verify", "--quiet"},
		revs: []string{ref + suffix}, endOpts: true})
	if err != nil {
		var ge *Error
		if errors.As(err, &ge) && (ge.Kind == ErrFailed || ge.Kind == ErrUnknownRevision) {
			if (ref == "HEAD" || strings.HasPrefix(ref, "HEAD")) && !p.HasCommits(ctx) {
				return "", &Error{Kind: ErrNoCommits, Args: ge.Args, Code: ge.Code}
			}
			ge.Kind = ErrUnknownRevision
			if ge.Stderr == "" {
				ge.Stderr = fmt.Sprintf("%q does not name a commit or object in this repository", truncate(ref, 80))
			}
		}
		return "", err
	}
	id := strings.TrimSpace(string(res.stdout))
	if !isHex(id) {
		return "", fmt.Errorf("%w: rev-parse printed %q", ErrFailed, truncate(id, 80))
	}
	return id, nil
}

// HasCommits reports whether HEAD points at a commit (false in a repository with no commits yet).
func (p *Repo) HasCommits(ctx context.Context) bool {
	_, err := p.run(ctx, command{sub: "rev-parse", read: true, opts: []string{"--verify", "--quiet"}, revs: []string{"HEAD^{commit}"}, endOpts: true})
	return err == nil
}

// Range is a resolved revision range: From..To, or From...To when Symmetric. An empty From means
// "everything reachable from To"; To is always set.
type Range struct {
	From, To  string
	Symmetric bool
}

// Args renders the range for git: one argument, built from ids only.
func (r Range) Args() []string {
	switch {
	case r.From == "":
		return []string{r.To}
	case r.Symmetric:
		return []string{r.From + "..." + r.To}
	default:
		return []string{r.From + ".." + r.To}
	}
}

// ResolveRange resolves "A..B", "A...B", "A..", "..B" or a single ref (everything reachable from
// it). An empty side means HEAD, as in git.
func (p *Repo) ResolveRange(ctx context.Context, spec string) (Range, error) {
	from, to, sym := splitRange(spec)
	if from == "" && to == "" && spec != "" {
		return Range{}, fmt.Errorf("%w: %q names no revision", ErrInvalidRef, truncate(spec, 60))
	}
	var r Range
	r.Symmetric = sym
	var err error
	if !strings.Contains(spec, "..") {
		r.To, err = p.Resolve(ctx, orHEAD(spec))
		return r, err
	}
	if r.From, err = p.Resolve(ctx, orHEAD(from)); err != nil {
		return Range{}, err
	}
	if r.To, err = p.Resolve(ctx, orHEAD(to)); err != nil {
		return Range{}, err
	}
	return r, nil
}

// splitRange splits a range spec at its first ".." or "...".
func splitRange(spec string) (from, to string, symmetric bool) {
	i := strings.Index(spec, "..")
	if i < 0 {
		return "", spec, false
	}
	from, rest := spec[:i], spec[i+2:]
	if strings.HasPrefix(rest, ".") {
		return from, rest[1:], true
	}
	return from, rest, false
}

func orHEAD(s string) string {
	if s == "" {
		return "HEAD"
	}
	return s
}

// RelPath turns a path given by a caller (absolute, or relative to the work tree root) into a
// clean path relative to the root. ErrOutsideRepo when it leaves the work tree.
func (p *Repo) RelPath(path string) (string, error) {
	if path == "" || strings.ContainsRune(path, 0) {
		return "", fmt.Errorf("%w: %q is not a usable path", ErrOutsideRepo, truncate(path, 80))
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(p.Top, path)
	}
	abs = filepath.Clean(abs)
	if real, err := evalExisting(abs); err == nil {
		abs = real
	}
	rel, err := filepath.Rel(p.Top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%w: %s is outside %s", ErrOutsideRepo, truncate(path, 200), p.Top)
	}
	if rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return "", fmt.Errorf("%w: %s is inside the repository's .git directory", ErrOutsideRepo, truncate(path, 200))
	}
	return filepath.ToSlash(rel), nil
}

// RelPaths applies RelPath to each path.
func (p *Repo) RelPaths(paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, s := range paths {
		rel, err := p.RelPath(s)
		if err != nil {
			return nil, err
		}
		out = append(out, rel)
	}
	return out, nil
}

// evalExisting resolves symlinks of the longest existing prefix of p, so that a path through a
// symlink that points outside the work tree is seen where it really is.
func evalExisting(p string) (string, error) {
	rest := ""
	for cur := p; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest), nil
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// State is an operation git has in progress in the work tree.
type State string

// The states git can be in the middle of.
const (
	StateNone       State = ""
	StateMerge      State = "merge"
	StateRebase     State = "rebase"
	StateCherryPick State = "cherry-pick"
	StateRevert     State = "revert"
	StateBisect     State = "bisect"
)

// State reports an operation in progress (a merge with conflicts, a rebase stopped at a commit).
func (p *Repo) State() State {
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(p.GitDir, name))
		return err == nil
	}
	switch {
	case exists("rebase-merge"), exists("rebase-apply"):
		return StateRebase
	case exists("MERGE_HEAD"):
		return StateMerge
	case exists("CHERRY_PICK_HEAD"):
		return StateCherryPick
	case exists("REVERT_HEAD"):
		return StateRevert
	case exists("BISECT_LOG"):
		return StateBisect
	}
	return StateNone
}

func isHex(s string) bool {
	if len(s) < 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// splitNUL splits NUL-terminated records, dropping the empty tail.
func splitNUL(b []byte) []string {
	b = bytes.TrimSuffix(b, []byte{0})
	if len(b) == 0 {
		return nil
	}
	parts := bytes.Split(b, []byte{0})
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out
}
