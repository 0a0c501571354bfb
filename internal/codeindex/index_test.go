package codeindex

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"toolhost/internal/filetest"
	"toolhost/internal/fsread"
)

func sample() map[string]string {
	return map[string]string{
		"main.go":               "package main\n\nfunc main() {\n\tprintln(\"Hello, World\")\n}\n",
		"pkg/reader.go":         "package pkg\n\n// NewReader makes a Reader.\nfunc NewReader() *Reader { return &Reader{} }\n\ntype Reader struct{ n int }\n",
		"pkg/sub/deep.txt":      "TODO: retry failed uploads\nFIXME later\n",
		"pkg/kelvin.txt":        "temperature 5\u212A\n",
		"bin/blob.dat":          "\x00\x01\x02binary NewReader",
		"late-nul.txt":          strings.Repeat("x", 9000) + "\nfindme\n\x00after findme\n",
		".hidden/secret.txt":    "NewReader hidden\n",
		".gitignore":            "ignored/\n*.log\n",
		"ignored/x.go":          "package ignored // NewReader\n",
		"app.log":               "NewReader in a log\n",
		"empty.txt":             "",
		"big.txt":               strings.Repeat("big line NewReader\n", 400),
		"docs/readme.md":        "# Readme\n\nCall NewReader, then Close.\nhello world\n",
		"docs/nested/a/b/c.txt": "deep NewReader\n",
	}
}

func openIndex(t testing.TB, dir string) (*Index, *os.Root) {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	ix := Open(Config{Dir: filepath.Join(t.TempDir(), "index"), Root: root, RootPath: dir, MaxFileBytes: 4096})
	t.Cleanup(func() { ix.Close() })
	return ix, root
}

var grepCases = []struct {
	name string
	o    fsread.GrepOptions
	base string
}{
	{"literal", fsread.GrepOptions{Pattern: "NewReader", Literal: true}, "."},
	{"regex", fsread.GrepOptions{Pattern: `func \w+\(`}, "."},
	{"ignore case", fsread.GrepOptions{Pattern: "hello", IgnoreCase: true}, "."},
	{"kelvin folds to k", fsread.GrepOptions{Pattern: "5k", IgnoreCase: true}, "."},
	{"alternation", fsread.GrepOptions{Pattern: "TODO|FIXME"}, "."},
	{"short pattern reads everything", fsread.GrepOptions{Pattern: "ab?"}, "."},
	{"after a late NUL", fsread.GrepOptions{Pattern: "findme"}, "."},
	{"include", fsread.GrepOptions{Pattern: "NewReader", Include: []string{"*.go"}}, "."},
	{"exclude dir", fsread.GrepOptions{Pattern: "NewReader", Exclude: []string{"docs"}}, "."},
	{"context", fsread.GrepOptions{Pattern: "Close", ContextLines: 2}, "."},
	{"below a directory", fsread.GrepOptions{Pattern: "NewReader"}, "docs"},
	{"max matches", fsread.GrepOptions{Pattern: "NewReader", MaxMatches: 3}, "."},
	{"no match", fsread.GrepOptions{Pattern: "nothing-matches-this"}, "."},
}

// sameAsWalk checks that every case gives the index's answer equal to the walk's.
func sameAsWalk(t *testing.T, ix *Index, root *os.Root) {
	t.Helper()
	for _, c := range grepCases {
		want, err := fsread.Grep(context.Background(), root, c.base, c.o)
		if err != nil {
			t.Fatalf("%s: Grep: %v", c.name, err)
		}
		plan, ok := ix.PlanGrep(context.Background(), c.base, c.o)
		if !ok {
			t.Fatalf("%s: the index did not answer", c.name)
		}
		got, err := fsread.GrepPlanned(context.Background(), root, c.o, plan)
		if err != nil {
			t.Fatalf("%s: GrepPlanned: %v", c.name, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: planned grep differs from the walk (-walk +index):\n%s", c.name, diff)
		}
	}
}

func TestIndexAnswersLikeTheWalk(t *testing.T) {
	dir := t.TempDir()
	filetest.Write(t, dir, sample())
	ix, root := openIndex(t, dir)
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	sameAsWalk(t, ix, root)
	// A literal search reads only the files that hold its trigrams.
	plan, _ := ix.PlanGrep(context.Background(), ".", fsread.GrepOptions{Pattern: "retry failed", Literal: true})
	// (big.txt and late-nul.txt are over MaxFileBytes: every search reads them.)
	if diff := cmp.Diff([]string{"big.txt", "late-nul.txt", "pkg/sub/deep.txt"}, plan.Files); diff != "" {
		t.Errorf("files read for a literal (-want +got):\n%s", diff)
	}
	// Hidden and ignored searches are not the index's.
	if _, ok := ix.PlanGrep(context.Background(), ".", fsread.GrepOptions{Pattern: "x", IncludeHidden: true}); ok {
		t.Error("the index answered an include_hidden search")
	}
}

// TestIndexFollowsChanges edits, creates, deletes and renames files and directories and
// searches right after each change: the answer must be the walk's every time, and the index
// must have caught up within a second.
func TestIndexFollowsChanges(t *testing.T) {
	dir := t.TempDir()
	filetest.Write(t, dir, sample())
	ix, root := openIndex(t, dir)
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		do   func()
	}{
		{"edit", func() {
			filetest.Write(t, dir, map[string]string{"main.go": "package main\n// NewReader now here too\n"})
		}},
		{"append", func() {
			f, _ := os.OpenFile(filepath.Join(dir, "docs/readme.md"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("FIXME appended\n")
			f.Close()
		}},
		{"create", func() {
			filetest.Write(t, dir, map[string]string{"pkg/new.go": "package pkg\nfunc NewReader2() {} // TODO\n"})
		}},
		{"delete", func() { os.Remove(filepath.Join(dir, "pkg/reader.go")) }},
		{"rename file", func() { os.Rename(filepath.Join(dir, "pkg/sub/deep.txt"), filepath.Join(dir, "pkg/sub/moved.txt")) }},
		{"new directory", func() { filetest.Write(t, dir, map[string]string{"fresh/a/b.txt": "hello NewReader fresh\n"}) }},
		{"rename directory", func() { os.Rename(filepath.Join(dir, "fresh"), filepath.Join(dir, "stale")) }},
		{"remove directory", func() { os.RemoveAll(filepath.Join(dir, "docs/nested")) }},
		{"binary becomes text", func() { filetest.Write(t, dir, map[string]string{"bin/blob.dat": "now text NewReader\n"}) }},
		{"gitignore changes", func() { filetest.Write(t, dir, map[string]string{".gitignore": "*.log\n"}) }},
	}
	for _, s := range steps {
		s.do()
		t.Run(s.name, func(t *testing.T) {
			ix.Sync(context.Background())
			if s.name == "gitignore changes" {
				// A new walk decides what is ignored; searches walk meanwhile.
				waitFor(t, func() bool { s := ix.Status(); return s.State == "ready" && !s.Rewalk && s.Dirty == 0 })
			}
			sameAsWalk(t, ix, root)
			waitFor(t, func() bool { s := ix.Status(); return s.Dirty == 0 && !s.Rewalk })
			sameAsWalk(t, ix, root)
		})
	}
}

// waitFor polls cond for up to a second (the update bound the index promises).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not caught up within 1s: %+v", t.Name())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestIndexWithoutNotifications checks file times on every query instead.
func TestIndexWithoutNotifications(t *testing.T) {
	dir := t.TempDir()
	filetest.Write(t, dir, sample())
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	ix := Open(Config{Dir: filepath.Join(t.TempDir(), "index"), Root: root, RootPath: dir, NoWatch: true})
	defer ix.Close()
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	filetest.Write(t, dir, map[string]string{"main.go": "package main // NewReader\n", "x/y.go": "NewReader\n"})
	os.Remove(filepath.Join(dir, "docs/readme.md"))
	sameAsWalk(t, ix, root)
}

// TestIndexReload writes the index, changes the tree while no process watches, and loads it.
func TestIndexReload(t *testing.T) {
	dir := t.TempDir()
	filetest.Write(t, dir, sample())
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	idir := filepath.Join(t.TempDir(), "index")
	ix := Open(Config{Dir: idir, Root: root, RootPath: dir})
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	filetest.Write(t, dir, map[string]string{"pkg/after.go": "package pkg // TODO NewReader\n"})
	ix.Close()
	filetest.Write(t, dir, map[string]string{"main.go": "package main // Close NewReader\n"})
	os.Remove(filepath.Join(dir, "pkg/reader.go"))
	ix2 := Open(Config{Dir: idir, Root: root, RootPath: dir})
	defer ix2.Close()
	if err := ix2.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	sameAsWalk(t, ix2, root)
	if err := ix2.Drop(); err != nil {
		t.Fatal(err)
	}
	if ix2.Exists() || ix2.Ready() {
		t.Error("the index is still there after Drop")
	}
}

// TestIndexGlobLikeTheWalk: file_search through the index finds what the walk finds.
func TestIndexGlobLikeTheWalk(t *testing.T) {
	dir := t.TempDir()
	filetest.Write(t, dir, sample())
	ix, root := openIndex(t, dir)
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ base, pattern, sort string }{
		{".", "*.go", "path"}, {".", "**/*.txt", "path"}, {"docs", "*.md", "mtime"}, {".", "pkg/**", "path"}, {".", "*.dat", "path"},
	} {
		o := fsread.GlobOptions{SortBy: c.sort}
		want, err := fsread.Glob(context.Background(), root, c.base, c.pattern, o)
		if err != nil {
			t.Fatal(err)
		}
		served := ix.Served.Load()
		o.Plan = func(walkBase string) (fsread.GlobPlan, bool) { return ix.PlanGlob(context.Background(), walkBase, nil) }
		got, err := fsread.Glob(context.Background(), root, c.base, c.pattern, o)
		if err != nil {
			t.Fatal(err)
		}
		if ix.Served.Load() != served+1 {
			t.Errorf("Glob(%s, %s) was not served by the index", c.base, c.pattern)
		}
		want.Visited, got.Visited = 0, 0
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Glob(%s, %s) through the index (-walk +index):\n%s", c.base, c.pattern, diff)
		}
	}
}

// TestChangeBeforeTheWatch: a file changed after the build listed it and before its directory
// was watched has no event; the next search still sees the change.
func TestChangeBeforeTheWatch(t *testing.T) {
	dir := t.TempDir()
	filetest.Write(t, dir, sample())
	ix, root := openIndex(t, dir)
	ix.beforeWatch = func() {
		filetest.Write(t, dir, map[string]string{"pkg/sub/deep.txt": "TODO: retry failed uploads\nFIXME later\nlate needle\n"})
	}
	if err := ix.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	sameAsWalk(t, ix, root)
	plan, ok := ix.PlanGrep(context.Background(), ".", fsread.GrepOptions{Pattern: "late needle", Literal: true})
	if !ok || !slices.Contains(plan.Files, "pkg/sub/deep.txt") {
		t.Errorf("a change made before the watch: plan %v (answered %v), want pkg/sub/deep.txt read", plan.Files, ok)
	}
}
