package consolidated

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/git"
	"toolhost/internal/git/gittest"
	"toolhost/internal/terminal"
)

var updateBuildGolden = flag.Bool("update-build", false, "rewrite the build_and_version_control golden files")

// buildHarness serves build_and_version_control with terminal_operations and read_tool_result
// over the go-sdk in-memory transport, on a real guard, store, terminal engine and git, in a
// working directory of its own.
type buildHarness struct {
	t     testing.TB
	wd    string
	guard *authz.Guard
	cs    *mcp.ClientSession
}

type buildOptions struct {
	yield  time.Duration // the terminal engine's yield (default 20 s)
	budget int           // result budget in tokens (default DefaultBudgetTokens)
}

func newBuildHarness(t testing.TB, o buildOptions) *buildHarness {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is required: %v", err)
	}
	gittest.Isolate(t)
	w := newGuardedWorkdir(t)
	if o.yield == 0 {
		o.yield = 20 * time.Second
	}
	mgr, err := terminal.NewManager(terminal.Config{Store: w.st, CloseGrace: 500 * time.Millisecond, DefaultYield: o.yield, MaxWait: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		mgr.Shutdown(ctx)
	})
	runner, err := git.NewRunner(git.Config{})
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Workdir: w.wd, DefaultConversation: testConversation, Spill: w.spill, BudgetTokens: o.budget}
	cs := connectTools(t, env, []*Tool{
		TerminalTool(TerminalConfig{Manager: mgr, Guard: w.guard, MaxWait: 30 * time.Second, DefaultYield: o.yield}),
		BuildTool(BuildConfig{Git: runner, Guard: w.guard, Terminal: mgr, DefaultYield: o.yield, MaxWait: 30 * time.Second}),
		ReadToolResultTool(),
	}, func(s *mcp.Server) { AddGitResource(s, runner, w.wd) }, nil)
	return &buildHarness{t: t, wd: w.wd, guard: w.guard, cs: cs}
}

// call runs a tool and returns its text and whether it is an error.
func (h *buildHarness) call(tool string, args map[string]any) (string, bool) {
	h.t.Helper()
	return callText(h.t, h.cs, tool, args)
}

// op calls build_and_version_control.
func (h *buildHarness) op(op string, args map[string]any) (string, bool) {
	h.t.Helper()
	m := map[string]any{"operation": op}
	for k, v := range args {
		m[k] = v
	}
	return h.call(buildToolName, m)
}

func (h *buildHarness) mustOp(op string, args map[string]any) string {
	h.t.Helper()
	text, isErr := h.op(op, args)
	if isErr {
		h.t.Fatalf("%s %v failed:\n%s", op, args, text)
	}
	return text
}

func (h *buildHarness) errOp(op string, args map[string]any) string {
	h.t.Helper()
	text, isErr := h.op(op, args)
	if !isErr {
		h.t.Fatalf("%s %v succeeded, want an error:\n%s", op, args, text)
	}
	return text
}

// git runs git in dir (relative to the working directory) to build a fixture.
func (h *buildHarness) git(dir string, args ...string) string {
	h.t.Helper()
	return gittest.Run(h.t, filepath.Join(h.wd, dir), args...)
}

// write creates a file (and its directories) under the working directory.
func (h *buildHarness) write(name, content string) {
	h.t.Helper()
	p := filepath.Join(h.wd, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *buildHarness) read(name string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.wd, name))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// repo makes a repository in dir ("" for the working directory) with one commit of a.txt.
func (h *buildHarness) repo(dir string) {
	h.t.Helper()
	if err := os.MkdirAll(filepath.Join(h.wd, dir), 0o755); err != nil {
		h.t.Fatal(err)
	}
	h.git(dir, "init", "-q", "-b", "main")
	h.write(filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
	h.git(dir, "add", ".")
	h.git(dir, "commit", "-qm", "first commit")
}

// normalize replaces what differs between runs: the working directory, durations and run ids.
func (h *buildHarness) normalize(s string) string {
	s = strings.ReplaceAll(s, h.wd, "$WD")
	s = regexp.MustCompile(`\b\d+(\.\d+)?(ms|µs|s|m\d+s)\b`).ReplaceAllString(s, "<dur>")
	s = regexp.MustCompile(`\bcmd\d+\b`).ReplaceAllString(s, "cmdN")
	s = regexp.MustCompile(`/tmp/toolhost-run-\d+`).ReplaceAllString(s, "$$REPORTS")
	return s
}

// golden compares got with testdata/build_and_version_control/name (rewritten with -update-build).
func (h *buildHarness) golden(name, got string) {
	h.t.Helper()
	got = h.normalize(got)
	if !strings.HasSuffix(got, "\n") {
		got += "\n"
	}
	path := filepath.Join("testdata", buildToolName, name)
	if *updateBuildGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatalf("%v (rerun with -update-build)", err)
	}
	if string(want) != got {
		h.t.Errorf("%s drifted; review and rerun with -update-build\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
