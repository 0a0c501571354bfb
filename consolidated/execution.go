package consolidated

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/engine"
	"toolhost/internal/secret"
	"toolhost/internal/terminal"
)

// callerPrincipal is who calls: the principal the transport put into ctx, else the user who
// started the process (in-process calls, tests).
func callerPrincipal(ctx context.Context) authz.Principal {
	if p, ok := authz.PrincipalFrom(ctx); ok {
		return p
	}
	return authz.StdioPrincipal
}

// begin records the call as a running execution, once the operation is known (or known to be
// wrong: a refused call is an execution too), with its arguments as secret.Args masked them.
func (r *Registry) begin(ctx context.Context, c *Call, op Operation, masked json.RawMessage) (context.Context, *engine.Execution) {
	e := r.env.Executions
	if e == nil {
		return ctx, nil
	}
	tool, operation := r.recordedNames(c)
	if c.Conversation == "" {
		// A call refused before its conversation was looked up (an unknown tool or
		// operation, a missing parameter) is still one of the conversation's calls, for its
		// log.
		if conv, err := r.callConversation(ctx, c.Request); err == nil {
			c.Conversation = conv
		}
	}
	s := engine.Start{ID: c.ExecutionID, Tool: tool, Operation: operation, Principal: c.Principal.Name,
		Conversation: c.Conversation, Args: masked}
	if op.Name != "" {
		s.Category, s.Risk = op.RiskCategory(), string(op.Risk)
	}
	if c.Request != nil && c.Request.Session != nil {
		if ip := c.Request.Session.InitializeParams(); ip != nil && ip.ClientInfo != nil {
			s.Client = ip.ClientInfo.Name
		}
	}
	ctx, x := e.Begin(ctx, s)
	c.Execution = x
	logToClient(ctx, c, "debug", map[string]any{"event": "started", "principal": c.Principal.Name})
	return ctx, x
}

// unknownName is what the history, its aggregates and the metrics keep for a tool or operation
// name that no tool declares. The model chooses those names: kept as sent, each distinct one
// would be a key of the aggregates (read and rewritten on every flush and stats call), an index
// of the history and a metrics series, for good. The call's arguments still show what it sent,
// masked and cut.
const unknownName = "unknown"

// recordedNames are the tool and operation an execution is recorded under: declared names as
// they are, anything else unknownName.
func (r *Registry) recordedNames(c *Call) (tool, operation string) {
	t := r.current().declared(c.Tool)
	if t == nil {
		return unknownName, ""
	}
	if c.Operation == "" {
		return t.Name, ""
	}
	if _, ok := t.operation(c.Operation); !ok {
		return t.Name, unknownName
	}
	return t.Name, c.Operation
}

// admit checks the caller's tier and rate limits before the handler runs.
func (r *Registry) admit(c *Call, op Operation) error {
	cat := op.RiskCategory()
	if !c.Principal.Tier.Allows(cat) {
		return &ToolError{Code: CodeForbidden, Param: "operation",
			Message: fmt.Sprintf("%s.%s is a %s operation and needs tier %s; %s has tier %s", c.Tool, op.Name, cat, authz.Least(cat), c.Principal.Name, c.Principal.Tier),
			Next:    "use the operations tools/list shows you, or ask the user for a token of tier " + string(authz.Least(cat))}
	}
	own, err := engine.ParseRate(c.Principal.Rate)
	if err != nil {
		own = engine.Rate{}
	}
	if err := r.env.Limits.Allow(c.Principal, own, cat); err != nil {
		var le *engine.LimitError
		if errors.As(err, &le) {
			return &ToolError{Code: CodeRateLimited, Message: fmt.Sprintf("rate limit reached (%s)", le.Limit),
				Next: fmt.Sprintf("retry in %s", le.Wait.Round(time.Millisecond)), Cause: err}
		}
		return err
	}
	return nil
}

// deniedCodes are the refusals of the guard, the command rules and the tiers: the call was
// not allowed to run, as opposed to running and failing.
var deniedCodes = []ErrorCode{CodeForbidden, CodeOutsideWorkdir, CodeNeedsGrant, CodeProtectedPath, CodeSecretPath,
	CodeHardLink, CodeCommandDenied, CodeNeedsApproval, CodeNetworkDenied, CodeNetworkRefused, CodeSandboxUnavailable}

// finish records how the call ended, unless its work continues past the call (a command past
// its yield), whose owner finishes it.
func (r *Registry) finish(ctx context.Context, c *Call, x *engine.Execution, out *mcp.CallToolResult, err error) {
	if x == nil || x.Continued() {
		return
	}
	o := engine.Outcome{Status: engine.StatusSuccess}
	for _, c := range out.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			o.ResultBytes += len(t.Text)
		}
	}
	var te *ToolError
	switch {
	case errors.As(err, &te):
		o.ErrorCode, o.Error = string(te.Code), te.Message
		switch {
		case te.Code == CodeTimeout:
			o.Status = engine.StatusTimeout
		case te.Code == CodeCancelled:
			o.Status = engine.StatusCancelled
		case te.Code == CodeRateLimited:
			o.Status = engine.StatusRateLimited
		case slices.Contains(deniedCodes, te.Code):
			o.Status = engine.StatusDenied
		default:
			o.Status = engine.StatusFailed
		}
	case err != nil:
		o.Status, o.ErrorCode = engine.StatusFailed, string(CodeInternal)
	case out.IsError:
		o.Status = engine.StatusFailed
	}
	if ctx.Err() != nil && (errors.Is(context.Cause(ctx), engine.ErrCancelled) || errors.Is(ctx.Err(), context.Canceled)) {
		// The handler answered after a cancel (a command killed with its tree): still cancelled.
		o.Status = engine.StatusCancelled
	}
	rec := x.Finish(o)
	data := map[string]any{"event": "finished", "status": string(rec.Status), "duration_ms": rec.DurationMS}
	if rec.ErrorCode != "" {
		data["error_code"] = rec.ErrorCode
	}
	// Finish cancelled the execution's context; the message still belongs to this request.
	logToClient(context.WithoutCancel(ctx), c, clientLevel(rec), data)
}

// continueWithCommand keeps the call's execution running while command id (of the call's
// conversation) goes on past its yield: the execution ends when the command does, with its exit
// code, and cancelling the execution kills the command's process tree. run_command, run_task,
// run_tests and get_errors hand long commands back this way, so a run stays one execution from
// its start to its end. It returns the execution's id, or "" when nothing records the call (no
// engine) or the command is already forgotten.
func continueWithCommand(c *Call, mgr *terminal.Manager, id string) string {
	x := c.Execution
	if x == nil || mgr == nil {
		return ""
	}
	ended := mgr.Ended(c.Conversation, id)
	if ended == nil {
		return ""
	}
	conv := c.Conversation
	// The command ends when its shell does, which a cancel's SIGTERM brings about before the
	// rest of the tree is gone (go test waits on its linker): a cancelled execution is finished
	// once Cancel has killed the whole tree, so that its record says cancelled only then.
	var requested atomic.Bool
	killed := make(chan struct{})
	var once sync.Once
	x.Continue(func() {
		requested.Store(true)
		once.Do(func() {
			mgr.Cancel(conv, id)
			close(killed)
		})
	})
	go func() {
		<-ended
		if requested.Load() {
			<-killed
		}
		r, err := mgr.Wait(context.Background(), conv, id, 0)
		var o engine.Outcome
		switch {
		case err != nil:
			o = engine.Outcome{Status: engine.StatusFailed, ErrorCode: string(CodeInternal), Error: err.Error()}
		case r.Cancelled:
			o = engine.Outcome{Status: engine.StatusCancelled, ErrorCode: string(CodeCancelled), Error: fmt.Sprintf("cancelled (exit %d)", r.ExitCode)}
		default:
			o = exitOutcome(r.ExitCode, r.TimedOut)
		}
		if err == nil {
			x.SetExitCode(r.ExitCode)
		}
		x.Finish(o)
	}()
	return x.ID()
}

// logToClient tells the client of an execution's lifecycle at the level it chose
// (logging/setLevel, or the request's _meta on 2026-07-28); nothing is sent before it chooses.
func logToClient(ctx context.Context, c *Call, level mcp.LoggingLevel, data map[string]any) {
	if c.Request == nil || c.Request.Session == nil {
		return
	}
	data["execution"] = c.ExecutionID
	data["tool"] = truncateRunes(c.Tool, maxNameShown)
	if c.Operation != "" {
		data["operation"] = truncateRunes(c.Operation, maxNameShown)
	}
	if err := c.Request.Session.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: "toolhost.executions", Data: data}); err != nil {
		c.Logger.Debug("log to client", "err", err)
	}
}

// clientLevel is the level of an execution's end: errors the model caused are warnings,
// toolhost's own failures errors.
func clientLevel(r engine.Record) mcp.LoggingLevel {
	switch r.Status {
	case engine.StatusSuccess:
		return "info"
	case engine.StatusFailed:
		if r.ErrorCode == string(CodeInternal) {
			return "error"
		}
	}
	return "warning"
}

// RecentExecutionsURI is the resource with the conversation's own recent executions.
const RecentExecutionsURI = "toolhost://executions/recent"

// recentExecutions serves RecentExecutionsURI: what the caller's conversation runs now and its
// last 20 finished executions, as JSON, only the caller's own.
func (r *Registry) recentExecutions(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	e := r.env.Executions
	if e == nil {
		return nil, mcp.ResourceNotFoundError(req.Params.URI) // no history (see Register)
	}
	p := callerPrincipal(ctx)
	conv := CallerConversation(ctx)
	if conv == "" {
		conv = r.env.DefaultConversation
	}
	var active []engine.Record
	for _, x := range e.Active(ctx, p) {
		if x.Conversation == conv {
			active = append(active, x)
		}
	}
	page, err := e.List(ctx, engine.Filter{Conversation: conv, Viewer: p, Limit: 20})
	if err != nil {
		return nil, fmt.Errorf("read recent executions: %w", err)
	}
	if active == nil {
		active = []engine.Record{}
	}
	b, err := json.MarshalIndent(map[string]any{"conversation": conv, "running": active, "recent": page.Executions}, "", "  ")
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: RecentExecutionsURI, MIMEType: "application/json", Text: string(b)}}}, nil
}

// Conversation logs: toolhost://conversations/{id}/log is every call of the conversation, with
// its arguments as the history keeps them (masked), how it ended, how long it took and its
// execution id, newest page first and each page oldest first; ?before=ID goes on with the
// calls before that execution.

// logPageSize is how many calls one page of a conversation log holds.
const logPageSize = 50

// LogTemplate is the URI template of a conversation's call log.
const LogTemplate = conversationURIPrefix + "{id}/log{?before}"

// logEntry is one call of a conversation log.
type logEntry struct {
	ExecutionID string          `json:"execution_id"`
	Start       time.Time       `json:"start"`
	Tool        string          `json:"tool"`
	Operation   string          `json:"operation,omitempty"`
	Arguments   json.RawMessage `json:"arguments,omitempty"`
	Status      engine.Status   `json:"status"`
	DurationMS  float64         `json:"duration_ms"`
	ErrorCode   string          `json:"error_code,omitempty"`
	Error       string          `json:"error,omitempty"`
	Command     string          `json:"command,omitempty"`
	ExitCode    *int            `json:"exit_code,omitempty"`
	ResultBytes int             `json:"result_bytes"`
	Principal   string          `json:"principal"`
}

// shownInLog is a record as the log shows it, every value masked in this one place: the
// arguments were masked by the execution engine when the call began (secret.Args), and
// the command line when it was set; the error text, which a failing URL or connection string
// can reach, is masked here.
func shownInLog(r engine.Record) logEntry {
	return logEntry{ExecutionID: r.ID, Start: r.Start, Tool: r.Tool, Operation: r.Operation, Arguments: r.Args,
		Status: r.Status, DurationMS: r.DurationMS, ErrorCode: r.ErrorCode, Error: secret.Text(r.Error),
		Command: secret.Text(r.Command), ExitCode: r.ExitCode, ResultBytes: r.ResultBytes, Principal: r.Principal}
}

// conversationLog serves LogTemplate for the caller's own conversation (the registry's
// resource gate refuses any other).
func (r *Registry) conversationLog(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	u, err := url.Parse(req.Params.URI)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	conv, scoped := ResourceConversation(req.Params.URI)
	if !scoped || conv == "" || !strings.HasSuffix(u.Path, "/log") {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	f := engine.Filter{Conversation: conv, Viewer: callerPrincipal(ctx), Limit: logPageSize, Before: u.Query().Get("before")}
	page, err := r.env.Executions.List(ctx, f)
	var fe *engine.FilterError
	if errors.As(err, &fe) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fe.Error() + "; use the older link of the last page"}
	}
	if err != nil {
		return nil, fmt.Errorf("read conversation log: %w", err)
	}
	calls := make([]logEntry, 0, len(page.Executions))
	for i := len(page.Executions) - 1; i >= 0; i-- {
		calls = append(calls, shownInLog(page.Executions[i]))
	}
	out := map[string]any{"conversation": conv, "calls": calls}
	if page.More {
		out["older"] = ConversationURI(conv, "log") + "?before=" + url.QueryEscape(page.Executions[len(page.Executions)-1].ID)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}}, nil
}
