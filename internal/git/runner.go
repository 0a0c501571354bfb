package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"toolhost/internal/proctree"
	"toolhost/internal/sandbox"
)

// Config tunes a Runner. Zero values take the defaults.
type Config struct {
	// Path is the git executable; default: git from PATH.
	Path string
	// Env is the environment git starts from, and so its hooks: the gate's (the server's own
	// minus secrets, plus what terminals get, such as a private TMPDIR), so that what git
	// runs sees what a terminal command would. nil means the server's own. Either way every
	// TOOLHOST_* variable, and the GIT_* ones that would redirect git, are dropped.
	Env []string
	// MaxOutput caps what one command may print before it is stopped and its output marked cut
	// (default 64 MiB).
	MaxOutput int64
}

// DefaultMaxOutput bounds the standard output kept from one git command.
const DefaultMaxOutput = 64 << 20

// Runner runs git commands with the safe environment and argument discipline of this package,
// each under the Landlock policy of the Repo it runs for (see Open). Safe for concurrent use.
type Runner struct {
	path   string
	env    []string
	maxOut int64

	mu    sync.Mutex
	repos map[string]*Repo // Open's cache, by directory
}

// NewRunner finds git and prepares its environment.
func NewRunner(cfg Config) (*Runner, error) {
	p := cfg.Path
	if p == "" {
		p = "git"
	}
	path, err := exec.LookPath(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoGit, err)
	}
	base := cfg.Env
	if base == nil {
		base = os.Environ()
	}
	env := gitEnv(base)
	r := &Runner{path: path, env: env, maxOut: cfg.MaxOutput, repos: map[string]*Repo{}}
	if r.maxOut <= 0 {
		r.maxOut = DefaultMaxOutput
	}
	return r, nil
}

// keptGitVars are the inherited GIT_* variables that stay: the user's identity for commits.
var keptGitVars = map[string]bool{
	"GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_AUTHOR_DATE": true,
	"GIT_COMMITTER_NAME": true, "GIT_COMMITTER_EMAIL": true, "GIT_COMMITTER_DATE": true,
}

// gitEnv builds git's environment from base: GIT_* variables that would redirect or reconfigure
// git are dropped (GIT_DIR, GIT_CONFIG_PARAMETERS, GIT_EXEC_PATH, ...), toolhost's own are
// dropped, and the settings that keep git from waiting on a terminal are forced.
// Messages are in the C locale so that failures can be classified; the character type of the
// user's locale is kept for hooks.
func gitEnv(base []string) []string {
	drop := func(name string) bool {
		return strings.HasPrefix(name, "GIT_") && !keptGitVars[name] || strings.HasPrefix(name, "TOOLHOST_")
	}
	forced := map[string]string{
		"GIT_TERMINAL_PROMPT": "0",
		"GIT_PAGER":           "cat",
		"PAGER":               "cat",
		"GIT_EDITOR":          "true",
		"GIT_ASKPASS":         "",
		"SSH_ASKPASS":         "",
		"LC_MESSAGES":         "C",
		// Git 2.44 and later: a missing object fails at once instead of being fetched.
		"GIT_NO_LAZY_FETCH": "1",
		"LANGUAGE":          "",
	}
	var env []string
	lcAll, lcCtype := "", false
	for _, kv := range base {
		name, val, _ := strings.Cut(kv, "=")
		switch {
		case drop(name):
			continue
		case name == "LC_ALL":
			lcAll = val // it would override LC_MESSAGES; its character type is kept below
			continue
		case name == "LC_CTYPE":
			lcCtype = true
		}
		if _, ok := forced[name]; ok {
			continue
		}
		env = append(env, kv)
	}
	if lcAll != "" && !lcCtype {
		env = append(env, "LC_CTYPE="+lcAll)
	}
	for _, k := range slices.Sorted(maps.Keys(forced)) {
		if forced[k] != "" {
			env = append(env, k+"="+forced[k])
		}
	}
	return env
}

// command is one git invocation. Only sub and opts come from this package's code; revs must be
// object ids from resolve (or validated names), and paths are repository-relative data.
type command struct {
	sub  string
	opts []string
	// revs follow --end-of-options where the subcommand supports it (endOpts).
	revs    []string
	endOpts bool
	// paths follow "--" when set; dashDash forces "--" with no paths.
	paths    []string
	dashDash bool
	read     bool // --no-optional-locks
	stdin    []byte
	// maxOut overrides the runner's cap on standard output.
	maxOut int64
}

// args builds the argument vector: the runner's global options, then the subcommand.
func (c command) args() []string {
	a := make([]string, 0, 12+len(c.opts)+len(c.revs)+len(c.paths))
	if c.read {
		a = append(a, "--no-optional-locks")
	}
	// safe.bareRepository=explicit: a bare repository found by walking up from a directory (one
	// planted inside a work tree, whose config nobody reviewed) is never used.
	// protocol.allow=never: toolhost's git never reaches a remote, and a partial clone's lazy
	// fetch (with an upload-pack command a repository's config may name) is refused.
	a = append(a, "--literal-pathspecs", "-c", "color.ui=never", "-c", "core.quotepath=off", "-c", "protocol.allow=never", "-c", "safe.bareRepository=explicit", c.sub)
	a = append(a, c.opts...)
	if len(c.revs) > 0 {
		if c.endOpts {
			a = append(a, "--end-of-options")
		}
		a = append(a, c.revs...)
	}
	if len(c.paths) > 0 || c.dashDash {
		a = append(a, "--")
		a = append(a, c.paths...)
	}
	return a
}

// result is a finished command's output.
type result struct {
	stdout    []byte
	stderr    string
	code      int
	truncated bool
}

// run runs c in the work tree root under the repository's policy.
func (p *Repo) run(ctx context.Context, c command) (result, error) {
	return p.r.run(ctx, p.Top, p.policy, c)
}

// run runs c in dir, confined by policy (nil: unconfined). A non-zero exit is an *Error
// classified from git's message; the result is returned with it, since some callers read
// stdout of a failed command. Nothing starts when policy cannot be enforced: the error wraps
// sandbox.ErrUnavailable.
func (r *Runner) run(ctx context.Context, dir string, policy *sandbox.Policy, c command) (result, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultTimeout)
		defer cancel()
	}
	args := c.args()
	cmd := exec.Command(r.path, args...)
	cmd.Dir = dir
	cmd.Env = r.env
	if c.stdin != nil {
		cmd.Stdin = bytes.NewReader(c.stdin)
	}
	max := c.maxOut
	if max <= 0 {
		max = r.maxOut
	}
	out := newCapWriter(max)
	errBuf := newCapWriter(1 << 20)
	cmd.Stdout, cmd.Stderr = out, errBuf
	// Hooks may start children: a process group lets cancellation end them all.
	proctree.Isolate(cmd, false)
	// Hooks, core.fsmonitor, filters, textconv and the like run as git's children: with the
	// thread confined before the fork, they have exactly the power of a terminal command.
	if err := sandbox.Start(cmd, policy); err != nil {
		return result{}, fmt.Errorf("start git: %w", err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-out.full:
		case <-done:
			return
		}
		proctree.Kill(cmd.Process)
	}()
	err := cmd.Wait()
	close(done)
	res := result{stdout: out.buf.Bytes(), stderr: errBuf.buf.String(), truncated: out.cut}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if res.truncated {
		// Stopped on purpose: what was read is the answer.
		return res, nil
	}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return res, fmt.Errorf("run git: %w", err)
		}
		res.code = ee.ExitCode()
		kind, files := classify(res.stderr, string(res.stdout), res.code)
		return res, &Error{Kind: kind, Args: publicArgs(args), Code: res.code, Stderr: res.stderr, Files: files}
	}
	return res, nil
}

// publicArgs drops the runner's own global options from an argument vector for messages.
func publicArgs(a []string) []string {
	for i, s := range a {
		if s == "safe.bareRepository=explicit" {
			return a[i+1:]
		}
	}
	return a
}

// capWriter keeps at most max bytes and signals when more arrived.
type capWriter struct {
	buf  bytes.Buffer
	max  int64
	cut  bool
	full chan struct{}
}

func newCapWriter(max int64) *capWriter { return &capWriter{max: max, full: make(chan struct{})} }

func (w *capWriter) Write(p []byte) (int, error) {
	if w.cut {
		return len(p), nil
	}
	room := w.max - int64(w.buf.Len())
	if int64(len(p)) > room {
		w.buf.Write(p[:max(room, 0)])
		w.cut = true
		close(w.full)
		return len(p), nil
	}
	w.buf.Write(p)
	return len(p), nil
}

var _ io.Writer = (*capWriter)(nil)

// defaultTimeout bounds a git command whose context has no deadline.
const defaultTimeout = 2 * time.Minute
