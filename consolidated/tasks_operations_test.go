package consolidated

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/internal/browser"
	"toolhost/internal/embed"
	"toolhost/internal/memory"
	"toolhost/internal/nettest"
	"toolhost/internal/web"
)

// runAsTask makes a task-augmented call on c and returns its task id; the call must answer a
// working task at once.
func runAsTask(t *testing.T, c *taskClient, tool string, args map[string]any) string {
	t.Helper()
	var created struct {
		Task taskWire `json:"task"`
	}
	began := time.Now()
	raw := c.must("tools/call", map[string]any{"name": tool, "arguments": args, "task": map[string]any{"ttl": 600000}})
	if err := json.Unmarshal(raw, &created); err != nil || created.Task.TaskID == "" || created.Task.Status != "working" {
		t.Fatalf("task-augmented %s %v = %s, want a working task", tool, args, raw)
	}
	if took := time.Since(began); took > 3*time.Second {
		t.Errorf("the task handle of %v took %s, want it at once", args["operation"], took)
	}
	return created.Task.TaskID
}

// taskResult is the text of a task's result (tasks/result) and whether it is an error.
func taskResult(t *testing.T, c *taskClient, id string) (string, bool) {
	t.Helper()
	var res struct {
		Content []struct{ Text string }
		IsError bool
	}
	raw := c.must("tasks/result", map[string]any{"taskId": id})
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("tasks/result = %s: %v", raw, err)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		b.WriteString(ct.Text)
	}
	return b.String(), res.IsError
}

// TestTaskOperations: each operation of long work that issue 31 names accepts a task-augmented
// call and, as a task, waits for its work rather than handing it back (its yield is short
// here): run_task, run_tests and get_errors, import_document past its yield, and browser_wait
// for text that appears later. run_command is TestTasks'.
func TestTaskOperations(t *testing.T) {
	t.Run("build", func(t *testing.T) {
		h := newBuildHarness(t, buildOptions{executions: true, yield: 100 * time.Millisecond})
		h.goProject("proj")
		h.write("proj/slow_test.go", "package p\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestSlow(t *testing.T) { time.Sleep(time.Second) }\n")
		c := newTaskClient(t, h.hs, map[string]any{"tasks": map[string]any{}})
		for _, tc := range []struct {
			op   string
			args map[string]any
			want []string
		}{
			{"run_task", map[string]any{"repo": "proj", "name": "make:hello"}, []string{"exit 0", "hello from make"}},
			{"run_tests", map[string]any{"repo": "proj"}, []string{"TestAddWrong", "Add(2, 2) = 4, want 5"}},
			{"get_errors", map[string]any{"repo": "proj"}, []string{"errors", "(go vet)"}},
		} {
			t.Run(tc.op, func(t *testing.T) {
				args := map[string]any{"operation": tc.op}
				for k, v := range tc.args {
					args[k] = v
				}
				id := runAsTask(t, c, buildToolName, args)
				text, _ := taskResult(t, c, id)
				for _, w := range tc.want {
					if !strings.Contains(text, w) {
						t.Errorf("%s as a task:\n%s\nwant %q", tc.op, text, w)
					}
				}
				if strings.Contains(text, "still running") {
					t.Errorf("%s as a task handed its run back:\n%s", tc.op, text)
				}
			})
		}
	})

	t.Run("import_document", func(t *testing.T) {
		if !embed.BuiltinAvailable() {
			if os.Getenv("CI") != "" {
				t.Fatal("the built-in USE-Lite embedder is missing from this build")
			}
			t.Skip("the built-in USE-Lite embedder is not in this build")
		}
		h := newHarness(t, harnessOptions{executions: true, tools: func(h *harness) []*Tool {
			svc := memory.New(h.st, memory.Config{Embedder: embed.NewUSELite()})
			t.Cleanup(func() { svc.Close() })
			return []*Tool{MemoryTool(MemoryConfig{Service: svc, Guard: h.guard, ImportYield: time.Millisecond})}
		}})
		h.write(map[string]string{"big.md": bigDocument()})
		c := newTaskClient(t, h, map[string]any{"tasks": map[string]any{}})
		id := runAsTask(t, c, "memory_operations", map[string]any{"operation": "import_document", "path": "big.md"})
		if text, isErr := taskResult(t, c, id); isErr || !strings.HasPrefix(text, "Imported big.md: ") {
			t.Errorf("import_document as a task = %q, want the finished import (its yield is 1 ms)", text)
		}
		if st := c.task("tasks/get", id); st["status"] != "completed" {
			t.Errorf("tasks/get after the import = %v, want completed", st)
		}
	})

	t.Run("browser_wait", func(t *testing.T) {
		if _, err := browser.FindChromium(""); err != nil {
			nettest.Missing(t, "Chromium is not installed (apt-get install chromium)")
		}
		resolver, dialer := nettest.NewResolver(), &nettest.LoopbackDialer{}
		h := newHarness(t, harnessOptions{executions: true, tools: func(h *harness) []*Tool {
			ng, err := authz.NewNetGuard(h.guard, authz.NetConfig{Allow: []string{"site.test"}, Resolver: resolver, Dialer: dialer})
			if err != nil {
				t.Fatal(err)
			}
			client, err := web.New(web.Config{Guard: ng})
			if err != nil {
				t.Fatal(err)
			}
			browsers, err := browser.NewManager(browser.Config{Web: client, Guard: ng})
			if err != nil {
				t.Fatal(err)
			}
			return []*Tool{WebTool(WebConfig{Client: client, Guard: h.guard, Browsers: browsers})}
		}})
		wh := &webHarness{harness: h, resolver: resolver, dialer: dialer}
		base := wh.serve("site.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><body><p id="p">waiting</p><script>setTimeout(() => { document.getElementById("p").textContent = "ready at last" }, 1500)</script></body></html>`)
		}))
		c := newTaskClient(t, h, map[string]any{"tasks": map[string]any{}})
		if raw := string(c.must("tools/call", map[string]any{"name": "web_operations", "arguments": map[string]any{"operation": "browser_open", "url": base + "/"}})); strings.Contains(raw, `"isError":true`) {
			t.Fatalf("browser_open: %s", raw)
		}
		id := runAsTask(t, c, "web_operations", map[string]any{"operation": "browser_wait", "text": "ready at last", "timeout_seconds": 30})
		if text, isErr := taskResult(t, c, id); isErr || !strings.Contains(text, "Found it.") {
			t.Errorf("browser_wait as a task = %q, want the text found", text)
		}
	})
}
