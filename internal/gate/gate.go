// Package gate decides every process toolhost starts on a model's behalf: a terminal command,
// a session's shell and each line typed into it, a task, a test run, a checker, git, a
// language server. For each start it computes, once, three things that must agree:
//
//   - the verdict of the command rules on the line it runs, with the user's approvals
//     (a line the rules ask about runs only once the user approved that exact line);
//   - the Landlock policy it runs under: the configured mode, the working directory, build
//     caches, temp dirs and the conversation's write grants, minus toolhost's own paths;
//   - the environment it inherits: the server's own, minus the variables that are secret.
//
// Everything that starts a process asks a Gate (terminal.Manager for commands, sessions,
// tasks and tests; the git runner through consolidated; `toolhost rules test` for its
// verdict), so no two places decide the same thing differently. A nil *Gate starts
// processes unconfined, with every line allowed and toolhost's variables removed: what tests
// of the engines that need no guard use.
package gate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"toolhost/authz"
	"toolhost/authz/cmdrules"
	"toolhost/internal/owner"
	"toolhost/internal/sandbox"
	"toolhost/internal/sysfile"
	"toolhost/store"
)

// Config is what the user configured for the processes toolhost starts, with the paths the
// wiring knows toolhost owns.
type Config struct {
	// Mode is the [terminal] sandbox mode; AllowUnsandboxed accepts running unconfined where
	// the kernel cannot confine.
	Mode             sandbox.Mode
	AllowUnsandboxed bool
	// Workdir is the working directory; Writable are the configured extra writable paths
	// ([terminal] writable), canonical.
	Workdir  string
	Writable []string
	// Home is the user's home directory (build caches live there); "" when unknown.
	Home string
	// Protected paths are never writable (toolhost's state, config, token, prompts, log);
	// Hidden paths are also unreadable (the state directory and every token file).
	Protected, Hidden []string
	// Rules, Unmatched and DefaultRules are the [terminal] command rules; Strict puts
	// cmdrules.Strict after them and makes unmatched commands denied unless Unmatched says
	// otherwise ([terminal] policy = "strict").
	Rules        []string
	Unmatched    string
	DefaultRules bool
	Strict       bool
	// Withhold names variables no child gets besides every TOOLHOST_* one and those that look
	// like credentials (a trailing * matches a prefix): the variables the configuration
	// expands or reads (a dsn's password, dsn_env, an embedder's key). PassEnv lets variables
	// through that would be withheld (never TOOLHOST_*).
	Withhold, PassEnv []string
	// Guard holds grants and approvals. Runner names the tool whose commands the rules
	// guard; approvals are asked for as that tool's.
	Guard  *authz.Guard
	Runner authz.Runner
	// Probe works out what the kernel enforces for the mode; nil runs sandbox.Check (the
	// Landlock self-test). Tests use it to stand for a kernel without Landlock.
	Probe func(mode sandbox.Mode, allowUnconfined bool) sandbox.Status
}

// Gate decides process starts. Safe for concurrent use; a nil *Gate confines nothing.
type Gate struct {
	cfg  Config
	base sandbox.Policy
	// extra is set in every child: TMPDIR when the system temp dir holds a protected path
	// (it can then only be written below, not at its top).
	extra map[string]string
	// tempDir is that private TMPDIR ("" when none): named by New, made by prepare.
	tempDir string
	// made says prepare created tempDir, so that Close removes it (and nothing else).
	made atomic.Bool
	// envScan finds other projects' dotenv files for the hidden set.
	envScan envScan
	// hidden keeps the hidden set merged last, while the lists it is merged from are unchanged.
	hidden hiddenList
	// env keeps the last environment worked out, for as long as the server's does not change.
	env envCache
	// verdicts keeps the rules' verdicts on lines that depend on nothing else.
	verdicts verdictCache
	// prepare works out, once, what takes time and no tools/list needs: the Landlock
	// self-test, the compiled rules, the private TMPDIR and missing build caches. The first
	// start (or status query) pays for it instead of every server start.
	prepare func() *prepared
}

// prepared is what Gate.prepare worked out.
type prepared struct {
	status sandbox.Status
	rules  *cmdrules.Rules
	// err refuses every start: the rules do not compile or the private TMPDIR could not be
	// made.
	err error
}

// New checks the configuration (the mode and the configured rules' syntax) and works out the
// base policy; the rest is prepared on first use.
func New(cfg Config) (*Gate, error) {
	if _, err := sandbox.ParseMode(string(cfg.Mode)); err != nil {
		return nil, err
	}
	if cfg.Mode == "" {
		cfg.Mode = sandbox.ModeWorkspaceWrite
	}
	// Only the configured rules can be wrong (the defaults are tested), so only they are
	// compiled now; the whole set is compiled on first use.
	if len(cfg.Rules) > 0 || cfg.Unmatched != "" {
		if _, err := cmdrules.New(cfg.Rules, cfg.Unmatched, false); err != nil {
			return nil, fmt.Errorf("terminal.rules: %w", err)
		}
	}
	g := &Gate{cfg: cfg}
	writable := append([]string{cfg.Workdir}, sandbox.BuildCaches(cfg.Home, os.Getenv)...)
	writable = append(writable, cfg.Writable...)
	g.base = sandbox.Policy{Writable: writable, Temp: sandbox.TempDirs(), Protected: cfg.Protected, Hidden: cfg.Hidden}
	if cfg.Mode != sandbox.ModeOff {
		g.namePrivateTemp()
	}
	g.prepare = sync.OnceValue(func() *prepared {
		probe := cfg.Probe
		if probe == nil {
			probe = sandbox.Check
		}
		st := &prepared{status: probe(cfg.Mode, cfg.AllowUnsandboxed)}
		var err error
		lines, unmatched := cfg.Rules, cfg.Unmatched
		if cfg.Strict {
			lines = append(slices.Clone(lines), cmdrules.Strict...)
			if unmatched == "" {
				unmatched = "deny"
			}
		}
		if st.rules, err = cmdrules.New(lines, unmatched, cfg.DefaultRules); err != nil {
			st.err = fmt.Errorf("terminal.rules: %w", err)
		}
		if cfg.Mode == sandbox.ModeWorkspaceWrite {
			for _, err := range sandbox.MakeBuildCaches(cfg.Home, os.Getenv, exec.LookPath) {
				slog.Warn("gate: a build cache commands may write is missing and cannot be made", "err", err)
			}
		}
		if g.tempDir != "" && st.err == nil {
			if err := os.Mkdir(g.tempDir, 0o700); err != nil {
				// Its name is secret until a child sees it, so an existing one was not
				// made by chance: starts are refused rather than share it.
				st.err = fmt.Errorf("%w: the private temp dir for commands cannot be made: %v", sandbox.ErrUnavailable, err)
			} else {
				g.made.Store(true)
			}
		}
		return st
	})
	return g, nil
}

// PrivateTempPrefix starts the name of the private TMPDIR a gate gives confined processes,
// followed by the owner ID and a random part: a later start removes those of dead owners.
const PrivateTempPrefix = "toolhost-tmp-"

// namePrivateTemp gives processes a TMPDIR of their own when a protected path lies inside a
// temp directory: the sandbox can then not let them create entries at the temp dir's top
// (mktemp, here-documents), only below it. The name is chosen now (children's environment is
// fixed at start) and unguessable; prepare makes the directory, and fails rather than use one
// that someone else made first.
func (g *Gate) namePrivateTemp() {
	var own []string
	for _, p := range append(slices.Clone(g.base.Protected), g.base.Hidden...) {
		own = append(own, sandbox.Canonical(p))
	}
	blocked := false
	for _, t := range g.base.Temp {
		ct := sandbox.Canonical(t)
		for _, cp := range own {
			if cp == ct || strings.HasPrefix(cp, ct+"/") {
				blocked = true
			}
		}
	}
	if !blocked {
		return
	}
	// The owner ID lets a later start remove the directory of a process that was killed.
	g.tempDir = filepath.Join(os.TempDir(), PrivateTempPrefix+owner.Self().String()+"-"+randomHex(12))
	g.base.Temp = append(g.base.Temp, g.tempDir)
	g.extra = map[string]string{"TMPDIR": g.tempDir}
}

// PrivateTemp is the private TMPDIR confined processes get ("" when they use the system's):
// named by New, made on first use.
func (g *Gate) PrivateTemp() string {
	if g == nil {
		return ""
	}
	return g.tempDir
}

// Close removes the private TMPDIR if the gate made it.
func (g *Gate) Close() error {
	if g != nil && g.made.Load() {
		return os.RemoveAll(g.tempDir)
	}
	return nil
}

// A Request describes a process about to start.
type Request struct {
	// Conversation is the calling conversation: its grants and approvals apply.
	Conversation string
	// Line is the shell line the process runs, checked by the command rules; "" when
	// toolhost chose the program and its arguments itself (git, a session's shell, a
	// language server).
	Line string
	// Dir is where it starts.
	Dir string
	// Writable are paths the guard approved for this start beyond the conversation's
	// policy (a git commit in a repository the terminal may not write); protected paths stay
	// excluded.
	Writable []string
	// Temp, when set, is the private TMPDIR the process gets in place of the gate's own, where
	// the gate gives one: a process that outlives this server (one the terminal host starts)
	// gets the host's, which lasts as long as the host does and not as long as this server.
	Temp string
}

// A Start is what a process runs with.
type Start struct {
	// Policy confines it; nil runs it unconfined (mode off, or accepted where Landlock is
	// missing).
	Policy *sandbox.Policy
	// Env is its base environment: the server's own minus what is withheld, plus the gate's
	// settings (a private TMPDIR). The starter adds its own (TERM, GIT_*) after it.
	Env []string
}

// Start decides a process start: the command rules on req.Line (with the user's approvals),
// then the policy and environment. Its errors are refusals: a *cmdrules.Refusal for a line
// the rules deny or ask about, ErrIncomplete, or sandbox.ErrUnavailable (wrapped).
func (g *Gate) Start(ctx context.Context, req Request) (*Start, error) {
	if req.Line != "" {
		if err := g.Check(ctx, req.Conversation, Line{Text: req.Line, Dir: req.Dir}); err != nil {
			return nil, err
		}
	}
	p, err := g.Policy(ctx, req.Conversation)
	if err != nil {
		return nil, err
	}
	if len(req.Writable) > 0 {
		p = p.WithWritable(req.Writable...)
	}
	env := g.Environ()
	if req.Temp != "" && g.tempDir != "" {
		p, env = g.rehome(p, env, req.Temp)
	}
	return &Start{Policy: p, Env: env}, nil
}

// rehome moves a start from the gate's private TMPDIR to temp: the policy's temp directory
// and the environment's TMPDIR.
func (g *Gate) rehome(p *sandbox.Policy, env []string, temp string) (*sandbox.Policy, []string) {
	if p != nil {
		c := *p
		c.Temp = slices.Clone(p.Temp)
		for i, t := range c.Temp {
			if t == g.tempDir {
				c.Temp[i] = temp
			}
		}
		p = &c
	}
	for i, kv := range env {
		if kv == "TMPDIR="+g.tempDir {
			env[i] = "TMPDIR=" + temp
		}
	}
	return p, env
}

// Policy is the confinement of a process of conv started now: the base policy plus the
// conversation's terminal write grants active now (nil: unconfined).
// Its lists may be shared with other answers: change copies of them.
func (g *Gate) Policy(ctx context.Context, conv string) (*sandbox.Policy, error) {
	if g == nil {
		return nil, nil
	}
	st := g.prepare()
	if st.err != nil {
		return nil, st.err
	}
	if st.status.Refusing {
		return nil, fmt.Errorf("%w: %s", sandbox.ErrUnavailable, st.status.Problem)
	}
	p := st.status.Policy(g.base)
	if p == nil || g.cfg.Guard == nil {
		return p, nil
	}
	grants, opened, err := g.cfg.Guard.TerminalPaths(ctx, conv, g.cfg.Runner)
	switch {
	case errors.Is(err, store.ErrUnavailable) || errors.Is(err, store.ErrDamaged):
		// Without the state, no granted path is writable and every protected path stays
		// hidden: the narrower policy, so terminals keep working inside the working directory.
		slog.Warn("gate: terminal grants unreadable, processes get the base sandbox policy", "err", err)
		grants, opened = nil, nil
	case err != nil:
		return nil, fmt.Errorf("terminal grants: %w", err)
	}
	g.hide(p, opened)
	if p.Mode != sandbox.ModeWorkspaceWrite {
		return p, nil
	}
	p.Writable = slices.Clone(p.Writable)
	for _, gr := range grants {
		if gr.Recursive {
			p.Writable = append(p.Writable, gr.Path)
			continue
		}
		// Landlock rules on a directory cover its whole tree; a grant on a directory alone
		// cannot be expressed and is not applied (ask for it recursively). A file is exact.
		if fi, err := os.Stat(gr.Path); err == nil && !fi.IsDir() {
			p.Writable = append(p.Writable, gr.Path)
		}
	}
	return p, nil
}

// hide sets what p's processes may not read: toolhost's own hidden paths, every path the guard
// protects or holds secret (credential stores, announced credential files) and other projects'
// dotenv files, except what opened (the conversation's read grants) opens to terminals (a
// grant on a directory opens what is below it). The working directory is never hidden as a
// whole: what the guard protects inside it stays hidden.
func (g *Gate) hide(p *sandbox.Policy, opened []authz.GrantedPath) {
	own := p.Hidden // toolhost's own: no grant opens them
	secret := g.cfg.Guard.SecretPaths()
	env := g.envScan.files(g.cfg.Workdir, g.cfg.Home)
	hidden := g.hidden.merge(own, secret, env)
	if len(opened) > 0 {
		hidden = slices.DeleteFunc(slices.Clone(hidden), func(h string) bool {
			return !slices.Contains(own, h) && slices.ContainsFunc(opened, func(gr authz.GrantedPath) bool {
				return h == gr.Path || gr.Recursive && strings.HasPrefix(h, strings.TrimSuffix(gr.Path, "/")+"/")
			})
		})
	}
	p.Hidden = hidden
}

// CanRead says whether a process of conv started now may read path: false for what the
// sandbox hides (a credential store, toolhost's state, another project's dotenv file), with
// own set for toolhost's own files, which no grant opens.
func (g *Gate) CanRead(ctx context.Context, conv, path string) (ok, own bool) {
	p, err := g.Policy(ctx, conv)
	if err != nil || p == nil {
		return err == nil, false
	}
	c := sandbox.Canonical(path)
	for _, h := range g.base.Hidden {
		if c == h || strings.HasPrefix(c, strings.TrimSuffix(h, "/")+"/") {
			return false, true
		}
	}
	for _, h := range p.Hidden {
		if c == h || strings.HasPrefix(c, strings.TrimSuffix(h, "/")+"/") {
			return false, false
		}
	}
	return true, false
}

// CanWrite says whether a process of conv started now may write path, and whether path is
// one of toolhost's own (never writable).
func (g *Gate) CanWrite(ctx context.Context, conv, path string) (ok, protected bool) {
	p, err := g.Policy(ctx, conv)
	if err != nil {
		return false, false
	}
	return p.CanWrite(path)
}

// Status says what the sandbox enforces here, for the startup line and `toolhost doctor`.
func (g *Gate) Status() sandbox.Status {
	if g == nil {
		return sandbox.Status{Mode: sandbox.ModeOff, Effective: sandbox.ModeOff}
	}
	return g.prepare().status
}

// Rules are the command rules in force (configured, then the defaults), for `toolhost rules
// list` and doctor.
func (g *Gate) Rules() *cmdrules.Rules {
	if g == nil {
		return &cmdrules.Rules{}
	}
	if rules := g.prepare().rules; rules != nil {
		return rules
	}
	return &cmdrules.Rules{}
}

// Environ is the base environment of a child: the server's own without the withheld
// variables, then the gate's settings. The caller owns the slice it gets.
func (g *Gate) Environ() []string {
	if g == nil {
		return g.environ(os.Environ())
	}
	return g.env.environ(g)
}

func (g *Gate) environ(from []string) []string {
	var env []string
	for _, kv := range from {
		name, _, _ := strings.Cut(kv, "=")
		if g.Withheld(name) {
			continue
		}
		if g != nil {
			if _, ok := g.extra[name]; ok {
				continue
			}
		}
		env = append(env, kv)
	}
	if g != nil {
		for _, k := range slices.Sorted(maps.Keys(g.extra)) {
			env = append(env, k+"="+g.extra[k])
		}
	}
	return env
}

// readScript reads a script a line runs (source, bash FILE) so the rules can check it: a
// regular file only (a FIFO must not block the check), at most 256 KiB.
func readScript(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|sysfile.OpenReadFlags&^sysfile.NoFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Base(path))
	}
	return io.ReadAll(io.LimitReader(f, 256<<10+1))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
