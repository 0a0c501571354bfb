package consolidated

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/engine"
	"toolhost/internal/terminal"
)

// MCP Tasks (the 2025-11-25 `tasks` capability; the Tasks extension of 2026-07-28 keeps the
// methods): a client augments a tools/call with a task, gets a task handle at once, polls
// tasks/get, fetches the result with tasks/result and may tasks/cancel it. The go-sdk has no
// Tasks, and refuses methods it does not know; taskRewriter rewrites them on the wire (stdio
// through TaskTransport, streamable HTTP through TaskHandler) into calls of a tool nobody lists
// (tasksToolName), which this file answers through the SDK's own pipeline (principal,
// conversation), and rewrites the answers back. A task is an execution:
// its id is the execution id, its status the execution's, and its result is kept in the
// engine's store, so a task outlives the server that ran it and a new server serves its
// result. A task of another principal or conversation is not found.

const (
	// tasksToolName is the tool taskRewriter calls for tasks/get, tasks/result, tasks/cancel
	// and tasks/list. It is in no tools/list; a client that calls it by name gets what the
	// method would answer it.
	tasksToolName = "toolhost/tasks"
	// taskMetaKey, in a forwarded tools/call's _meta, asks for the call to run as a task; its
	// value is the request's task parameters ({"ttl": ms}). taskRewriter puts it there.
	taskMetaKey = "toolhost/task"
	// rpcMetaKey, in the _meta of a result for taskRewriter, holds what the JSON-RPC answer's
	// result is to be.
	rpcMetaKey = "toolhost/rpc"
	// relatedTaskKey associates a task's result with it (the spec's related-task metadata).
	relatedTaskKey = "io.modelcontextprotocol/related-task"
	// taskPollMS is the poll interval toolhost suggests.
	taskPollMS = 1000
	// autoTaskGrace is how long a call the server may make a task (the Tasks extension) runs
	// before it becomes one: a quick command is answered as a plain result.
	autoTaskGrace = time.Second
)

// TaskTools are the tools whose calls may run as tasks (execution.taskSupport "optional"):
// those with long operations (commands, builds, imports, browser waits).
var TaskTools = []string{"terminal_operations", "build_and_version_control", "memory_operations", "web_operations"}

// taskWire is a Task as the spec shapes it.
type taskWire struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           int64  `json:"ttl"`
	PollInterval  int64  `json:"pollInterval,omitempty"`
}

// taskRuns holds the tasks running in this process: id -> closed when its result is stored.
type taskRuns struct {
	mu   sync.Mutex
	done map[string]chan struct{}
}

func (t *taskRuns) start(id string) chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done == nil {
		t.done = map[string]chan struct{}{}
	}
	ch := make(chan struct{})
	t.done[id] = ch
	return ch
}

func (t *taskRuns) wait(id string) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.done[id]
}

func (t *taskRuns) end(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if ch, ok := t.done[id]; ok {
		close(ch)
		delete(t.done, id)
	}
}

// taskParams reads the task request a taskRewriter put into a call's _meta; ok is false for
// a normal call.
func taskParams(req *mcp.CallToolRequest) (tr taskRequest, ok bool) {
	if req == nil || req.Params == nil {
		return tr, false
	}
	v, ok := req.Params.GetMeta()[taskMetaKey]
	if !ok {
		return tr, false
	}
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, &tr)
	return tr, true
}

// runsAsTask reports whether a call with task request tr runs as a task: always when the
// client asked for one, and under the extension's server-directed rule when its operation
// (valid, or prepErr) waits for long work.
func (tr taskRequest) runsAsTask(op Operation, prepErr error) bool {
	return !tr.Auto || prepErr == nil && op.TaskWait
}

// startTask runs a prepared call as a task: the task is stored, the call goes on in the
// background under its execution (which tasks/cancel cancels), and the answer is the
// CreateTaskResult. It returns nil when the call cannot be a task (no history to keep it), and
// the call then runs as usual.
//
// A call whose arguments were refused (prepErr) becomes a task too, whose result is that error:
// the client asked for a task and polls for it.
func (r *Registry) startTask(ctx context.Context, c *Call, op Operation, args any, raw json.RawMessage, tr taskRequest, prepErr error) *mcp.CallToolResult {
	e := r.env.Executions
	if e == nil {
		return nil
	}
	now := time.Now()
	entry := engine.TaskEntry{ID: c.ExecutionID, Principal: c.Principal.Name, Conversation: c.Conversation, Created: now.UTC(), TTL: engine.TaskTTL(tr.TTL)}
	if err := e.PutTask(ctx, entry); err != nil {
		c.Logger.Error("store task", "err", err)
		return nil
	}
	c.Task = c.ExecutionID
	// The call outlives its request: only its execution (tasks/cancel, the operator) ends it.
	bg, x := r.begin(context.WithoutCancel(ctx), c, op, raw)
	r.env.tasks.start(c.ExecutionID)
	direct := make(chan *mcp.CallToolResult, 1) // the result, for a task the server chose (tr.Auto)
	go func() {
		defer r.env.tasks.end(c.ExecutionID)
		err := prepErr
		if err == nil {
			err = r.admit(c, op)
		}
		var res *Result
		if err == nil {
			res, err = r.invoke(bg, c, op, args)
		}
		c.notes = append(c.notes, r.env.backgroundNotes(c.Conversation)...)
		out := r.toMCP(bg, c, res, err)
		r.finish(bg, c, x, out, err)
		answer := *out
		direct <- &answer
		out.Meta = mcp.Meta{relatedTaskKey: map[string]any{"taskId": c.ExecutionID}}
		b, merr := json.Marshal(out)
		if merr != nil || len(b) > engine.MaxTaskResultBytes {
			b, _ = json.Marshal(&mcp.CallToolResult{IsError: true, Meta: out.Meta, Content: []mcp.Content{&mcp.TextContent{Text: "the result was too large to keep; the execution history has its outcome"}}})
		}
		if _, err := e.UpdateTask(context.Background(), c.ExecutionID, func(t *engine.TaskEntry) { t.Result = b }); err != nil {
			c.Logger.Error("store task result", "err", err)
		}
	}()
	if tr.Auto {
		// The server chose the task: work that ends within autoTaskGrace is answered as a
		// plain result, so that a quick command costs no polling.
		grace := time.NewTimer(autoTaskGrace)
		select {
		case out := <-direct:
			grace.Stop()
			return out
		case <-grace.C:
		}
	}
	w := taskWire{TaskID: entry.ID, Status: "working", CreatedAt: entry.Created.Format(time.RFC3339Nano), LastUpdatedAt: entry.Created.Format(time.RFC3339Nano),
		TTL: entry.TTL, PollInterval: taskPollMS}
	meta := map[string]any{"io.modelcontextprotocol/model-immediate-response": fmt.Sprintf("%s.%s runs as task %s.", c.Tool, c.Operation, entry.ID)}
	if tr.Extension {
		v := w.extension()
		v["resultType"], v["_meta"] = "task", meta
		return rpcResult(v)
	}
	return rpcResult(map[string]any{"task": w, "_meta": meta})
}

// extension is a task in the Tasks extension's shape (2026-07-28): times to live and poll
// intervals in ttlMs and pollIntervalMs.
func (w taskWire) extension() map[string]any {
	v := map[string]any{"taskId": w.TaskID, "status": w.Status, "createdAt": w.CreatedAt, "lastUpdatedAt": w.LastUpdatedAt, "ttlMs": w.TTL}
	if w.PollInterval > 0 {
		v["pollIntervalMs"] = w.PollInterval
	}
	if w.StatusMessage != "" {
		v["statusMessage"] = w.StatusMessage
	}
	return v
}

// rpcResult is a CallToolResult that taskRewriter turns into the JSON-RPC result v.
func rpcResult(v any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{}, Meta: mcp.Meta{rpcMetaKey: v}}
}

// tasksArgs are the arguments of a tasksToolName call: the method and its params.
type tasksArgs struct {
	Method string `json:"method"`
	TaskID string `json:"taskId"`
	Cursor string `json:"cursor"`
	// Name is the tool of a task-augmented tools/call that cannot run as a task.
	Name string `json:"name"`
	// Extension: answer in the Tasks extension's shapes (2026-07-28).
	Extension bool `json:"extension"`
}

// tasksMiddleware answers the calls of tasksToolName.
func (r *Registry) tasksMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			cr, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok || cr.Params == nil || cr.Params.Name != tasksToolName {
				return next(ctx, method, req)
			}
			var a tasksArgs
			raw, _ := json.Marshal(cr.Params.Arguments)
			if err := json.Unmarshal(raw, &a); err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid task request: " + err.Error()}
			}
			v, err := r.answerTask(ctx, cr, a)
			if err != nil {
				return nil, err
			}
			return rpcResult(v), nil
		}
	}
}

// errTaskNotFound is the spec's answer for an unknown, expired or foreign task id.
func errTaskNotFound(id string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("Failed to retrieve task: task %q not found", truncateRunes(id, 80))}
}

// answerTask serves one tasks/* method for the caller's principal and conversation.
func (r *Registry) answerTask(ctx context.Context, cr *mcp.CallToolRequest, a tasksArgs) (any, error) {
	if a.Method == "tools/call" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: "tool " + truncateRunes(a.Name, 80) + " does not run as a task (execution.taskSupport is forbidden)"}
	}
	e := r.env.Executions
	if e == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "tasks need the execution history, which this server does not keep"}
	}
	p := callerPrincipal(ctx)
	conv, err := r.callConversation(ctx, cr)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "this session has no conversation yet"}
	}
	own := func(id string) (engine.TaskEntry, error) {
		t, found, err := e.Task(ctx, id)
		if err != nil {
			return t, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task store is unavailable"}
		}
		if !found || t.Principal != p.Name || t.Conversation != conv {
			return t, errTaskNotFound(id)
		}
		return t, nil
	}
	switch a.Method {
	case "tasks/get":
		t, err := own(a.TaskID)
		if err != nil {
			return nil, err
		}
		if a.Extension {
			return r.extensionTask(ctx, t), nil
		}
		return r.taskState(ctx, t), nil
	case "tasks/update":
		if _, err := own(a.TaskID); err != nil {
			return nil, err
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("task %s asks for no input: toolhost's tasks never do", truncateRunes(a.TaskID, 80))}
	case "tasks/result":
		t, err := own(a.TaskID)
		if err != nil {
			return nil, err
		}
		for t.Result == nil {
			w := r.taskState(ctx, t)
			if w.Status != "working" {
				break // ended without a result: its server died, or it was cancelled early
			}
			wait := r.env.tasks.wait(t.ID)
			tick := time.NewTimer(500 * time.Millisecond)
			select {
			case <-ctx.Done():
				tick.Stop()
				return nil, ctx.Err()
			case <-wait:
			case <-tick.C:
			}
			tick.Stop()
			if t, err = own(a.TaskID); err != nil {
				return nil, err
			}
		}
		if t.Result == nil {
			w := r.taskState(ctx, t)
			return &mcp.CallToolResult{IsError: true, Meta: mcp.Meta{relatedTaskKey: map[string]any{"taskId": t.ID}},
				Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("task %s ended %s without a result: %s", t.ID, w.Status, w.StatusMessage)}}}, nil
		}
		return json.RawMessage(t.Result), nil
	case "tasks/cancel":
		t, err := own(a.TaskID)
		if err != nil {
			return nil, err
		}
		if w := r.taskState(ctx, t); w.Status != "working" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("task %s is already %s", t.ID, w.Status)}
		}
		if _, err := e.UpdateTask(ctx, t.ID, func(t *engine.TaskEntry) { t.Cancelled = true }); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task store is unavailable"}
		}
		if _, err := e.Cancel(ctx, p, t.ID); err != nil && !errors.Is(err, engine.ErrFinished) {
			r.env.logger().Warn("cancel task", "task", t.ID, "err", err)
		}
		t.Cancelled = true
		if a.Extension {
			return map[string]any{"resultType": "complete"}, nil // the extension's acknowledgement
		}
		return r.taskState(ctx, t), nil
	case "tasks/list":
		if a.Cursor != "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor: tasks/list answers in one page"}
		}
		ts, err := e.Tasks(ctx, p.Name, conv)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task store is unavailable"}
		}
		out := make([]taskWire, 0, len(ts))
		for _, t := range ts {
			out = append(out, r.taskState(ctx, t))
		}
		return map[string]any{"tasks": out}, nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("no task method %q", truncateRunes(a.Method, 40))}
}

// extensionTask is a task as the extension's tasks/get answers it: a completed task carries
// its result, one that ended without a result (its server died) an error. A tool's isError
// result is completed, not failed: the extension keeps failed for JSON-RPC errors.
func (r *Registry) extensionTask(ctx context.Context, t engine.TaskEntry) map[string]any {
	w := r.taskState(ctx, t)
	var result map[string]json.RawMessage
	if t.Result != nil && json.Unmarshal(t.Result, &result) == nil && w.Status != "cancelled" {
		w.Status, w.StatusMessage = "completed", ""
	}
	v := w.extension()
	v["resultType"] = "complete"
	switch w.Status {
	case "completed":
		if result == nil {
			result = map[string]json.RawMessage{"content": json.RawMessage(`[]`)}
		}
		result["resultType"] = json.RawMessage(`"complete"`)
		v["result"] = result
	case "failed":
		v["error"] = map[string]any{"code": jsonrpc.CodeInternalError, "message": w.StatusMessage}
	}
	return v
}

// taskState is a task as tasks/get answers it: the status follows its execution.
func (r *Registry) taskState(ctx context.Context, t engine.TaskEntry) taskWire {
	w := taskWire{TaskID: t.ID, CreatedAt: t.Created.Format(time.RFC3339Nano), LastUpdatedAt: t.Created.Format(time.RFC3339Nano), TTL: t.TTL}
	rec, err := r.env.Executions.Get(ctx, authz.Principal{Name: t.Principal}, t.ID)
	var res struct {
		IsError bool `json:"isError"`
	}
	switch {
	case t.Cancelled:
		w.Status, w.StatusMessage = "cancelled", "The task was cancelled by request."
	case t.Result != nil && json.Unmarshal(t.Result, &res) == nil:
		// Ended with a result: failed when the tool said so (the spec's isError rule).
		w.Status = "completed"
		if res.IsError {
			w.Status = "failed"
		}
	case err != nil && t.Result == nil:
		w.Status, w.StatusMessage = "failed", "its execution is no longer known"
	case err != nil:
		w.Status = "completed"
	case !rec.Finished() || t.Result == nil && r.env.tasks.wait(t.ID) != nil:
		w.Status, w.PollInterval = "working", taskPollMS
	case rec.Status == engine.StatusSuccess:
		w.Status = "completed"
	case rec.Status == engine.StatusCancelled:
		w.Status, w.StatusMessage = "cancelled", "cancelled"
	default:
		w.Status, w.StatusMessage = "failed", string(rec.Status)
		if rec.Error != "" {
			w.StatusMessage += ": " + rec.Error
		}
	}
	if err == nil && rec.Finished() {
		end := rec.Start.Add(time.Duration(rec.DurationMS * float64(time.Millisecond)))
		w.LastUpdatedAt = end.UTC().Format(time.RFC3339Nano)
	}
	return w
}

// awaitTask waits until a command that a task call started ends: the task's client polls for
// the result, so the call need not yield. A cancelled call (tasks/cancel) kills the command's
// process tree and answers with how it ended.
func awaitTask(ctx context.Context, c *Call, mgr *terminal.Manager, r terminal.RunResult, maxWait time.Duration) (terminal.RunResult, error) {
	for r.Running {
		next, err := mgr.Wait(ctx, c.Conversation, r.ID, maxWait)
		if err != nil {
			if ctx.Err() != nil {
				mgr.Cancel(c.Conversation, r.ID)
				return mgr.Wait(context.Background(), c.Conversation, r.ID, 0)
			}
			return r, err
		}
		r = next
	}
	return r, nil
}

// taskDeadline is the call deadline of an operation that waits for its work when it runs as a
// task (WithTaskWait); the work's own timeout ends it well before.
const taskDeadline = engine.MaxTaskTTL
