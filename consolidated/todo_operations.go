package consolidated

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/todo"
	"toolhost/reminders"
	"toolhost/store"
)

// todoItem is a todo as the schema shows it: terse descriptions to keep tools/list small. Decoding
// goes through todo.Todo's lenient decoder (camelCase, aliases, string ids). status has no enum:
// Gemini CLI and Qwen Code check arguments against the schema before sending, and would refuse
// the synonyms the decoder accepts (pending, in_progress, done).
type todoItem struct {
	ID            int           `json:"id,omitempty" jsonschema:"add: optional."`
	Title         string        `json:"title"`
	Description   string        `json:"description,omitempty"`
	Status        string        `json:"status,omitempty" jsonschema:"not-started, in-progress, completed or blocked"`
	Priority      string        `json:"priority,omitempty" enum:"low,medium,high,critical"`
	Dependencies  []int         `json:"dependencies,omitempty" jsonschema:"Ids it waits for."`
	Progress      float64       `json:"progress,omitempty" jsonschema:"0.0-1.0"`
	BlockedReason string        `json:"blocked_reason,omitempty" jsonschema:"Required when blocked."`
	Parallel      bool          `json:"can_run_parallel,omitempty"`
	Group         string        `json:"parallel_group,omitempty"`
	Estimate      string        `json:"estimate,omitempty" jsonschema:"45m, 2h"`
	Subtasks      []subtaskItem `json:"subtasks,omitempty" jsonschema:"Child todos (3 levels)."`

	decoded todo.Todo
}

// subtaskItem is a nested todo in the schema: an object whose fields are those of todoItem.
// todoItems decodes the whole item, subtasks included.
type subtaskItem struct{}

// todoItems is the todos argument, decoded by todo.DecodeTodos so that a problem names the item
// and the field ("item 1 subtasks[2].owner: unknown field; valid fields: ...") instead of only
// the argument's type; it also takes a single object for a one-item list.
type todoItems []todoItem

func (t *todoItems) UnmarshalJSON(b []byte) error {
	todos, err := todo.DecodeTodos(b)
	if err != nil {
		return todoArgError("todos", err)
	}
	out := make(todoItems, len(todos))
	for i, x := range todos {
		out[i].decoded = x
	}
	*t = out
	return nil
}

// patchItem is one partial update; its fields are those of todoItem.
type patchItem struct {
	decoded todo.Patch
}

// patchItems is the updates argument, decoded by todo.DecodePatches like todoItems.
type patchItems []patchItem

func (p *patchItems) UnmarshalJSON(b []byte) error {
	patches, err := todo.DecodePatches(b)
	if err != nil {
		return todoArgError("updates", err)
	}
	out := make(patchItems, len(patches))
	for i, x := range patches {
		out[i].decoded = x
	}
	*p = out
	return nil
}

// todoArgError is a decoding problem of a todo argument as the model reads it.
func todoArgError(param string, err error) error {
	if ve, ok := todo.AsValidationError(err); ok {
		return &ToolError{Code: CodeInvalidTodos, Param: param, Message: ve.Error(), Next: "fix the named todos and call again; nothing was changed", Cause: err}
	}
	return err
}

type todoNoArgs struct{}

type todoWriteArgs struct {
	Todos todoItems `json:"todos" alias:"todoList,todo_list,newTodos,new_todos" jsonschema:"write: the whole list; add: todos to append."`
}

type todoUpdateArgs struct {
	Updates patchItems `json:"updates" alias:"todoUpdates,todo_updates" jsonschema:"Each: id plus the fields to change."`
}

// TodoTool is todo_operations: the conversation's plan, persistent and shared by every toolhost
// process on the same state directory. It serves each conversation's list as the resource
// toolhost://conversations/{id}/todos and, with rem, appends a reminder of the plan to other
// tools' results when one is due.
func TodoTool(st *store.Store, rem *reminders.Builder) *Tool {
	t := &todoTool{st: st, rem: rem, changes: &notifier{}}
	tool := &Tool{
		Name:        "todo_operations",
		Title:       "Todo list",
		Description: "Plan multi-step work. Mark a todo in-progress before starting it and completed right after; one in-progress at a time.",
		Operations: []Operation{
			Op("read", "the list with progress", RiskRead, t.read),
			Op("write", "replace the list (completed todos must stay)", RiskState, t.write),
			Op("update", "change todos by id", RiskState, t.update),
			Op("add", "append todos", RiskState, t.add),
		},
		Resources: []Resource{{
			Template: &mcp.ResourceTemplate{
				Name:        "todos",
				URITemplate: reminders.ResourceTemplate,
				Description: "A conversation's todo list with progress.",
				MIMEType:    "text/plain",
				Annotations: forBoth(0.9),
			},
			Read: t.readResource,
			Complete: func(_ context.Context, conv, variable, value string, _ map[string]string) []string {
				if variable != "id" {
					return nil
				}
				return completeOwnConversation(conv, value)
			},
		}},
		ListResources: func(_ context.Context, conv string) []*mcp.Resource {
			return []*mcp.Resource{{URI: reminders.ResourceURI(conv), Name: "todos", Title: "Todo list",
				Description: "This conversation's todo list with progress.", MIMEType: "text/plain", Annotations: forBoth(0.9)}}
		},
		Subscriptions: t.changes,
	}
	if rem != nil {
		tool.AfterCall = reminderHook(rem)
	}
	return tool
}

type todoTool struct {
	st  *store.Store
	rem *reminders.Builder
	// changes tells subscribers of toolhost://conversations/{id}/todos of every change.
	changes *notifier
}

func (t *todoTool) read(ctx context.Context, c *Call, _ *todoNoArgs) (*Result, error) {
	l, err := todo.Read(ctx, t.st, c.Conversation)
	return t.result(ctx, c, l, err)
}

func (t *todoTool) write(ctx context.Context, c *Call, a *todoWriteArgs) (*Result, error) {
	l, err := todo.Write(ctx, t.st, c.Conversation, items(a.Todos))
	return t.result(ctx, c, l, err)
}

func (t *todoTool) add(ctx context.Context, c *Call, a *todoWriteArgs) (*Result, error) {
	if len(a.Todos) == 0 {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "todos", Message: "add needs at least one todo"}
	}
	l, err := todo.Add(ctx, t.st, c.Conversation, items(a.Todos))
	return t.result(ctx, c, l, err)
}

func (t *todoTool) update(ctx context.Context, c *Call, a *todoUpdateArgs) (*Result, error) {
	if len(a.Updates) == 0 {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "updates", Message: "update needs at least one {id, ...} entry"}
	}
	patches := make([]todo.Patch, len(a.Updates))
	for i, p := range a.Updates {
		patches[i] = p.decoded
	}
	l, err := todo.Update(ctx, t.st, c.Conversation, patches)
	return t.result(ctx, c, l, err)
}

func items(in todoItems) []todo.Todo {
	out := make([]todo.Todo, len(in))
	for i, it := range in {
		out[i] = it.decoded
	}
	return out
}

// result renders the list; the model has just seen the whole state, so the reminder bookkeeping
// records it as delivered instead of repeating it on the next result.
func (t *todoTool) result(ctx context.Context, c *Call, l todo.List, err error) (*Result, error) {
	if err != nil {
		if ve, ok := todo.AsValidationError(err); ok {
			return nil, &ToolError{Code: CodeInvalidTodos, Message: ve.Error(), Next: "fix the named todos and call again; nothing was changed", Cause: err}
		}
		return nil, err
	}
	if c.Operation != "read" {
		t.changes.Updated(reminders.ResourceURI(c.Conversation))
	}
	if t.rem != nil {
		if err := t.rem.MarkDelivered(ctx, c.Conversation); err != nil {
			c.Logger.Warn("reminder bookkeeping", "err", err)
		}
	}
	return &Result{Text: todo.Render(l), Structured: l.Snapshot()}, nil
}

// readResource serves a conversation's todo list with its current reminder.
func (t *todoTool) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	conv, ok := reminders.ConversationFromURI(req.Params.URI)
	if !ok {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	l, err := todo.Read(ctx, t.st, conv)
	if err != nil {
		return nil, fmt.Errorf("read todos: %w", err)
	}
	text := todo.Render(l)
	if block, err := reminders.For(ctx, t.st, conv); err == nil && strings.TrimSpace(block) != "" {
		text += "\n\n" + block
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: text}}}, nil
}

// reminderHook appends a todo reminder to results when the reminders package says one is due:
// only when the plan changed since the last one this conversation saw, or after N quiet calls.
func reminderHook(rem *reminders.Builder) func(ctx context.Context, c *Call, r *Result) {
	return func(ctx context.Context, c *Call, r *Result) {
		if c.Tool == "todo_operations" || r.IsError {
			return
		}
		block, ok, err := rem.Next(ctx, c.Conversation)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				c.Logger.Warn("reminder", "err", err)
			}
			return
		}
		if ok && block != "" {
			r.Extra = append(r.Extra, block)
		}
	}
}

var (
	_ json.Unmarshaler = (*todoItems)(nil)
	_ json.Unmarshaler = (*patchItems)(nil)
)
