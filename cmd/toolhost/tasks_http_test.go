package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"toolhost/internal/mcptest"
)

// taskHTTP is a raw client of the binary's /mcp that speaks MCP Tasks (mcptest.TaskClient)
// and runs commands as tasks.
type taskHTTP struct {
	*mcptest.TaskClient
	t *testing.T
}

func newTaskHTTP(t *testing.T, base, token, version string) *taskHTTP {
	t.Helper()
	return &taskHTTP{TaskClient: mcptest.NewTaskClient(t, base, token, version), t: t}
}

// runTask runs command as a task: a task-augmented call (2025-11-25), or a plain call that the
// server makes a task (the extension).
func (c *taskHTTP) runTask(command string) string {
	c.t.Helper()
	var created struct {
		Task                       struct{ TaskID, Status string }
		TaskID, Status, ResultType string
	}
	params := map[string]any{"name": "terminal_operations", "arguments": map[string]any{"operation": "run_command", "command": command}}
	if !c.Stateless() {
		params["task"] = map[string]any{"ttl": 600000}
	}
	raw := c.Must("tools/call", params)
	json.Unmarshal(raw, &created)
	if c.Stateless() {
		created.Task.TaskID, created.Task.Status = created.TaskID, created.Status
		if created.ResultType != "task" {
			c.t.Fatalf("run_command = %s, want a task (resultType task)", raw)
		}
	}
	if created.Task.TaskID == "" || created.Task.Status != "working" {
		c.t.Fatalf("run_command as a task = %s, want a working task", raw)
	}
	return created.Task.TaskID
}

// result waits for a task's result: tasks/result (2025-11-25), or tasks/get until it carries
// the result (the extension).
func (c *taskHTTP) result(id string) string {
	c.t.Helper()
	if !c.Stateless() {
		return string(c.Must("tasks/result", map[string]any{"taskId": id}))
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var st struct {
			Status string
			Result json.RawMessage
		}
		json.Unmarshal(c.Must("tasks/get", map[string]any{"taskId": id}), &st)
		if st.Status != "working" {
			return string(st.Result)
		}
	}
	c.t.Fatalf("task %s still working after a minute", id)
	return ""
}

// cancel cancels a task and returns its status after.
func (c *taskHTTP) cancel(id string) string {
	c.t.Helper()
	if !c.Stateless() {
		return c.Status("tasks/cancel", id)
	}
	if ack := string(c.Must("tasks/cancel", map[string]any{"taskId": id})); ack != `{"resultType":"complete"}` {
		c.t.Errorf("tasks/cancel = %s, want the acknowledgement", ack)
	}
	return c.Status("tasks/get", id)
}

// TestHTTPTasks drives tasks through the real binary over HTTP, 2025-11-25 Tasks on a session
// and the Tasks extension on stateless 2026-07-28 requests: a command runs to completion as a
// task and another is cancelled with its process; a client token of another principal finds
// neither. Then the server is SIGKILLed, and a new one on the same state serves both results,
// on the same token and the resumed session, and still not to the other principal.
func TestHTTPTasks(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	serve := func() (*exec.Cmd, string, string) {
		cmd := commandIn(t, state, work, "serve", "--addr", "127.0.0.1:0")
		sv := readServe(t, cmd)
		return cmd, strings.TrimSuffix(sv.url, "/mcp"), sv.token
	}
	first, base, token := serve()
	bob := createToken(t, state, work, "bob", "--tier", "admin")
	clients, done := map[string]*taskHTTP{}, map[string]string{}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			c := newTaskHTTP(t, base, token, version)
			clients[version] = c
			id := c.runTask("sleep 2; echo task-$((6*7))")
			if st := c.Status("tasks/get", id); st != "working" {
				t.Errorf("tasks/get at once = %q, want working", st)
			}
			if res := c.result(id); !strings.Contains(res, "task-42") || !strings.Contains(res, "exit 0") {
				t.Errorf("the task's result = %s, want the command's output and exit", res)
			}
			if st := c.Status("tasks/get", id); st != "completed" {
				t.Errorf("tasks/get after the end = %q, want completed", st)
			}
			done[version] = id
			arg := "31." + strings.ReplaceAll(version, "-", "")
			id2 := c.runTask("sleep " + arg)
			waitProcs(t, "sleep "+arg, 1)
			if st := c.cancel(id2); st != "cancelled" {
				t.Errorf("tasks/cancel = %q, want cancelled", st)
			}
			for deadline := time.Now().Add(10 * time.Second); countProcs("sleep "+arg) > 0; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Errorf("the cancelled task's process survived")
					break
				}
			}
			other := newTaskHTTP(t, base, bob, version)
			if m := other.Send("tasks/get", map[string]any{"taskId": id}); m["error"] == nil {
				t.Errorf("tasks/get of another principal's task = %v, want not found", m)
			}
			if m := other.Send("tasks/cancel", map[string]any{"taskId": id}); m["error"] == nil {
				t.Errorf("tasks/cancel of another principal's task = %v, want not found", m)
			}
		})
	}

	first.Process.Kill()
	first.Wait()
	_, base, token2 := serve()
	if token2 != token {
		t.Fatalf("the new server printed another token")
	}
	for version, id := range done {
		c := clients[version] // on 2025-11-25 its session, which the new server resumes
		c.SetBase(base)
		if res := c.result(id); !strings.Contains(res, "task-42") {
			t.Errorf("%s: the task's result from a new server = %s, want the kept output", version, res)
		}
		if m := newTaskHTTP(t, base, bob, version).Send("tasks/get", map[string]any{"taskId": id}); m["error"] == nil {
			t.Errorf("%s: tasks/get of another principal's task after the restart = %v, want not found", version, m)
		}
	}
}
