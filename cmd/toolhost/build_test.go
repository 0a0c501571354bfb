package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/git/gittest"
	"toolhost/internal/proctest"
	"toolhost/internal/sandbox/sandboxtest"
)

// Every build_and_version_control operation through the real binary over stdio, on a real
// repository that goes through a conflict and a detached HEAD.
func TestBuildToolThroughBinary(t *testing.T) {
	for _, tool := range []string{"git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is required: %v", tool, err)
		}
	}
	wd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gittest.Isolate(t)
	git := func(args ...string) { t.Helper(); gittest.Run(t, wd, args...) }
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(wd, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "-b", "main")
	write("go.mod", "module example.com/b\n\ngo 1.26\n")
	write("b.go", "package b\n\nfunc Two() int { return 2 }\n")
	write("b_test.go", "package b\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n\nfunc TestThree(t *testing.T) {\n\tif Two() != 3 {\n\t\tt.Errorf(\"Two() = %d, want 3\", Two())\n\t}\n}\n")
	write("Makefile", "hello:\n\t@echo hello\n")
	git("add", ".")
	git("commit", "-qm", "first")

	cmd := commandIn(t, t.TempDir(), wd, "stdio")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs := connectStdio(t, ctx, cmd)
	defer cs.Close()
	call := func(op string, args map[string]any, wantErr bool, want ...string) string {
		t.Helper()
		m := map[string]any{"operation": op}
		for k, v := range args {
			m[k] = v
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "build_and_version_control", Arguments: m})
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError != wantErr {
			t.Fatalf("%s %v: isError=%v, want %v:\n%s", op, args, res.IsError, wantErr, text)
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s %v:\n%s\nwant it to contain %q", op, args, text, w)
			}
		}
		return text
	}

	call("git_status", nil, false, "branch main", "clean")
	write("b.go", "package b\n\n// Two returns two.\nfunc Two() int { return 2 }\n")
	call("git_diff", nil, false, "+// Two returns two.")
	call("git_diff", map[string]any{"stat_only": true}, false, "1 file changed, +1 -0")
	call("git_stage", map[string]any{"paths": []string{"b.go"}}, false, "staged (1)", "M b.go")
	call("git_unstage", map[string]any{"paths": "b.go"}, false, "unstaged (1)")
	call("git_stage", map[string]any{"paths": "."}, false, "staged (1)")
	call("git_commit", map[string]any{"message": "document Two"}, false, "committed", "on main: document Two")
	call("git_log", nil, false, "document Two", "first")
	call("git_show", map[string]any{"ref": "HEAD~1:b.go"}, false, "func Two() int { return 2 }")
	call("git_blame", map[string]any{"paths": "b.go", "start_line": 3, "end_line": 3}, false, "document Two", "// Two returns two.")
	call("git_branch", map[string]any{"action": "create", "name": "side"}, false, "created branch side")
	call("git_branch", map[string]any{"action": "switch", "name": "side"}, false, "switched to side")
	write("b.go", "package b\n\n// Two returns 2.\nfunc Two() int { return 2 }\n")
	call("git_stage", map[string]any{"paths": "b.go"}, false)
	call("git_commit", map[string]any{"message": "side edit"}, false)
	call("changed_files", nil, false, "against main", "M b.go")
	call("git_branch", map[string]any{"action": "switch", "name": "main"}, false)
	call("git_branch", nil, false, "* main", "side")
	// A conflict, seen through the binary.
	write("b.go", "package b\n\n// Two is two.\nfunc Two() int { return 2 }\n")
	call("git_stage", map[string]any{"paths": "b.go"}, false)
	call("git_commit", map[string]any{"message": "main edit"}, false)
	merge := exec.Command("git", "merge", "side")
	merge.Dir = wd
	if out, err := merge.CombinedOutput(); err == nil {
		t.Fatalf("the merge did not conflict:\n%s", out)
	}
	call("git_status", nil, false, "merge in progress", "conflicted (1)", "b.go (both modified)")
	call("git_commit", map[string]any{"message": "merge"}, true, "error unresolved_conflicts")
	git("merge", "--abort")
	// Detached HEAD.
	git("checkout", "-q", "HEAD~1")
	call("git_status", nil, false, "detached HEAD at")
	git("checkout", "-q", "main")
	call("list_tasks", nil, false, "make:hello", "go:test")
	call("run_task", map[string]any{"name": "make:hello"}, false, "$ make hello", "hello")
	call("run_tests", nil, false, "go: 1 passed, 1 failed (exit 1)", "FAIL TestThree  b_test.go:13: Two() = 2, want 3")
	write("v.go", "package b\n\nimport \"fmt\"\n\nfunc V() { fmt.Printf(\"%d\\n\", \"x\") }\n")
	call("get_errors", nil, false, "v.go:5:", "warning fmt.Printf format %d has arg")
	call("git_diff", map[string]any{"ref": "--upload-pack=touch x"}, true, "error invalid_value")

	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "toolhost://workdir/git"})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Contents[0].Text; !strings.Contains(text, "branch main") || !strings.Contains(text, "main edit") {
		t.Errorf("git context resource:\n%s", text)
	}
}

// TestLongRunThroughCLI: a run_tests of the real stdio server that outlives its yield is one
// running execution that `toolhost active` (another process) shows with its command;
// `toolhost cancel` kills the run's tree, and the history keeps it cancelled with its exit
// code.
func TestLongRunThroughCLI(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("go is required: %v", err)
	}
	state, work := t.TempDir(), t.TempDir()
	// A package name of its own names the test binary (PKG.test) among every process.
	pkg := fmt.Sprintf("hang%d", time.Now().UnixNano()%100000)
	for name, content := range map[string]string{
		"go.mod":    "module example.com/" + pkg + "\n\ngo 1.26\n",
		"h_test.go": "package " + pkg + "\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestHang(t *testing.T) { time.Sleep(time.Hour) }\n",
	} {
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte("[terminal]\nyield = \"1s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs := connectStdio(t, ctx, commandIn(t, state, work, "stdio"))
	defer cs.Close()
	text, isErr := callText(t, cs, "build_and_version_control", map[string]any{"operation": "run_tests", "timeout_seconds": 300})
	m := regexp.MustCompile(`\(execution (exec_\S+) runs until the run ends\)`).FindStringSubmatch(text)
	if isErr || m == nil {
		t.Fatalf("run_tests = %q, want a run handed back with its execution", text)
	}
	id := m[1]
	out, errOut, err := cli(t, state, work, "active", "--json")
	var active struct{ Executions []execRecord }
	if err != nil || json.Unmarshal([]byte(out), &active) != nil {
		t.Fatalf("active = %q %q %v", out, errOut, err)
	}
	if len(active.Executions) != 1 || active.Executions[0].ID != id || active.Executions[0].Operation != "run_tests" || !strings.Contains(active.Executions[0].Command, "go test") {
		t.Fatalf("active = %+v, want %s running go test", active.Executions, id)
	}
	waitProcs(t, pkg+".test", 1)
	if out, errOut, err := cli(t, state, work, "cancel", id); err != nil || !strings.Contains(out, "cancelled") {
		t.Fatalf("cancel %s = %q %q %v", id, out, errOut, err)
	}
	// The linker writes PKG.test too: a cancel while it links must take it with the tree.
	if left := proctest.Matching(pkg + ".test"); len(left) != 0 {
		t.Errorf("%d test binaries left after cancel returned: %v", len(left), left)
	}
	out, _, err = cli(t, state, work, "history", "--json", "--tool", "build_and_version_control")
	var page execPage
	if err != nil || json.Unmarshal([]byte(out), &page) != nil || len(page.Executions) != 1 {
		t.Fatalf("history = %q %v, want the one run", out, err)
	}
	if r := page.Executions[0]; r.ID != id || r.Status != "cancelled" || r.ExitCode == nil || !strings.Contains(r.Command, "go test") {
		t.Errorf("history = %+v, want %s cancelled with its exit code and command", r, id)
	}
}

// TestFreshBuildCache: on a machine where Go has never built anything, get_errors (go vet,
// confined) must be able to create the build cache: the sandbox grants only caches that
// exist, so toolhost makes the missing ones before a command starts. HOME lies outside every
// place a command may write, as a fresh user's would.
func TestFreshBuildCache(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("go is required: %v", err)
	}
	sandboxtest.Require(t)
	home := sandboxtest.OutsideTemp(t)
	wd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/fresh\n\ngo 1.26\n",
		// No imports: vet needs nothing from the standard library's cache.
		"f.go": "package fresh\n\nfunc F() int {\n\tx := 1\n\tx = x\n\treturn x\n}\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(wd, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := commandIn(t, t.TempDir(), wd, "stdio")
	var env []string
	for _, kv := range cmd.Env {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "HOME", "GOCACHE", "XDG_CACHE_HOME", "GOFLAGS":
		default:
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "HOME="+home)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := connectStdio(t, ctx, cmd)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "build_and_version_control", Arguments: map[string]any{"operation": "get_errors"}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.Contains(text, "self-assignment of x") {
		t.Errorf("get_errors with a fresh HOME (isError %v):\n%s", res.IsError, text)
	}
	if _, err := os.Stat(filepath.Join(home, ".cache", "go-build")); err != nil {
		t.Errorf("the build cache was not made: %v", err)
	}
}
