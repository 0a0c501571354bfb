package fsread

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// treeFixture builds the shared tree for list, glob and grep tests: hidden
// files, nested .gitignore files, symlinks (one a loop), a FIFO and a .git
// directory.
func treeFixture(t *testing.T) (*os.Root, string) {
	t.Helper()
	root, dir := openTestRoot(t, map[string]string{
		".gitignore":          "*.log\nbuild/\n",
		".hidden":             "secret needle\n",
		"a.go":                "package a\n\nfunc Needle() {}\n",
		"b.txt":               "first\nneedle here\nlast\n",
		"x.log":               "needle in log\n",
		"build/out.go":        "needle built\n",
		"src/main.go":         "package main\n// NEEDLE upper\nfunc main() {}\n",
		"src/util/u.go":       "package util\nvar needle = 1\n",
		"src/util/.gitignore": "gen.go\n",
		"src/util/gen.go":     "needle generated\n",
		"src/bin.dat":         "needle\x00binary\n",
		".git/config":         "needle git\n",
	})
	if err := os.Symlink("src", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".", filepath.Join(dir, "src", "loop")); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(dir, "fifo")); err != nil {
		t.Logf("mkfifo: %v", err)
	}
	// Distinct mtimes so mtime ordering is deterministic.
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, name := range []string{"a.go", "b.txt", "src/main.go", "src/util/u.go"} {
		mt := base.Add(time.Duration(i) * time.Hour)
		if err := os.Chtimes(filepath.Join(dir, name), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	return root, dir
}

func listPaths(r ListResult) []string {
	var out []string
	for _, e := range r.Entries {
		s := e.Path + ":" + string(e.Type)
		if e.LinkTarget != "" {
			s += "->" + e.LinkTarget
		}
		out = append(out, s)
	}
	return out
}

func TestListDir(t *testing.T) {
	root, _ := treeFixture(t)
	tests := []struct {
		name        string
		rel         string
		opts        ListOptions
		want        []string
		wantTrunc   bool
		wantOmitted int
	}{
		{"default", "", ListOptions{},
			[]string{"a.go:file", "b.txt:file", "fifo:other", "link:symlink->src", "src:dir"}, false, 0},
		{"hidden", "", ListOptions{IncludeHidden: true},
			[]string{".gitignore:file", ".hidden:file", "a.go:file", "b.txt:file", "fifo:other", "link:symlink->src", "src:dir"}, false, 0},
		{"hidden and ignored never .git", "", ListOptions{IncludeIgnored: true, IncludeHidden: true},
			[]string{".gitignore:file", ".hidden:file", "a.go:file", "b.txt:file", "build:dir", "fifo:other", "link:symlink->src", "src:dir", "x.log:file"}, false, 0},
		{"inside .git by name", ".git", ListOptions{},
			[]string{".git/config:file"}, false, 0},
		{"ignored", "", ListOptions{IncludeIgnored: true},
			[]string{"a.go:file", "b.txt:file", "build:dir", "fifo:other", "link:symlink->src", "src:dir", "x.log:file"}, false, 0},
		{"recursive", "", ListOptions{Recursive: true},
			[]string{"a.go:file", "b.txt:file", "fifo:other", "link:symlink->src", "src:dir", "src/bin.dat:file", "src/loop:symlink->.", "src/main.go:file", "src/util:dir", "src/util/u.go:file"}, false, 0},
		{"recursive depth 1", "", ListOptions{Recursive: true, MaxDepth: 1},
			[]string{"a.go:file", "b.txt:file", "fifo:other", "link:symlink->src", "src:dir"}, false, 0},
		{"subdir", "src/util", ListOptions{},
			[]string{"src/util/u.go:file"}, false, 0},
		{"subdir inherits root ignore", "src", ListOptions{IncludeHidden: true},
			[]string{"src/bin.dat:file", "src/loop:symlink->.", "src/main.go:file", "src/util:dir"}, false, 0},
		{"capped", "", ListOptions{MaxEntries: 2},
			[]string{"a.go:file", "b.txt:file"}, true, 3},
		{"capped breadth first", "", ListOptions{Recursive: true, MaxEntries: 6},
			[]string{"a.go:file", "b.txt:file", "fifo:other", "link:symlink->src", "src:dir", "src/bin.dat:file"}, true, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ListDir(context.Background(), root, tt.rel, tt.opts)
			if err != nil {
				t.Fatalf("ListDir(%q, %+v) error %v", tt.rel, tt.opts, err)
			}
			gotPaths := listPaths(got)
			if !strings.Contains(strings.Join(gotPaths, ","), "fifo") {
				gotPaths = withFIFO(gotPaths, tt.want)
			}
			if diff := cmp.Diff(tt.want, gotPaths); diff != "" {
				t.Errorf("ListDir(%q, %+v) mismatch (-want +got):\n%s", tt.rel, tt.opts, diff)
			}
			if got.Truncated != tt.wantTrunc || got.Omitted != tt.wantOmitted {
				t.Errorf("ListDir(%q, %+v) truncated %v omitted %d, want %v %d", tt.rel, tt.opts, got.Truncated, got.Omitted, tt.wantTrunc, tt.wantOmitted)
			}
		})
	}
}

// withFIFO tolerates platforms without FIFOs by dropping the fifo from want.
func withFIFO(got, want []string) []string {
	for _, w := range want {
		if w == "fifo:other" {
			return append([]string{}, got...)
		}
	}
	return got
}

func TestListDirErrors(t *testing.T) {
	root, _ := treeFixture(t)
	tests := []struct {
		name string
		rel  string
		want error
	}{
		{"file", "a.go", ErrNotDir},
		{"missing", "nope", os.ErrNotExist},
		{"escape", "../..", ErrInvalidOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ListDir(context.Background(), root, tt.rel, ListOptions{}); !errors.Is(err, tt.want) {
				t.Errorf("ListDir(%q) error = %v, want %v", tt.rel, err, tt.want)
			}
		})
	}
}

func TestListDirEntryInfo(t *testing.T) {
	root, _ := treeFixture(t)
	got, err := ListDir(context.Background(), root, "", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range got.Entries {
		if e.Path == "a.go" {
			if e.Size != int64(len("package a\n\nfunc Needle() {}\n")) || e.ModTime.IsZero() || e.Depth != 1 {
				t.Errorf("ListDir entry a.go = %+v, want size 28, mtime set, depth 1", e)
			}
			return
		}
	}
	t.Errorf("ListDir did not list a.go")
}

// TestLargeDirectory lists a directory with 200,000 entries: the answer is
// capped, counts the rest, and stays quick.
func TestLargeDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 200,000 files")
	}
	dir := fastTempDir(t)
	big := filepath.Join(dir, "big")
	if err := os.Mkdir(big, 0o755); err != nil {
		t.Fatal(err)
	}
	const n = 200_000
	for i := range n {
		f, err := os.OpenFile(filepath.Join(big, fmt.Sprintf("f%06d", i)), os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ctx := context.Background()
	lr, err := ListDir(ctx, root, "big", ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lr.Entries) != DefaultMaxEntries || lr.Omitted != n-DefaultMaxEntries || lr.Entries[0].Path != "big/f000000" {
		t.Errorf("ListDir(big) = %d entries (first %q), omitted %d; want %d, big/f000000, %d", len(lr.Entries), lr.Entries[0].Path, lr.Omitted, DefaultMaxEntries, n-DefaultMaxEntries)
	}
	gr, err := Glob(ctx, root, "big", "f1999*", GlobOptions{SortBy: SortByPath, MaxResults: 5})
	if err != nil {
		t.Fatal(err)
	}
	if gr.Total != 100 || len(gr.Matches) != 5 || gr.Matches[0].Path != "big/f199900" {
		t.Errorf("Glob(big, f1999*) total %d, %d matches, want 100 and 5 starting big/f199900", gr.Total, len(gr.Matches))
	}
}

// TestDeepNesting walks a 10,000-deep chain of directories: walks stop at
// the depth limit and say so instead of running away.
func TestDeepNesting(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 10,000 nested directories")
	}
	dir := fastTempDir(t)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	// Build the chain through per-level roots: the full path is far longer
	// than PATH_MAX.
	cur := root
	for i := range 10_000 {
		if err := cur.Mkdir("d", 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := cur.OpenRoot("d")
		if err != nil {
			t.Fatal(err)
		}
		if i == 9_999 {
			if err := next.WriteFile("deep.txt", []byte("needle\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if cur != root {
			cur.Close()
		}
		cur = next
	}
	cur.Close()
	ctx := context.Background()
	lr, err := ListDir(ctx, root, "", ListOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(lr.Entries) != DefaultMaxWalkDepth || lr.DepthLimited != 1 {
		t.Errorf("ListDir(deep, recursive) = %d entries, depth limited %d; want %d, 1", len(lr.Entries), lr.DepthLimited, DefaultMaxWalkDepth)
	}
	gr, err := Grep(ctx, root, "", GrepOptions{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	if gr.TotalMatches != 0 || gr.DepthLimited != 1 {
		t.Errorf("Grep(deep) = %d matches, depth limited %d; want 0, 1", gr.TotalMatches, gr.DepthLimited)
	}
	gl, err := Glob(ctx, root, "", "**/deep.txt", GlobOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if gl.Total != 0 || gl.DepthLimited != 1 {
		t.Errorf("Glob(deep) = %d, depth limited %d; want 0, 1", gl.Total, gl.DepthLimited)
	}
}

func TestWalkCancelled(t *testing.T) {
	root, _ := treeFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Grep(ctx, root, "", GrepOptions{Pattern: "x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Grep(cancelled) error = %v, want context.Canceled", err)
	}
	if _, err := Glob(ctx, root, "", "**", GlobOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Glob(cancelled) error = %v, want context.Canceled", err)
	}
	if _, err := ListDir(ctx, root, "", ListOptions{Recursive: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("ListDir(cancelled) error = %v, want context.Canceled", err)
	}
}

func TestPathLess(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"a", "b", true},
		{"a", "a/b", true},
		{"a/b", "a.txt", true},
		{"a.txt", "a/b", false},
		{"a/b", "a/b", false},
		{"a/b/c", "a/c", true},
	}
	for _, tt := range tests {
		if got := pathLess(tt.a, tt.b); got != tt.want {
			t.Errorf("pathLess(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// fastTempDir returns a temp dir on tmpfs when /dev/shm is usable: creating
// 200,000 files on a busy ext4 disk takes a minute, on tmpfs a few seconds.
func fastTempDir(t *testing.T) string {
	t.Helper()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "fsread-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}
