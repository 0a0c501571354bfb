package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"toolhost/internal/sandbox"
	"toolhost/internal/sandbox/sandboxtest"
)

// confineFixture is a repository whose configuration runs plant.sh, a state directory with a
// token, a directory outside that nothing may write, and a temp dir of its own (TMPDIR).
type confineFixture struct {
	dir, state, token, outside, tmp string
}

func newConfineFixture(t *testing.T) confineFixture {
	t.Helper()
	testEnv(t)
	f := confineFixture{dir: newRepo(t), state: canonicalTemp(t), outside: canonicalTemp(t), tmp: canonicalTemp(t)}
	f.token = filepath.Join(f.state, "token")
	if err := os.WriteFile(f.token, []byte("secret-token-42\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// plant.sh NAME logs that it ran (in the work tree, which it may write), then tries to
	// write outside and to copy the token; it prints nothing, so as a filter, textconv or
	// fsmonitor it answers with nothing.
	write(t, f.dir, "plant.sh", "echo ran > "+f.dir+"/ran-$1\n"+
		"echo x > "+f.outside+"/$1 2>/dev/null\n"+
		"cat "+f.token+" > "+f.dir+"/stolen-$1 2>/dev/null\n"+
		"exit 0\n")
	return f
}

func canonicalTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// policy is what a terminal of the work tree gets: it writes the work tree and its temp dir,
// never the state, whose contents it cannot read.
func (f confineFixture) policy() *sandbox.Policy {
	return &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Writable: []string{f.dir}, Temp: []string{f.tmp},
		Protected: []string{f.state}, Hidden: []string{f.state}}
}

func (f confineFixture) runner(t *testing.T) *Runner {
	t.Helper()
	r, err := NewRunner(Config{Env: append(os.Environ(), "TMPDIR="+f.tmp, "GIT_DIR=/elsewhere")})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// hook installs plant.sh NAME as an executable hook.
func (f confineFixture) hook(t *testing.T, hook, name string) {
	t.Helper()
	p := filepath.Join(f.dir, ".git", "hooks", hook)
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexec sh "+f.dir+"/plant.sh "+name+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// check asserts that plant.sh NAME ran and that its escapes did not happen (confined), or did
// (unconfined: the control that shows the fixture can tell).
func (f confineFixture) check(t *testing.T, name string, confined bool) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(f.dir, "ran-"+name)); err != nil {
		t.Fatalf("the planted %s did not run: the case proves nothing", name)
	}
	_, err := os.Stat(filepath.Join(f.outside, name))
	stolen, _ := os.ReadFile(filepath.Join(f.dir, "stolen-"+name))
	wrote, read := err == nil, strings.Contains(string(stolen), "secret-token-42")
	if confined && (wrote || read) {
		t.Errorf("the planted %s escaped: wrote outside %v, read the token %v", name, wrote, read)
	}
	if !confined && (!wrote || !read) {
		t.Errorf("unconfined, the planted %s could not write outside (%v) or read the token (%v): the fixture is broken", name, wrote, read)
	}
}

// TestGitRunsConfined plants each kind of command git runs by itself and runs the operation
// that triggers it under a terminal's policy: the command runs, with the terminal's power only.
func TestGitRunsConfined(t *testing.T) {
	sandboxtest.Require(t)
	ctx := context.Background()
	cases := []struct {
		// name is also plant.sh's argument (t.Run names become temp dir names, used unquoted).
		name  string
		plant func(t *testing.T, f confineFixture)
		// write says the operation writes the repository (the policy is widened to it, as
		// build_and_version_control does for a write the guard approved).
		write bool
		run   func(p *Repo) error
	}{
		{"pre-commit", func(t *testing.T, f confineFixture) {
			f.hook(t, "pre-commit", "pre-commit")
			write(t, f.dir, "b.txt", "b\n")
			sh(t, f.dir, "add", "b.txt")
		}, true, func(p *Repo) error { _, err := p.Commit(ctx, CommitOptions{Message: "hooked"}); return err }},
		{"fsmonitor", func(t *testing.T, f confineFixture) {
			sh(t, f.dir, "config", "core.fsmonitor", "sh "+f.dir+"/plant.sh fsmonitor")
		}, false, func(p *Repo) error { _, err := p.Status(ctx, nil); return err }},
		{"filter", func(t *testing.T, f confineFixture) {
			write(t, f.dir, ".gitattributes", "*.flt filter=evil\n")
			sh(t, f.dir, "config", "filter.evil.clean", "sh "+f.dir+"/plant.sh filter")
			write(t, f.dir, "x.flt", "data\n")
		}, true, func(p *Repo) error { return p.Stage(ctx, []string{"x.flt"}) }},
		{"textconv", func(t *testing.T, f confineFixture) {
			write(t, f.dir, ".gitattributes", "*.txv diff=evil\n")
			write(t, f.dir, "x.txv", "one\n")
			sh(t, f.dir, "add", ".")
			sh(t, f.dir, "commit", "-qm", "txv")
			sh(t, f.dir, "config", "diff.evil.textconv", "sh "+f.dir+"/plant.sh textconv")
			write(t, f.dir, "x.txv", "two\n")
		}, false, func(p *Repo) error { _, _, err := p.Diff(ctx, DiffOptions{Context: -1}); return err }},
		{"post-checkout", func(t *testing.T, f confineFixture) {
			sh(t, f.dir, "branch", "other")
			f.hook(t, "post-checkout", "post-checkout")
		}, true, func(p *Repo) error { return p.Switch(ctx, "other") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newConfineFixture(t)
			c.plant(t, f)
			pol := f.policy()
			p, err := f.runner(t).Open(ctx, f.dir, pol)
			if err != nil {
				t.Fatal(err)
			}
			if c.write {
				p = p.Confined(pol.WithWritable(p.Top, p.CommonDir))
			}
			if err := c.run(p); err != nil {
				t.Fatalf("the operation failed under the policy: %v", err)
			}
			f.check(t, c.name, true)
		})
	}
}

// TestConfinementIsPerRepo: the policy travels with the Repo value, not the runner or its
// cache. The same runner and directory give a confined Repo to one caller and an unconfined one
// to the next; Confined widens one value and leaves the other as it was; and a Repo confined to
// reads cannot commit, since git itself then cannot write .git.
func TestConfinementIsPerRepo(t *testing.T) {
	sandboxtest.Require(t)
	ctx := context.Background()
	f := newConfineFixture(t)
	r := f.runner(t)
	// The repository lies outside the policy's writable paths, as a granted repository may.
	pol := f.policy()
	pol.Writable = []string{f.tmp}
	read, err := r.Open(ctx, f.dir, pol)
	if err != nil {
		t.Fatal(err)
	}
	f.hook(t, "pre-commit", "a")
	write(t, f.dir, "b.txt", "b\n")
	sh(t, f.dir, "add", "b.txt")
	if _, err := read.Commit(ctx, CommitOptions{Message: "refused"}); err == nil {
		t.Fatal("Commit under a policy that cannot write the repository succeeded")
	}
	// Widened to the repository: git and the hook write it, and nothing else.
	if _, err := read.Confined(pol.WithWritable(read.Top, read.CommonDir)).Commit(ctx, CommitOptions{Message: "confined"}); err != nil {
		t.Fatalf("Commit widened to the repository: %v", err)
	}
	f.check(t, "a", true)
	if read.policy != pol {
		t.Error("Confined changed the Repo it was called on")
	}
	// Answered from the cache, for a caller without a policy: unconfined.
	f.hook(t, "pre-commit", "b")
	write(t, f.dir, "c.txt", "c\n")
	sh(t, f.dir, "add", "c.txt")
	free, err := r.Open(ctx, f.dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := free.Commit(ctx, CommitOptions{Message: "free"}); err != nil {
		t.Fatal(err)
	}
	f.check(t, "b", false)
	// And the cache did not keep the unconfined one for the next confined caller.
	f.hook(t, "pre-commit", "c")
	write(t, f.dir, "d.txt", "d\n")
	sh(t, f.dir, "add", "d.txt")
	again, err := r.Open(ctx, f.dir, pol)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := again.Confined(pol.WithWritable(again.Top)).Commit(ctx, CommitOptions{Message: "again"}); err != nil {
		t.Fatal(err)
	}
	f.check(t, "c", true)
}

// TestConfigEnv: git starts from Config.Env (the gate's environment), not the server's own;
// GIT_* names in it that would redirect git, and toolhost's variables, are dropped.
func TestConfigEnv(t *testing.T) {
	testEnv(t)
	t.Setenv("TMPDIR", "/inherited")
	r, err := NewRunner(Config{Env: []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=/private", "GIT_DIR=/elsewhere", "TOOLHOST_TOKEN=t"}})
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Join(r.env, "\n")
	if !strings.Contains(env, "TMPDIR=/private") || strings.Contains(env, "TMPDIR=/inherited") || strings.Contains(env, "GIT_DIR") || strings.Contains(env, "TOOLHOST_") {
		t.Errorf("git's environment = %s\nwant TMPDIR=/private only, no GIT_DIR and no TOOLHOST_TOKEN", env)
	}
}

// TestReadsNeverFetch: a partial clone lacks objects its promisor remote would send; a
// remote planted in .git/config with an upload-pack command of the attacker's choice would
// run that command on the first read that needs a missing object. Reads (and every other
// command toolhost runs) have fetching disabled: the read fails with a clear error and
// nothing runs.
func TestReadsNeverFetch(t *testing.T) {
	testEnv(t)
	origin := newRepo(t)
	write(t, origin, "big.txt", "a blob the clone does not have\n")
	sh(t, origin, "add", "big.txt")
	sh(t, origin, "commit", "-qm", "big")
	sh(t, origin, "config", "uploadpack.allowFilter", "true")
	clone := filepath.Join(t.TempDir(), "clone")
	sh(t, filepath.Dir(clone), "clone", "-q", "--no-checkout", "--filter=blob:none", "file://"+origin, clone)
	marker := filepath.Join(t.TempDir(), "ran")
	sh(t, clone, "config", "remote.origin.uploadpack", "touch "+marker+"; git-upload-pack")
	p := open(t, clone)
	ctx := context.Background()
	id, typ, err := p.ResolveObject(ctx, "HEAD:big.txt")
	if err == nil {
		_, err = p.ReadObject(ctx, id, typ)
	}
	if err == nil {
		t.Fatal("a read of a missing object fetched it")
	}
	if !errors.Is(err, ErrNotLocal) {
		t.Errorf("the read failed with %v, want ErrNotLocal", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the planted upload-pack command ran")
	}
	// git itself would have fetched it: the test's own git, with fetching allowed, runs it.
	if out, err := exec.Command("git", "-C", clone, "cat-file", "-p", "HEAD:big.txt").CombinedOutput(); err != nil {
		t.Logf("plain git could not fetch either (%v): %s", err, out)
	} else if _, err := os.Stat(marker); err != nil {
		t.Error("the scene does not reproduce the attack: plain git fetched without running the planted command")
	}
}
