package consolidated

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/engine"
	"toolhost/internal/secret"
)

// Env carries what handlers share: configuration and the engines they call. It is built once by
// the wiring in cmd/ and never changed while the server runs.
type Env struct {
	Workdir  string
	StateDir string
	// Conversations gives each MCP session the conversation it leased; the transport decides a
	// call's conversation, never its arguments.
	Conversations *Sessions
	// DefaultConversation is the conversation of calls without a session (toolhost call,
	// in-process tests) and of every call when Conversations is nil (a pinned conversation).
	DefaultConversation string
	// Profile names the active profile in "disabled" errors.
	Profile string
	// BudgetTokens caps a result's text; larger text is cut and spilled. Zero means
	// DefaultBudgetTokens. The calling client's own limit caps it further (ResultBudget).
	BudgetTokens int
	// Output are the user's limits of their client, which replace the client's row of
	// ClientLimits.
	Output OutputLimits
	Spill  *Spill
	Logger *slog.Logger
	// Executions records every call; nil keeps no history.
	Executions *engine.Engine
	// Limits rate-limits calls per principal and category; nil sets no limit.
	Limits *engine.Limits
	// Approvals says where the user answers authorization requests, in the texts that
	// ask the model to relay one; nil names the CLI.
	Approvals *ApprovalPlace
	// AutoApprove, when set, is the line that heads every result: the guard grants what would
	// be asked ([guard] auto_approve), and whoever reads the transcript must know.
	AutoApprove string

	thoughts atomic.Int64
	// background keeps the finished background work the model has not read about.
	background backgroundBoard
	// tasks holds the MCP tasks running in this process.
	tasks taskRuns
}

// Allow decides whether an operation is enabled in the active profile.
type Allow func(tool, op string, risk Risk) bool

// Registry is the set of tools this server advertises, in the fixed order, with the operations the
// profile enables.
type Registry struct {
	env *Env
	// set is every declared tool and the operations enabled among them. The console swaps it
	// whole when the operator switches an operation (SetAllow), and Bind when the tools get
	// their engines; readers take one snapshot per use. setMu serialises the writers.
	set   atomic.Pointer[toolSet]
	setMu sync.Mutex
	// bound is closed once the tools have their engines: from the start for NewRegistry,
	// at Bind for Declare.
	bound chan struct{}
	// observe, when set, sees each successful result before it is shaped for the client; the
	// package's tests read the structured facts there, since clients never receive them.
	observe func(c *Call, res *Result)
	// roots routes sessions to the workspace of their client's root (UseRoots).
	roots *sessionRoots

	// lists holds the tool lists ToolsFor built (listKey → []*mcp.Tool): tools/list is
	// answered from here, so each list is derived from the tables once, under listMu.
	lists  sync.Map
	listMu sync.Mutex

	mu           sync.Mutex
	registeredOn []*mcp.Server        // the servers Register was called with
	served       map[*mcp.Server]bool // the servers this registry's tools were given
}

// NewRegistry filters tools through allow and orders them by Order. Tools whose name is not in
// Order are a programming error.
func NewRegistry(env *Env, tools []*Tool, allow Allow) *Registry {
	r := Declare(env, validated(tools), allow)
	close(r.bound)
	return r
}

// toolSet is one snapshot of a registry's tools: every declared tool in Order, and the
// advertised ones with their enabled operations.
type toolSet struct {
	tools []*Tool
	on    map[string][]Operation
}

// validated returns tools after validating each table (Tool.validate panics on a bad one).
func validated(tools []*Tool) []*Tool {
	for _, t := range tools {
		t.validate()
	}
	return tools
}

// ordered returns tools in Order. Tools whose name is not in Order are a programming error.
func ordered(tools []*Tool) []*Tool {
	var out []*Tool
	for _, name := range Order {
		for _, t := range tools {
			if t.Name == name {
				out = append(out, t)
			}
		}
	}
	for _, t := range tools {
		if !slices.Contains(Order, t.Name) {
			panic("consolidated: tool " + t.Name + " is not in Order")
		}
	}
	return out
}

// current is the registry's snapshot of its tools.
func (r *Registry) current() *toolSet { return r.set.Load() }

// Tools returns the advertised tools in the fixed order, as clients will see them.
func (r *Registry) Tools() []*mcp.Tool { return r.ToolsFor(authz.TierAdmin) }

// ToolsFor returns the tools a principal of tier may call: each with only the operations its
// tier allows, and none where it allows no operation. The list is the same bytes on every
// call for a tier (clients cache the prompt prefix that holds it). It is built once per tier
// and set of enabled operations; callers may reorder the returned slice but must not change
// the tools.
func (r *Registry) ToolsFor(tier authz.Tier) []*mcp.Tool {
	set := r.current()
	key := listKey{set: set, tier: tier}
	if v, ok := r.lists.Load(key); ok {
		return slices.Clone(v.([]*mcp.Tool))
	}
	// One builder at a time: a list built ahead (see the stdio server) is waited for, not
	// built twice.
	r.listMu.Lock()
	defer r.listMu.Unlock()
	if v, ok := r.lists.Load(key); ok {
		return slices.Clone(v.([]*mcp.Tool))
	}
	out := buildTools(set, tier)
	r.lists.Store(key, out)
	return slices.Clone(out)
}

// listKey names one built tool list: the snapshot of the tools it was built from (SetAllow
// swaps the snapshot, so a switch never serves a stale list) and the caller's tier.
type listKey struct {
	set  *toolSet
	tier authz.Tier
}

// buildTools derives the tool list of ToolsFor: descriptions and input schemas from the tables.
func buildTools(set *toolSet, tier authz.Tier) []*mcp.Tool {
	out := []*mcp.Tool{}
	for _, t := range set.tools {
		var ops []Operation
		for _, op := range set.on[t.Name] {
			if tier.Allows(op.RiskCategory()) {
				ops = append(ops, op)
			}
		}
		if len(ops) == 0 {
			continue
		}
		out = append(out, &mcp.Tool{
			Name:        t.Name,
			Title:       t.Title,
			Description: t.description(ops),
			InputSchema: t.inputSchema(ops),
			Annotations: annotations(ops),
		})
	}
	return out
}

// MarkdownTable is the README's tool table for the advertised tools: place in the fixed order,
// name, and the operations (a single-purpose tool's summary instead), one row per tool.
func (r *Registry) MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| # | tool | operations |\n|---|------|------------|\n")
	set := r.current()
	for _, t := range set.advertised() {
		ops := set.on[t.Name]
		what := ops[0].Summary
		if !t.Single {
			names := make([]string, len(ops))
			for i, op := range ops {
				names[i] = "`" + op.Name + "`"
			}
			what = strings.Join(names, ", ")
		}
		fmt.Fprintf(&b, "| %d | `%s` | %s |\n", slices.Index(Order, t.Name)+1, t.Name, what)
	}
	return b.String()
}

// Names returns the advertised tool names in order.
func (r *Registry) Names() []string {
	var out []string
	for _, t := range r.advertised() {
		out = append(out, t.Name)
	}
	return out
}

func annotations(ops []Operation) *mcp.ToolAnnotations {
	readOnly, destructive, open := true, false, false
	for _, op := range ops {
		switch op.Risk {
		case RiskState:
			readOnly = false
		case RiskWrite:
			readOnly, destructive = false, true
		case RiskExecute:
			readOnly, destructive, open = false, true, true
		case RiskNetwork:
			readOnly, open = false, true
		}
	}
	a := &mcp.ToolAnnotations{ReadOnlyHint: readOnly, OpenWorldHint: &open}
	if !readOnly {
		a.DestructiveHint = &destructive
	}
	return a
}

// Register adds the advertised tools to s, with their resources, gives the tools that track
// subscriptions the server to notify, and scopes resources to conversations (see
// resourceMiddleware). s should route resources/subscribe and unsubscribe to
// Subscribe and Unsubscribe (mcp.ServerOptions.SubscribeHandler and UnsubscribeHandler).
func (r *Registry) Register(s *mcp.Server) {
	advertised := r.advertised()
	for _, t := range advertised {
		r.addTool(s, t.Name)
	}
	r.mu.Lock()
	r.registeredOn = append(r.registeredOn, s)
	r.mu.Unlock()
	r.env.background.addServer(s)
	for _, t := range advertised {
		for _, res := range t.Resources {
			if res.Template != nil {
				s.AddResourceTemplate(res.Template, r.resourceReader(t.Name, res))
			} else {
				s.AddResource(res.Resource, r.resourceReader(t.Name, res))
			}
		}
	}
	// A declared registry does not know yet whether it will keep a history: it registers the
	// resource, and resources/list leaves it out of a server without one (ListResources).
	if !r.isBound() || r.env.Executions != nil {
		s.AddResource(&mcp.Resource{URI: RecentExecutionsURI, Name: "recent-executions", MIMEType: "application/json",
			Description: "This conversation's running and last 20 finished tool calls: status, duration, errors.", Annotations: forUser(0.3)}, r.recentExecutions)
		s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: LogTemplate, Name: "log", MIMEType: "application/json",
			Description: "Every call of a conversation: arguments (masked), outcome, duration, execution id; 50 a page, newest page first.", Annotations: forUser(0.3)}, r.conversationLog)
	}
	r.serveOn([]*mcp.Server{s})
	s.AddReceivingMiddleware(r.resourceMiddleware(), r.listMiddleware(), r.tasksMiddleware())
}

// dispatchOnly is the input schema the registry gives the SDK with each tool. The SDK only
// dispatches calls by name (toolhost validates arguments itself, per operation) and would
// otherwise decode every full schema again at each registration (twice: for its type check
// and for header annotations); clients get the real schemas from listMiddleware. It is a
// *jsonschema.Schema because the SDK reads that type's "type" directly, where any other value
// is encoded and decoded again, and each decode takes a fresh 32 KB buffer.
var dispatchOnly = &jsonschema.Schema{Type: "object"}

// listMiddleware answers tools/list with ToolsFor for the caller's tier (admin when the
// request carries no principal): the schemas derived once from the tables, never the
// placeholders registered with the SDK, in the fixed order (the SDK sorts by name).
func (r *Registry) listMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method != "tools/list" || err != nil {
				return res, err
			}
			if lr, ok := res.(*mcp.ListToolsResult); ok {
				tier := authz.TierAdmin
				if p, ok := authz.PrincipalFrom(ctx); ok {
					tier = p.Tier
				}
				lr.Tools = r.ToolsFor(tier)
			}
			return res, nil
		}
	}
}

// Subscribe passes a resources/subscribe to every advertised tool that tracks subscriptions.
// A URI nobody serves is accepted too: the client then simply hears of no change.
func (r *Registry) Subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	if reg, err := r.route(ctx, req.Session); err != nil || reg != r {
		if err != nil {
			return err
		}
		return reg.Subscribe(ctx, req)
	}
	// Another conversation's resource is not found: a subscription would tell the client
	// when that conversation acts.
	if !ownResource(r.callerConversation(ctx, req.Session, req.Extra), req.Params.URI) {
		return mcp.ResourceNotFoundError(req.Params.URI)
	}
	for _, t := range r.advertised() {
		if t.Subscriptions != nil {
			if err := t.Subscriptions.Subscribe(ctx, req); err != nil {
				return err
			}
		}
	}
	return nil
}

// Unsubscribe passes a resources/unsubscribe like Subscribe.
func (r *Registry) Unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	if reg, err := r.route(ctx, req.Session); err == nil && reg != r {
		return reg.Unsubscribe(ctx, req)
	}
	for _, t := range r.advertised() {
		if t.Subscriptions != nil {
			if err := t.Subscriptions.Unsubscribe(ctx, req); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close closes every tool the registry was given, advertised or not, the last first.
func (r *Registry) Close() error {
	var errs []error
	tools := r.current().tools
	for i := len(tools) - 1; i >= 0; i-- {
		if c := tools[i].Close; c != nil {
			if err := c(); err != nil {
				errs = append(errs, fmt.Errorf("close %s: %w", tools[i].Name, err))
			}
		}
	}
	return errors.Join(errs...)
}

// ConversationEnded tells every tool the registry was given, advertised or not, that conv's
// session ended (Sessions.OnConversationEnded).
func (r *Registry) ConversationEnded(conv string) {
	for _, t := range r.current().tools {
		if t.ConversationEnded != nil {
			t.ConversationEnded(conv)
		}
	}
}

// advertised returns the tools the profile enables, in the fixed order.
func (r *Registry) advertised() []*Tool { return r.current().advertised() }

func (s *toolSet) advertised() []*Tool {
	var out []*Tool
	for _, t := range s.tools {
		if _, ok := s.on[t.Name]; ok {
			out = append(out, t)
		}
	}
	return out
}

// Resolve maps a tool name a model may send to an advertised tool. It accepts the exact name, a
// dotted name ("file_operations.read_file", also with ':' or '/') and an operation name sent as a
// tool name when exactly one advertised tool has it. For the last two, the operation is put into the
// arguments. ok is false for names nothing matches; a name that is known but disabled resolves to
// itself so that Dispatch can say it is disabled.
func (r *Registry) Resolve(name string, args json.RawMessage) (tool string, newArgs json.RawMessage, ok bool) {
	set := r.current()
	if set.declared(name) != nil {
		return name, args, true
	}
	for _, sep := range []string{".", ":", "/", "__"} {
		if tn, op, found := strings.Cut(name, sep); found && set.declared(tn) != nil {
			return tn, withOperation(args, op), true
		}
	}
	var owners []string
	for _, t := range set.tools {
		if _, on := set.on[t.Name]; !on || t.Single {
			continue
		}
		if _, has := t.operation(name); has {
			owners = append(owners, t.Name)
		}
	}
	if len(owners) == 1 {
		return owners[0], withOperation(args, name), true
	}
	return "", args, false
}

// withOperation sets the operation field of a JSON object, keeping the other fields.
func withOperation(args json.RawMessage, op string) json.RawMessage {
	m, err := rawArgs(args)
	if err != nil {
		return args
	}
	if _, has := m["operation"]; !has {
		m["operation"] = mustJSON(op)
	}
	b, _ := json.Marshal(m)
	return b
}

func (s *toolSet) declared(name string) *Tool {
	for _, t := range s.tools {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// maxNameShown bounds a tool or operation name no tool declares where it is echoed (the error
// for the model, the log): the model chose it, and may have chosen a long one.
const maxNameShown = 80

// cancelWait is how long a cancelled call waits for its handler to say how the work ended: a
// command's tree is killed with SIGKILL after a grace and up to 5 s of retries, and the
// execution is not recorded as cancelled before its processes are gone.
const cancelWait = 10 * time.Second

// ExecutionMetaKey is the key of a tool result's _meta that holds the call's execution id, the
// id of its record in the execution history (toolhost history, /api/executions, the
// conversation's log).
const ExecutionMetaKey = "toolhost/execution_id"

// Dispatch runs one call: validation, the handler under its deadline with panic recovery, result
// shaping and logging. It never returns a protocol error: everything the model can act on is an
// isError result.
func (r *Registry) Dispatch(ctx context.Context, toolName string, raw json.RawMessage, req *mcp.CallToolRequest) *mcp.CallToolResult {
	out, _ := r.DispatchFacts(ctx, toolName, raw, req)
	return out
}

// DispatchFacts is Dispatch that also returns the structured facts the handler reported
// (Result.Structured: ids, exit codes, statuses), which clients never receive. The CLI's call
// command prints them for scripts; facts is nil for an error or a handler that reports none.
func (r *Registry) DispatchFacts(ctx context.Context, toolName string, raw json.RawMessage, req *mcp.CallToolRequest) (out *mcp.CallToolResult, facts any) {
	start := time.Now()
	c := &Call{Tool: toolName, ExecutionID: engine.NewID(start), Env: r.env, Request: req, Principal: callerPrincipal(ctx)}
	c.Logger = r.env.logger().With("exec", c.ExecutionID, "tool", truncateRunes(toolName, maxNameShown))
	// The arguments are split once, here: the handler's struct, the history's masked copy and
	// the log line all read this map.
	m, err := rawArgs(raw)
	masked := secret.Args(m)
	if err != nil {
		masked = secret.RawArgs(raw)
	}
	var op Operation
	var args any
	if err == nil {
		op, args, err = r.prepare(ctx, c, m)
	}
	if tr, isTask := taskParams(req); isTask && tr.runsAsTask(op, err) {
		if out := r.startTask(ctx, c, op, args, masked, tr, err); out != nil {
			return out, nil
		}
	}
	ctx, x := r.begin(ctx, c, op, masked)
	var res *Result
	if err == nil {
		err = r.admit(c, op)
	}
	if err == nil {
		res, err = r.invoke(ctx, c, op, args)
	}
	c.notes = append(c.notes, r.env.backgroundNotes(c.Conversation)...)
	out = r.toMCP(ctx, c, res, err)
	if r.env.AutoApprove != "" && len(out.Content) > 0 {
		if tc, ok := out.Content[0].(*mcp.TextContent); ok {
			tc.Text = r.env.AutoApprove + "\n" + tc.Text
		}
	}
	// The id reaches scripts and clients with the result; models read only content, except
	// through a client that shows them the result's whole JSON, where it would cost tokens.
	if c.Request == nil || !ForwardsJSON(c.Request.ClientInfo()) {
		out.Meta = mcp.Meta{ExecutionMetaKey: c.ExecutionID}
	}
	if err == nil && res != nil {
		facts = res.Structured
		if r.observe != nil {
			r.observe(c, res)
		}
	}
	r.finish(ctx, c, x, out, err)
	outcome := "ok"
	var cause error
	switch {
	case err != nil:
		outcome = "error"
		var te *ToolError
		if errors.As(err, &te) {
			outcome, cause = "error:"+string(te.Code), te.Cause
		}
	case out.IsError:
		outcome = "failed"
	}
	attrs := []any{"op", truncateRunes(c.Operation, maxNameShown), "conv", c.Conversation, "dur", time.Since(start).Round(time.Microsecond),
		"outcome", outcome, "args", summarizeArgs(m, len(raw))}
	if cause != nil {
		// The operator's half of a ToolError: the model read only its message.
		attrs = append(attrs, "cause", cause.Error())
	}
	c.Logger.Info("call", attrs...)
	return out, facts
}

// prepare finds the operation and decodes its arguments, setting the call's operation and
// conversation; an error is for the model.
func (r *Registry) prepare(ctx context.Context, c *Call, m map[string]json.RawMessage) (Operation, any, error) {
	if !r.isBound() {
		return Operation{}, nil, errNotBound
	}
	set := r.current()
	t := set.declared(c.Tool)
	if t == nil {
		return Operation{}, nil, &ToolError{Code: CodeUnknownTool, Message: fmt.Sprintf("no tool %q", truncateRunes(c.Tool, maxNameShown)), Next: "tools: " + strings.Join(r.Names(), ", ")}
	}
	enabled, advertised := set.on[t.Name]
	if !advertised {
		return Operation{}, nil, &ToolError{Code: CodeDisabled, Message: fmt.Sprintf("%s is disabled in profile %s", t.Name, r.env.profile()),
			Next: "tools: " + strings.Join(r.Names(), ", ")}
	}
	m = canonicalKeys(t, m)
	op := enabled[0]
	if !t.Single {
		var name string
		if v, ok := m["operation"]; ok {
			if json.Unmarshal(v, &name) != nil {
				return Operation{}, nil, &ToolError{Code: CodeInvalidType, Param: "operation", Message: "operation must be a string", Next: "operations: " + strings.Join(opNames(enabled), ", ")}
			}
		}
		if name == "" {
			return Operation{}, nil, &ToolError{Code: CodeMissingParameter, Param: "operation", Message: t.Name + " requires operation",
				Next: "operations: " + strings.Join(opNames(enabled), ", ")}
		}
		c.Operation = name
		found := false
		for _, o := range enabled {
			if o.Name == name {
				op, found = o, true
			}
		}
		if !found {
			if _, declared := t.operation(name); declared {
				return Operation{}, nil, &ToolError{Code: CodeDisabled, Param: "operation",
					Message: fmt.Sprintf("%s.%s is disabled in profile %s", t.Name, name, r.env.profile()),
					Next:    "operations: " + strings.Join(opNames(enabled), ", ")}
			}
			te := &ToolError{Code: CodeUnknownOperation, Param: "operation", Message: fmt.Sprintf("%s has no operation %q", t.Name, truncateRunes(name, maxNameShown)),
				Next: "operations: " + strings.Join(opNames(enabled), ", ")}
			if n := nearest(name, opNames(enabled)); n != "" {
				te.Next = fmt.Sprintf("did you mean %s? operations: %s", n, strings.Join(opNames(enabled), ", "))
			}
			return Operation{}, nil, te
		}
	} else {
		c.Operation = op.Name
	}
	if v, ok := m["conversation_id"]; ok && !isZeroJSON(v) {
		return op, nil, &ToolError{Code: CodeUnexpectedParameter, Param: "conversation_id",
			Message: "conversation_id is not a parameter: the connection chooses the conversation", Next: "call again without conversation_id"}
	}
	delete(m, "conversation_id")
	var err error
	if c.Conversation, err = r.callConversation(ctx, c.Request); errors.Is(err, errSessionPrincipal) {
		return op, nil, &ToolError{Code: CodeUnavailable, Message: "this session was opened with another credential", Next: "open a new session with this credential", Cause: err}
	} else if err != nil {
		return op, nil, &ToolError{Code: CodeUnavailable, Message: "this session has no conversation yet; try again in a moment", Cause: err}
	}
	args, ignored, err := decodeArgs(op, m)
	if err != nil {
		return op, nil, err
	}
	if len(ignored) > 0 {
		c.notes = append(c.notes, ignoredNote(op, ignored))
	}
	return op, args, nil
}

// invoke runs the handler in its own goroutine so that a handler that ignores its context cannot
// hold the call past its deadline, and so that a panic becomes an error result.
//
// A call is one use of a limited grant, however many paths it checks (a rename, a patch of two
// files), as the user meant when granting "once".
func (r *Registry) invoke(ctx context.Context, c *Call, op Operation, args any) (*Result, error) {
	c.namesOnly = op.NamesOnly
	deadline, err := op.deadline(args)
	if err != nil {
		return nil, err
	}
	if c.Task != "" && op.TaskWait {
		deadline = max(deadline, taskDeadline)
	}
	ctx, cancel := context.WithTimeout(authz.WithUseBatch(ctx), deadline)
	defer cancel()
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				c.Logger.Error("handler panic", "op", op.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				done <- outcome{err: &ToolError{Code: CodeInternal, Message: fmt.Sprintf("%s.%s failed inside toolhost (execution %s); the server log has details", c.Tool, op.Name, c.ExecutionID)}}
			}
		}()
		res, err := op.handle(ctx, c, args)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-ctx.Done():
		// A handler that honours cancellation (a command killed with its tree, a git hook's
		// process group) answers with how the work ended; one that does not is not waited for
		// long. Past the deadline too: the answer comes once the work's processes are gone.
		t := time.NewTimer(cancelWait)
		defer t.Stop()
		select {
		case o := <-done:
			if o.err == nil && o.res != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return o.res, nil
			}
		case <-t.C:
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			te := &ToolError{Code: CodeTimeout, Message: fmt.Sprintf("%s.%s did not finish within %s", c.Tool, op.Name, roundDur(deadline)),
				Next: "narrow the request, or use a smaller range"}
			if op.CallTimeout {
				te.Param = "timeout_seconds"
				te.Next = fmt.Sprintf("narrow the request, or raise timeout_seconds (at most %d)", int(op.timeout()/time.Second))
			}
			return nil, te
		}
		if errors.Is(context.Cause(ctx), engine.ErrCancelled) {
			return nil, &ToolError{Code: CodeCancelled, Message: fmt.Sprintf("execution %s was cancelled by the operator", c.ExecutionID)}
		}
		return nil, &ToolError{Code: CodeCancelled, Message: "the call was cancelled"}
	}
}

// toMCP shapes a handler's outcome into the result the client receives.
//
// The result carries no structuredContent, whatever the handler put in Result.Structured.
// Clients disagree on what reaches the model: Claude Code and Codex forward only
// structuredContent when a result has one, Qwen Code forwards it next to the text. The text is
// the result (content, output, diff, hits, the next step, reminders), so a client of either
// kind passes it on once, whole. toolhost declares no outputSchema, which would oblige it to
// send structuredContent.
func (r *Registry) toMCP(ctx context.Context, c *Call, res *Result, err error) *mcp.CallToolResult {
	if err != nil {
		var te *ToolError
		if se := stateError(r.env.StateDir, c.Tool, c.Operation, err); se != nil && !errors.As(err, &te) {
			c.Logger.Error("state unavailable", "op", c.Operation, "err", err)
			te = se
		} else if !errors.As(err, &te) {
			c.Logger.Error("handler error", "op", c.Operation, "err", err)
			te = &ToolError{Code: CodeInternal, Message: fmt.Sprintf("%s.%s failed inside toolhost (execution %s); the server log has details", c.Tool, c.Operation, c.ExecutionID)}
		}
		if te.Approval != "" && c.Env != nil {
			at := *te
			at.place = c.Env.Approvals
			te = &at
		}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: withNotes(te.Error(), c.notes)}}}
	}
	if res == nil {
		res = &Result{Text: "ok"}
	}
	if res.InputRequests != nil {
		return &mcp.CallToolResult{InputRequests: res.InputRequests, RequestState: res.RequestState}
	}
	for _, t := range r.advertised() {
		if t.AfterCall != nil {
			t.AfterCall(ctx, c, res)
		}
	}
	text := res.Text
	if b := c.Budget(); !res.NoSpill && !b.Fits(text) {
		id, why := "", "the state directory has no place for results (the server's log says why)"
		if r.env.Spill != nil {
			var serr error
			if id, serr = r.env.Spill.Put(c.Conversation, text); serr != nil {
				c.Logger.Error("spill", "err", serr)
				id, why = "", spillFailure(serr)
			}
		}
		text = b.Fit(text, id, why)
	}
	content := []mcp.Content{&mcp.TextContent{Text: withNotes(text, c.notes)}}
	content = append(content, res.Content...)
	for _, x := range res.Extra {
		content = append(content, &mcp.TextContent{Text: x})
	}
	return &mcp.CallToolResult{Content: content, IsError: res.IsError}
}

// withNotes ends a result's main text with the call's notes, after a blank line: in the text
// itself rather than a block of their own, since some clients join blocks without a break.
func withNotes(text string, notes []string) string {
	if len(notes) == 0 {
		return text
	}
	return text + "\n\n" + strings.Join(notes, "\n")
}

func opNames(ops []Operation) []string {
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = op.Name
	}
	return names
}

func (e *Env) logger() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.New(slog.DiscardHandler)
}

func (e *Env) profile() string {
	if e.Profile == "" {
		return "default"
	}
	return e.Profile
}

// loggedVerbatim are the parameters whose short values the log shows: names and ids that say
// what a call was about. Everything else (content, commands, input, queries, reasons) is logged
// by size only, since it may carry secrets a model typed or read.
var loggedVerbatim = map[string]bool{
	"operation": true, "path": true, "new_path": true, "cwd": true, "session_id": true, "id": true,
	"request_id": true, "conversation_id": true, "access": true, "scope": true, "mode": true,
	"encoding": true, "sort": true, "recursive": true, "once": true, "minutes": true, "limit": true,
	"start_line": true, "end_line": true, "offset": true, "max_results": true, "dry_run": true,
}

// summarizeArgs logs the shape of the arguments, never their content: keys with sizes, and short
// values only for the names and ids in loggedVerbatim.
func summarizeArgs(m map[string]json.RawMessage, size int) string {
	if m == nil {
		return fmt.Sprintf("(%d bytes, not an object)", size)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		v := strings.TrimSpace(string(m[k]))
		if !loggedVerbatim[snakeCase(k)] || len(v) > 120 {
			v = fmt.Sprintf("(%d bytes)", len(v))
		}
		b.WriteString(k + "=" + secret.Text(v))
	}
	return b.String()
}
