package ignore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repoFiles is the fixture tree: ignore files plus the paths we ask about.
// Paths ending in "/" are directories.
var repoFiles = map[string]string{
	".gitignore": strings.Join([]string{
		"# comment",
		"*.log",
		"!keep.log",
		"/rootonly.txt",
		"build/",
		"docs/**/*.tmp",
		"deep/**",
		"!deep/keep",
		"trailing\\ ",
		"spaced   ",
		"\\#hash",
		"\\!bang",
		"[!a]x.dat",
		"a/**/z",
		"**/anywhere",
		"mid/dle",
		"",
	}, "\n"),
	".git/info/exclude":     "excluded.txt\n*.bak\n",
	"sub/.gitignore":        "local.txt\n!important.bak\n/anchored\nnested/\n",
	"sub/deeper/.gitignore": "!special.log\n",
}

// ignoreCases were verified with `git check-ignore` (git 2.39); the test
// re-verifies them whenever git is on PATH.
var ignoreCases = []struct {
	name string
	path string
	dir  bool
	want bool
}{
	{"plain file", "main.go", false, false},
	{"glob any level", "x/y/debug.log", false, true},
	{"glob root", "debug.log", false, true},
	{"negation", "keep.log", false, false},
	{"negation nested", "x/keep.log", false, false},
	{"anchored at root", "rootonly.txt", false, true},
	{"anchored not below", "x/rootonly.txt", false, false},
	{"dir-only matches dir", "build", true, true},
	{"dir-only nested dir", "x/build", true, true},
	{"dir-only not file", "y/build", false, false},
	{"inside ignored dir", "build/out.bin", false, true},
	{"doublestar middle zero", "docs/a.tmp", false, true},
	{"doublestar middle many", "docs/a/b/c.tmp", false, true},
	{"doublestar middle no", "other/a.tmp", false, false},
	{"trailing doublestar content", "deep/file", false, true},
	{"trailing doublestar not dir itself", "deep", true, false},
	{"trailing doublestar negated", "deep/keep", false, false},
	{"escaped trailing space", "trailing ", false, true},
	{"trimmed trailing spaces", "spaced", false, true},
	{"escaped hash", "#hash", false, true},
	{"escaped bang", "!bang", false, true},
	{"negated class match", "bx.dat", false, true},
	{"negated class no", "ax.dat", false, false},
	{"a doublestar z direct", "a/z", false, true},
	{"a doublestar z deep", "a/b/c/z", false, true},
	{"leading doublestar", "p/q/anywhere", false, true},
	{"middle slash anchored", "mid/dle", false, true},
	{"middle slash not nested", "x/mid/dle", false, false},
	{"info exclude", "excluded.txt", false, true},
	{"info exclude glob", "sub/x.bak", false, true},
	{"nested gitignore", "sub/local.txt", false, true},
	{"nested not outside", "local.txt", false, false},
	{"nested overrides exclude", "sub/important.bak", false, false},
	{"nested anchored", "sub/anchored", false, true},
	{"nested anchored deeper", "sub/x/anchored", false, false},
	{"nested dir-only", "sub/a/nested", true, true},
	{"deeper negates root", "sub/deeper/special.log", false, false},
	{"deeper other log", "sub/deeper/other.log", false, true},
	{"git dir", ".git", true, true},
}

func writeTree(t *testing.T, dir string) {
	t.Helper()
	for name, content := range repoFiles {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range ignoreCases {
		if c.path == ".git" {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(c.path))
		if c.dir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestIgnoredPath(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ctx := context.Background()
	for _, c := range ignoreCases {
		t.Run(c.name, func(t *testing.T) {
			m := ForDir(ctx, root, parentDir(c.path))
			if got := m.IgnoredPath(c.path, c.dir); got != c.want {
				t.Errorf("IgnoredPath(%q, %v) = %v, want %v", c.path, c.dir, got, c.want)
			}
		})
	}
}

// TestCasesAgreeWithGit checks the expectations above against real git, so
// the table cannot drift from git's behaviour.
func TestCasesAgreeWithGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not on PATH")
	}
	dir := t.TempDir()
	cmd := exec.Command(gitBin, "init", "-q", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	writeTree(t, dir)
	for _, c := range ignoreCases {
		if c.path == ".git" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(gitBin, "check-ignore", "-q", "--", c.path)
			cmd.Dir = dir
			err := cmd.Run()
			got := err == nil
			if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
				t.Fatalf("git check-ignore %q: %v", c.path, err)
			}
			if got != c.want {
				t.Errorf("git check-ignore %q = %v, table says %v", c.path, got, c.want)
			}
		})
	}
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		line     string
		ok       bool
		negate   bool
		dirOnly  bool
		anchored bool
	}{
		{"", false, false, false, false},
		{"# c", false, false, false, false},
		{"   ", false, false, false, false},
		{"*.go", true, false, false, false},
		{"!*.go", true, true, false, false},
		{"out/", true, false, true, false},
		{"/out", true, false, false, true},
		{"a/b/", true, false, true, true},
		{"**/x", true, false, false, true},
		{"x\r", true, false, false, false},
	}
	for _, tt := range tests {
		p, ok := ParseLine(tt.line)
		if ok != tt.ok || p.negate != tt.negate || p.dirOnly != tt.dirOnly || p.anchored != tt.anchored {
			t.Errorf("ParseLine(%q) = ok %v negate %v dirOnly %v anchored %v, want %v %v %v %v",
				tt.line, ok, p.negate, p.dirOnly, p.anchored, tt.ok, tt.negate, tt.dirOnly, tt.anchored)
		}
	}
}

func TestNilMatcher(t *testing.T) {
	var m *Matcher
	if m.Ignored("a/b.go", false) {
		t.Errorf("nil Matcher Ignored(a/b.go) = true, want false")
	}
	if !m.Ignored("x/.git", true) {
		t.Errorf("nil Matcher Ignored(x/.git) = false, want true")
	}
}

func TestFIFOIgnoreFileSkipped(t *testing.T) {
	dir := t.TempDir()
	if err := mkfifo(filepath.Join(dir, ".gitignore")); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	m := New(context.Background(), root) // must not block
	if m.Ignored("x", false) {
		t.Errorf("Ignored(x) = true, want false")
	}
}

func parentDir(p string) string {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return ""
	}
	return p[:i]
}

func TestParseSkipsBOMAndComments(t *testing.T) {
	ps, err := Parse(strings.NewReader("\uFEFF*.tmp\n# c\n\n!keep.tmp\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.String())
	}
	if strings.Join(got, "|") != "*.tmp|!keep.tmp" {
		t.Errorf("Parse(BOM file) = %q, want [*.tmp !keep.tmp]", got)
	}
}
