package edit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCreateFile(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		path    string
		content string
		mode    WriteMode
		want    map[string]string
		wantErr error
	}{
		{name: "new file with parents", path: "a/b/c.txt", content: "hi\n",
			want: map[string]string{"a/": "", "a/b/": "", "a/b/c.txt": "hi\n"}},
		{name: "overwrite", files: map[string]string{"f": "old\n"}, path: "f", content: "new\n",
			want: map[string]string{"f": "new\n"}},
		{name: "overwrite default mode name", files: map[string]string{"f": "old\n"}, path: "f", content: "new\n", mode: ModeOverwrite,
			want: map[string]string{"f": "new\n"}},
		{name: "append", files: map[string]string{"f": "one\n"}, path: "f", content: "two\n", mode: ModeAppend,
			want: map[string]string{"f": "one\ntwo\n"}},
		{name: "overwrite keeps CRLF and BOM", files: map[string]string{"f": "\uFEFFold\r\nx\r\n"}, path: "f", content: "new\nx\n",
			want: map[string]string{"f": "\uFEFFnew\r\nx\r\n"}},
		{name: "overwrite with CR in content is written as sent", files: map[string]string{"f": "old\r\n"}, path: "f", content: "new\r\nx\n",
			want: map[string]string{"f": "new\r\nx\n"}},
		{name: "overwrite of LF file stays LF", files: map[string]string{"f": "old\n"}, path: "f", content: "a\nb\n",
			want: map[string]string{"f": "a\nb\n"}},
		{name: "append follows CRLF", files: map[string]string{"f": "\uFEFFone\r\n"}, path: "f", content: "two\nthree\n", mode: ModeAppend,
			want: map[string]string{"f": "\uFEFFone\r\ntwo\r\nthree\r\n"}},
		{name: "append creates", path: "f", content: "two\n", mode: ModeAppend,
			want: map[string]string{"f": "two\n"}},
		{name: "create_if_missing creates", path: "f", content: "x", mode: ModeCreateIfMissing,
			want: map[string]string{"f": "x"}},
		{name: "create_if_missing refuses existing", files: map[string]string{"f": "keep"}, path: "f", content: "x", mode: ModeCreateIfMissing,
			want: map[string]string{"f": "keep"}, wantErr: ErrExists},
		{name: "empty content", path: "e", content: "",
			want: map[string]string{"e": ""}},
		{name: "root refused", path: ".", content: "x", want: map[string]string{}, wantErr: ErrInvalidPath},
		{name: "absolute refused", path: "/etc/x", content: "x", want: map[string]string{}, wantErr: ErrInvalidPath},
		{name: "escape refused", path: "../x", content: "x", want: map[string]string{}, wantErr: ErrInvalidPath},
		{name: "directory refused", files: map[string]string{"d/f": ""}, path: "d", content: "x",
			want: map[string]string{"d/": "", "d/f": ""}, wantErr: ErrNotRegular},
		{name: "bad mode", path: "f", content: "x", mode: "truncate", want: map[string]string{}, wantErr: ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, dir := openRoot(t, tt.files)
			res, err := CreateFile(context.Background(), root, tt.path, []byte(tt.content), tt.mode, Options{})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("CreateFile(%q) error = %v, want %v", tt.path, err, tt.wantErr)
			}
			if err == nil && res.Files[0].Bytes != len(tt.want[tt.path]) {
				t.Errorf("CreateFile(%q) bytes = %d, want %d", tt.path, res.Files[0].Bytes, len(tt.want[tt.path]))
			}
			if diff := cmp.Diff(tt.want, snapshot(t, dir)); diff != "" {
				t.Errorf("files after CreateFile(%q) (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

func TestCreateFileKeepsModeAndDiffs(t *testing.T) {
	root, dir := openRoot(t, map[string]string{"run.sh": "echo a\n"})
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o750); err != nil {
		t.Fatal(err)
	}
	res, err := CreateFile(context.Background(), root, "run.sh", []byte("echo b\n"), ModeOverwrite, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o750 {
		t.Errorf("mode after overwrite = %v, want 0750", fi.Mode().Perm())
	}
	want := "--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-echo a\n+echo b\n"
	if res.Diff != want {
		t.Errorf("CreateFile diff = %q, want %q", res.Diff, want)
	}
}

func TestWriteAtomicSymlink(t *testing.T) {
	root, dir := openRoot(t, map[string]string{"real.txt": "old"})
	if err := os.Symlink("real.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(root, "link.txt", []byte("new"), 0); err != nil {
		t.Fatalf("WriteAtomic(link.txt) = %v", err)
	}
	got := snapshot(t, dir)
	if got["link.txt"] != "-> real.txt" || got["real.txt"] != "new" {
		t.Errorf("after write through link: %v", got)
	}
	if err := WriteAtomic(root, "out", []byte("x"), 0); !errors.Is(err, ErrInvalidPath) {
		t.Errorf("WriteAtomic(out) = %v, want %v", err, ErrInvalidPath)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "s" {
		t.Errorf("outside file changed to %q", b)
	}
}

func TestConcurrentWriters(t *testing.T) {
	root, dir := openRoot(t, map[string]string{"f": "start"})
	const writers, rounds = 8, 20
	contents := make([]string, writers)
	for i := range contents {
		contents[i] = strings.Repeat(fmt.Sprintf("writer %d line\n", i), 2000)
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range rounds {
				errs <- WriteAtomic(root, "f", []byte(contents[i]), 0)
				b, err := root.ReadFile("f")
				if err != nil {
					errs <- err
					continue
				}
				if !contains(contents, string(b)) && string(b) != "start" {
					errs <- fmt.Errorf("torn content of %d bytes", len(b))
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	got := snapshot(t, dir)
	if len(got) != 1 || !contains(contents, got["f"]) {
		names := []string{}
		for k := range got {
			names = append(names, k)
		}
		t.Errorf("after concurrent writes: files %v, want only f with one writer's content", names)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestReplaceInFile(t *testing.T) {
	root, dir := openRoot(t, map[string]string{"m.go": "package m\r\n\r\nfunc F() int {\r\n\treturn 1\r\n}\r\n"})
	res, err := ReplaceInFile(context.Background(), root, "m.go", Replacement{OldString: "    return 1", NewString: "    return 2"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Rung != RungIndentation || res.Count != 1 || !equalInts(res.Lines, []int{4}) {
		t.Errorf("ReplaceInFile = rung %s count %d lines %v, want indentation 1 [4]", res.Rung, res.Count, res.Lines)
	}
	if got := snapshot(t, dir)["m.go"]; got != "package m\r\n\r\nfunc F() int {\r\n\treturn 2\r\n}\r\n" {
		t.Errorf("m.go = %q", got)
	}
	_, err = ReplaceInFile(context.Background(), root, "missing.go", Replacement{OldString: "a", NewString: "b"}, Options{})
	if !errors.Is(err, ErrMissing) {
		t.Errorf("ReplaceInFile(missing.go) = %v, want %v", err, ErrMissing)
	}
}

func TestStaleGuard(t *testing.T) {
	root, dir := openRoot(t, map[string]string{"f": "v1\n"})
	fp, err := FingerprintFile(root, "f")
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckFresh(root, "f", fp); err != nil {
		t.Fatalf("CheckFresh(unchanged) = %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckFresh(root, "f", fp); !errors.Is(err, ErrStale) {
		t.Errorf("CheckFresh(changed) = %v, want %v", err, ErrStale)
	}
	_, err = ReplaceInFile(context.Background(), root, "f", Replacement{OldString: "v2", NewString: "v3"}, Options{Expect: map[string]Fingerprint{"f": fp}})
	if !errors.Is(err, ErrStale) {
		t.Errorf("ReplaceInFile(stale) = %v, want %v", err, ErrStale)
	}
	if got := snapshot(t, dir)["f"]; got != "v2\n" {
		t.Errorf("stale edit wrote %q", got)
	}
	os.Remove(filepath.Join(dir, "f"))
	if err := CheckFresh(root, "f", fp); !errors.Is(err, ErrStale) {
		t.Errorf("CheckFresh(deleted) = %v, want %v", err, ErrStale)
	}
}

func TestMultiReplaceAllOrNothing(t *testing.T) {
	files := map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n", "c.txt": "gamma\n"}
	tests := []struct {
		name    string
		edits   []FileReplacement
		want    map[string]string
		wantErr error
		errText string
	}{
		{
			name: "all apply",
			edits: []FileReplacement{
				{Path: "a.txt", Replacement: Replacement{OldString: "alpha", NewString: "ALPHA"}},
				{Path: "b.txt", Replacement: Replacement{OldString: "beta", NewString: "BETA"}},
				{Path: "a.txt", Replacement: Replacement{OldString: "ALPHA", NewString: "A2"}},
			},
			want: map[string]string{"a.txt": "A2\n", "b.txt": "BETA\n", "c.txt": "gamma\n"},
		},
		{
			name: "later file fails",
			edits: []FileReplacement{
				{Path: "a.txt", Replacement: Replacement{OldString: "alpha", NewString: "ALPHA"}},
				{Path: "b.txt", Replacement: Replacement{OldString: "beta", NewString: "BETA"}},
				{Path: "c.txt", Replacement: Replacement{OldString: "delta", NewString: "DELTA"}},
			},
			want: files, wantErr: ErrNotFound, errText: "edit 3: old_string not found in c.txt",
		},
		{
			name: "later file missing",
			edits: []FileReplacement{
				{Path: "a.txt", Replacement: Replacement{OldString: "alpha", NewString: "ALPHA"}},
				{Path: "nope.txt", Replacement: Replacement{OldString: "x", NewString: "y"}},
			},
			want: files, wantErr: ErrMissing,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, dir := openRoot(t, files)
			_, err := MultiReplace(context.Background(), root, tt.edits, Options{})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("MultiReplace error = %v, want %v", err, tt.wantErr)
			}
			if err != nil && tt.errText != "" && !strings.HasPrefix(err.Error(), tt.errText) {
				t.Errorf("MultiReplace error text = %q, want prefix %q", err, tt.errText)
			}
			if diff := cmp.Diff(tt.want, snapshot(t, dir)); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlanRollback makes a later write fail (a file stands where its
// parent directory must go) and checks that the earlier changes are undone
// byte for byte, including created directories, deletes and moves.
func TestPlanRollback(t *testing.T) {
	root, dir := openRoot(t, map[string]string{"a.txt": "alpha\n", "del.txt": "gone?\n", "mv.txt": "move me\n", "blocker": "file\n"})
	before := snapshot(t, dir)
	p := &Plan{Changes: []Change{
		{Op: OpUpdate, Path: "a.txt", Old: []byte("alpha\n"), New: []byte("ALPHA\n")},
		{Op: OpAdd, Path: "new/dir/c.txt", New: []byte("c\n")},
		{Op: OpDelete, Path: "del.txt", Old: []byte("gone?\n")},
		{Op: OpMove, Path: "mv.txt", NewPath: "moved/mv.txt", Old: []byte("move me\n"), New: []byte("moved\n")},
		{Op: OpAdd, Path: "blocker/c.txt", New: []byte("c\n")},
	}}
	if err := p.Commit(context.Background(), root, nil); err == nil {
		t.Fatal("Commit below a regular file succeeded")
	}
	if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
		t.Errorf("files after failed commit (-want +got):\n%s", diff)
	}
}

func TestPlanConflict(t *testing.T) {
	root, dir := openRoot(t, map[string]string{"a.txt": "changed\n"})
	p := &Plan{Changes: []Change{{Op: OpUpdate, Path: "a.txt", Old: []byte("alpha\n"), New: []byte("ALPHA\n")}}}
	if err := p.Commit(context.Background(), root, nil); !errors.Is(err, ErrConflict) {
		t.Errorf("Commit = %v, want %v", err, ErrConflict)
	}
	if got := snapshot(t, dir)["a.txt"]; got != "changed\n" {
		t.Errorf("a.txt = %q", got)
	}
}

func TestInsertEditFile(t *testing.T) {
	root, dir := openRoot(t, map[string]string{"f": "a\nb\n"})
	res, err := InsertEdit(context.Background(), root, "f", LineEdit{Line: 2, Text: "x"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, dir)["f"]; got != "a\nx\nb\n" {
		t.Errorf("f = %q", got)
	}
	if !strings.Contains(res.Diff, "+x\n") {
		t.Errorf("diff %q lacks +x", res.Diff)
	}
	dry, err := InsertEdit(context.Background(), root, "f", LineEdit{Line: 1, Text: "y"}, Options{DryRun: true})
	if err != nil || !dry.DryRun {
		t.Fatalf("dry run = %v, %v", dry, err)
	}
	if got := snapshot(t, dir)["f"]; got != "a\nx\nb\n" {
		t.Errorf("dry run wrote %q", got)
	}
}

func TestRenameDeleteMkdir(t *testing.T) {
	ctx := context.Background()
	root, dir := openRoot(t, map[string]string{"a.txt": "a", "d/x": "x", "d/sub/y": "y", "keep/k": "k"})
	if err := os.Symlink("keep", filepath.Join(dir, "ln")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../keep", filepath.Join(dir, "d", "sub", "keeplink")); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		do      func() (*Result, error)
		wantErr error
	}{
		{"rename into new dir", func() (*Result, error) { return RenameFile(ctx, root, "a.txt", "n/b.txt", false, Options{}) }, nil},
		{"rename missing", func() (*Result, error) { return RenameFile(ctx, root, "a.txt", "c.txt", false, Options{}) }, ErrMissing},
		{"rename onto existing", func() (*Result, error) { return RenameFile(ctx, root, "n/b.txt", "d/x", false, Options{}) }, ErrExists},
		{"delete non-empty dir refused", func() (*Result, error) { return DeleteFile(ctx, root, "d", false, Options{}) }, ErrInvalidArgument},
		{"delete root refused", func() (*Result, error) { return DeleteFile(ctx, root, ".", true, Options{}) }, ErrInvalidPath},
		{"delete root via dotdot refused", func() (*Result, error) { return DeleteFile(ctx, root, "d/..", true, Options{}) }, ErrInvalidPath},
		{"delete symlink as link", func() (*Result, error) { return DeleteFile(ctx, root, "ln", true, Options{}) }, nil},
		{"delete recursive", func() (*Result, error) { return DeleteFile(ctx, root, "d", true, Options{}) }, nil},
		{"delete missing", func() (*Result, error) { return DeleteFile(ctx, root, "d", true, Options{}) }, ErrMissing},
		{"mkdir", func() (*Result, error) { return CreateDirectory(ctx, root, "p/q", Options{}) }, nil},
		{"mkdir existing", func() (*Result, error) { return CreateDirectory(ctx, root, "p/q", Options{}) }, nil},
		{"mkdir over file", func() (*Result, error) { return CreateDirectory(ctx, root, "n/b.txt", Options{}) }, ErrExists},
	}
	for _, s := range steps {
		if _, err := s.do(); !errors.Is(err, s.wantErr) {
			t.Errorf("%s: error = %v, want %v", s.name, err, s.wantErr)
		}
	}
	want := map[string]string{"n/": "", "n/b.txt": "a", "keep/": "", "keep/k": "k", "p/": "", "p/q/": ""}
	if diff := cmp.Diff(want, snapshot(t, dir)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func TestInsertLines(t *testing.T) {
	tests := []struct {
		name    string
		content string
		e       LineEdit
		want    string
		line    int
		wantErr error
	}{
		{"insert at line 1", "a\nb\n", LineEdit{Line: 1, Text: "x\n"}, "x\na\nb\n", 1, nil},
		{"append", "a\nb\n", LineEdit{Line: 3, Text: "x"}, "a\nb\nx\n", 3, nil},
		{"append keeps missing final newline", "a\nb", LineEdit{Line: 3, Text: "x"}, "a\nb\nx", 3, nil},
		{"into empty file", "", LineEdit{Line: 1, Text: "x"}, "x\n", 1, nil},
		{"CRLF file", "a\r\nb\r\n", LineEdit{Line: 2, Text: "x\ny"}, "a\r\nx\r\ny\r\nb\r\n", 2, nil},
		{"BOM kept", "\uFEFFa\n", LineEdit{Line: 1, Text: "x"}, "\uFEFFx\na\n", 1, nil},
		{"after pattern", "func a\nfunc b\n", LineEdit{AfterPattern: "func a", Text: "\t// x"}, "func a\n\t// x\nfunc b\n", 2, nil},
		{"before regexp", "x1\ny22\n", LineEdit{BeforePattern: `^y\d+$`, Regexp: true, Text: "z"}, "x1\nz\ny22\n", 2, nil},
		{"replace range", "1\n2\n3\n4\n", LineEdit{StartLine: 2, EndLine: 3, Text: "two-three"}, "1\ntwo-three\n4\n", 2, nil},
		{"delete range", "1\n2\n3\n", LineEdit{StartLine: 3, EndLine: 3}, "1\n2\n", 3, nil},
		{"replace last line without newline", "1\n2", LineEdit{StartLine: 2, EndLine: 2, Text: "b\nc\n"}, "1\nb\nc", 2, nil},
		{"line out of range", "a\n", LineEdit{Line: 5, Text: "x"}, "", 0, ErrInvalidArgument},
		{"two modes", "a\n", LineEdit{Line: 1, AfterPattern: "a", Text: "x"}, "", 0, ErrInvalidArgument},
		{"pattern not found", "a\n", LineEdit{AfterPattern: "zz", Text: "x"}, "", 0, ErrNotFound},
		{"pattern on several lines", "a1\nb\na2\n", LineEdit{AfterPattern: "a", Text: "x"}, "", 0, ErrAmbiguous},
		{"bad regexp", "a\n", LineEdit{AfterPattern: "(", Regexp: true, Text: "x"}, "", 0, ErrInvalidArgument},
		{"empty insert", "a\n", LineEdit{Line: 1}, "", 0, ErrInvalidArgument},
		{"bad range", "a\n", LineEdit{StartLine: 2, EndLine: 1}, "", 0, ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, line, err := InsertLines([]byte(tt.content), tt.e)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("InsertLines(%q, %+v) error = %v, want %v", tt.content, tt.e, err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if string(got) != tt.want || line != tt.line {
				t.Errorf("InsertLines(%q, %+v) = %q, line %d, want %q, line %d", tt.content, tt.e, got, line, tt.want, tt.line)
			}
		})
	}
}

// TestCreateDirectoryDryRun runs each case twice on identical trees, once as a dry run and once
// for real: the dry run creates nothing, names the directories the real call creates, and fails
// exactly where the real call fails (a file in the way, a dangling link, a link out of the root).
func TestCreateDirectoryDryRun(t *testing.T) {
	files := map[string]string{"a/f.txt": "x", "keep/k": "k"}
	links := map[string]string{"ln": "keep", "dangling": "nowhere", "out": "/"}
	tests := []struct {
		name     string
		path     string
		wantDiff string
		wantErr  bool
	}{
		{"new nested", "x/y/z", "would create directory x/, x/y/, x/y/z/\n", false},
		{"under an existing one", "a/b", "would create directory a/b/\n", false},
		{"existing", "a", "", false},
		{"through a link inside", "ln/new", "would create directory ln/new/\n", false},
		{"a file in the way", "a/f.txt/sub", "", true},
		{"the file itself", "a/f.txt", "", true},
		{"a dangling link", "dangling/sub", "", true},
		{"a link out of the root", "out/tmp/sub", "", true},
		{"dot-dot out of the root", "../escape", "", true},
	}
	setup := func(t *testing.T) (*os.Root, string) {
		root, dir := openRoot(t, files)
		for name, target := range links {
			if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
		return root, dir
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			dryRoot, dryDir := setup(t)
			before := snapshot(t, dryDir)
			dry, dryErr := CreateDirectory(ctx, dryRoot, tt.path, Options{DryRun: true})
			if diff := cmp.Diff(before, snapshot(t, dryDir)); diff != "" {
				t.Errorf("dry run changed the tree (-before +after):\n%s", diff)
			}
			realRoot, _ := setup(t)
			made, realErr := CreateDirectory(ctx, realRoot, tt.path, Options{})
			if (dryErr != nil) != tt.wantErr || (realErr != nil) != tt.wantErr {
				t.Fatalf("CreateDirectory(%q) errors: dry run %v, real %v; want errors %v", tt.path, dryErr, realErr, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if dry.Diff != tt.wantDiff || !dry.DryRun {
				t.Errorf("dry run = %q (DryRun %v), want %q", dry.Diff, dry.DryRun, tt.wantDiff)
			}
			if diff := cmp.Diff(made.Files, dry.Files); diff != "" {
				t.Errorf("dry run names other directories than the real call creates (-real +dry):\n%s", diff)
			}
		})
	}
}
