package fsread

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func globPaths(r GlobResult) []string {
	var out []string
	for _, m := range r.Matches {
		out = append(out, m.Path)
	}
	return out
}

func TestGlob(t *testing.T) {
	root, _ := treeFixture(t)
	tests := []struct {
		name      string
		base      string
		pattern   string
		opts      GlobOptions
		want      []string
		wantTotal int
	}{
		{"name any depth, newest first", "", "*.go", GlobOptions{},
			[]string{"src/util/u.go", "src/main.go", "a.go"}, 3},
		{"by path", "", "*.go", GlobOptions{SortBy: SortByPath},
			[]string{"a.go", "src/main.go", "src/util/u.go"}, 3},
		{"anchored", "", "src/*.go", GlobOptions{SortBy: SortByPath},
			[]string{"src/main.go"}, 1},
		{"doublestar", "", "src/**/*.go", GlobOptions{SortBy: SortByPath},
			[]string{"src/main.go", "src/util/u.go"}, 2},
		{"braces", "", "**/*.{txt,dat}", GlobOptions{SortBy: SortByPath},
			[]string{"b.txt", "src/bin.dat"}, 2},
		{"under base", "src", "*.go", GlobOptions{SortBy: SortByPath},
			[]string{"src/main.go", "src/util/u.go"}, 2},
		{"ignored included", "", "**/*.go", GlobOptions{SortBy: SortByPath, IncludeIgnored: true},
			[]string{"a.go", "build/out.go", "src/main.go", "src/util/gen.go", "src/util/u.go"}, 5},
		{"hidden", "", ".*", GlobOptions{SortBy: SortByPath, IncludeHidden: true},
			[]string{".gitignore", ".hidden", "src/util/.gitignore"}, 3},
		{"dot pattern implies hidden", "", ".*", GlobOptions{SortBy: SortByPath},
			[]string{".gitignore", ".hidden", "src/util/.gitignore"}, 3},
		{"hidden off", "", "*hidden", GlobOptions{SortBy: SortByPath}, nil, 0},
		{"hidden on", "", "*hidden", GlobOptions{SortBy: SortByPath, IncludeHidden: true}, []string{".hidden"}, 1},
		{"dirs", "", "src/*", GlobOptions{SortBy: SortByPath, IncludeDirs: true},
			[]string{"src/bin.dat", "src/loop", "src/main.go", "src/util"}, 4},
		{"walk does not follow symlinks", "", "**/u.go", GlobOptions{SortBy: SortByPath},
			[]string{"src/util/u.go"}, 1},
		{"symlink named in pattern is entered", "", "link/*.go", GlobOptions{SortBy: SortByPath},
			[]string{"link/main.go"}, 1},
		{"capped", "", "*.go", GlobOptions{MaxResults: 1},
			[]string{"src/util/u.go"}, 3},
		{"capped by path", "", "*.go", GlobOptions{MaxResults: 2, SortBy: SortByPath},
			[]string{"a.go", "src/main.go"}, 3},
		{"missing prefix", "", "nope/*.go", GlobOptions{}, nil, 0},
		{"prefix is a file", "", "a.go/*", GlobOptions{}, nil, 0},
		{"no meta", "", "src/main.go", GlobOptions{}, []string{"src/main.go"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Glob(context.Background(), root, tt.base, tt.pattern, tt.opts)
			if err != nil {
				t.Fatalf("Glob(%q, %q) error %v", tt.base, tt.pattern, err)
			}
			if diff := cmp.Diff(tt.want, globPaths(got)); diff != "" {
				t.Errorf("Glob(%q, %q, %+v) mismatch (-want +got):\n%s", tt.base, tt.pattern, tt.opts, diff)
			}
			if got.Total != tt.wantTotal || got.Omitted != tt.wantTotal-len(tt.want) {
				t.Errorf("Glob(%q, %q) total %d omitted %d, want %d %d", tt.base, tt.pattern, got.Total, got.Omitted, tt.wantTotal, tt.wantTotal-len(tt.want))
			}
		})
	}
}

func TestGlobErrors(t *testing.T) {
	root, _ := treeFixture(t)
	tests := []struct {
		name, base, pattern string
		opts                GlobOptions
		want                error
	}{
		{"bad pattern", "", "[", GlobOptions{}, ErrBadPattern},
		{"empty", "", "", GlobOptions{}, ErrBadPattern},
		{"bad sort", "", "*", GlobOptions{SortBy: "size"}, ErrInvalidOptions},
		{"base is file", "a.go", "*", GlobOptions{}, ErrNotDir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Glob(context.Background(), root, tt.base, tt.pattern, tt.opts); !errors.Is(err, tt.want) {
				t.Errorf("Glob(%q, %q) error = %v, want %v", tt.base, tt.pattern, err, tt.want)
			}
		})
	}
}

func grepLines(r GrepResult) []string {
	var out []string
	for _, m := range r.Matches {
		out = append(out, fmt.Sprintf("%s:%d:%d:%s", m.Path, m.Line, m.Column, m.Text))
	}
	return out
}

func TestGrep(t *testing.T) {
	root, _ := treeFixture(t)
	tests := []struct {
		name      string
		base      string
		opts      GrepOptions
		want      []string
		wantTotal int
	}{
		{"literal default filters", "", GrepOptions{Pattern: "needle", Literal: true},
			[]string{"b.txt:2:1:needle here", "src/util/u.go:2:5:var needle = 1"}, 2},
		{"ignore case", "", GrepOptions{Pattern: "needle", IgnoreCase: true},
			[]string{"a.go:3:6:func Needle() {}", "b.txt:2:1:needle here", "src/main.go:2:4:// NEEDLE upper", "src/util/u.go:2:5:var needle = 1"}, 4},
		{"regex", "", GrepOptions{Pattern: `^func \w+\(`},
			[]string{"a.go:3:1:func Needle() {}", "src/main.go:3:1:func main() {}"}, 2},
		{"regex no literal", "", GrepOptions{Pattern: `^[a-z]+$`},
			[]string{"b.txt:1:1:first", "b.txt:3:1:last"}, 2},
		{"hidden and ignored", "", GrepOptions{Pattern: "needle", IncludeHidden: true, IncludeIgnored: true},
			[]string{".hidden:1:8:secret needle", "b.txt:2:1:needle here", "build/out.go:1:1:needle built", "src/util/gen.go:1:1:needle generated", "src/util/u.go:2:5:var needle = 1", "x.log:1:1:needle in log"}, 6},
		{"include", "", GrepOptions{Pattern: "needle", Include: []string{"*.go"}},
			[]string{"src/util/u.go:2:5:var needle = 1"}, 1},
		{"exclude dir", "", GrepOptions{Pattern: "needle", IgnoreCase: true, Exclude: []string{"src"}},
			[]string{"a.go:3:6:func Needle() {}", "b.txt:2:1:needle here"}, 2},
		{"exclude path glob", "", GrepOptions{Pattern: "needle", IgnoreCase: true, Exclude: []string{"src/**/*.go"}},
			[]string{"a.go:3:6:func Needle() {}", "b.txt:2:1:needle here"}, 2},
		{"base dir", "src", GrepOptions{Pattern: "needle", IgnoreCase: true},
			[]string{"src/main.go:2:4:// NEEDLE upper", "src/util/u.go:2:5:var needle = 1"}, 2},
		{"base file", "b.txt", GrepOptions{Pattern: "e"},
			[]string{"b.txt:2:2:needle here"}, 1},
		{"max matches", "", GrepOptions{Pattern: "needle", IgnoreCase: true, MaxMatches: 1},
			[]string{"a.go:3:6:func Needle() {}"}, 4},
		{"line cap", "", GrepOptions{Pattern: "here", MaxLineLength: 4},
			[]string{"b.txt:2:8: her"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, workers := range []int{1, 4} {
				tt.opts.Workers = workers
				got, err := Grep(context.Background(), root, tt.base, tt.opts)
				if err != nil {
					t.Fatalf("Grep(%q, %+v) error %v", tt.base, tt.opts, err)
				}
				if diff := cmp.Diff(tt.want, grepLines(got)); diff != "" {
					t.Errorf("Grep(%q, %+v) mismatch (-want +got):\n%s", tt.base, tt.opts, diff)
				}
				if got.TotalMatches != tt.wantTotal || got.Omitted != tt.wantTotal-len(tt.want) || got.Truncated != (got.Omitted > 0) {
					t.Errorf("Grep(%q, %+v) total %d omitted %d truncated %v, want total %d", tt.base, tt.opts, got.TotalMatches, got.Omitted, got.Truncated, tt.wantTotal)
				}
			}
		})
	}
}

func TestGrepCounts(t *testing.T) {
	root, _ := treeFixture(t)
	got, err := Grep(context.Background(), root, "", GrepOptions{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	// bin.dat is binary; .hidden, x.log, build/, gen.go and .git are
	// filtered; the fifo and symlinks are never opened.
	// Exactly the four regular text files are opened: not the FIFO, not
	// the symlinks (link, src/loop), not anything behind them.
	if got.FilesSearched != 4 || got.Errors != 0 {
		t.Errorf("Grep FilesSearched = %d, Errors = %d; want 4, 0", got.FilesSearched, got.Errors)
	}
	if got.BinarySkipped != 1 || got.HiddenSkipped == 0 || got.IgnoredSkipped < 3 || got.FilesMatched != 2 {
		t.Errorf("Grep counts = binary %d hidden %d ignored %d matched files %d; want 1, >0, >=3, 2",
			got.BinarySkipped, got.HiddenSkipped, got.IgnoredSkipped, got.FilesMatched)
	}
}

func TestGrepContext(t *testing.T) {
	root, _ := openTestRoot(t, map[string]string{"f.txt": "l1\nl2\nhit3\nl4\nl5\nhit6\n"})
	got, err := Grep(context.Background(), root, "", GrepOptions{Pattern: "hit", ContextLines: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []GrepMatch{
		{Path: "f.txt", Line: 3, Column: 1, Text: "hit3", Before: []string{"l1", "l2"}, After: []string{"l4", "l5"}},
		{Path: "f.txt", Line: 6, Column: 1, Text: "hit6", Before: []string{"l4", "l5"}},
	}
	if diff := cmp.Diff(want, got.Matches); diff != "" {
		t.Errorf("Grep context mismatch (-want +got):\n%s", diff)
	}
}

// TestGrepStreaming checks files bigger than the worker buffer: line
// numbers, context across buffer boundaries, and CRLF.
func TestGrepStreaming(t *testing.T) {
	var b strings.Builder
	const n = 60_000 // ~1.3 MB with CRLF: crosses the 1 MB buffer
	for i := 1; i <= n; i++ {
		if i%20_000 == 0 {
			fmt.Fprintf(&b, "match %d\r\n", i)
		} else {
			fmt.Fprintf(&b, "filler line %d\r\n", i)
		}
	}
	root, _ := openTestRoot(t, map[string]string{"big.txt": b.String()})
	got, err := Grep(context.Background(), root, "", GrepOptions{Pattern: "match", ContextLines: 1})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, m := range got.Matches {
		lines = append(lines, fmt.Sprintf("%d:%s|%s|%s", m.Line, strings.Join(m.Before, ","), m.Text, strings.Join(m.After, ",")))
	}
	want := []string{
		"20000:filler line 19999|match 20000|filler line 20001",
		"40000:filler line 39999|match 40000|filler line 40001",
		"60000:filler line 59999|match 60000|",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("Grep streaming mismatch (-want +got):\n%s", diff)
	}
}

// TestGrepHostileFiles: a 1 MB single line, invalid UTF-8, a file with no
// trailing newline, and a 3 MB line longer than the buffer.
func TestGrepHostileFiles(t *testing.T) {
	root, _ := openTestRoot(t, map[string]string{
		"oneline.txt": strings.Repeat("a", 1<<20) + "needle" + strings.Repeat("b", 1000),
		"huge.txt":    strings.Repeat("c", 3<<20) + "needle\nnext needle\n",
		"bad.txt":     "\xff\xfeneedle\xff\n",
		"nonl.txt":    "x\nneedle",
	})
	got, err := Grep(context.Background(), root, "", GrepOptions{Pattern: "needle", MaxLineLength: 20})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, m := range got.Matches {
		lines = append(lines, fmt.Sprintf("%s:%d:%v:%+q", m.Path, m.Line, m.Cut, m.Text))
		if m.Path == "oneline.txt" && m.Column != 1<<20+1 {
			t.Errorf("Grep(oneline.txt) column = %d, want %d", m.Column, 1<<20+1)
		}
	}
	want := []string{
		`bad.txt:1:false:"\ufffdneedle\ufffd"`,
		`huge.txt:1:true:"needle"`,
		`huge.txt:2:false:"next needle"`,
		`nonl.txt:2:false:"needle"`,
		`oneline.txt:1:true:"needlebbbbbbbbbbbbbb"`,
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("Grep hostile files mismatch (-want +got):\n%s", diff)
	}
}

func TestGrepErrors(t *testing.T) {
	root, _ := treeFixture(t)
	tests := []struct {
		name string
		base string
		opts GrepOptions
		want error
	}{
		{"bad regex", "", GrepOptions{Pattern: "("}, ErrBadPattern},
		{"empty", "", GrepOptions{}, ErrBadPattern},
		{"bad glob", "", GrepOptions{Pattern: "x", Include: []string{"["}}, ErrBadPattern},
		{"missing base", "nope", GrepOptions{Pattern: "x"}, os.ErrNotExist},
		{"fifo base", "fifo", GrepOptions{Pattern: "x"}, ErrNotRegular},
		{"escape", "../x", GrepOptions{Pattern: "x"}, ErrInvalidOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Grep(context.Background(), root, tt.base, tt.opts); !errors.Is(err, tt.want) {
				t.Errorf("Grep(%q, %+v) error = %v, want %v", tt.base, tt.opts, err, tt.want)
			}
		})
	}
}

func TestRequiredLiteral(t *testing.T) {
	tests := []struct {
		pattern string
		want    string
	}{
		{`func \w+Context\(`, "Context("},
		{`abc`, "abc"},
		{`a|b`, ""},
		{`(?i)abc`, "abc"},
		{`(?i)AbC`, "abc"},
		{`(?i)12345`, "12345"},
		{`(?i)straße`, ""},
		{`x*yz+`, "y"},
		{`(foo)+bar`, "foo"},
	}
	for _, tt := range tests {
		m, err := newMatcher(GrepOptions{Pattern: tt.pattern})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(m.literal); got != tt.want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
}

// TestGrepSymlinkEscape: a symlink pointing out of the root is neither
// followed nor an error.
func TestGrepSymlinkEscape(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "o.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, dir := openTestRoot(t, map[string]string{"in.txt": "needle\n"})
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "o.txt"), filepath.Join(dir, "o.txt")); err != nil {
		t.Fatal(err)
	}
	got, err := Grep(context.Background(), root, "", GrepOptions{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"in.txt:1:1:needle"}, grepLines(got)); diff != "" {
		t.Errorf("Grep with escaping symlinks (-want +got):\n%s", diff)
	}
}

// TestGrepIgnoreCasePrefilter checks the ASCII case-fold prefilter against
// the regexp, including the runes outside ASCII that fold to k and s.
func TestGrepIgnoreCasePrefilter(t *testing.T) {
	root, _ := openTestRoot(t, map[string]string{
		"a.txt":      "Context\ncontext\nCONTEXT\ncOnTeXt(\nconte xt\nxxx\n",
		"kelvin.txt": "plain\n\u212Aelvin here\n",
		"longs.txt":  "\u017Ftatus\nSTATUS\n",
		"rare.txt":   strings.Repeat("x", 5000) + "Context" + strings.Repeat("X", 5000) + "\n",
	})
	tests := []struct {
		pattern string
		want    []string
	}{
		{"context", []string{"a.txt:1", "a.txt:2", "a.txt:3", "a.txt:4", "rare.txt:1"}},
		{"context\\(", []string{"a.txt:4"}},
		{"kelvin", []string{"kelvin.txt:2"}},
		{"status", []string{"longs.txt:1", "longs.txt:2"}},
		{"xxx", []string{"a.txt:6", "rare.txt:1"}},
	}
	for _, tt := range tests {
		got, err := Grep(context.Background(), root, "", GrepOptions{Pattern: tt.pattern, IgnoreCase: true})
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, m := range got.Matches {
			lines = append(lines, fmt.Sprintf("%s:%d", m.Path, m.Line))
		}
		if diff := cmp.Diff(tt.want, lines); diff != "" {
			t.Errorf("Grep(%q, ignore case) mismatch (-want +got):\n%s", tt.pattern, diff)
		}
	}
}

func TestRequiredAlternatives(t *testing.T) {
	tests := []struct {
		pattern string
		want    []string
	}{
		{`TODO|FIXME`, []string{"TODO", "FIXME"}},
		{`(?:TODO|FIXME):\s`, []string{"TODO", "FIXME"}},
		{`x(ab|cd)+y`, nil}, // single literals x and y are found first
		{`a|b`, nil},
		{`(?i)TODO|FIXME`, nil},
		{`TODO|\w+`, nil},
	}
	for _, tt := range tests {
		m, err := newMatcher(GrepOptions{Pattern: tt.pattern})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range m.alts {
			got = append(got, string(a))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("alternatives(%q) mismatch (-want +got):\n%s", tt.pattern, diff)
		}
	}
}

func TestGrepAlternation(t *testing.T) {
	root, _ := openTestRoot(t, map[string]string{
		"a.txt": "TODO one\nnothing\nFIXME two\nTODO and FIXME\nfixme lower\n",
	})
	got, err := Grep(context.Background(), root, "", GrepOptions{Pattern: `TODO|FIXME`})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.txt:1:1:TODO one", "a.txt:3:1:FIXME two", "a.txt:4:1:TODO and FIXME"}
	if diff := cmp.Diff(want, grepLines(got)); diff != "" {
		t.Errorf("Grep(TODO|FIXME) mismatch (-want +got):\n%s", diff)
	}
}

// TestIndexLiteral compares the rare-byte search with bytes.Index.
func TestIndexLiteral(t *testing.T) {
	hay := []string{"", "a", "seq=1 seq=12 seq=123", "xxxxContext(", "Context", "ontext(Context(", strings.Repeat("ab", 100) + "abc"}
	needles := []string{"ab", "abc", "Context(", "seq=12", "q=123", "zz", "(", "xC"}
	for _, h := range hay {
		for _, n := range needles {
			m, err := newMatcher(GrepOptions{Pattern: n, Literal: true})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := m.indexLiteral([]byte(h)), strings.Index(h, n); got != want {
				t.Errorf("indexLiteral(%q, %q) = %d, want %d", h, n, got, want)
			}
		}
	}
}
