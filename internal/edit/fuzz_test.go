package edit

import (
	"strings"
	"testing"
)

// FuzzReplace checks that the ladder never panics and that an exact,
// single replacement equals strings.Replace.
func FuzzReplace(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B")
	f.Add("\tif x {\r\n\t\ty()\r\n\t}\r\n", "    if x {\n        y()\n    }\n", "    z()\n")
	f.Add("it’s “q”  \n", "it's \"q\"\n", "x\n")
	f.Add("\uFEFFa  \n  b", "a\n b  ", "c")
	f.Fuzz(func(t *testing.T, content, old, repl string) {
		res, err := Replace([]byte(content), Replacement{OldString: old, NewString: repl})
		if err != nil || res.Rung != RungExact || strings.HasPrefix(content, bom) || strings.Contains(content+repl, "\r") || strings.Contains(content+repl, "\n") {
			return
		}
		if want := strings.Replace(content, old, repl, 1); string(res.Content) != want {
			t.Errorf("Replace(%q, %q, %q) = %q, want %q", content, old, repl, res.Content, want)
		}
	})
}

// FuzzInsertLines checks that line edits never panic and keep the BOM.
func FuzzInsertLines(f *testing.F) {
	f.Add("\uFEFFa\r\nb", "x\ny", 2, 0, 0)
	f.Add("", "x", 1, 0, 0)
	f.Add("a\nb\nc", "", 0, 1, 3)
	f.Fuzz(func(t *testing.T, content, text string, line, start, end int) {
		got, _, err := InsertLines([]byte(content), LineEdit{Text: text, Line: line, StartLine: start, EndLine: end})
		if err == nil && strings.HasPrefix(content, bom) && !strings.HasPrefix(string(got), bom) {
			t.Errorf("InsertLines dropped the BOM: %q", got)
		}
	})
}

// FuzzApplyHunks checks that parsing a patch and applying its hunks to a file never panics,
// whatever lines lost their prefixes or indentation.
func FuzzApplyHunks(f *testing.F) {
	f.Add("func f() {\n\tif x {\n\t\treturn\n\t}\n}\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\nfunc f() {\n-    if x {\n+    if y {\n")
	f.Add("a\r\nb\r\n", "*** Begin Patch\n*** Update File: f\n@@ a\nb\n-b\n+c\n*** End of File\n*** End Patch\n")
	f.Add("\uFEFFx", "--- a/f\n+++ b/f\n@@\n-x\n\\ No newline at end of file\n+y\n")
	f.Fuzz(func(t *testing.T, content, patch string) {
		p, err := ParsePatch(patch)
		if err != nil {
			return
		}
		for _, fp := range p.Files {
			ApplyHunks([]byte(content), fp.Hunks)
		}
	})
}
