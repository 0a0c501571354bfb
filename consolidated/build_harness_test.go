package consolidated

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/git"
	"toolhost/internal/git/gittest"
	"toolhost/internal/sandbox"
	"toolhost/internal/terminal"
)

// buildHarness serves build_and_version_control with terminal_operations and read_tool_result
// through the package's harness, on a real guard, store, terminal engine and git, in a working
// directory of its own. Its helpers answer (text, isError) and build repositories.
type buildHarness struct {
	t  testing.TB
	hs *harness
	wd string
	cs *mcp.ClientSession
}

type buildOptions struct {
	yield  time.Duration // the terminal engine's yield (default 20 s)
	budget int           // result budget in tokens (default DefaultBudgetTokens)
	// executions records calls in an execution engine (h.hs.env.Executions).
	executions bool
	// sandbox is BuildConfig.Gate's policy (nil: git unconfined).
	sandbox policyFunc
	// guard adjusts the guard's configuration (harnessOptions.guard).
	guard func(*authz.Config)
}

func newBuildHarness(t testing.TB, o buildOptions) *buildHarness {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is required: %v", err)
	}
	gittest.Isolate(t)
	if o.yield == 0 {
		o.yield = 20 * time.Second
	}
	hs := newHarness(t, harnessOptions{budgetTokens: o.budget, executions: o.executions, guard: o.guard, tools: func(h *harness) []*Tool {
		mgr, err := terminal.NewManager(terminal.Config{Store: h.st, CloseGrace: 500 * time.Millisecond, DefaultYield: o.yield, MaxWait: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		runner, err := git.NewRunner(git.Config{})
		if err != nil {
			t.Fatal(err)
		}
		return []*Tool{
			BuildTool(BuildConfig{Git: runner, Guard: h.guard, Terminal: mgr, Workdir: h.wd, DefaultYield: o.yield, MaxWait: 30 * time.Second, Gate: o.gate()}),
			// terminal_operations owns the engine: closing it ends the runs.
			TerminalTool(TerminalConfig{Manager: mgr, Guard: h.guard, MaxWait: 30 * time.Second, DefaultYield: o.yield}),
			ReadToolResultTool(),
		}
	}})
	return &buildHarness{t: t, hs: hs, wd: hs.wd, cs: hs.cs}
}

// call runs a tool and returns its text and whether it is an error.
func (h *buildHarness) call(tool string, args map[string]any) (string, bool) {
	h.t.Helper()
	text, isErr, _ := h.hs.call(tool, args)
	return text, isErr
}

// op calls build_and_version_control.
func (h *buildHarness) op(op string, args map[string]any) (string, bool) {
	h.t.Helper()
	text, isErr, _ := h.hs.op(op, args)
	return text, isErr
}

func (h *buildHarness) mustOp(op string, args map[string]any) string {
	h.t.Helper()
	text, _ := h.hs.mustOp(op, args)
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
	h.hs.write(map[string]string{name: content})
}

func (h *buildHarness) read(name string) string {
	h.t.Helper()
	return h.hs.read(name)
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

// policyFunc is a PolicyGate made of a function.
type policyFunc func(ctx context.Context, conv string) (*sandbox.Policy, error)

func (f policyFunc) Policy(ctx context.Context, conv string) (*sandbox.Policy, error) {
	return f(ctx, conv)
}

// gate is BuildConfig.Gate: nil (git unconfined) when no policy is set.
func (o buildOptions) gate() PolicyGate {
	if o.sandbox == nil {
		return nil
	}
	return o.sandbox
}
