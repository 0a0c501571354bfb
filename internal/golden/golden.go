// Package golden pins what the model and the user see (schemas, result texts, reminders, prompts,
// generated docs) in files under testdata/, for every test in the module.
//
// One environment switch rewrites them all, across packages, because a flag cannot be given to
// `go test ./...` (a package that does not define it fails):
//
//	TOOLHOST_GOLDEN=update go test ./...
//
// Review the diff, then commit. A golden that does not exist yet is written on the first run and
// the test says so, except under CI (CI set to anything but "", "0" or "false"): CI never writes,
// so a golden missing from a commit fails there instead of passing on a file nobody reviewed.
//
// This package is for tests only; the dependency test keeps it out of the binary.
package golden

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Switch is the environment variable that rewrites goldens; its one value is "update".
const Switch = "TOOLHOST_GOLDEN"

// mode reads the switch and the CI marker. A misspelt value fails the test rather than silently
// comparing, and the switch is refused under CI, which must never rewrite what it checks.
func mode(t testing.TB) (update, ci bool) {
	t.Helper()
	ci = inCI()
	switch v := os.Getenv(Switch); v {
	case "":
	case "update":
		if ci {
			t.Fatalf("%s=update under CI: goldens are rewritten locally and reviewed, never by CI", Switch)
		}
		update = true
	default:
		t.Fatalf("%s=%q: the only value is update", Switch, v)
	}
	return update, ci
}

func inCI() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("CI"))) {
	case "", "0", "false":
		return false
	}
	return true
}

// Update reports whether this run rewrites goldens, for tests that maintain a golden of their
// own shape (a txtar scenario, a block inside a document).
func Update(t testing.TB) bool {
	t.Helper()
	update, _ := mode(t)
	return update
}

// Check compares got with the file at path (relative to the test's package directory), and
// rewrites or creates the file as the switch and CI say.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	update, ci := mode(t)
	want, err := os.ReadFile(path)
	switch {
	case os.IsNotExist(err) && ci:
		t.Fatalf("golden %s is missing, and CI never creates one: run `%s=update go test %s` locally, review and commit it",
			path, Switch, packageArg())
	case os.IsNotExist(err):
		write(t, path, got)
		t.Logf("created golden %s; review and commit it", path)
		return
	case err != nil:
		t.Fatalf("read golden: %v", err)
	}
	if bytes.Equal(want, got) {
		return
	}
	if update {
		write(t, path, got)
		t.Logf("updated golden %s", path)
		return
	}
	t.Errorf("%s differs (-want +got):\n%s\nif the change is intended: `%s=update go test %s`, then review the diff",
		path, lineDiff(string(want), string(got)), Switch, packageArg())
}

// CheckString is Check for text.
func CheckString(t testing.TB, path, got string) {
	t.Helper()
	Check(t, path, []byte(got))
}

// CheckBlock compares got with the text between the lines begin and end of the file at path (a
// generated table inside README.md, say) and rewrites only that block on update. The markers
// must exist: a document is never created by a test.
func CheckBlock(t testing.TB, path, begin, end, got string) {
	t.Helper()
	update, _ := mode(t)
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	text := string(doc)
	i := strings.Index(text, begin+"\n")
	j := strings.Index(text, "\n"+end)
	if i < 0 || j < i {
		t.Fatalf("%s has no block between the lines %q and %q", path, begin, end)
	}
	start := i + len(begin) + 1
	want := text[start : j+1]
	if want == got {
		return
	}
	if update {
		write(t, path, []byte(text[:start]+got+text[j+1:]))
		t.Logf("updated the generated block of %s", path)
		return
	}
	t.Errorf("the generated block of %s differs (-want +got):\n%s\nif the change is intended: `%s=update go test %s`, then review the diff",
		path, lineDiff(want, got), Switch, packageArg())
}

// lineDiff shows a difference line by line, which is how goldens are read in review: "-" lines
// are only in the golden, "+" lines only in the output, with up to three lines of context.
// Lines are shown whole (a long line is where the difference usually hides).
func lineDiff(want, got string) string {
	a, b := strings.SplitAfter(want, "\n"), strings.SplitAfter(got, "\n")
	if len(a)*len(b) > 4<<20 {
		return "--- want\n" + want + "\n--- got\n" + got
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		mark byte
		text string
	}
	var ls []line
	for i, j := 0, 0; i < len(a) || j < len(b); {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ls = append(ls, line{' ', a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ls = append(ls, line{'-', a[i]})
			i++
		default:
			ls = append(ls, line{'+', b[j]})
			j++
		}
	}
	near := func(k int) bool {
		for d := -3; d <= 3; d++ {
			if k+d >= 0 && k+d < len(ls) && ls[k+d].mark != ' ' {
				return true
			}
		}
		return false
	}
	var out strings.Builder
	skipped := false
	for k, l := range ls {
		if !near(k) {
			if !skipped {
				out.WriteString("  ...\n")
			}
			skipped = true
			continue
		}
		skipped = false
		text := strings.TrimSuffix(l.text, "\n")
		if !strings.HasSuffix(l.text, "\n") {
			if l.text == "" {
				continue // the empty piece after a final newline
			}
			text += " (no newline at end)"
		}
		out.WriteString(string(l.mark) + " " + text + "\n")
	}
	return out.String()
}

// write replaces path through a temporary file, so an interrupted run leaves the old golden whole.
func write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".golden-*")
	if err != nil {
		t.Fatal(err)
	}
	_, werr := tmp.Write(data)
	if err := errors.Join(werr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		t.Fatalf("write golden %s: %v", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		t.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		t.Fatalf("write golden %s: %v", path, err)
	}
}

// packageArg is the test's package as `go test` takes it (./internal/app), found by walking up
// from the package directory to go.mod; "." when that fails.
func packageArg() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}
