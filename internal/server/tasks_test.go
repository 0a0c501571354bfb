package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/consolidated"
	"toolhost/internal/conversation"
	"toolhost/internal/mcptest"
)

type slowArgs struct {
	Millis int `json:"millis" jsonschema:"How long to work."`
}

// taskServer serves, over HTTP behind two client tokens (tok-alice, tok-bob), a tool that may
// run as a task (its operation works until its time is up or it is cancelled) and think, which
// may not, with the execution history that keeps tasks.
func taskServer(t *testing.T) *httptest.Server {
	t.Helper()
	e, st := openEngine(t)
	wd, _ := filepath.EvalSymlinks(t.TempDir())
	leases, err := conversation.New(st, conversation.Options{Workdir: wd, Base: "c"})
	if err != nil {
		t.Fatal(err)
	}
	sessions := consolidated.NewSessions(leases, nil)
	t.Cleanup(func() { sessions.Close(context.Background()) })
	tools := []*consolidated.Tool{consolidated.ThinkTool(), {
		Name:        "build_and_version_control",
		Description: "Test operations.",
		Operations: []consolidated.Operation{
			consolidated.Op("slow", "work a while", consolidated.RiskRead, func(ctx context.Context, c *consolidated.Call, a *slowArgs) (*consolidated.Result, error) {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(time.Duration(a.Millis) * time.Millisecond):
					return consolidated.Text("worked %s", c.Task), nil
				}
			}).WithTaskWait(),
		},
	}}
	reg := consolidated.NewRegistry(&consolidated.Env{Workdir: wd, DefaultConversation: "c", Executions: e, Conversations: sessions}, tools, nil)
	s := New(Options{Name: "toolhost", Version: "test", Registry: reg})
	srv := httptest.NewServer(NewHTTPHandler(s, HTTPOptions{Token: "tok", SessionTimeout: time.Hour,
		Resolve: func(_ context.Context, secret string) (authz.Principal, error) {
			if name, ok := strings.CutPrefix(secret, "tok-"); ok {
				return authz.Principal{Name: name, Tier: authz.TierAdmin}, nil
			}
			return authz.Principal{}, authz.ErrBadToken
		}}))
	t.Cleanup(srv.Close)
	return srv
}

// taskHTTPClient is a raw Tasks client of the test server (mcptest.TaskClient) that can start
// the slow operation as a task.
type taskHTTPClient struct {
	*mcptest.TaskClient
	t *testing.T
}

// newTaskHTTPClient is a client on version; on a session it checks initialize declared tasks.
func newTaskHTTPClient(t *testing.T, url, token, version string) *taskHTTPClient {
	c := &taskHTTPClient{TaskClient: mcptest.NewTaskClient(t, url, token, version), t: t}
	if init := c.Initialized; init != nil && !strings.Contains(string(init), `"tasks":{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}}`) {
		t.Fatalf("initialize = %s, want the tasks capability", init)
	}
	return c
}

func (c *taskHTTPClient) start(millis int) string {
	c.t.Helper()
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"task"`
	}
	raw := c.Must("tools/call", map[string]any{"name": "build_and_version_control",
		"arguments": map[string]any{"operation": "slow", "millis": millis}, "task": map[string]any{"ttl": 60000}})
	if json.Unmarshal(raw, &created); created.Task.TaskID == "" || created.Task.Status != "working" {
		c.t.Fatalf("task-augmented tools/call = %s, want a working task", raw)
	}
	return created.Task.TaskID
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code
}

// TestTasksOverHTTP drives 2025-11-25 tasks through the HTTP server's sessions: tools/list
// marks the task tool for a client that declared tasks, a task-augmented call answers a task
// at once, tasks/result waits for its result, tasks/cancel ends another, tasks/list lists
// both; another principal finds neither, and a tool without task support is refused.
func TestTasksOverHTTP(t *testing.T) {
	srv := taskServer(t)
	for _, version := range []string{"2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			alice := newTaskHTTPClient(t, srv.URL, "tok-alice", version)
			var tools struct {
				Tools []struct {
					Name      string
					Execution *struct{ TaskSupport string }
				}
			}
			json.Unmarshal(alice.Must("tools/list", map[string]any{}), &tools)
			marked := map[string]string{}
			for _, tl := range tools.Tools {
				if tl.Execution != nil {
					marked[tl.Name] = tl.Execution.TaskSupport
				}
			}
			if len(marked) != 1 || marked["build_and_version_control"] != "optional" {
				t.Errorf("tools/list marks %v, want build_and_version_control (only) optional", marked)
			}
			began := time.Now()
			id := alice.start(1500)
			if took := time.Since(began); took > time.Second {
				t.Errorf("the task handle took %s, want it at once", took)
			}
			if st := alice.Status("tasks/get", id); st != "working" {
				t.Errorf("tasks/get while it works = %q, want working", st)
			}
			res := string(alice.Must("tasks/result", map[string]any{"taskId": id}))
			if !strings.Contains(res, "worked "+id) || !strings.Contains(res, `"io.modelcontextprotocol/related-task":{"taskId":"`+id+`"}`) {
				t.Errorf("tasks/result = %s, want the operation's result, related to its task", res)
			}
			if st := alice.Status("tasks/get", id); st != "completed" {
				t.Errorf("tasks/get after the end = %q, want completed", st)
			}
			id2 := alice.start(60000)
			if st := alice.Status("tasks/cancel", id2); st != "cancelled" {
				t.Errorf("tasks/cancel = %q, want cancelled", st)
			}
			if st := alice.Status("tasks/get", id2); st != "cancelled" {
				t.Errorf("tasks/get after cancel = %q, want cancelled", st)
			}
			var listed struct {
				Tasks []struct {
					TaskID string `json:"taskId"`
				} `json:"tasks"`
			}
			json.Unmarshal(alice.Must("tasks/list", map[string]any{}), &listed)
			var ids []string
			for _, tk := range listed.Tasks {
				ids = append(ids, tk.TaskID)
			}
			if !strings.Contains(strings.Join(ids, " "), id+" "+id2) {
				t.Errorf("tasks/list = %v, want %s and %s in order", ids, id, id2)
			}
			if m := alice.Send("tools/call", map[string]any{"name": "think", "arguments": map[string]any{"thoughts": "x"}, "task": map[string]any{}}); errorCode(m) != -32601 {
				t.Errorf("task-augmented think = %v, want -32601", m)
			}

			// Another principal finds neither task.
			bob := newTaskHTTPClient(t, srv.URL, "tok-bob", version)
			for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
				if m := bob.Send(method, map[string]any{"taskId": id}); errorCode(m) != -32602 {
					t.Errorf("%s of another principal's task = %v, want not found (-32602)", method, m)
				}
			}
			json.Unmarshal(bob.Must("tasks/list", map[string]any{}), &listed)
			if len(listed.Tasks) != 0 {
				t.Errorf("tasks/list of another principal = %v, want none", listed.Tasks)
			}
		})
	}
}

// TestTasksExtensionOverHTTP drives the Tasks extension of 2026-07-28 through the HTTP server's
// stateless requests: server/discover declares it; for a request that declares it, a call of
// an operation that waits for long work answers a task after a second, its result when it
// ends sooner, and another call its result;
// tasks/get answers the status and, once completed, the result; tasks/cancel acknowledges and
// the task is cancelled; tasks/update is refused (no task asks for input); another principal
// finds nothing.
func TestTasksExtensionOverHTTP(t *testing.T) {
	srv := taskServer(t)
	alice := newTaskHTTPClient(t, srv.URL, "tok-alice", "2026-07-28")
	var discovered struct {
		Capabilities struct {
			Extensions map[string]map[string]any
		}
	}
	json.Unmarshal(alice.Must("server/discover", map[string]any{}), &discovered)
	if ext, ok := discovered.Capabilities.Extensions["io.modelcontextprotocol/tasks"]; !ok || len(ext) != 0 {
		t.Errorf("server/discover extensions = %v, want io.modelcontextprotocol/tasks: {}", discovered.Capabilities.Extensions)
	}
	var tools struct {
		Tools []map[string]any
	}
	json.Unmarshal(alice.Must("tools/list", map[string]any{}), &tools)
	for _, tl := range tools.Tools {
		if _, ok := tl["execution"]; ok {
			t.Errorf("tools/list on 2026-07-28 marks %v: the extension has no execution.taskSupport", tl["name"])
		}
	}

	type task struct {
		TaskID, Status, ResultType string
		TTLMs                      *int64 `json:"ttlMs"`
		PollIntervalMs             int64
		Result                     map[string]any
		Error                      map[string]any
	}
	start := func(millis int) task {
		t.Helper()
		var tk task
		raw := alice.Must("tools/call", map[string]any{"name": "build_and_version_control", "arguments": map[string]any{"operation": "slow", "millis": millis}})
		if json.Unmarshal(raw, &tk); tk.ResultType != "task" || tk.TaskID == "" || tk.Status != "working" || tk.TTLMs == nil || tk.PollIntervalMs <= 0 {
			t.Fatalf("tools/call = %s, want a working task (resultType task, ttlMs, pollIntervalMs)", raw)
		}
		return tk
	}
	get := func(c *taskHTTPClient, id string) (task, map[string]any) {
		t.Helper()
		m := c.Send("tasks/get", map[string]any{"taskId": id})
		var tk task
		b, _ := json.Marshal(m["result"])
		json.Unmarshal(b, &tk)
		return tk, m
	}
	tk := start(1500)
	if got, _ := get(alice, tk.TaskID); got.Status != "working" || got.ResultType != "complete" || got.Result != nil {
		t.Errorf("tasks/get at once = %+v, want working without a result", got)
	}
	var done task
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if done, _ = get(alice, tk.TaskID); done.Status != "working" {
			break
		}
	}
	content, _ := json.Marshal(done.Result["content"])
	if done.Status != "completed" || done.Result["resultType"] != "complete" || !strings.Contains(string(content), "worked "+tk.TaskID) {
		t.Errorf("tasks/get after the end = %+v, want completed with the operation's result", done)
	}

	tk2 := start(60000)
	if res := string(alice.Must("tasks/cancel", map[string]any{"taskId": tk2.TaskID})); res != `{"resultType":"complete"}` {
		t.Errorf("tasks/cancel = %s, want the acknowledgement", res)
	}
	if got, _ := get(alice, tk2.TaskID); got.Status != "cancelled" || got.Result != nil {
		t.Errorf("tasks/get after cancel = %+v, want cancelled", got)
	}
	if m := alice.Send("tasks/update", map[string]any{"taskId": tk2.TaskID, "inputResponses": map[string]any{}}); errorCode(m) != -32602 {
		t.Errorf("tasks/update = %v, want -32602 (no task asks for input)", m)
	}
	// Work that ends within a second is answered as a plain result, though it could be a task.
	var fast map[string]any
	json.Unmarshal(alice.Must("tools/call", map[string]any{"name": "build_and_version_control", "arguments": map[string]any{"operation": "slow", "millis": 10}}), &fast)
	if fast["resultType"] != "complete" || !strings.Contains(fmt.Sprint(fast["content"]), "worked exec_") {
		t.Errorf("a quick slow = %v, want its result at once", fast)
	}
	// A quick call is answered at once, task or not.
	var quick map[string]any
	json.Unmarshal(alice.Must("tools/call", map[string]any{"name": "think", "arguments": map[string]any{"thoughts": "x"}}), &quick)
	if quick["resultType"] != "complete" || quick["content"] == nil {
		t.Errorf("think = %v, want its result at once", quick)
	}
	bob := newTaskHTTPClient(t, srv.URL, "tok-bob", "2026-07-28")
	for _, method := range []string{"tasks/get", "tasks/cancel"} {
		if m := bob.Send(method, map[string]any{"taskId": tk.TaskID}); errorCode(m) != -32602 {
			t.Errorf("%s of another principal's task = %v, want not found (-32602)", method, m)
		}
	}
}
