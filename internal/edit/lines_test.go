package edit

import (
	"errors"
	"strings"
	"testing"
)

// TestReplaceLines pins the line-based rungs: what the model's copy got wrong, and the bytes the
// file keeps.
func TestReplaceLines(t *testing.T) {
	tests := []struct {
		name          string
		file          string
		old, new      string
		want          string
		rung          Rung
		wantErr       error
		wantUndid     string
		adaptedSubstr string
	}{
		{
			name: "a blank line holding a tab stays when the copy has an empty one",
			file: "a := 1\n\t\nb := 2\n",
			old:  "a := 1\n\nb := 2", new: "a := 1\n\nb := 3",
			want: "a := 1\n\t\nb := 3\n", rung: RungTrailingWhitespace,
		},
		{
			name: "a changed line ends as the model wrote it",
			file: "x := 1   \ny := 2\n",
			old:  "x := 1\ny := 2", new: "x := 5\ny := 2",
			want: "x := 5\ny := 2\n", rung: RungTrailingWhitespace,
		},
		{
			name: "deleting a line keeps the blank line the copy left out after it",
			file: "a\nb\n\nc\n",
			old:  "a\nb\nc", new: "a\nc",
			want: "a\n\nc\n", rung: RungBlankLines,
		},
		{
			name: "deleting a function drops its separator rather than double a blank line",
			file: "}\n\nfunc b() {\n}\n\nfunc c() {\n",
			old:  "}\nfunc b() {\n}\n", new: "}\n",
			want: "}\n\nfunc c() {\n", rung: RungBlankLines,
		},
		{
			name: "a new function between two: the model's blank lines stand for the file's",
			file: "}\n\nfunc c() {\n",
			old:  "}\nfunc c() {", new: "}\n\nfunc b() {\n}\n\nfunc c() {",
			want: "}\n\nfunc b() {\n}\n\nfunc c() {\n", rung: RungBlankLines,
		},
		{
			name: "two blank lines between Python definitions, two in the new text",
			file: "def a():\n    pass\n\n\ndef c():\n    pass\n",
			old:  "    pass\ndef c():", new: "    pass\n\n\ndef b():\n    pass\n\n\ndef c():",
			want: "def a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n", rung: RungBlankLines,
		},
		{
			name: "an extra blank line in the copy is not written",
			file: "a\nb\nc\n",
			old:  "a\n\nb", new: "a\n\nB",
			want: "a\nB\nc\n", rung: RungBlankLines,
		},
		{
			name: "a changed line keeps the file's quotes where the model did not change them",
			file: "- clear names \u2014 \u201cdata\u201d and \u201cinfo\u201d are not names,\n",
			old:  `- clear names - "data" and "info" are not names,`, new: `- clear names - "data", "info" and "manager" are not names,`,
			want: "- clear names \u2014 \u201cdata\u201d, \u201cinfo\u201d and \u201cmanager\u201d are not names,\n", rung: RungPunctuation,
		},
		{
			name: "another indent scale, a deeper new line follows the file's unit",
			file: "class A:\n    def f(self):\n        if x:\n            return 1\n",
			old:  "  def f(self):\n    if x:\n      return 1", new: "  def f(self):\n    if x:\n      if y:\n        return 2",
			want: "class A:\n    def f(self):\n        if x:\n            if y:\n                return 2\n", rung: RungIndentation,
		},
		{
			name: "one level less, tabs in the file",
			file: "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n",
			old:  "if x {\n\treturn\n}", new: "if x {\n\tlog()\n\treturn\n}",
			want: "func f() {\n\tif x {\n\t\tlog()\n\t\treturn\n\t}\n}\n", rung: RungIndentation,
		},
		{
			name: "a copy whose nesting differs from the file's is refused",
			file: "def f():\n    for x in xs:\n        if x:\n            y()\n",
			old:  "    for x in xs:\n    if x:\n        y()", new: "    for x in xs:\n    if not x:\n        y()",
			wantErr: ErrNotFound,
		},
		{
			name: "a CRLF stretch in an LF file keeps CRLF on its new lines",
			file: "a\nb\r\nc\r\nd\ne\nf\n",
			old:  "b\nc", new: "b\nB\nc",
			want: "a\nb\r\nB\r\nc\r\nd\ne\nf\n", rung: RungTrailingWhitespace,
		},
		{
			name: "read_file's line numbers are read off old_string and new_string",
			file: "one\ntwo\nthree\n",
			old:  "   2\ttwo\n   3\tthree", new: "   2\tTWO\n   3\tthree",
			want: "one\nTWO\nthree\n", rung: RungExact, wantUndid: undidLineNumbers,
		},
		{
			name: "JSON escapes are read as characters, and a literal \\n in the code stays",
			file: "print(\"a\\nb\")\nx = 1\n",
			old:  `print(\"a\\nb\")\nx = 1`, new: `print(\"a\\nb\")\nx = 2`,
			want: "print(\"a\\nb\")\nx = 2\n", rung: RungExact, wantUndid: undidEscapes,
		},
		{
			name: "an escaped old_string with a new_string that is not: its \\n stays two characters",
			file: "print(\"a\")\nx = 1\n",
			old:  `print(\"a\")\nx = 1`, new: "print(\"a\\nb\")\nx = 1",
			want: "print(\"a\\nb\")\nx = 1\n", rung: RungExact, wantUndid: undidEscapes,
		},
		{
			name: "a new_string line break after a mid-line old_string is the model's",
			file: "a {\nb\n",
			old:  "a {", new: "a {\n  c\n",
			want: "a {\n  c\n\nb\n", rung: RungExact,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Replace([]byte(tt.file), Replacement{OldString: tt.old, NewString: tt.new})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Replace(%q, %q) error = %v, want %v", tt.file, tt.old, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Replace(%q, %q) error = %v", tt.file, tt.old, err)
			}
			if string(got.Content) != tt.want {
				t.Errorf("Replace(%q, %q) = %q, want %q", tt.file, tt.old, got.Content, tt.want)
			}
			if got.Rung != tt.rung {
				t.Errorf("Replace(%q, %q) rung = %s, want %s", tt.file, tt.old, got.Rung, tt.rung)
			}
			if tt.wantUndid != "" && !strings.Contains(strings.Join(got.Undid, ";"), tt.wantUndid) {
				t.Errorf("Replace(%q, %q) undid = %v, want %q", tt.file, tt.old, got.Undid, tt.wantUndid)
			}
		})
	}
}

// TestReplaceNeverGuesses checks that a tolerant match in two places is refused, and that only
// copied line numbers close to one of the places choose it.
func TestReplaceNeverGuesses(t *testing.T) {
	const file = "func a() {\n\tx()\n}\n\nfunc b() {\n\tx()\n}\n"
	tests := []struct {
		name, old string
		want      string // "" for a refusal
	}{
		{"indentation ignored, two places", "    x()", ""},
		{"exact, two places", "\tx()", ""},
		{"numbers name the second", "   6\t\tx()", "func a() {\n\tx()\n}\n\nfunc b() {\n\ty()\n}\n"},
		{"numbers name the first", "   2\t\tx()", "func a() {\n\ty()\n}\n\nfunc b() {\n\tx()\n}\n"},
		{"numbers name neither", "  40\t\tx()", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nw := "\ty()"
			if strings.HasPrefix(tt.old, "    ") {
				nw = "    y()"
			}
			got, err := Replace([]byte(file), Replacement{OldString: tt.old, NewString: nw})
			if tt.want == "" {
				var me *MatchError
				if !errors.As(err, &me) || !errors.Is(err, ErrAmbiguous) || !strings.Contains(me.Error(), "lines 2, 6") {
					t.Fatalf("Replace(%q) = %q, %v; want an ambiguity naming lines 2 and 6", tt.old, got.Content, err)
				}
				return
			}
			if err != nil || string(got.Content) != tt.want {
				t.Errorf("Replace(%q) = %q, %v; want %q", tt.old, got.Content, err, tt.want)
			}
		})
	}
}

// TestNotFoundNamesTheLine checks that a refusal names the first line where old_string and the
// file part, and a next step.
func TestNotFoundNamesTheLine(t *testing.T) {
	file := "a := 1\nb := 2\nc := 3\nd := 4\n"
	_, err := Replace([]byte(file), Replacement{OldString: "b := 2\nc := 30\nd := 4", NewString: "x"})
	var me *MatchError
	if !errors.As(err, &me) || me.Diverge == nil || me.Diverge.Line != 3 {
		t.Fatalf("Replace error = %v, want a divergence at line 3", err)
	}
	if msg := me.Error(); !strings.Contains(msg, "first differing at line 3") || !strings.Contains(msg, `"c := 3"`) {
		t.Errorf("message = %q, want the line and the file's text", msg)
	}
	if next := me.Next(); !strings.Contains(next, "start_line 2, end_line 4") {
		t.Errorf("next = %q, want the lines to read", next)
	}
}

func TestStripLineNumbers(t *testing.T) {
	tests := []struct {
		in, want string
		first    int
		ok       bool
	}{
		{"  12\tfoo\n  13\t\tbar", "foo\n\tbar", 12, true},
		{"12\tfoo\n13\n14\tbaz", "foo\n\nbaz", 12, true},
		{"     7→x\n     8→y", "x\ny", 7, true},
		{"12\tfoo\n14\tbar", "foo\nbar", 12, true},
		{"12\tfoo\n19\tbar", "", 0, false},
		{"12\tfoo\n11\tbar", "", 0, false},
		{"foo\n12\tbar", "", 0, false},
		{"plain", "", 0, false},
	}
	for _, tt := range tests {
		got, first, ok := stripLineNumbers(tt.in)
		if got != tt.want || first != tt.first || ok != tt.ok {
			t.Errorf("stripLineNumbers(%q) = %q, %d, %v; want %q, %d, %v", tt.in, got, first, ok, tt.want, tt.first, tt.ok)
		}
	}
}

func TestDecodeEscapes(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`a\nb\t\"c\"`, "a\nb\t\"c\"", true},
		{`print(\"x\\ny\")`, `print("x\ny")`, true},
		{`\u2013 and \d`, "\u2013 and \\d", true},
		{"no escapes", "no escapes", false},
	}
	for _, tt := range tests {
		got, ok := decodeEscapes(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("decodeEscapes(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestDetectCodec(t *testing.T) {
	utf16le, _ := EncodeContent("héllo\r\n", EncodingUTF16LE)
	utf16be, _ := EncodeContent("héllo\r\n", EncodingUTF16BE)
	tests := []struct {
		name   string
		b      []byte
		want   string
		unsure bool
	}{
		{"ascii", []byte("hello\n"), EncodingUTF8, false},
		{"utf-8", []byte("café — ok\n"), EncodingUTF8, false},
		{"utf-16le", utf16le, EncodingUTF16LE, false},
		{"utf-16be", utf16be, EncodingUTF16BE, false},
		{"utf-16 odd length", append(append([]byte{}, utf16le...), 'x'), "", true},
		{"latin-1", []byte("caf\xe9 cr\xe8me br\xfbl\xe9e\n"), EncodingLatin1, false},
		{"windows-1252", []byte("\x93quoted\x94 cost 5 \x80\n"), EncodingWindows1252, false},
		{"byte no Western encoding uses", []byte("caf\xe9 \x81\n"), "", true},
		{"cyrillic windows-1251", []byte("\xcf\xf0\xe8\xe2\xe5\xf2 \xec\xe8\xf0\n"), "", true},
		{"utf-8 with one stray byte", []byte("caf\xc3\xa9 na\xc3\xafve r\xc3\xa9sum\xc3\xa9 donn\xe9es\n"), EncodingUTF8, false},
		{"half utf-8 half latin-1", []byte("caf\xc3\xa9 caf\xe9 \xe8\n"), "", true},
		{"nul bytes", []byte("a\x00b\xe9"), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := detectCodec(tt.b)
			if c.name != tt.want || (c.unsure != "") != tt.unsure {
				t.Errorf("detectCodec(%q) = %q (unsure %q), want %q (unsure %v)", tt.b, c.name, c.unsure, tt.want, tt.unsure)
			}
		})
	}
}

// TestEditEncoded checks the round trip through a file's own encoding, and the refusals.
func TestEditEncoded(t *testing.T) {
	replace := func(old, nw string) func(string, *codec) (string, error) {
		return func(text string, cv *codec) (string, error) {
			r, err := replaceText(text, Replacement{OldString: old, NewString: nw}, cv)
			return string(r.Content), err
		}
	}
	latin1 := []byte("nom=Caf\xe9\nprix=3\n")
	tests := []struct {
		name    string
		raw     []byte
		old, nw string
		want    []byte
		wantErr string
	}{
		{"latin-1 accent written as one byte", latin1, "prix=3", "prix=3 \u00e0 4", []byte("nom=Caf\xe9\nprix=3 \xe0 4\n"), ""},
		{"latin-1 line matched as text", latin1, "nom=Caf\u00e9", "nom=Th\u00e9", []byte("nom=Th\xe9\nprix=3\n"), ""},
		{"latin-1 U+FFFD copied from read_file", latin1, "nom=Caf\uFFFD\nprix=3", "nom=Caf\uFFFD\nprix=4", []byte("nom=Caf\xe9\nprix=4\n"), ""},
		{"latin-1 U+FFFD on a new line cannot be written", latin1, "nom=Caf\uFFFD", "nom=Caf\uFFFD\nalt=\uFFFD", nil, "U+FFFD"},
		{"latin-1 cannot hold an arrow", latin1, "prix=3", "prix=3 \u2192 4", nil, "U+2192"},
		{"latin-1 refuses the euro, which only Windows-1252 has", latin1, "prix=3", "prix=3\u20ac", nil, "Windows-1252"},
		{"windows-1252 takes the euro", []byte("\x93a\x94\nprix=3\n"), "prix=3", "prix=3\u20ac", []byte("\x93a\x94\nprix=3\x80\n"), ""},
		{"unknown encoding takes ASCII", []byte("\xcf\xf0\xe8\xe2\xe5\xf2 2.1\n"), "2.1", "2.2", []byte("\xcf\xf0\xe8\xe2\xe5\xf2 2.2\n"), ""},
		{"unknown encoding refuses other text", []byte("\xcf\xf0\xe8\xe2\xe5\xf2 2.1\n"), "2.1", "2.1 \u0434", nil, "cannot be told"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := editEncoded("f.txt", tt.raw, replace(tt.old, tt.nw))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("editEncoded = %q, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != string(tt.want) {
				t.Errorf("editEncoded = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestApplyHunksOverlapAndOrder pins hunks written against the original file, out of order, and
// two hunks changing one line.
func TestApplyHunksOverlapAndOrder(t *testing.T) {
	const file = "a\nb\nc\nd\ne\nf\ng\n"
	tests := []struct {
		name, patch, want string
		wantErr           error
	}{
		{"second hunk's context holds the line the first changes",
			"--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n", "a\nB\nC\nd\ne\nf\ng\n", nil},
		{"hunks bottom to top",
			"*** Begin Patch\n*** Update File: f\n@@\n f\n-g\n+G\n@@\n a\n-b\n+B\n*** End Patch\n", "a\nB\nc\nd\ne\nf\nG\n", nil},
		{"second hunk written on the first's result",
			"*** Begin Patch\n*** Update File: f\n@@\n a\n+a2\n b\n@@\n a2\n b\n-c\n+C\n*** End Patch\n", "a\na2\nb\nC\nd\ne\nf\ng\n", nil},
		{"two hunks change one line two ways",
			"--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n+B\n@@ -2 +2 @@\n-b\n+X\n", "", ErrConflict},
		{"a skipped context line",
			"*** Begin Patch\n*** Update File: f\n@@\n b\n d\n-e\n+E\n f\n*** End Patch\n", "a\nb\nc\nd\nE\nf\ng\n", nil},
		{"a line skipped next to a removed line is refused",
			"*** Begin Patch\n*** Update File: f\n@@\n b\n-c\n-e\n+X\n f\n*** End Patch\n", "", ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePatch(tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ApplyHunks([]byte(file), p.Files[0].Hunks)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ApplyHunks = %q, %v; want %v", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("ApplyHunks = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestApplyHunksNeverGuesses checks that a hunk whose lines occur twice is placed only where an
// anchor, its line numbers or the hunk before it say.
func TestApplyHunksNeverGuesses(t *testing.T) {
	const file = "func a() {\n\tx()\n}\n\nfunc b() {\n\tx()\n}\n"
	tests := []struct {
		name, patch, want string
	}{
		{"envelope without anchor", "*** Begin Patch\n*** Update File: f\n@@\n-\tx()\n+\ty()\n*** End Patch\n", ""},
		{"envelope anchor", "*** Begin Patch\n*** Update File: f\n@@ func b() {\n-\tx()\n+\ty()\n*** End Patch\n", "func a() {\n\tx()\n}\n\nfunc b() {\n\ty()\n}\n"},
		{"line numbers name the first", "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-\tx()\n+\ty()\n", "func a() {\n\ty()\n}\n\nfunc b() {\n\tx()\n}\n"},
		{"line numbers far from both", "--- a/f\n+++ b/f\n@@ -40 +40 @@\n-\tx()\n+\ty()\n", ""},
		{"the only one after the hunk before it", "*** Begin Patch\n*** Update File: f\n@@\n-func b() {\n+func b2() {\n@@\n-\tx()\n+\ty()\n*** End Patch\n", "func a() {\n\tx()\n}\n\nfunc b2() {\n\ty()\n}\n"},
		{"hunks out of order: the hunk before says nothing",
			"*** Begin Patch\n*** Update File: f\n@@\n-func b() {\n+func b2() {\n@@\n-func a() {\n+func a2() {\n@@\n-\tx()\n+\ty()\n*** End Patch\n", ""},
		{"two after the hunk before it", "*** Begin Patch\n*** Update File: f\n@@\n-func a() {\n+func a2() {\n@@\n-\tx()\n+\ty()\n*** End Patch\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePatch(tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ApplyHunks([]byte(file), p.Files[0].Hunks)
			if tt.want == "" {
				if !errors.Is(err, ErrAmbiguous) {
					t.Fatalf("ApplyHunks = %q, %v; want an ambiguity", got, err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("ApplyHunks = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParsePatchEscapedOnce(t *testing.T) {
	p, err := ParsePatch(`--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+\"b\"\n`)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Files[0].Hunks[0].Lines[1].Text; got != `"b"` {
		t.Errorf("added line = %q, want %q", got, `"b"`)
	}
}
