package edit

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseUnified(t *testing.T) {
	tests := []struct {
		name    string
		patch   string
		want    []FilePatch
		wantErr error
	}{
		{
			name:  "plain diff -u with timestamps",
			patch: "--- f.txt\t2024-01-01 00:00:00\n+++ f.txt\t2024-01-02 00:00:00\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
			want: []FilePatch{{Op: OpUpdate, Path: "f.txt", Line: 1, Hunks: []Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2, Numbered: true, Line: 3,
				Lines: []HunkLine{{' ', "a", false}, {'-', "b", false}, {'+', "c", false}}}}}},
		},
		{
			name: "git headers: new, deleted, renamed, no newline",
			patch: "diff --git a/new.txt b/new.txt\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n\\ No newline at end of file\n" +
				"diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n" +
				"diff --git a/x.go b/y.go\nsimilarity index 100%\nrename from x.go\nrename to y.go\n",
			want: []FilePatch{
				{Op: OpAdd, Path: "new.txt", Line: 1, Hunks: []Hunk{{OldStart: 0, OldLines: 0, NewStart: 1, NewLines: 1, Numbered: true, Line: 6, Lines: []HunkLine{{'+', "hello", true}}}}},
				{Op: OpDelete, Path: "old.txt", Line: 9, Hunks: []Hunk{{OldStart: 1, OldLines: 1, NewStart: 0, NewLines: 0, Numbered: true, Line: 13, Lines: []HunkLine{{'-', "bye", false}}}}},
				{Op: OpMove, Path: "x.go", NewPath: "y.go", Line: 15},
			},
		},
		{
			name:  "bare @@ and lost leading space on empty context line",
			patch: "--- a/f\n+++ b/f\n@@\n a\n\n-b\n+c\n\n",
			want: []FilePatch{{Op: OpUpdate, Path: "f", Line: 1, Hunks: []Hunk{{Line: 3,
				Lines: []HunkLine{{' ', "a", false}, {' ', "", false}, {'-', "b", false}, {'+', "c", false}}}}}},
		},
		{
			name:  "removed line that looks like a header",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n--- x\n a\n",
			want: []FilePatch{{Op: OpUpdate, Path: "f", Line: 1, Hunks: []Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 1, Numbered: true, Line: 3,
				Lines: []HunkLine{{'-', "-- x", false}, {' ', "a", false}}}}}},
		},
		{
			name:  "plain diff with differing names updates the new name",
			patch: "--- f.txt.orig\n+++ f.txt\n@@ -1 +1 @@\n-a\n+b\n",
			want: []FilePatch{{Op: OpUpdate, Path: "f.txt", Line: 1, Hunks: []Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Numbered: true, Line: 3,
				Lines: []HunkLine{{'-', "a", false}, {'+', "b", false}}}}}},
		},
		{name: "hunk without lines", patch: "--- a/f\n+++ b/f\n@@ -1 +1 @@\nnot a hunk line\n", wantErr: ErrBadPatch},
		{name: "no headers", patch: "@@ -1 +1 @@\n-a\n+b\n", wantErr: ErrBadPatch},
		{name: "empty", patch: "", wantErr: ErrBadPatch},
		{name: "binary", patch: "diff --git a/x b/x\nBinary files a/x and b/x differ\n", wantErr: ErrBadPatch},
		{name: "update without hunks", patch: "--- a/f\n+++ b/f\n", wantErr: ErrBadPatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseUnified(tt.patch)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ParseUnified error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got.Files); diff != "" {
				t.Errorf("ParseUnified (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseEnvelope(t *testing.T) {
	tests := []struct {
		name    string
		patch   string
		want    []FilePatch
		wantErr error
	}{
		{
			name: "all sections in a heredoc",
			patch: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a.txt\n+one\n+two\n*** Delete File: b.txt\n" +
				"*** Update File: c.txt\n*** Move to: d/c.txt\n@@ class A\n@@ def f\n ctx\n-old\n+new\n@@\n-tail\n*** End of File\n*** End Patch\nEOF\n",
			want: []FilePatch{
				{Op: OpAdd, Path: "a.txt", Line: 3, Hunks: []Hunk{{Line: 4, Lines: []HunkLine{{'+', "one", false}, {'+', "two", false}}}}},
				{Op: OpDelete, Path: "b.txt", Line: 6},
				{Op: OpMove, Path: "c.txt", NewPath: "d/c.txt", Line: 7, Hunks: []Hunk{
					{Line: 9, Anchors: []string{"class A", "def f"}, Lines: []HunkLine{{' ', "ctx", false}, {'-', "old", false}, {'+', "new", false}}},
					{Line: 14, Lines: []HunkLine{{'-', "tail", false}}, EOF: true},
				}},
			},
		},
		{
			name:  "first hunk without @@, missing End Patch",
			patch: "*** Begin Patch\n*** Update File: f\n-a\n+b\n",
			want:  []FilePatch{{Op: OpUpdate, Path: "f", Line: 2, Hunks: []Hunk{{Line: 3, Lines: []HunkLine{{'-', "a", false}, {'+', "b", false}}}}}},
		},
		{
			name:  "inside a Markdown fence without End Patch",
			patch: "```\n*** Begin Patch\n*** Update File: f\n-a\n+b\n```\n",
			want:  []FilePatch{{Op: OpUpdate, Path: "f", Line: 3, Hunks: []Hunk{{Line: 4, Lines: []HunkLine{{'-', "a", false}, {'+', "b", false}}}}}},
		},
		{name: "no begin", patch: "*** Update File: f\n-a\n", wantErr: ErrBadPatch},
		{name: "add line without plus", patch: "*** Begin Patch\n*** Add File: f\nx\n*** End Patch\n", wantErr: ErrBadPatch},
		{name: "line without prefix is context", patch: "*** Begin Patch\n*** Update File: f\n@@\n-a\nb\n*** End Patch\n",
			want: []FilePatch{{Op: OpUpdate, Path: "f", Line: 2, Hunks: []Hunk{{Line: 3, Unprefixed: 5, UnprefixedText: "b",
				Lines: []HunkLine{{'-', "a", false}, {' ', "b", false}}}}}}},
		{name: "line without prefix after the end of file", patch: "*** Begin Patch\n*** Update File: f\n-a\n*** End of File\nb\n*** End Patch\n", wantErr: ErrBadPatch},
		{name: "update without changes", patch: "*** Begin Patch\n*** Update File: f\n*** End Patch\n", wantErr: ErrBadPatch},
		{name: "unknown section", patch: "*** Begin Patch\n*** Frobnicate: f\n*** End Patch\n", wantErr: ErrBadPatch},
		{name: "empty", patch: "*** Begin Patch\n*** End Patch\n", wantErr: ErrBadPatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseEnvelope(tt.patch)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ParseEnvelope error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got.Files); diff != "" {
				t.Errorf("ParseEnvelope (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyPatch(t *testing.T) {
	base := map[string]string{
		"a.txt":    "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
		"b.txt":    "alpha\nbeta\ngamma\n",
		"crlf.txt": "x\r\ny\r\nz\r\n",
		"nonl.txt": "p\nq",
		"bom.txt":  "\uFEFFone\r\ntwo  \r\nthree\r\n",
		"py.py":    "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 1\n",
		"tab.go":   "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n",
	}
	tests := []struct {
		name    string
		patch   string
		dryRun  bool
		want    map[string]string // changed or removed ("<gone>") files
		wantErr error
	}{
		{
			name:  "unified with wrong line numbers and counts",
			patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,9 @@\n 6\n-7\n+seven\n 8\n",
			want:  map[string]string{"a.txt": "1\n2\n3\n4\n5\n6\nseven\n8\n9\n10\n"},
		},
		{
			name: "unified two files, git style",
			patch: "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -2,3 +2,3 @@\n 2\n-3\n+three\n 4\n@@ -8,3 +8,4 @@\n 8\n 9\n 10\n+11\n" +
				"diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,2 @@\n alpha\n-beta\n gamma\n",
			want: map[string]string{"a.txt": "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n", "b.txt": "alpha\ngamma\n"},
		},
		{
			name:  "unified keeps CRLF",
			patch: "--- a/crlf.txt\n+++ b/crlf.txt\n@@ -1,3 +1,3 @@\n x\n-y\n+Y\n z\n",
			want:  map[string]string{"crlf.txt": "x\r\nY\r\nz\r\n"},
		},
		{
			name:  "unified no newline markers",
			patch: "--- a/nonl.txt\n+++ b/nonl.txt\n@@ -1,2 +1,2 @@\n p\n-q\n\\ No newline at end of file\n+r\n",
			want:  map[string]string{"nonl.txt": "p\nr\n"},
		},
		{
			name:  "unified new file and delete",
			patch: "--- /dev/null\n+++ b/new/n.txt\n@@ -0,0 +1,2 @@\n+n1\n+n2\n--- a/b.txt\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-alpha\n-beta\n-gamma\n",
			want:  map[string]string{"new/": "", "new/n.txt": "n1\nn2\n", "b.txt": "<gone>"},
		},
		{
			name:  "hunk with spaces for tabs adds lines indented like the file",
			patch: "--- a/tab.go\n+++ b/tab.go\n@@ -1,4 +1,5 @@\n func f() {\n-    if x {\n+    // y\n+    if y {\n         return\n+        // z\n     }\n",
			want:  map[string]string{"tab.go": "func f() {\n\t// y\n\tif y {\n\t\treturn\n\t\t// z\n\t}\n}\n"},
		},
		{
			name:  "envelope hunk with two-space indentation follows the file's four",
			patch: "*** Begin Patch\n*** Update File: py.py\n@@ def g(self):\n-  return 1\n+  x = 2\n+  return x\n*** End Patch\n",
			want:  map[string]string{"py.py": "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        x = 2\n        return x\n"},
		},
		{
			name:  "unified context lines that lost their space",
			patch: "--- a/py.py\n+++ b/py.py\n@@ -5,2 +5,2 @@\n    def g(self):\n-        return 1\n+        return 4\n",
			want:  map[string]string{"py.py": "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 4\n"},
		},
		{
			name:    "unified first line without prefix, meant as an addition",
			patch:   "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\nALPHA\n-alpha\n beta\n",
			wantErr: ErrBadPatch,
		},
		{
			name:  "envelope context lines that lost their space",
			patch: "*** Begin Patch\n*** Update File: py.py\n    def g(self):\n-        return 1\n+        return 3\n*** End Patch\n",
			want:  map[string]string{"py.py": "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 3\n"},
		},
		{
			name:    "envelope line meant as an addition is reported",
			patch:   "*** Begin Patch\n*** Update File: b.txt\n@@\n alpha\n-beta\nBETA\n*** End Patch\n",
			wantErr: ErrBadPatch,
		},
		{
			name:    "hunk that does not apply writes nothing",
			patch:   "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-alpha\n+ALPHA\n--- a/a.txt\n+++ b/a.txt\n@@ -3 +3 @@\n-three hundred\n+3\n",
			wantErr: ErrNotFound,
		},
		{
			name:    "unified add of existing file",
			patch:   "--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+x\n",
			wantErr: ErrExists,
		},
		{
			name:    "update of missing file",
			patch:   "--- a/none.txt\n+++ b/none.txt\n@@ -1 +1 @@\n-x\n+y\n",
			wantErr: ErrMissing,
		},
		{
			name:    "path escaping the root",
			patch:   "--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-x\n+y\n",
			wantErr: ErrInvalidPath,
		},
		{
			name: "envelope add update delete move",
			patch: "*** Begin Patch\n*** Add File: docs/new.md\n+# New\n+text\n*** Update File: b.txt\n@@\n alpha\n-beta\n+BETA\n" +
				"*** Delete File: nonl.txt\n*** Update File: crlf.txt\n*** Move to: moved/crlf.txt\n@@\n-z\n+zed\n*** End of File\n*** End Patch\n",
			want: map[string]string{"docs/": "", "docs/new.md": "# New\ntext\n", "b.txt": "alpha\nBETA\ngamma\n", "nonl.txt": "<gone>",
				"crlf.txt": "<gone>", "moved/": "", "moved/crlf.txt": "x\r\ny\r\nzed\r\n"},
		},
		{
			name:  "envelope anchors pick the right method",
			patch: "*** Begin Patch\n*** Update File: py.py\n@@ class A:\n@@ def g(self):\n-        return 1\n+        return 2\n*** End Patch\n",
			want:  map[string]string{"py.py": "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"},
		},
		{
			name:  "envelope tolerates indentation drift in context",
			patch: "*** Begin Patch\n*** Update File: py.py\n@@\n  def f(self):\n-     return 1\n+        return 0\n*** End Patch\n",
			want:  map[string]string{"py.py": "class A:\n    def f(self):\n        return 0\n\n    def g(self):\n        return 1\n"},
		},
		{
			name:  "envelope pure addition at end",
			patch: "*** Begin Patch\n*** Update File: b.txt\n+delta\n*** End Patch\n",
			want:  map[string]string{"b.txt": "alpha\nbeta\ngamma\ndelta\n"},
		},
		{
			name:    "envelope end of file mismatch",
			patch:   "*** Begin Patch\n*** Update File: b.txt\n-alpha\n+A\n*** End of File\n*** End Patch\n",
			wantErr: ErrNotFound,
		},
		{
			name:    "envelope later file fails, earlier untouched",
			patch:   "*** Begin Patch\n*** Update File: b.txt\n-alpha\n+A\n*** Update File: a.txt\n-eleven\n+11\n*** End Patch\n",
			wantErr: ErrNotFound,
		},
		{
			name:    "envelope move onto existing",
			patch:   "*** Begin Patch\n*** Update File: b.txt\n*** Move to: a.txt\n-alpha\n+A\n*** End Patch\n",
			wantErr: ErrExists,
		},
		{
			name:  "envelope on BOM CRLF file with trailing whitespace",
			patch: "*** Begin Patch\n*** Update File: bom.txt\n@@\n one\n-two\n+2\n three\n*** End Patch\n",
			want:  map[string]string{"bom.txt": "\uFEFFone\r\n2\r\nthree\r\n"},
		},
		{
			name:  "envelope append keeps missing final newline",
			patch: "*** Begin Patch\n*** Update File: nonl.txt\n@@\n q\n+r\n*** End of File\n*** End Patch\n",
			want:  map[string]string{"nonl.txt": "p\nq\nr"},
		},
		{
			name:  "unified hunks out of order",
			patch: "--- a/a.txt\n+++ b/a.txt\n@@ -9 +9 @@\n-9\n+nine\n@@ -2 +2 @@\n-2\n+two\n",
			want:  map[string]string{"a.txt": "1\ntwo\n3\n4\n5\n6\n7\n8\nnine\n10\n"},
		},
		{
			name:   "dry run writes nothing",
			patch:  "*** Begin Patch\n*** Update File: b.txt\n-alpha\n+A\n*** End Patch\n",
			dryRun: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, dir := openRoot(t, base)
			before := snapshot(t, dir)
			res, err := ApplyPatch(context.Background(), root, tt.patch, Options{DryRun: tt.dryRun})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ApplyPatch error = %v, want %v", err, tt.wantErr)
			}
			want := before
			if err == nil && !tt.dryRun {
				want = map[string]string{}
				for k, v := range before {
					want[k] = v
				}
				for k, v := range tt.want {
					if v == "<gone>" {
						delete(want, k)
					} else {
						want[k] = v
					}
				}
			}
			if tt.dryRun && (res == nil || !res.DryRun || res.Diff == "") {
				t.Errorf("dry run result = %+v, want a diff", res)
			}
			if diff := cmp.Diff(want, snapshot(t, dir)); diff != "" {
				t.Errorf("files after ApplyPatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestApplyHunksHint checks that, among several places where a hunk fits,
// the one nearest the header's line number is used.
func TestApplyHunksHint(t *testing.T) {
	content := []byte("x\nsame\nx\nsame\nx\nsame\n")
	hunks := []Hunk{{OldStart: 4, OldLines: 1, Numbered: true, Lines: []HunkLine{{'-', "same", false}, {'+', "new", false}}}}
	got, err := ApplyHunks(content, hunks)
	if err != nil {
		t.Fatal(err)
	}
	if want := "x\nsame\nx\nnew\nx\nsame\n"; string(got) != want {
		t.Errorf("ApplyHunks = %q, want %q", got, want)
	}
}

func TestParsersBounded(t *testing.T) {
	big := "*** Begin Patch\n*** Update File: f\n" + strings.Repeat("@@ x\n-a\n+b\n", 20000) + "*** End Patch\n"
	start := time.Now()
	if _, err := ParseEnvelope(big); err != nil {
		t.Fatal(err)
	}
	uni := "--- a/f\n+++ b/f\n" + strings.Repeat("@@ -1 +1 @@\n-a\n+b\n\n", 20000)
	if _, err := ParseUnified(uni); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("parsing 60k-line patches took %v", d)
	}
}

func FuzzParseUnified(f *testing.F) {
	for _, s := range []string{
		"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
		"diff --git a/x b/y\nrename from x\nrename to y\n",
		"--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n",
		"@@\n\n",
		"--- \"a/q\\tq\"\n+++ \"b/q\\tq\"\n@@ -x,y +z @@\n-\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseUnified(s)
		if err == nil {
			for _, fp := range p.Files {
				_, _ = ApplyHunks([]byte("a\nb\nc\n"), fp.Hunks)
			}
		}
	})
}

func FuzzParseEnvelope(f *testing.F) {
	for _, s := range []string{
		"*** Begin Patch\n*** Update File: f\n@@ a\n b\n-c\n+d\n*** End of File\n*** End Patch\n",
		"*** Begin Patch\n*** Add File: f\n+x\n\n*** Delete File: g\n*** End Patch",
		"*** Begin Patch\n*** Update File: f\n*** Move to: g\n@@\n@@\n\n",
		"*** Begin Patch\n*** End of File\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseEnvelope(s)
		if err == nil {
			for _, fp := range p.Files {
				_, _ = ApplyHunks([]byte("a\r\nb\r\nc"), fp.Hunks)
			}
		}
	})
}
