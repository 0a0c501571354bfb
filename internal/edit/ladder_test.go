package edit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"toolhost/internal/golden"
)

// ladderCases are edits that match only on a tolerant rung of the ladder. Each pins the exact
// bytes the file holds afterwards: new_string is written in the file's own style at that spot
// (quotes, dashes, ellipses, spaces, indentation, line endings), never in the model's.
var ladderCases = []struct {
	name          string
	file          string
	old, new      string
	want          string
	rung          Rung
	adaptedSubstr string // a conversion the result must report
}{
	{
		name: "curly quotes in old and new, ASCII in the Go file",
		file: "package main\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n",
		old:  "fmt.Println(\u201chello\u201d)",
		new:  "fmt.Println(\u201chello, world\u201d)",
		want: "package main\n\nfunc main() {\n\tfmt.Println(\"hello, world\")\n}\n",
		rung: RungPunctuation, adaptedSubstr: "\u201c→\"",
	},
	{
		name: "curly quote only in new_string, ASCII in the file",
		file: "x := \"a\"\n",
		old:  "x := \u201ca\u201d",
		new:  "x := \u201ca\u201d + \u201cb\u201d",
		want: "x := \"a\" + \"b\"\n",
		rung: RungPunctuation, adaptedSubstr: "\u201d→\"",
	},
	{
		name: "ASCII quotes in old and new, curly in the prose",
		file: "She said \u201chi\u201d and left.\n",
		old:  `She said "hi" and left.`,
		new:  `She said "goodbye" and left.`,
		want: "She said \u201cgoodbye\u201d and left.\n",
		rung: RungPunctuation, adaptedSubstr: "\"→\u201c",
	},
	{
		name: "apostrophe: the file's right single quote",
		file: "It\u2019s done.\n",
		old:  "It's done.",
		new:  "It's done, isn't it?",
		want: "It\u2019s done, isn\u2019t it?\n",
		rung: RungPunctuation, adaptedSubstr: "'→\u2019",
	},
	{
		name: "opening single quote inferred from the closing one",
		file: "don\u2019t\n",
		old:  "don't",
		new:  "don't say 'never'",
		want: "don\u2019t say \u2018never\u2019\n",
		rung: RungPunctuation, adaptedSubstr: "'→\u2018",
	},
	{
		name: "em dash in the prose, spaced hyphen from the model; hyphens inside words stay",
		file: "Tabs \u2014 not spaces.\n",
		old:  "Tabs - not spaces.",
		new:  "Tabs - not spaces - in well-known files.",
		want: "Tabs \u2014 not spaces \u2014 in well-known files.\n",
		rung: RungPunctuation, adaptedSubstr: "-→\u2014",
	},
	{
		name: "em dash from the model, hyphen-minus in the code",
		file: "x = a - b\n",
		old:  "x = a \u2014 b",
		new:  "x = a \u2014 b \u2014 c",
		want: "x = a - b - c\n",
		rung: RungPunctuation, adaptedSubstr: "\u2014→-",
	},
	{
		name: "three dots from the model, an ellipsis in the file",
		file: "Loading\u2026\n",
		old:  "Loading...",
		new:  "Still loading... please wait...",
		want: "Still loading\u2026 please wait\u2026\n",
		rung: RungPunctuation, adaptedSubstr: "...→\u2026",
	},
	{
		name: "an ellipsis from the model, three dots in the file",
		file: "fmt.Println(\"wait...\")\n",
		old:  "fmt.Println(\"wait\u2026\")",
		new:  "fmt.Println(\"hold\u2026\")",
		want: "fmt.Println(\"hold...\")\n",
		rung: RungPunctuation, adaptedSubstr: "\u2026→...",
	},
	{
		name: "no-break space from the model, plain space in the file",
		file: "total := price * qty\n",
		old:  "total := price\u00a0* qty",
		new:  "total := price\u00a0* qty\u00a0+ tax",
		want: "total := price * qty + tax\n",
		rung: RungPunctuation, adaptedSubstr: "U+00A0→space",
	},
	{
		name: "zero-width space from the model is dropped",
		file: "name := \"toolhost\"\n",
		old:  "name := \"tool\u200bhost\"",
		new:  "name := \"tool\u200bhost2\"",
		want: "name := \"toolhost2\"\n",
		rung: RungPunctuation, adaptedSubstr: "U+200B dropped",
	},
	{
		name: "quotes left alone where old_string did not show a difference",
		file: "s := \"a\"\nr := 'b'\n",
		old:  "s := \u201ca\u201d",
		new:  "s := \u201cc\u201d\nr2 := 'd'",
		want: "s := \"c\"\nr2 := 'd'\nr := 'b'\n",
		rung: RungPunctuation, adaptedSubstr: "\u201c→\"",
	},
	{
		name: "spaces from the model, tabs in the file",
		file: "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
		old:  "    if x {\n        return 1\n    }",
		new:  "    if x {\n        log()\n        return 2\n    }",
		want: "func f() {\n\tif x {\n\t\tlog()\n\t\treturn 2\n\t}\n}\n",
		rung: RungIndentation, adaptedSubstr: "indentation",
	},
	{
		name: "LF from the model, CRLF in the file",
		file: "a\r\nb\r\nc\r\n",
		old:  "a\nb",
		new:  "a\nB\nb2",
		want: "a\r\nB\r\nb2\r\nc\r\n",
		rung: RungLineEndings, adaptedSubstr: "CRLF line endings",
	},
	{
		name: "trailing whitespace of unchanged lines kept",
		file: "line one  \nline two\n",
		old:  "line one\nline two",
		new:  "line one\nline 2",
		want: "line one  \nline 2\n",
		rung: RungTrailingWhitespace, adaptedSubstr: "unchanged lines kept as in the file",
	},
	{
		name: "curly quotes, spaces for tabs and LF for CRLF at once",
		file: "func f() {\r\n\tfmt.Println(\"a\")\r\n}\r\n",
		old:  "func f() {\n    fmt.Println(\u201ca\u201d)\n}",
		new:  "func f() {\n    fmt.Println(\u201cb\u201d)\n    fmt.Println(\u201cc\u201d)\n}",
		want: "func f() {\r\n\tfmt.Println(\"b\")\r\n\tfmt.Println(\"c\")\r\n}\r\n",
		rung: RungPunctuation, adaptedSubstr: "CRLF line endings",
	},
}

// TestReplaceLadderStyle runs each ladder case through ReplaceInFile on a real file and checks
// the exact bytes on disk and the report. The reports are pinned in testdata/ladder.golden
// (rewrite with TOOLHOST_GOLDEN=update).
func TestReplaceLadderStyle(t *testing.T) {
	var report strings.Builder
	for _, tt := range ladderCases {
		t.Run(tt.name, func(t *testing.T) {
			root, dir := openRoot(t, map[string]string{"f": tt.file})
			res, err := ReplaceInFile(context.Background(), root, "f", Replacement{OldString: tt.old, NewString: tt.new}, Options{})
			if err != nil {
				t.Fatalf("ReplaceInFile: %v", err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "f"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("file after the edit = %q, want %q", got, tt.want)
			}
			if res.Rung != tt.rung {
				t.Errorf("rung = %s, want %s", res.Rung, tt.rung)
			}
			if !strings.Contains(strings.Join(res.Adapted, "; "), tt.adaptedSubstr) {
				t.Errorf("adapted = %q, want it to report %q", res.Adapted, tt.adaptedSubstr)
			}
			fmt.Fprintf(&report, "== %s\nfile:    %q\nold:     %q\nnew:     %q\nwritten: %q\nrung:    %s\nadapted: %s\n\n",
				tt.name, tt.file, tt.old, tt.new, got, res.Rung, strings.Join(res.Adapted, "; "))
		})
	}
	golden.CheckString(t, "testdata/ladder.golden", report.String())
}

// TestApplyPatchStyle: a hunk placed only by ignoring Unicode punctuation writes its added lines
// with the file's punctuation and says so; context lines keep the file's text.
func TestApplyPatchStyle(t *testing.T) {
	root, dir := openRoot(t, map[string]string{"main.go": "package main\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n"})
	patch := "*** Begin Patch\n*** Update File: main.go\n func main() {\n-\tfmt.Println(\u201chello\u201d)\n+\tfmt.Println(\u201chello, world\u201d)\n }\n*** End Patch\n"
	res, err := ApplyPatch(context.Background(), root, patch, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "main.go"))
	if want := "package main\n\nfunc main() {\n\tfmt.Println(\"hello, world\")\n}\n"; string(got) != want {
		t.Errorf("main.go = %q, want %q", got, want)
	}
	if len(res.Files) != 1 || strings.Join(res.Files[0].Adapted, "; ") != "\u201c→\"; \u201d→\"" {
		t.Errorf("files = %+v, want the quote conversions reported", res.Files)
	}
}
