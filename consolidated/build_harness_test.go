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
	"toolhost/internal/terminal"
	"toolhost/store"
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

// gitTestEnv isolates git from the machine's configuration: an empty HOME, a fixed identity and
// fixed dates, so commit ids are the same on every run.
func gitTestEnv(t testing.TB) {
	t.Helper()
	// Go keeps its caches under HOME; keep the real ones so tests do not rebuild the standard
	// library.
	if out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output(); err == nil {
		if f := strings.Fields(string(out)); len(f) == 2 {
			t.Setenv("GOCACHE", f[0])
			t.Setenv("GOMODCACHE", f[1])
		}
	}
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.com",
		"GIT_COMMITTER_NAME": "Dev", "GIT_COMMITTER_EMAIL": "dev@example.com",
		"GIT_AUTHOR_DATE": "2024-05-01T10:00:00Z", "GIT_COMMITTER_DATE": "2024-05-01T10:00:00Z",
		"GIT_CONFIG_NOSYSTEM": "1",
	} {
		t.Setenv(k, v)
	}
}

func newBuildHarness(t testing.TB, o buildOptions) *buildHarness {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is required: %v", err)
	}
	gitTestEnv(t)
	ctx := context.Background()
	wd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, t.TempDir(), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	g, err := authz.New(ctx, authz.Config{WorkDir: wd, StateDir: st.Dir(), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if o.yield == 0 {
		o.yield = 20 * time.Second
	}
	mgr, err := terminal.NewManager(terminal.Config{Store: st, CloseGrace: 500 * time.Millisecond, DefaultYield: o.yield, MaxWait: 30 * time.Second})
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
	spill, err := NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Workdir: wd, DefaultConversation: testConversation, Spill: spill, BudgetTokens: o.budget}
	reg := NewRegistry(env, []*Tool{
		TerminalTool(TerminalConfig{Manager: mgr, Guard: g, MaxWait: 30 * time.Second, DefaultYield: o.yield}),
		BuildTool(BuildConfig{Git: runner, Guard: g, Terminal: mgr, DefaultYield: o.yield, MaxWait: 30 * time.Second}),
		ReadToolResultTool(),
	}, nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "toolhost", Version: "test"}, nil)
	reg.Register(s)
	AddGitResource(s, runner, wd)
	sTrans, cTrans := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, sTrans, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, cTrans, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &buildHarness{t: t, wd: wd, guard: g, cs: cs}
}

// call runs a tool and returns its text and whether it is an error.
func (h *buildHarness) call(tool string, args map[string]any) (string, bool) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		h.t.Fatalf("CallTool(%s, %v): %v", tool, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
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
	cmd := exec.Command("git", args...)
	cmd.Dir = filepath.Join(h.wd, dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		h.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
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
