package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"toolhost/internal/git/gittest"
)

func testEnv(t testing.TB) { gittest.Isolate(t) }

func sh(t testing.TB, dir string, args ...string) string { return gittest.Run(t, dir, args...) }

func write(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newRepo makes a repository with one commit of a.txt and returns its canonical path.
func newRepo(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sh(t, dir, "init", "-q", "-b", "main")
	write(t, dir, "a.txt", "one\ntwo\nthree\n")
	sh(t, dir, "add", ".")
	sh(t, dir, "commit", "-qm", "first commit")
	return dir
}

func open(t testing.TB, dir string) *Repo {
	t.Helper()
	r, err := NewRunner(Config{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	return p
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// status_merge.z is git 2.39's porcelain v2 of a merge with a conflict, a staged rename, a staged
// new file, a modified binary and an untracked file.
func TestParseStatusCaptured(t *testing.T) {
	st, err := ParseStatus(readTestdata(t, "status_merge.z"))
	if err != nil {
		t.Fatal(err)
	}
	got := RenderStatus(st, RenderOptions{State: StateMerge})
	want := `branch main, no upstream
merge in progress: resolve the conflicted files, stage them, then commit
conflicted (1):
  a.txt (both modified)
staged (2):
  R old.txt -> new name.txt
  A s.txt
unstaged (1):
  M bin.dat
untracked (1):
  untracked.txt`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RenderStatus (-want +got):\n%s", diff)
	}
	if s, u, n, c := st.Counts(); s != 2 || u != 1 || n != 1 || c != 1 {
		t.Errorf("Counts = %d %d %d %d, want 2 1 1 1", s, u, n, c)
	}
}

func TestParseStatusHeaders(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"no commits", "# branch.oid (initial)\x00# branch.head main\x00", "branch main, no commits yet\nclean: nothing to commit"},
		{"detached", "# branch.oid 0123456789abcdef\x00# branch.head (detached)\x00", "detached HEAD at 0123456\nclean: nothing to commit"},
		{"ahead and behind with stashes", "# branch.oid 0123456789\x00# branch.head dev\x00# branch.upstream origin/dev\x00# branch.ab +2 -1\x00# stash 3\x00",
			"branch dev, upstream origin/dev (ahead 2, behind 1); 3 stashed\nclean: nothing to commit"},
		{"upstream gone", "# branch.oid 0123456789\x00# branch.head dev\x00# branch.upstream origin/dev\x00", "branch dev, upstream origin/dev (gone)\nclean: nothing to commit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := ParseStatus([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, RenderStatus(st, RenderOptions{})); diff != "" {
				t.Errorf("RenderStatus (-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []string{"1 M", "2 R. N... 1 2 3 a b R100 new", "x y", "? "} {
		if _, err := ParseStatus([]byte(bad + "\x00")); err == nil {
			t.Errorf("ParseStatus(%q) accepted a malformed record", bad)
		}
	}
}

func TestParseNumStatCaptured(t *testing.T) {
	got, err := ParseNumStat(readTestdata(t, "numstat_head.z"))
	if err != nil {
		t.Fatal(err)
	}
	want := []FileStat{
		{Path: "a.txt", Added: 4},
		{Path: "bin.dat", Binary: true},
		{Path: "new name.txt", Orig: "old.txt"},
		{Path: "s.txt", Added: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseNumStat (-want +got):\n%s", diff)
	}
	wantText := "4 files changed, +5 -0\n+4 -0  a.txt\nbinary bin.dat\n+0 -0  old.txt -> new name.txt\n+1 -0  s.txt"
	if diff := cmp.Diff(wantText, RenderStat(got, 0)); diff != "" {
		t.Errorf("RenderStat (-want +got):\n%s", diff)
	}
}

func TestParseBlameCaptured(t *testing.T) {
	lines, err := ParseBlame(readTestdata(t, "blame_a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := "f36912b 2024-05-01 Dev: first commit\n    1  one\n3cc71d3 2024-05-01 Dev: main edit\n    2  TWO-main\nf36912b 2024-05-01 Dev: first commit\n    3  three"
	if diff := cmp.Diff(want, RenderBlame(lines)); diff != "" {
		t.Errorf("RenderBlame (-want +got):\n%s", diff)
	}
}

func TestParseLogCaptured(t *testing.T) {
	cs, err := ParseLog(readTestdata(t, "log_full.z"), true)
	if err != nil {
		t.Fatal(err)
	}
	want := "commit 3cc71d3b073ac7b848b22a83938f109110519118 (HEAD -> main)\nAuthor: Dev <dev@example.com>\nDate:   2024-05-01T10:00:00+00:00\n\n    main edit\n\n" +
		"commit f36912b9194e0a95dea3c1e6a2feb23e1a3c1221\nAuthor: Dev <dev@example.com>\nDate:   2024-05-01T10:00:00+00:00\n\n    first commit"
	if diff := cmp.Diff(want, RenderLog(cs, true)); diff != "" {
		t.Errorf("RenderLog (-want +got):\n%s", diff)
	}
}

// Refs are data: anything that could be read as an option is refused before git runs.
func TestCheckRef(t *testing.T) {
	tests := []struct {
		ref string
		ok  bool
	}{
		{"main", true},
		{"HEAD~2", true},
		{"v1.0^{commit}", true},
		{"feature/x@{upstream}", true},
		{"HEAD:dir/file name.go", true},
		{"", false},
		{"-c", false},
		{"--upload-pack=touch /tmp/x", false},
		{"--exec=sh", false},
		{"-ccore.pager=sh", false},
		{"--output=/tmp/x", false},
		{"main\n--exec=x", false},
		{"a\x00b", false},
		{"\xff", false},
		{strings.Repeat("a", 2000), false},
	}
	for _, tc := range tests {
		err := CheckRef(tc.ref)
		if (err == nil) != tc.ok {
			t.Errorf("CheckRef(%q) = %v, want ok=%v", truncate(tc.ref, 40), err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidRef) {
			t.Errorf("CheckRef(%q) = %v, want ErrInvalidRef", tc.ref, err)
		}
	}
}

func TestRelPath(t *testing.T) {
	testEnv(t)
	dir := newRepo(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "escape")); err != nil {
		t.Fatal(err)
	}
	p := open(t, dir)
	tests := []struct {
		in, want string
		err      error
	}{
		{"a.txt", "a.txt", nil},
		{"./sub/../a.txt", "a.txt", nil},
		{".", ".", nil},
		{filepath.Join(dir, "x/y.go"), "x/y.go", nil},
		{"../a.txt", "", ErrOutsideRepo},
		{outside, "", ErrOutsideRepo},
		{"escape/f.txt", "", ErrOutsideRepo},
		{".git/config", "", ErrOutsideRepo},
		{".git", "", ErrOutsideRepo},
		{"a\x00b", "", ErrOutsideRepo},
	}
	for _, tc := range tests {
		got, err := p.RelPath(tc.in)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("RelPath(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// Every way a model could try to smuggle an option through a ref fails before a command runs
// with it; a marker file proves no --upload-pack or -c core.* payload executed.
func TestResolveRefusesInjection(t *testing.T) {
	testEnv(t)
	dir := newRepo(t)
	p := open(t, dir)
	marker := filepath.Join(t.TempDir(), "pwned")
	ctx := context.Background()
	for _, ref := range []string{
		"--upload-pack=touch " + marker,
		"-c", "-ccore.fsmonitor=touch " + marker,
		"--exec=touch " + marker,
		"--output=" + marker,
		"HEAD --output=" + marker,
	} {
		if _, err := p.Resolve(ctx, ref); err == nil {
			t.Errorf("Resolve(%q) succeeded", ref)
		}
		if _, err := p.ResolveRange(ctx, "main.."+ref); err == nil {
			t.Errorf("ResolveRange(main..%q) succeeded", ref)
		}
		if err := p.CreateBranch(ctx, ref, "HEAD"); err == nil {
			t.Errorf("CreateBranch(%q) succeeded", ref)
		}
		if err := p.Switch(ctx, ref); err == nil {
			t.Errorf("Switch(%q) succeeded", ref)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an injected option ran")
	}
	// Paths are literal pathspecs after "--": a path spelled like an option is a file name.
	write(t, dir, "--output=x", "data\n")
	if err := p.Stage(ctx, []string{"--output=x"}); err != nil {
		t.Fatalf("Stage(--output=x): %v", err)
	}
	st, err := p.Status(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Entries) != 1 || st.Entries[0].Path != "--output=x" || !st.Entries[0].Staged() {
		t.Errorf("staging a file named like an option: %+v", st.Entries)
	}
}

func TestGitEnv(t *testing.T) {
	env := gitEnv([]string{
		"PATH=/bin", "GIT_DIR=/evil", "GIT_CONFIG_PARAMETERS='core.pager=sh'", "GIT_CONFIG_COUNT=1",
		"GIT_EXEC_PATH=/evil", "GIT_AUTHOR_NAME=Me", "TOOLHOST_TOKEN=secret", "SECRET_KEY=x",
		"LC_ALL=de_DE.UTF-8", "GIT_PAGER=less", "EDITOR=vim",
	})
	got := strings.Join(env, "\n")
	for _, bad := range []string{"GIT_DIR", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_EXEC_PATH", "TOOLHOST_TOKEN", "LC_ALL", "GIT_PAGER=less"} {
		if strings.Contains(got, bad) {
			t.Errorf("environment keeps %s:\n%s", bad, got)
		}
	}
	for _, want := range []string{"PATH=/bin", "GIT_AUTHOR_NAME=Me", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "GIT_EDITOR=true", "LC_MESSAGES=C", "LC_CTYPE=de_DE.UTF-8", "EDITOR=vim"} {
		if !strings.Contains(got, want) {
			t.Errorf("environment lacks %s:\n%s", want, got)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	testEnv(t)
	r, err := NewRunner(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := r.Open(ctx, t.TempDir(), nil); !errors.Is(err, ErrNotRepository) {
		t.Errorf("Open(plain dir) = %v, want ErrNotRepository", err)
	}
	dir := newRepo(t)
	if _, err := r.Open(ctx, filepath.Join(dir, ".git"), nil); !errors.Is(err, ErrNotRepository) {
		t.Errorf("Open(.git) = %v, want ErrNotRepository", err)
	}
	// A bare repository planted inside a work tree (its config could run anything) is never
	// used, nor one found by walking up from inside it.
	sh(t, dir, "init", "-q", "--bare", "planted")
	if err := os.MkdirAll(filepath.Join(dir, "planted", "refs", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"planted", "planted/refs/sub"} {
		if _, err := r.Open(ctx, filepath.Join(dir, d), nil); !errors.Is(err, ErrNotRepository) {
			t.Errorf("Open(%s) = %v, want ErrNotRepository", d, err)
		}
	}
	if _, err := NewRunner(Config{Path: "/nonexistent/git"}); !errors.Is(err, ErrNoGit) {
		t.Errorf("NewRunner(missing git) = %v, want ErrNoGit", err)
	}
}

func TestAmendRefusedOnPushedCommit(t *testing.T) {
	testEnv(t)
	remote := newRepo(t)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	sh(t, dir, "clone", "-q", remote, ".")
	p := open(t, dir)
	ctx := context.Background()
	_, err := p.Commit(ctx, CommitOptions{Message: "rewrite", Amend: true})
	var ge *Error
	if !errors.Is(err, ErrPushed) || !errors.As(err, &ge) || !strings.Contains(ge.Stderr, "origin/main") {
		t.Fatalf("amend of a pushed commit = %v, want ErrPushed naming origin/main", err)
	}
	write(t, dir, "b.txt", "b\n")
	if err := p.Stage(ctx, []string{"b.txt"}); err != nil {
		t.Fatal(err)
	}
	res, err := p.Commit(ctx, CommitOptions{Message: "local"})
	if err != nil {
		t.Fatal(err)
	}
	res2, err := p.Commit(ctx, CommitOptions{Message: "local, reworded", Amend: true})
	if err != nil {
		t.Fatalf("amend of an unpushed commit: %v", err)
	}
	if res2.ID == res.ID || res2.Subject != "local, reworded" || res2.Branch != "main" {
		t.Errorf("amend result = %+v", res2)
	}
}

func FuzzParseStatus(f *testing.F) {
	f.Add(readTestdata(f, "status_merge.z"))
	f.Add([]byte("# branch.ab +1\x00# branch.ab x y\x002 R. a\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := ParseStatus(b)
		if err != nil {
			return
		}
		for _, e := range st.Entries {
			if e.Path == "" && e.Kind != '?' && e.Kind != '!' {
				t.Fatalf("entry without a path: %+v", e)
			}
		}
		_ = RenderStatus(st, RenderOptions{MaxPerSection: 3})
	})
}

func FuzzParseNumStat(f *testing.F) {
	f.Add(readTestdata(f, "numstat_head.z"))
	f.Add(readTestdata(f, "numstat_cached.z"))
	f.Fuzz(func(t *testing.T, b []byte) {
		fs, err := ParseNumStat(b)
		if err != nil {
			return
		}
		for _, s := range fs {
			if s.Added < 0 || s.Deleted < 0 {
				t.Fatalf("negative counts: %+v", s)
			}
		}
		_ = RenderStat(fs, 2)
		if ns, err := ParseNameStatus(b); err == nil {
			_ = RenderChanged(&Changed{Files: ns}, 2)
		}
	})
}

func FuzzParseBlame(f *testing.F) {
	f.Add(readTestdata(f, "blame_a.txt"))
	f.Fuzz(func(t *testing.T, b []byte) {
		lines, err := ParseBlame(b)
		if err != nil {
			return
		}
		for _, l := range lines {
			if l.Line <= 0 {
				t.Fatalf("line number %d", l.Line)
			}
		}
		_ = RenderBlame(lines)
	})
}

func FuzzParseLog(f *testing.F) {
	f.Add(readTestdata(f, "log_full.z"), true)
	f.Fuzz(func(t *testing.T, b []byte, full bool) {
		if cs, err := ParseLog(b, full); err == nil {
			_ = RenderLog(cs, full)
		}
		if bs, err := ParseBranches(b); err == nil {
			_ = RenderBranches(bs, 2)
		}
	})
}

// Open's cache follows the file system: a repository made inside another one owns its
// directory from then on, and a removed repository is no longer found.
func TestOpenCacheFollowsTheFileSystem(t *testing.T) {
	testEnv(t)
	dir := newRepo(t)
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, err := r.Open(ctx, sub, nil)
	if err != nil || p.Top != dir {
		t.Fatalf("Open(sub) = %+v, %v; want the outer repository", p, err)
	}
	sh(t, sub, "init", "-q")
	if p, err := r.Open(ctx, sub, nil); err != nil || p.Top != sub {
		t.Fatalf("Open(sub) after git init = %+v, %v; want the new repository", p, err)
	}
	if err := os.RemoveAll(filepath.Join(sub, ".git")); err != nil {
		t.Fatal(err)
	}
	if p, err := r.Open(ctx, sub, nil); err != nil || p.Top != dir {
		t.Fatalf("Open(sub) after removing its .git = %+v, %v; want the outer repository", p, err)
	}
	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Open(ctx, sub, nil); !errors.Is(err, ErrNotRepository) {
		t.Fatalf("Open(sub) with no repository left = %v, want ErrNotRepository", err)
	}
}
