package consolidated

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/internal/engine"
)

// goProject writes a small Go module with a passing, a failing and a skipped test, plus a vet
// finding, into dir of the harness's working directory.
func (h *buildHarness) goProject(dir string) {
	h.t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		h.t.Fatalf("go is required: %v", err)
	}
	h.write(dir+"/go.mod", "module example.com/p\n\ngo 1.26\n")
	h.write(dir+"/calc.go", "package p\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n")
	h.write(dir+"/calc_test.go", `package p

import "testing"

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("bad")
	}
}

func TestAddWrong(t *testing.T) {
	if got := Add(2, 2); got != 5 {
		t.Errorf("Add(2, 2) = %d, want 5", got)
	}
}

func TestSkipped(t *testing.T) { t.Skip("later") }
`)
	h.write(dir+"/Makefile", "hello: ## say hello\n\t@echo hello from make\nfail:\n\t@echo about to fail; exit 3\n")
	h.write(dir+"/package.json", `{"scripts":{"hello":"echo hello from npm"}}`)
}

// TestBuildListAndRunTasks runs tasks of the project whose list
// testdata/scenarios/build_go_project.txtar pins (make's own messages vary by version, so
// these are checked, not pinned), and the refusals of run_task.
func TestBuildListAndRunTasks(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	h.goProject("proj")
	if text := h.mustOp("run_task", map[string]any{"repo": "proj", "name": "make:hello"}); !strings.HasPrefix(text, "$ make hello\nexit 0") || !strings.Contains(text, "hello from make") {
		t.Errorf("run_task make:hello:\n%s", text)
	}
	if text := h.mustOp("run_task", map[string]any{"repo": "proj", "name": "fail"}); !strings.Contains(text, "exit 2") || !strings.Contains(text, "about to fail") {
		t.Errorf("run_task of a failing target (a normal result, not an error):\n%s", text)
	}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"a task that does not exist", map[string]any{"repo": "proj", "name": "helo"}, "did you mean"},
		{"a name two sources declare", map[string]any{"repo": "proj", "name": "hello"}, "error ambiguous"},
		{"no name", map[string]any{"repo": "proj"}, "error missing_parameter"},
		{"a project without tasks", map[string]any{"name": "build"}, "declares no tasks"},
		{"a directory outside the working directory", map[string]any{"repo": "/", "name": "x"}, "outside the working directory"},
		{"a handle nobody started", map[string]any{"id": "cmd99"}, "error not_found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if text := h.errOp("run_task", tc.args); !strings.Contains(text, tc.want) {
				t.Errorf("run_task %v:\n%s\nwant %q", tc.args, text, tc.want)
			}
		})
	}
}

// TestBuildRunTestsAndErrors: the raw log of a test run stays pageable with the id its result
// names, and the refusals of run_tests and get_errors; testdata/scenarios/build_go_project.txtar
// pins the parsed results.
func TestBuildRunTestsAndErrors(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	h.goProject("proj")
	text := h.mustOp("run_tests", map[string]any{"repo": "proj"})
	id := regexp.MustCompile(`session_id=(cmd\d+)`).FindStringSubmatch(text)
	if id == nil {
		t.Fatalf("no log id in:\n%s", text)
	}
	if log, isErr := h.call("terminal_operations", map[string]any{"operation": "get_history", "session_id": id[1]}); isErr || !strings.Contains(log, `"Action":"fail"`) {
		t.Errorf("the raw log of %s:\n%.400s", id[1], log)
	}
	tests := []struct {
		name string
		op   string
		args map[string]any
		want string
	}{
		{"no test runner", "run_tests", map[string]any{}, "error no_test_runner"},
		{"no checker", "get_errors", map[string]any{}, "error no_checker"},
		{"a runner the project does not use", "run_tests", map[string]any{"repo": "proj", "name": "pytest"}, "error no_test_runner"},
		{"a filter that is an option", "run_tests", map[string]any{"repo": "proj", "filter": "-exec=sh"}, "parameter: filter"},
		{"a package outside the project", "run_tests", map[string]any{"repo": "proj", "paths": "../.."}, "parameter: paths"},
		{"a run_tests handle given to get_errors", "get_errors", map[string]any{"id": "cmd1"}, "error not_found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if text := h.errOp(tc.op, tc.args); !strings.Contains(text, tc.want) {
				t.Errorf("%s %v:\n%s\nwant %q", tc.op, tc.args, text, tc.want)
			}
		})
	}
}

// A test run that outlives the yield comes back as a handle; run_tests with the handle waits
// and parses the finished run. A run that hangs past its timeout is killed, tree and all, and
// reports what finished.
func TestBuildRunTestsYieldAndHang(t *testing.T) {
	h := newBuildHarness(t, buildOptions{yield: time.Second})
	h.goProject("proj")
	h.write("proj/slow_test.go", `package p

import (
	"os"
	"testing"
	"time"
)

func TestSlow(t *testing.T) {
	if os.Getenv("HANG") == "" {
		time.Sleep(3 * time.Second)
		return
	}
	time.Sleep(time.Hour)
}
`)
	// Build once so that the timed runs below measure the tests, not the compiler.
	h.mustOp("run_tests", map[string]any{"repo": "proj", "filter": "TestAdd$"})
	text := h.mustOp("run_tests", map[string]any{"repo": "proj"})
	m := regexp.MustCompile(`call run_tests id=(cmd\d+) to wait`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("a slow run did not come back as a handle:\n%s", text)
	}
	if text := h.errOp("run_task", map[string]any{"id": m[1]}); !strings.Contains(text, "call run_tests id="+m[1]) {
		t.Errorf("the handle given to run_task:\n%s", text)
	}
	var final string
	for i := 0; i < 30; i++ {
		final = h.mustOp("run_tests", map[string]any{"id": m[1]})
		if !strings.HasPrefix(final, "still running") {
			break
		}
	}
	if !strings.HasPrefix(final, "go: 2 passed, 1 failed, 1 skipped (exit 1)") || !strings.Contains(final, "calc_test.go:13") {
		t.Errorf("the parsed result of the handed-back run:\n%s", final)
	}
	if text := h.errOp("run_tests", map[string]any{"id": m[1]}); !strings.Contains(text, "reported once") {
		t.Errorf("a handle used twice:\n%s", text)
	}

	// A hanging test: the timeout kills the tree and the report says which test never finished.
	h.write("proj/env_test.go", "package p\n\nimport \"os\"\n\nfunc init() { os.Setenv(\"HANG\", \"1\") }\n")
	text = h.mustOp("run_tests", map[string]any{"repo": "proj", "timeout_seconds": 4})
	for i := 0; i < 30 && strings.HasPrefix(text, "still running"); i++ {
		id := regexp.MustCompile(`id=(cmd\d+)`).FindStringSubmatch(text)[1]
		text = h.mustOp("run_tests", map[string]any{"id": id})
	}
	if !strings.HasPrefix(text, "timed out after") || !strings.Contains(text, "FAIL TestSlow") || !strings.Contains(text, "did not finish") {
		t.Errorf("the hanging run:\n%s", text)
	}
	// go test and the test binary it ran work in the project: none of them may survive.
	proj := filepath.Join(h.hs.wd, "proj")
	eventually(t, 10*time.Second, "the killed run's processes to be gone", func() bool { return len(procsIn(proj)) == 0 })
}

// await waits on a run handed back by kind (run_task, run_tests, get_errors) until it has
// ended, and returns the final text.
func (h *buildHarness) await(kind, text string) string {
	h.t.Helper()
	for i := 0; i < 120 && strings.HasPrefix(text, "still running"); i++ {
		m := regexp.MustCompile(`call \w+ id=(cmd\d+)`).FindStringSubmatch(text)
		if m == nil {
			h.t.Fatalf("no handle in:\n%s", text)
		}
		text = h.mustOp(kind, map[string]any{"id": m[1]})
	}
	return text
}

// handedBack returns the execution a run handed back past its yield names, failing when the
// text is not a handed-back run.
func handedBack(t *testing.T, text string) string {
	t.Helper()
	m := regexp.MustCompile(`\(execution (exec_\S+) runs until the run ends\)`).FindStringSubmatch(text)
	if !strings.HasPrefix(text, "still running") || m == nil {
		t.Fatalf("the run was not handed back with its execution:\n%s", text)
	}
	return m[1]
}

// TestLongRunStaysOneExecution: a run_tests or run_task past its yield stays the call's one
// execution until the run ends, with its exit code and command line; waiting on the handle is
// a call of its own; cancelling the execution kills the run's process tree.
func TestLongRunStaysOneExecution(t *testing.T) {
	h := newBuildHarness(t, buildOptions{yield: time.Second, executions: true})
	e := h.hs.env.Executions
	ctx := context.Background()
	h.goProject("proj")
	h.write("proj/slow_test.go", `package p

import (
	"os"
	"testing"
	"time"
)

func TestSlow(t *testing.T) {
	if _, err := os.Stat("hang"); err == nil {
		time.Sleep(time.Hour)
	}
	time.Sleep(3 * time.Second)
}
`)
	h.write("tasks/Makefile", "nap:\n\t@sleep 2; exit 4\nquick:\n\t@exit 5\n")
	get := func(id string) engine.Record {
		t.Helper()
		r, err := e.Get(ctx, authz.StdioPrincipal, id)
		if err != nil {
			t.Fatalf("Get(%s) = %v", id, err)
		}
		return r
	}
	// runs are the finished executions that ran a command, newest first.
	runs := func() []engine.Record {
		t.Helper()
		page, err := e.List(ctx, engine.Filter{Viewer: authz.StdioPrincipal, Tool: buildToolName, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var out []engine.Record
		for _, r := range page.Executions {
			if r.Command != "" {
				out = append(out, r)
			}
		}
		return out
	}

	t.Run("a run that ends within its call", func(t *testing.T) {
		h.mustOp("run_task", map[string]any{"repo": "tasks", "name": "quick"})
		r := runs()[0]
		if r.Operation != "run_task" || r.Status != engine.StatusFailed || r.ExitCode == nil || *r.ExitCode != 2 || r.Command != "make quick" {
			t.Errorf("record = %s %s exit %v command %q, want run_task failed, exit 2 (make's), make quick", r.Operation, r.Status, r.ExitCode, r.Command)
		}
		// However long compiling takes on a loaded machine, the run is one execution that
		// ends with its exit code and command line.
		before := len(runs())
		h.await("run_tests", h.mustOp("run_tests", map[string]any{"repo": "proj", "filter": "TestAdd$"}))
		eventually(t, 30*time.Second, "the run's execution to end", func() bool { return len(runs()) == before+1 })
		r = runs()[0]
		if r.Operation != "run_tests" || r.Status != engine.StatusSuccess || r.ExitCode == nil || *r.ExitCode != 0 || !strings.Contains(r.Command, "go test") {
			t.Errorf("record = %s %s exit %v command %q, want run_tests success, exit 0, go test", r.Operation, r.Status, r.ExitCode, r.Command)
		}
	})

	t.Run("run_tests past its yield", func(t *testing.T) {
		text := h.mustOp("run_tests", map[string]any{"repo": "proj"})
		id := handedBack(t, text)
		if r := get(id); r.Status != engine.StatusRunning || r.Operation != "run_tests" || !strings.Contains(r.Command, "go test") {
			t.Fatalf("execution after the call = %s %s %q, want running run_tests with its command", r.Status, r.Operation, r.Command)
		}
		if a := e.Active(ctx, authz.StdioPrincipal); len(a) != 1 || a[0].ID != id {
			t.Errorf("Active = %+v, want only %s", a, id)
		}
		final := h.await("run_tests", text)
		if !strings.HasPrefix(final, "go: 2 passed, 1 failed, 1 skipped (exit 1)") {
			t.Errorf("the parsed result:\n%s", final)
		}
		eventually(t, 30*time.Second, "the execution to end with the run", func() bool { r := get(id); return r.Finished() })
		r := get(id)
		if r.Status != engine.StatusFailed || r.ErrorCode != "exit_status" || r.ExitCode == nil || *r.ExitCode != 1 || !strings.Contains(r.Command, "go test") {
			t.Errorf("ended execution = %s %s exit %v command %q, want failed exit_status, exit 1, go test", r.Status, r.ErrorCode, r.ExitCode, r.Command)
		}
		// The waits were calls of their own: none ran a command, and the run is one record.
		n := 0
		for _, x := range runs() {
			if x.ID == id {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d records of the run, want 1", n)
		}
	})

	t.Run("run_task past its yield", func(t *testing.T) {
		id := handedBack(t, h.mustOp("run_task", map[string]any{"repo": "tasks", "name": "nap"}))
		if r := get(id); r.Status != engine.StatusRunning || r.Command != "make nap" {
			t.Fatalf("execution after the call = %s %q, want running make nap", r.Status, r.Command)
		}
		eventually(t, 30*time.Second, "the execution to end with the run", func() bool { r := get(id); return r.Finished() })
		if r := get(id); r.Status != engine.StatusFailed || r.ExitCode == nil || *r.ExitCode != 2 {
			t.Errorf("ended execution = %s exit %v, want failed with make's exit 2", r.Status, r.ExitCode)
		}
	})

	t.Run("cancel kills the run's tree", func(t *testing.T) {
		h.write("proj/hang", "")
		text := h.mustOp("run_tests", map[string]any{"repo": "proj", "timeout_seconds": 300})
		id := handedBack(t, text)
		proj := filepath.Join(h.wd, "proj")
		eventually(t, 60*time.Second, "the test binary to run", func() bool {
			return strings.Contains(strings.Join(procsIn(proj), "\n"), "p.test")
		})
		r, err := e.Cancel(ctx, authz.StdioPrincipal, id)
		if err != nil || r.Status != engine.StatusCancelled || r.ExitCode == nil || !strings.Contains(r.Command, "go test") {
			t.Fatalf("Cancel = %s exit %v command %q, %v; want cancelled with its exit code and command", r.Status, r.ExitCode, r.Command, err)
		}
		if left := procsIn(proj); len(left) > 0 {
			t.Errorf("processes of the cancelled run left:\n%s", strings.Join(left, "\n"))
		}
		if _, err := e.Cancel(ctx, authz.StdioPrincipal, id); !errors.Is(err, engine.ErrFinished) {
			t.Errorf("second Cancel = %v, want ErrFinished", err)
		}
		if final := h.await("run_tests", text); !strings.HasPrefix(final, "cancelled after") {
			t.Errorf("waiting on the cancelled run:\n%s", final)
		}
	})
}
