package consolidated

import (
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
)

// Call is what a handler knows about the call it serves.
type Call struct {
	Tool      string
	Operation string
	// ExecutionID identifies this call in logs and in the execution history.
	ExecutionID string
	// Conversation scopes todos, terminals, grants, reminders and spills: the conversation
	// the call's session leased (Env.Conversations), never an argument.
	Conversation string
	Env          *Env
	Logger       *slog.Logger

	// Request is the SDK request, for elicitation and progress; nil for in-process calls.
	Request *mcp.CallToolRequest

	namesOnly bool // the operation row's NamesOnly
}

// GuardRequest is the guard request for one path of this call: its conversation, tool and
// operation, the risk class, and the names-only flag the operation's row declares. Set Delete or
// Rename on it where they apply.
func (c *Call) GuardRequest(class authz.Class, path string) authz.Request {
	return authz.Request{Conversation: c.Conversation, Tool: c.Tool, Operation: c.Operation, Class: class, Path: path, NamesOnly: c.namesOnly}
}

// Result is what a handler returns: compact text for the model and, where useful, structured
// content for programs.
type Result struct {
	Text       string
	Structured any
	// Extra text blocks appended after the main text (reminders); never cut by the budget.
	Extra []string
	// Content blocks (images) appended after the text; their size is the handler's to bound.
	Content []mcp.Content
	// IsError marks a result the model should treat as a failure (a command that failed to
	// start, say); model-fixable argument problems are returned as *ToolError instead.
	IsError bool
	// InputRequests asks the client for input (elicitation) before the call can finish.
	InputRequests mcp.InputRequestMap
	// RequestState travels with InputRequests and comes back with the answers.
	RequestState string
	// NoSpill keeps the text whole (read_tool_result pages are already bounded).
	NoSpill bool
}

// Text returns a plain text result.
func Text(format string, args ...any) *Result {
	if len(args) == 0 {
		return &Result{Text: format}
	}
	return &Result{Text: fmt.Sprintf(format, args...)}
}
