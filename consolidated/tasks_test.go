package consolidated

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskClient is a small client that speaks MCP Tasks on a raw connection to the harness's
// server through TaskTransport (the go-sdk client cannot send tasks/*).
type taskClient struct {
	t    *testing.T
	conn mcp.Connection
	id   int
}

func newTaskClient(t *testing.T, h *harness, capabilities map[string]any) *taskClient {
	t.Helper()
	ctx := context.Background()
	sT, cT := mcp.NewInMemoryTransports()
	ss, err := h.server.Connect(ctx, TaskTransport(sT), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	conn, err := cT.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := &taskClient{t: t, conn: conn}
	init := c.must("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": map[string]any{"name": "tasks-test", "version": "1"}})
	if !strings.Contains(string(init), `"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`) {
		t.Errorf("initialize = %s, want the tasks capability", init)
	}
	if err := conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	return c
}

// send sends a request and returns its response.
func (c *taskClient) send(method string, params any) *jsonrpc.Response {
	c.t.Helper()
	c.id++
	id, _ := jsonrpc.MakeID(float64(c.id))
	raw, _ := json.Marshal(params)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.conn.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
		c.t.Fatal(err)
	}
	for {
		msg, err := c.conn.Read(ctx)
		if err != nil {
			c.t.Fatalf("%s: %v", method, err)
		}
		if r, ok := msg.(*jsonrpc.Response); ok && r.ID == id {
			return r
		}
	}
}

// must sends a request that must succeed and returns its result.
func (c *taskClient) must(method string, params any) json.RawMessage {
	c.t.Helper()
	r := c.send(method, params)
	if r.Error != nil {
		c.t.Fatalf("%s %v: %v", method, params, r.Error)
	}
	return r.Result
}

func (c *taskClient) task(method, id string) map[string]any {
	c.t.Helper()
	var m map[string]any
	json.Unmarshal(c.must(method, map[string]any{"taskId": id}), &m)
	return m
}

func errCode(r *jsonrpc.Response) int64 {
	if we, ok := r.Error.(*jsonrpc.Error); ok {
		return we.Code
	}
	return 0
}

// TestTasks drives a task to completion and cancels another through the protocol: a
// task-augmented run_command answers with a task at once, tasks/get says working, tasks/result
// waits for the command's end and answers its whole result, tasks/cancel kills a running
// command's tree, tasks/list lists both; another conversation finds neither, and a tool without
// task support is refused.
func TestTasks(t *testing.T) {
	h := newHarness(t, harnessOptions{executions: true, tools: func(h *harness) []*Tool { return []*Tool{testTerminalTool(h), ThinkTool()} }})
	c := newTaskClient(t, h, map[string]any{"tasks": map[string]any{}})

	list := string(c.must("tools/list", map[string]any{}))
	if !strings.Contains(list, `{"execution":{"taskSupport":"optional"},`) || strings.Count(list, `"execution"`) != 1 {
		t.Errorf("tools/list for a client that speaks tasks = %.300s…, want terminal_operations (only) marked", list)
	}

	var created struct {
		Task taskWire `json:"task"`
	}
	began := time.Now()
	raw := c.must("tools/call", map[string]any{"name": "terminal_operations", "arguments": map[string]any{"operation": "run_command",
		"command": "sleep 2; echo done-$((6*7)); exit 3", "yield_seconds": 1}, "task": map[string]any{"ttl": 60000}})
	if err := json.Unmarshal(raw, &created); err != nil || created.Task.TaskID == "" || created.Task.Status != "working" || created.Task.TTL != 60000 {
		t.Fatalf("task-augmented tools/call = %s, want a working task with ttl 60000", raw)
	}
	if took := time.Since(began); took > time.Second {
		t.Errorf("the task handle took %s, want it at once", took)
	}
	id := created.Task.TaskID
	if st := c.task("tasks/get", id); st["status"] != "working" || st["pollInterval"] == nil {
		t.Errorf("tasks/get while it runs = %v, want working with a poll interval", st)
	}
	res := string(c.must("tasks/result", map[string]any{"taskId": id}))
	for _, want := range []string{"done-42", "exit 3", `"io.modelcontextprotocol/related-task":{"taskId":"` + id + `"}`} {
		if !strings.Contains(res, want) {
			t.Errorf("tasks/result = %s, want it to contain %s (the command waited past its yield)", res, want)
		}
	}
	if strings.Contains(res, "still running") {
		t.Errorf("tasks/result = %s, want the finished command, not a handle", res)
	}
	if st := c.task("tasks/get", id); st["status"] != "completed" {
		t.Errorf("tasks/get after the end = %v, want completed", st)
	}
	if r := c.send("tasks/cancel", map[string]any{"taskId": id}); errCode(r) != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/cancel of a completed task = %v, want -32602", r.Error)
	}

	// Cancel a running one: its process tree goes.
	arg := sleepArg(7)
	raw = c.must("tools/call", map[string]any{"name": "terminal_operations", "arguments": map[string]any{"operation": "run_command",
		"command": "sleep " + arg + " & sleep " + arg}, "task": map[string]any{}})
	json.Unmarshal(raw, &created)
	id2 := created.Task.TaskID
	for deadline := time.Now().Add(10 * time.Second); len(procsWithArgs(t, "sleep", arg)) < 2 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if st := c.task("tasks/cancel", id2); st["status"] != "cancelled" {
		t.Errorf("tasks/cancel = %v, want cancelled", st)
	}
	for deadline := time.Now().Add(10 * time.Second); len(procsWithArgs(t, "sleep", arg)) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("the cancelled task's processes %v survived", procsWithArgs(t, "sleep", arg))
			break
		}
	}
	if st := c.task("tasks/get", id2); st["status"] != "cancelled" {
		t.Errorf("tasks/get after cancel = %v, want cancelled", st)
	}
	var listed struct {
		Tasks []taskWire `json:"tasks"`
	}
	json.Unmarshal(c.must("tasks/list", map[string]any{}), &listed)
	if len(listed.Tasks) != 2 || listed.Tasks[0].TaskID != id || listed.Tasks[1].TaskID != id2 {
		t.Errorf("tasks/list = %+v, want both tasks, oldest first", listed.Tasks)
	}

	// Bad input: unknown ids, a bad cursor, a tool without task support.
	for _, tc := range []struct {
		method string
		params map[string]any
		code   int64
	}{
		{"tasks/get", map[string]any{"taskId": "exec_nope"}, jsonrpc.CodeInvalidParams},
		{"tasks/result", map[string]any{"taskId": ""}, jsonrpc.CodeInvalidParams},
		{"tasks/cancel", map[string]any{"taskId": "x"}, jsonrpc.CodeInvalidParams},
		{"tasks/list", map[string]any{"cursor": "zz"}, jsonrpc.CodeInvalidParams},
		{"tools/call", map[string]any{"name": "think", "arguments": map[string]any{"thoughts": "x"}, "task": map[string]any{}}, jsonrpc.CodeMethodNotFound},
	} {
		if r := c.send(tc.method, tc.params); errCode(r) != tc.code {
			t.Errorf("%s %v = %v, want error %d", tc.method, tc.params, r.Error, tc.code)
		}
	}

	// A call with bad arguments is a task too, whose result is the error.
	raw = c.must("tools/call", map[string]any{"name": "terminal_operations", "arguments": map[string]any{"operation": "run_command"}, "task": map[string]any{}})
	json.Unmarshal(raw, &created)
	if res := string(c.must("tasks/result", map[string]any{"taskId": created.Task.TaskID})); !strings.Contains(res, `"isError":true`) || !strings.Contains(res, "command") {
		t.Errorf("tasks/result of a call without its command = %s, want the missing-parameter error", res)
	}
	if st := c.task("tasks/get", created.Task.TaskID); st["status"] != "failed" {
		t.Errorf("tasks/get of a refused call = %v, want failed", st)
	}

	// Another conversation (a second session) finds neither task.
	other := newTaskClient(t, h, map[string]any{})
	if r := other.send("tasks/get", map[string]any{"taskId": id}); errCode(r) != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/get of another conversation's task = %v, want not found", r.Error)
	}
	if r := other.send("tasks/result", map[string]any{"taskId": id}); errCode(r) != jsonrpc.CodeInvalidParams {
		t.Errorf("tasks/result of another conversation's task = %v, want not found", r.Error)
	}
	json.Unmarshal(other.must("tasks/list", map[string]any{}), &listed)
	if len(listed.Tasks) != 0 {
		t.Errorf("tasks/list in another conversation = %+v, want none", listed.Tasks)
	}
	// A client that does not speak tasks sees tools/list as it always was.
	if l := string(other.must("tools/list", map[string]any{})); strings.Contains(l, `"execution"`) {
		t.Errorf("tools/list for a client without tasks = %.200s…, want no execution field", l)
	}
}
