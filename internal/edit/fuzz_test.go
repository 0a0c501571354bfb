package edit

import (
	"errors"
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

// FuzzReplaceKeepsTheRest checks that whatever rung matched, the file's bytes before the line
// where the replacement starts are kept, and a refusal is a *MatchError or a plain argument error.
func FuzzReplaceKeepsTheRest(f *testing.F) {
	f.Add("a\n\t\nb\n", "a\n\nb", "a\n\nc")
	f.Add("  12\tx\n", "  12\tx", "y")
	f.Add("x = \"a\\nb\"\n", `x = \"a\\nb\"`, `x = 1`)
	f.Add("def f():\n    if x:\n        y()\n", "if x:\n    y()", "if x:\n    z()")
	f.Add("}\n\nfunc b() {\n}\n", "}\nfunc b() {\n}\n", "}\n")
	f.Fuzz(func(t *testing.T, content, old, repl string) {
		res, err := Replace([]byte(content), Replacement{OldString: old, NewString: repl})
		if err != nil {
			var me *MatchError
			if !errors.As(err, &me) && !errors.Is(err, ErrInvalidArgument) && !errors.Is(err, ErrNoop) {
				t.Fatalf("Replace(%q, %q) error %T %v", content, old, err, err)
			}
			return
		}
		if len(res.Lines) == 0 {
			t.Fatalf("Replace(%q, %q) reports no line", content, old)
		}
		if strings.HasPrefix(content, bom) {
			return
		}
		start := 0
		for i := 1; i < res.Lines[0]; i++ {
			n := strings.IndexByte(content[start:], '\n')
			if n < 0 {
				t.Fatalf("Replace(%q, %q) line %d is past the end", content, old, res.Lines[0])
			}
			start += n + 1
		}
		if !strings.HasPrefix(string(res.Content), content[:start]) {
			t.Errorf("Replace(%q, %q, %q) = %q changed bytes before line %d", content, old, repl, res.Content, res.Lines[0])
		}
	})
}
