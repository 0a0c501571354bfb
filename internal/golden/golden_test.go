package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recorder stands in for the *testing.T a golden check reports to, so that failures can be
// asserted. Fatalf stops the check the way testing does, by unwinding.
type recorder struct {
	testing.TB
	errors, fatals, logs []string
}

type fatal struct{}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
	panic(fatal{})
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// run calls f with a recorder and reports what it saw.
func run(t *testing.T, f func(tb testing.TB)) *recorder {
	t.Helper()
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(fatal); !ok {
					panic(p)
				}
			}
		}()
		f(r)
	}()
	return r
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name     string
		switchTo string
		ci       string
		existing *string // nil: no golden yet
		got      string
		// outcomes
		wantFile   *string // nil: the file must not exist afterwards
		wantError  bool
		wantFatal  string
		wantLogged string
	}{
		{name: "equal", existing: ptr("a\n"), got: "a\n", wantFile: ptr("a\n")},
		{name: "differs", existing: ptr("a\n"), got: "b\n", wantFile: ptr("a\n"), wantError: true},
		{name: "differs, update", switchTo: "update", existing: ptr("a\n"), got: "b\n", wantFile: ptr("b\n"), wantLogged: "updated golden"},
		{name: "missing is created", got: "new\n", wantFile: ptr("new\n"), wantLogged: "created golden"},
		{name: "missing under CI", ci: "true", got: "new\n", wantFatal: "CI never creates one"},
		{name: "missing under CI=1", ci: "1", got: "new\n", wantFatal: "CI never creates one"},
		{name: "CI=false is not CI", ci: "false", got: "new\n", wantFile: ptr("new\n"), wantLogged: "created golden"},
		{name: "update refused under CI", switchTo: "update", ci: "true", existing: ptr("a\n"), got: "b\n", wantFile: ptr("a\n"), wantFatal: "never by CI"},
		{name: "misspelt switch", switchTo: "1", existing: ptr("a\n"), got: "b\n", wantFile: ptr("a\n"), wantFatal: "the only value is update"},
		{name: "equal under CI", ci: "true", existing: ptr("a\n"), got: "a\n", wantFile: ptr("a\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(Switch, tt.switchTo)
			t.Setenv("CI", tt.ci)
			path := filepath.Join(t.TempDir(), "testdata", "x.golden")
			if tt.existing != nil {
				write(t, path, []byte(*tt.existing))
			}
			r := run(t, func(tb testing.TB) { CheckString(tb, path, tt.got) })
			if got := len(r.errors) > 0; got != tt.wantError {
				t.Errorf("CheckString reported errors %q, want an error: %v", r.errors, tt.wantError)
			}
			if tt.wantFatal == "" && len(r.fatals) > 0 || tt.wantFatal != "" && (len(r.fatals) != 1 || !strings.Contains(r.fatals[0], tt.wantFatal)) {
				t.Errorf("CheckString fatals = %q, want %q", r.fatals, tt.wantFatal)
			}
			if tt.wantLogged != "" && (len(r.logs) != 1 || !strings.Contains(r.logs[0], tt.wantLogged)) {
				t.Errorf("CheckString logs = %q, want %q", r.logs, tt.wantLogged)
			}
			b, err := os.ReadFile(path)
			switch {
			case tt.wantFile == nil && err == nil:
				t.Errorf("golden file exists with %q, want none", b)
			case tt.wantFile != nil && (err != nil || string(b) != *tt.wantFile):
				t.Errorf("golden file = %q (%v), want %q", b, err, *tt.wantFile)
			}
		})
	}
}

func TestCheckErrorShowsDiffAndCommand(t *testing.T) {
	t.Setenv(Switch, "")
	t.Setenv("CI", "")
	path := filepath.Join(t.TempDir(), "x.golden")
	write(t, path, []byte("one\ntwo\n"))
	r := run(t, func(tb testing.TB) { CheckString(tb, path, "one\nthree\n") })
	if len(r.errors) != 1 {
		t.Fatalf("errors = %q, want one", r.errors)
	}
	for _, want := range []string{"- two\n", "+ three\n", "TOOLHOST_GOLDEN=update go test ./internal/golden"} {
		if !strings.Contains(r.errors[0], want) {
			t.Errorf("error %q lacks %q", r.errors[0], want)
		}
	}
}

func TestLineDiff(t *testing.T) {
	long := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name, want, got, diff string
	}{
		{"changed line", "a\nb\nc\n", "a\nB\nc\n", "  a\n- b\n+ B\n  c\n"},
		{"added line", "a\n", "a\nb\n", "  a\n+ b\n"},
		{"removed line", "a\nb\n", "b\n", "- a\n  b\n"},
		{"newline at end", "a\n", "a", "- a\n+ a (no newline at end)\n"},
		{"context is cut", long(20), strings.Replace(long(20), "line 10\n", "line ten\n", 1),
			"  ...\n  line 7\n  line 8\n  line 9\n- line 10\n+ line ten\n  line 11\n  line 12\n  line 13\n  ...\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lineDiff(tt.want, tt.got); got != tt.diff {
				t.Errorf("lineDiff(%q, %q) =\n%s\nwant\n%s", tt.want, tt.got, got, tt.diff)
			}
		})
	}
}

func TestCheckBlock(t *testing.T) {
	const doc = "# Title\n\n<!-- begin -->\nold row\n<!-- end -->\n\ntail\n"
	tests := []struct {
		name      string
		switchTo  string
		doc       string
		got       string
		wantDoc   string
		wantError bool
		wantFatal string
	}{
		{name: "equal", doc: doc, got: "old row\n", wantDoc: doc},
		{name: "differs", doc: doc, got: "new row\n", wantDoc: doc, wantError: true},
		{name: "update rewrites only the block", switchTo: "update", doc: doc, got: "new row\nsecond\n",
			wantDoc: "# Title\n\n<!-- begin -->\nnew row\nsecond\n<!-- end -->\n\ntail\n"},
		{name: "empty block", switchTo: "update", doc: "<!-- begin -->\n<!-- end -->\n", got: "row\n", wantDoc: "<!-- begin -->\nrow\n<!-- end -->\n"},
		{name: "no markers", switchTo: "update", doc: "# Title\n", got: "row\n", wantDoc: "# Title\n", wantFatal: "has no block"},
		{name: "markers reversed", doc: "<!-- end -->\n<!-- begin -->\n", got: "row\n", wantDoc: "<!-- end -->\n<!-- begin -->\n", wantFatal: "has no block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(Switch, tt.switchTo)
			t.Setenv("CI", "")
			path := filepath.Join(t.TempDir(), "README.md")
			write(t, path, []byte(tt.doc))
			r := run(t, func(tb testing.TB) { CheckBlock(tb, path, "<!-- begin -->", "<!-- end -->", tt.got) })
			if got := len(r.errors) > 0; got != tt.wantError {
				t.Errorf("CheckBlock errors = %q, want an error: %v", r.errors, tt.wantError)
			}
			if tt.wantFatal == "" && len(r.fatals) > 0 || tt.wantFatal != "" && (len(r.fatals) != 1 || !strings.Contains(r.fatals[0], tt.wantFatal)) {
				t.Errorf("CheckBlock fatals = %q, want %q", r.fatals, tt.wantFatal)
			}
			b, _ := os.ReadFile(path)
			if diff := cmp.Diff(tt.wantDoc, string(b)); diff != "" {
				t.Errorf("document after CheckBlock (-want +got):\n%s", diff)
			}
		})
	}
}

func TestArchive(t *testing.T) {
	tests := []struct {
		name string
		text string
		want *Archive
	}{
		{"comment only", "just a comment\n", &Archive{Comment: "just a comment\n"}},
		{"sections", "note\n-- a.txt --\nline 1\nline 2\n-- call x --\n{}\n",
			&Archive{Comment: "note\n", Sections: []Section{{"a.txt", "line 1\nline 2\n"}, {"call x", "{}\n"}}}},
		{"empty section", "-- a --\n-- b --\nx\n", &Archive{Sections: []Section{{"a", ""}, {"b", "x\n"}}}},
		{"not markers", "-- a --\n--x--\n-- --\n---- b\n", &Archive{Sections: []Section{{"a", "--x--\n-- --\n---- b\n"}}}},
		{"CRLF marker", "-- a --\r\nx\r\n", &Archive{Sections: []Section{{"a", "x\r\n"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseArchive(tt.text)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseArchive(%q) (-want +got):\n%s", tt.text, diff)
			}
			if again := ParseArchive(got.Format()); !cmp.Equal(got, again) {
				t.Errorf("ParseArchive(Format()) = %+v, want %+v", again, got)
			}
		})
	}
	// Format ends every part with a newline.
	a := &Archive{Comment: "c", Sections: []Section{{"f", "no newline"}}}
	if got, want := a.Format(), "c\n-- f --\nno newline\n"; got != want {
		t.Errorf("Format() = %q, want %q", got, want)
	}
}

func ptr(s string) *string { return &s }
