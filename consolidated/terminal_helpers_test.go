package consolidated

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"toolhost/internal/proctest"
)

// waitOutput polls get_output until re matches the accumulated output or the deadline passes.
func (h *harness) waitOutput(id string, re *regexp.Regexp, conv string) string {
	h.t.Helper()
	var all strings.Builder
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		args := map[string]any{"session_id": id, "wait_ms": 2000, "wait_for": re.String()}
		if conv != "" {
			args["conversation_id"] = conv
		}
		text, _ := h.mustOp("get_output", args)
		_, body, _ := strings.Cut(text, "\n")
		all.WriteString(body)
		if re.MatchString(all.String()) {
			return all.String()
		}
	}
	h.t.Fatalf("output of %s never matched %s; got:\n%s", id, re, all.String())
	return ""
}

// normalize replaces what changes between runs (the working directory, durations, pids,
// cursors, run ids, the shell's path) so that the texts of tools that run commands can be
// compared with golden files. It is the one normalizer of those texts: terminal and build tests
// and the scenarios that serve those tools use it.
func (h *harness) normalize(s string) string {
	s = strings.ReplaceAll(s, h.wd, "$WD")
	for _, r := range runTexts {
		s = r.re.ReplaceAllString(s, r.with)
	}
	return s
}

// runTexts are normalize's substitutions, in order.
var runTexts = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b\d+(\.\d+)?(ms|µs|s|m\d+s)\b`), "<dur>"},
	{regexp.MustCompile(`pid \d+`), "pid <pid>"},
	{regexp.MustCompile(`(cursor[ =])\d+`), "${1}<n>"},
	{regexp.MustCompile(`idle \S+`), "idle <dur>"},
	{regexp.MustCompile(`/\S*/(bash|sh)\b`), "<shell>"},
	// A run id counts the runs the terminal engine started before it.
	{regexp.MustCompile(`\bcmd\d+\b`), "cmdN"},
}

// sleepArg returns a sleep duration (in seconds, longer than any test) unique to this test
// process and n, to look the sleep up in /proc by: other packages' tests, other runs of this
// package and other checkouts on the machine start their own sleeps at the same time.
func sleepArg(n int) string {
	return fmt.Sprintf("9%07d%02d", os.Getpid(), n)
}

// procsWithArgs lists the running processes whose command line is exactly args.
func procsWithArgs(t testing.TB, args ...string) []proctest.Proc {
	t.Helper()
	return proctest.Exactly(args...)
}

// procsIn lists the live processes whose working directory is dir or below it.
func procsIn(dir string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err == nil && (cwd == dir || strings.HasPrefix(cwd, dir+"/")) {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return out
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// awaitPrompt polls get_output until the session's last command has finished and the shell
// is back at its prompt.
func (h *harness) awaitPrompt(id string) {
	h.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		_, st := h.mustOp("get_output", map[string]any{"session_id": id, "wait_ms": 200})
		if st["finished"] == true && st["running"] != true {
			return
		}
	}
	h.t.Fatalf("session %s never came back to its prompt", id)
}
