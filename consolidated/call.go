package consolidated

import (
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/engine"
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
	// Principal is who calls (from the transport's credential); its tier was checked.
	Principal authz.Principal
	// Execution records this call in the history; nil when the server keeps none. Terminal
	// work adds its command line and exit code, and work that outlives the call continues it.
	Execution *engine.Execution
	Env       *Env
	Logger    *slog.Logger

	// Request is the SDK request, for elicitation and progress; nil for in-process calls.
	Request *mcp.CallToolRequest
	// Task is the MCP task the call runs as (its execution id), "" for a normal call: the
	// client polls for the result, so long work waits for its end instead of yielding.
	Task string

	namesOnly bool     // the operation row's NamesOnly
	notes     []string // short notes appended to the result (ignored parameters)
}

// Budget is how large this call's result may be: ResultBudget of the configured budget, the
// user's [output] limits and the calling client. Handlers that stop reading at the budget
// (read_file, read_tool_result, query) read it, and the result is cut to it.
func (c *Call) Budget() Budget {
	var info *mcp.Implementation
	if c.Request != nil {
		info = c.Request.ClientInfo()
	}
	if c.Env == nil {
		return ResultBudget(0, OutputLimits{}, info)
	}
	return ResultBudget(c.Env.BudgetTokens, c.Env.Output, info)
}

// BudgetBytes is Budget().Bytes, for handlers that bound bytes only.
func (c *Call) BudgetBytes() int { return c.Budget().Bytes }

// GuardRequest is the guard request for one path of this call: its conversation, tool and
// operation, the risk class, and the names-only flag the operation's row declares. Set Delete or
// Rename on it where they apply.
func (c *Call) GuardRequest(class authz.Class, path string) authz.Request {
	return authz.Request{Conversation: c.Conversation, Tool: c.Tool, Operation: c.Operation, Class: class, Path: path, NamesOnly: c.namesOnly}
}

// Result is what a handler returns: compact text for the model and, where useful, the facts
// in it as structured data for programs.
type Result struct {
	// Text is the result as the model reads it: content, output, diff, the next step.
	Text string
	// Structured holds the result's facts (ids, exit codes, statuses) for in-process callers:
	// the CLI's call command prints them. Clients never receive it (see Registry.toMCP).
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

// SetCommand records the command line of terminal work in the execution history.
func (c *Call) SetCommand(line string) {
	if c.Execution != nil {
		c.Execution.SetCommand(line)
	}
}

// SetExitCode records the exit code of terminal work in the execution history: a non-zero
// code makes the execution failed there (the model still reads a normal result).
func (c *Call) SetExitCode(code int) {
	if c.Execution != nil {
		c.Execution.SetExitCode(code)
		if code != 0 {
			c.Execution.Report(exitOutcome(code, false))
		}
	}
}

// exitOutcome is how a command's end reads in the history.
func exitOutcome(code int, timedOut bool) engine.Outcome {
	switch {
	case timedOut:
		return engine.Outcome{Status: engine.StatusTimeout, ErrorCode: string(CodeTimeout), Error: fmt.Sprintf("killed by its timeout (exit %d)", code)}
	case code != 0:
		return engine.Outcome{Status: engine.StatusFailed, ErrorCode: string(CodeExitStatus), Error: fmt.Sprintf("exit %d", code)}
	}
	return engine.Outcome{Status: engine.StatusSuccess}
}
