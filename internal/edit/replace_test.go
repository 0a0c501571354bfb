package edit

import (
	"errors"
	"strings"
	"testing"
)

func TestReplaceLadder(t *testing.T) {
	tests := []struct {
		name    string
		content string
		r       Replacement
		want    string
		rung    Rung
		lines   []int
		wantErr error
	}{
		{
			name:    "exact",
			content: "a\nb\nc\n",
			r:       Replacement{OldString: "b", NewString: "B"},
			want:    "a\nB\nc\n", rung: RungExact, lines: []int{2},
		},
		{
			name:    "exact multi-line keeps trailing newline absence",
			content: "a\nb\nc",
			r:       Replacement{OldString: "b\nc", NewString: "x\ny"},
			want:    "a\nx\ny", rung: RungExact, lines: []int{2},
		},
		{
			name:    "exact ambiguous refused",
			content: "x = 1\nx = 1\n",
			r:       Replacement{OldString: "x = 1", NewString: "x = 2"},
			wantErr: ErrAmbiguous,
		},
		{
			name:    "overlapping occurrences are ambiguous",
			content: "aaa\n",
			r:       Replacement{OldString: "aa", NewString: "b"},
			wantErr: ErrAmbiguous,
		},
		{
			name:    "replace_all",
			content: "x = 1\ny\nx = 1\n",
			r:       Replacement{OldString: "x = 1", NewString: "x = 2", ReplaceAll: true},
			want:    "x = 2\ny\nx = 2\n", rung: RungExact, lines: []int{1, 3},
		},
		{
			name:    "expected_replacements matches",
			content: "k k k",
			r:       Replacement{OldString: "k", NewString: "q", ExpectedReplacements: 3},
			want:    "q q q", rung: RungExact, lines: []int{1, 1, 1},
		},
		{
			name:    "expected_replacements mismatch",
			content: "k k k",
			r:       Replacement{OldString: "k", NewString: "q", ExpectedReplacements: 2},
			wantErr: ErrCountMismatch,
		},
		{
			name:    "CRLF file, LF old and new",
			content: "one\r\ntwo\r\nthree\r\n",
			r:       Replacement{OldString: "one\ntwo\n", NewString: "1\n2\n"},
			want:    "1\r\n2\r\nthree\r\n", rung: RungLineEndings, lines: []int{1},
		},
		{
			name:    "CRLF file, exact single line gets CRLF new lines",
			content: "one\r\ntwo\r\n",
			r:       Replacement{OldString: "two", NewString: "2\nmore"},
			want:    "one\r\n2\r\nmore\r\n", rung: RungExact, lines: []int{2},
		},
		{
			name:    "BOM preserved",
			content: "\uFEFFhello\nworld\n",
			r:       Replacement{OldString: "hello", NewString: "bye"},
			want:    "\uFEFFbye\nworld\n", rung: RungExact, lines: []int{1},
		},
		{
			name:    "BOM preserved on tolerant rung",
			content: "\uFEFFhello  \nworld\n",
			r:       Replacement{OldString: "hello\nworld", NewString: "bye\nall"},
			want:    "\uFEFFbye\nall\n", rung: RungTrailingWhitespace, lines: []int{1},
		},
		{
			name:    "punctuation kept on lines new_string copies, and new lines written in the file's style",
			content: "// It\u2019s \u201cfine\u201d \u2014 ok\nx := 1\n",
			r:       Replacement{OldString: "// It's \"fine\" - ok\nx := 1", NewString: "// It's \"fine\" - ok\nx := 2\n// \"new\""},
			want:    "// It\u2019s \u201cfine\u201d \u2014 ok\nx := 2\n// \u201cnew\u201d\n", rung: RungPunctuation, lines: []int{1},
		},
		{
			name:    "trailing whitespace in file kept on unchanged lines",
			content: "func f() {   \n\treturn 1\t\n}\n",
			r:       Replacement{OldString: "func f() {\n\treturn 1\n}", NewString: "func f() {\n\treturn 2\n}"},
			want:    "func f() {   \n\treturn 2\n}\n", rung: RungTrailingWhitespace, lines: []int{1},
		},
		{
			name:    "trailing whitespace in old_string",
			content: "alpha\nbeta\n",
			r:       Replacement{OldString: "alpha  \nbeta", NewString: "A\nB"},
			want:    "A\nB\n", rung: RungTrailingWhitespace, lines: []int{1},
		},
		{
			name:    "trailing space in old does not match a longer word",
			content: "foobar\n",
			r:       Replacement{OldString: "foo ", NewString: "x"},
			wantErr: ErrNotFound,
		},
		{
			name:    "old ends with newline, file does not",
			content: "a\nlast",
			r:       Replacement{OldString: "last\n", NewString: "final\n"},
			want:    "a\nfinal", rung: RungTrailingWhitespace, lines: []int{2},
		},
		{
			name:    "old ends with newline does not match mid-line",
			content: "foobar",
			r:       Replacement{OldString: "foo\n", NewString: "x\n"},
			wantErr: ErrNotFound,
		},
		{
			name:    "indentation: spaces in old, tabs in file",
			content: "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
			r: Replacement{
				OldString: "    if x {\n        return 1\n    }",
				NewString: "    if x {\n        log()\n        return 2\n    }",
			},
			want: "func f() {\n\tif x {\n\t\tlog()\n\t\treturn 2\n\t}\n}\n", rung: RungIndentation, lines: []int{2},
		},
		{
			name:    "indentation: new deeper level converted by unit",
			content: "\tif x {\n\t\ty()\n\t}\n",
			r: Replacement{
				OldString: "    if x {\n        y()\n    }",
				NewString: "    if x {\n        for {\n            y()\n        }\n    }",
			},
			want: "\tif x {\n\t\tfor {\n\t\t\ty()\n\t\t}\n\t}\n", rung: RungIndentation, lines: []int{1},
		},
		{
			name:    "indentation: unindented old in indented file",
			content: "class A:\n    def f(self):\n        return 1\n",
			r: Replacement{
				OldString: "def f(self):\n    return 1",
				NewString: "def f(self):\n    return 2",
			},
			want: "class A:\n    def f(self):\n        return 2\n", rung: RungIndentation, lines: []int{2},
		},
		{
			name:    "indentation ambiguous refused",
			content: "\tx()\n  x()\n",
			r:       Replacement{OldString: "    x()", NewString: "    y()"},
			wantErr: ErrAmbiguous,
		},
		{
			name:    "unicode punctuation in file",
			content: "say “hello” — it’s fine\n",
			r:       Replacement{OldString: `say "hello" - it's fine`, NewString: "say hi"},
			want:    "say hi\n", rung: RungPunctuation, lines: []int{1},
		},
		{
			name:    "unicode punctuation in old_string",
			content: "msg := \"don't\"\n",
			r:       Replacement{OldString: "msg := “don’t”", NewString: `msg := "do"`},
			want:    "msg := \"do\"\n", rung: RungPunctuation, lines: []int{1},
		},
		{
			name:    "punctuation ambiguous refused",
			content: "it’s\nit's\n",
			r:       Replacement{OldString: "it‘s", NewString: "x"},
			wantErr: ErrAmbiguous,
		},
		{
			name:    "not found",
			content: "a\nb\n",
			r:       Replacement{OldString: "zzz", NewString: "y"},
			wantErr: ErrNotFound,
		},
		{
			name:    "empty old_string",
			content: "a",
			r:       Replacement{OldString: "", NewString: "y"},
			wantErr: ErrInvalidArgument,
		},
		{
			name:    "identical old and new",
			content: "a",
			r:       Replacement{OldString: "a", NewString: "a"},
			wantErr: ErrNoop,
		},
		{
			name:    "tabs in file preserved around exact edit",
			content: "\tx := 1\n\ty := 2\n",
			r:       Replacement{OldString: "x := 1", NewString: "x := 3"},
			want:    "\tx := 3\n\ty := 2\n", rung: RungExact, lines: []int{1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Replace([]byte(tt.content), tt.r)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Replace(%q) error = %v, want %v", tt.content, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Replace(%q) error = %v", tt.content, err)
			}
			if string(got.Content) != tt.want {
				t.Errorf("Replace(%q) = %q, want %q", tt.content, got.Content, tt.want)
			}
			if got.Rung != tt.rung {
				t.Errorf("Replace(%q) rung = %s, want %s", tt.content, got.Rung, tt.rung)
			}
			if !equalInts(got.Lines, tt.lines) {
				t.Errorf("Replace(%q) lines = %v, want %v", tt.content, got.Lines, tt.lines)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMatchErrorLines(t *testing.T) {
	_, err := Replace([]byte("x\ny\nx\ny\nx\n"), Replacement{OldString: "x", NewString: "z"})
	var me *MatchError
	if !errors.As(err, &me) {
		t.Fatalf("Replace error = %v, want *MatchError", err)
	}
	if !equalInts(me.Lines, []int{1, 3, 5}) || me.Count != 3 {
		t.Errorf("MatchError lines = %v count = %d, want [1 3 5] 3", me.Lines, me.Count)
	}
}

// TestMatchErrorInvalidUTF8 checks that copying a line with non-UTF-8 bytes, which read_file
// shows as U+FFFD, is refused with a way out rather than "copy the exact text".
func TestMatchErrorInvalidUTF8(t *testing.T) {
	_, err := Replace([]byte("caf\xe9 = 1\nx = 2\n"), Replacement{OldString: "caf\uFFFD = 1", NewString: "cafe = 1"})
	var me *MatchError
	if !errors.As(err, &me) {
		t.Fatalf("Replace error = %v, want *MatchError", err)
	}
	if msg := me.Error(); !strings.Contains(msg, "not UTF-8") || !strings.Contains(msg, "line 1") {
		t.Errorf("Replace error = %q, want it to name the bytes that are not UTF-8 and the line", msg)
	}
}

// TestMatchErrorTolerantReplaceAll checks that replace_all on text found only tolerantly is
// refused with advice that fits replace_all, not "copy more surrounding lines".
func TestMatchErrorTolerantReplaceAll(t *testing.T) {
	_, err := Replace([]byte("x  \ny\nx  \ny\n"), Replacement{OldString: "x\ny", NewString: "z", ReplaceAll: true})
	var me *MatchError
	if !errors.As(err, &me) || !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("Replace error = %v, want an ambiguous *MatchError", err)
	}
	if msg := me.Error(); !strings.Contains(msg, "only for exact text") || strings.Contains(msg, "more surrounding lines") {
		t.Errorf("Replace error = %q, want the exact-text rule for replace_all", msg)
	}
}

// TestMatchErrorLineNumbers checks that an old_string copied with read_file's line-number
// prefixes that is not found without them either says so.
func TestMatchErrorLineNumbers(t *testing.T) {
	const content = "func f() {\n\treturn 1\n}\n"
	tests := []struct {
		name, old string
		want      bool
	}{
		{"numbered", "1\tfunc g() {\n2\t\treturn 1", true},
		{"numbers in the code", "12 monkeys\n3\tx", false},
		{"plain typo", "func g() {", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Replace([]byte(content), Replacement{OldString: tt.old, NewString: "x"})
			var me *MatchError
			if !errors.As(err, &me) {
				t.Fatalf("Replace(%q) error = %v, want *MatchError", tt.old, err)
			}
			if got := strings.Contains(me.Error(), "line numbers as read_file shows them"); got != tt.want {
				t.Errorf("Replace(%q) error = %q, want the line-number hint: %v", tt.old, me.Error(), tt.want)
			}
		})
	}
}
