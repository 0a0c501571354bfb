package consolidated

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
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

func TestBuildListAndRunTasks(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	h.goProject("proj")
	h.golden("list_tasks.txt", h.mustOp("list_tasks", map[string]any{"repo": "proj"}))
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

func TestBuildRunTestsAndErrors(t *testing.T) {
	h := newBuildHarness(t, buildOptions{})
	h.goProject("proj")
	text := h.mustOp("run_tests", map[string]any{"repo": "proj"})
	h.golden("run_tests_go.txt", text)
	if text := h.mustOp("run_tests", map[string]any{"repo": "proj", "filter": "TestAdd$"}); !strings.HasPrefix(text, "go: 1 passed, 0 failed (exit 0)") {
		t.Errorf("run_tests with a filter:\n%s", text)
	}
	// The raw log stays pageable with the id the result names.
	id := regexp.MustCompile(`session_id=(cmd\d+)`).FindStringSubmatch(text)
	if id == nil {
		t.Fatalf("no log id in:\n%s", text)
	}
	if log, isErr := h.call("terminal_operations", map[string]any{"operation": "get_history", "session_id": id[1]}); isErr || !strings.Contains(log, `"Action":"fail"`) {
		t.Errorf("the raw log of %s:\n%.400s", id[1], log)
	}
	h.write("proj/vet.go", "package p\n\nimport \"fmt\"\n\nfunc V() { fmt.Printf(\"%d\\n\", \"s\") }\n")
	h.write("proj/broken/b.go", "package broken\n\nfunc F() int { return \"x\" }\n")
	h.golden("get_errors_go.txt", h.mustOp("get_errors", map[string]any{"repo": "proj"}))
	if text := h.mustOp("get_errors", map[string]any{"repo": "proj", "paths": "vet.go"}); strings.Contains(text, "broken") || !strings.Contains(text, "vet.go:5") {
		t.Errorf("get_errors for one file:\n%s", text)
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
