package consolidated

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/conversation"
	"toolhost/internal/edit"
	"toolhost/internal/engine"
	"toolhost/internal/filetest"
	"toolhost/internal/terminal"
	"toolhost/store"
	"toolhost/store/storetest"
)

const testConversation = "conv-test"

// harness serves tools to a go-sdk client over the in-memory transport, registered the way
// internal/server registers them (tools, their resources, the subscription handlers), on a real
// store, guard and spill directory, and calls them as a client does. Every tool test uses it; the
// tools to serve are the option that differs.
type harness struct {
	t     testing.TB
	wd    string // the working directory, canonical
	st    *store.Store
	guard *authz.Guard
	env   *Env
	reg   *Registry
	cs    *mcp.ClientSession
	// server, client and sopts open more sessions: a test's "conversation_id" argument names
	// a client session of its own (named), which leases its own conversation as a second chat
	// would; the argument itself never reaches the server.
	server *mcp.Server
	client *mcp.Client
	sopts  *mcp.ClientSessionOptions
	named  map[string]*mcp.ClientSession
	convOf map[string]string // session name ("" for cs) -> the conversation it leased
	// tool is the tool op and mustOp call: the first one the options build.
	tool string

	mu       sync.Mutex
	progress []string // messages of progress notifications
	updated  []string // URIs of resource-updated notifications
	logs     []*mcp.LoggingMessageParams
	elicited []*mcp.ElicitParams
	// answerWith plays the user when a tool asks (harnessOptions.elicit).
	answerWith func(*mcp.ElicitParams) *mcp.ElicitResult
	closed     sync.Once
	// facts are the structured facts of each call's result by the call's key (factsKey in
	// _meta), as the registry's observer saw them: clients never receive them.
	facts map[string]any
	calls int
}

// factsKey is the _meta key that ties a harness call to the facts its result reported.
const factsKey = "toolhost.test/call"

type harnessOptions struct {
	// tools builds the tools to serve, on the harness's guard and store.
	tools func(h *harness) []*Tool
	// budgetTokens is the result budget (0: the default).
	budgetTokens int
	// st and wd reuse a store and working directory (a restart); nil and "" make new ones.
	st *store.Store
	wd string
	// protocol is the client's protocol version; "" is the SDK default.
	protocol string
	// clientName is the clientInfo name the client sends; "" is "test".
	clientName string
	// elicit makes the client declare elicitation and answer with answerWith.
	elicit bool
	// guard, when set, adjusts the guard's configuration (outside reads that need a grant).
	guard func(*authz.Config)
	// executions records calls in an execution engine on the harness's store (h.env.Executions).
	executions bool
}

func newHarness(t testing.TB, o harnessOptions) *harness {
	t.Helper()
	ctx := context.Background()
	wd := o.wd
	var err error
	if wd == "" {
		if wd, err = filepath.EvalSymlinks(t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	h := &harness{t: t, wd: wd, st: o.st}
	if h.st == nil {
		h.st = storetest.Open(t)
	}
	gcfg := authz.Config{WorkDir: wd, StateDir: h.st.Dir(), Store: h.st, Ask: AskCall()}
	if o.guard != nil {
		o.guard(&gcfg)
	}
	if h.guard, err = authz.New(ctx, gcfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.guard.Close() })
	spill, err := NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	leases, err := conversation.New(h.st, conversation.Options{Workdir: wd, Base: testConversation})
	if err != nil {
		t.Fatal(err)
	}
	h.env = &Env{Workdir: wd, DefaultConversation: testConversation, BudgetTokens: o.budgetTokens, Spill: spill,
		Conversations: NewSessions(leases, nil)}
	// After the sessions' own cleanups (registered later, run earlier): no release may write
	// the store once its directory is being removed.
	t.Cleanup(func() { h.env.Conversations.Close(context.Background()) })
	if o.executions {
		e, err := engine.Open(ctx, engine.Options{StateDir: h.st.Dir(), Store: h.st})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		h.env.Executions = e
	}
	tools := o.tools(h)
	h.tool = tools[0].Name
	h.reg = NewRegistry(h.env, tools, nil)
	h.facts = map[string]any{}
	h.reg.observe = func(c *Call, res *Result) {
		if c.Request == nil || c.Request.Params == nil {
			return
		}
		if key, ok := c.Request.Params.GetMeta()[factsKey].(string); ok {
			h.mu.Lock()
			h.facts[key] = res.Structured
			h.mu.Unlock()
		}
	}
	t.Cleanup(h.close)
	s := mcp.NewServer(&mcp.Implementation{Name: "toolhost", Version: "test"}, &mcp.ServerOptions{
		SubscribeHandler: h.reg.Subscribe, UnsubscribeHandler: h.reg.Unsubscribe,
	})
	h.reg.Register(s)
	h.server, h.named, h.convOf = s, map[string]*mcp.ClientSession{}, map[string]string{}
	copts := &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			h.mu.Lock()
			h.progress = append(h.progress, req.Params.Message)
			h.mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			h.mu.Lock()
			h.logs = append(h.logs, req.Params)
			h.mu.Unlock()
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			h.mu.Lock()
			h.updated = append(h.updated, req.Params.URI)
			h.mu.Unlock()
		},
	}
	if o.elicit {
		copts.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			h.mu.Lock()
			h.elicited = append(h.elicited, r.Params)
			answer := h.answerWith
			h.mu.Unlock()
			return answer(r.Params), nil
		}
	}
	if o.protocol != "" {
		h.sopts = &mcp.ClientSessionOptions{ProtocolVersion: o.protocol}
	}
	name := o.clientName
	if name == "" {
		name = "test"
	}
	h.client = mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, copts)
	h.cs = h.connect("")
	return h
}

// connectInMemory connects client c to server s over in-memory transports, with the client
// session's options opts; both sessions close when the test ends.
func connectInMemory(t testing.TB, s *mcp.Server, c *mcp.Client, opts *mcp.ClientSessionOptions) (*mcp.ServerSession, *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	sTrans, cTrans := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, sTrans, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := c.Connect(ctx, cTrans, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return ss, cs
}

// connect opens a client session named name and leases its conversation at once, so that the
// harness's first session works in testConversation whatever a test calls first.
func (h *harness) connect(name string) *mcp.ClientSession {
	h.t.Helper()
	ss, cs := connectInMemory(h.t, h.server, h.client, h.sopts)
	conv, err := h.env.Conversations.Conversation(context.Background(), ss, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	h.mu.Lock()
	h.convOf[name] = conv
	h.mu.Unlock()
	return cs
}

// session is the client session a test's "conversation_id" names ("" is the first one).
func (h *harness) session(name string) *mcp.ClientSession {
	if name == "" {
		return h.cs
	}
	h.mu.Lock()
	cs, ok := h.named[name]
	h.mu.Unlock()
	if !ok {
		cs = h.connect(name)
		h.mu.Lock()
		h.named[name] = cs
		h.mu.Unlock()
	}
	return cs
}

// conversation is the conversation the session name leased ("" is the first session's).
func (h *harness) conversation(name string) string {
	h.session(name)
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.convOf[name]
}

// newFileHarness serves file_operations, with an edit journal in the state directory, and
// read_tool_result.
func newFileHarness(t testing.TB, budgetTokens int) *harness {
	t.Helper()
	return newHarness(t, harnessOptions{budgetTokens: budgetTokens, tools: func(h *harness) []*Tool {
		return []*Tool{testFileTool(h), ReadToolResultTool()}
	}})
}

// testFileTool is file_operations on the harness's guard, journaling its writes in the state
// directory. list_dir measures ages from a clock 400 days ahead, so every file a test writes
// is "13mo" old however long the test takes.
func testFileTool(h *harness) *Tool {
	h.t.Helper()
	j, _, err := edit.OpenJournal(filepath.Join(h.st.Dir(), "journal"), nil)
	if err != nil {
		h.t.Fatal(err)
	}
	later := time.Now().Add(400 * 24 * time.Hour)
	return FileTool(FileConfig{Guard: h.guard, Journal: j, Now: func() time.Time { return later }})
}

// newTermHarness serves terminal_operations on a terminal engine with short waits.
func newTermHarness(t testing.TB, o harnessOptions) *harness {
	t.Helper()
	o.tools = func(h *harness) []*Tool { return []*Tool{testTerminalTool(h)} }
	return newHarness(t, o)
}

// testTerminalTool is terminal_operations on a terminal engine of its own with short waits; the
// harness closes it (and so the engine) at cleanup.
func testTerminalTool(h *harness) *Tool {
	h.t.Helper()
	mgr, err := terminal.NewManager(terminal.Config{Store: h.st, CloseGrace: 500 * time.Millisecond, MaxWait: 20 * time.Second})
	if err != nil {
		h.t.Fatal(err)
	}
	return TerminalTool(TerminalConfig{Manager: mgr, Guard: h.guard, MaxWait: 20 * time.Second})
}

// newCollabHarness serves user_collaboration and file_operations to a client that answers
// elicitations (when elicit is set) with answerWith.
func newCollabHarness(t testing.TB, elicit bool) *harness {
	t.Helper()
	return newHarness(t, harnessOptions{budgetTokens: 5000, elicit: elicit, tools: func(h *harness) []*Tool {
		return []*Tool{UserCollaborationTool(CollaborationConfig{Guard: h.guard, MaxWait: 1}), FileTool(FileConfig{Guard: h.guard})}
	}})
}

// close closes the tools (ending terminal sessions, as the server does when it stops); it runs at
// cleanup, and earlier for tests of a restart.
func (h *harness) close() {
	h.closed.Do(func() {
		if err := h.reg.Close(); err != nil {
			h.t.Errorf("closing the tools: %v", err)
		}
	})
}

// callParams runs one call and returns its text (every block), whether it is an error, and the
// structured facts the handler reported, decoded into a map. Those never reach the client: a
// result with structuredContent fails the test.
func (h *harness) callParams(p *mcp.CallToolParams) (string, bool, map[string]any) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := h.cs
	if args, ok := p.Arguments.(map[string]any); ok {
		if name, ok := args["conversation_id"].(string); ok {
			cs = h.session(name)
			rest := make(map[string]any, len(args))
			for k, v := range args {
				if k != "conversation_id" {
					rest[k] = v
				}
			}
			p = &mcp.CallToolParams{Name: p.Name, Arguments: rest, Meta: p.Meta}
		}
	}
	h.mu.Lock()
	h.calls++
	key := fmt.Sprint(h.calls)
	h.mu.Unlock()
	if p.Meta == nil {
		p.Meta = mcp.Meta{}
	}
	p.Meta[factsKey] = key
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		h.t.Fatalf("CallTool(%s, %v): %v", p.Name, p.Arguments, err)
	}
	if res.StructuredContent != nil {
		h.t.Errorf("CallTool(%s, %v) has structuredContent %v, want none: clients that forward only it would lose the text", p.Name, p.Arguments, res.StructuredContent)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	h.mu.Lock()
	facts := h.facts[key]
	delete(h.facts, key)
	h.mu.Unlock()
	var st map[string]any
	if facts != nil {
		raw, _ := json.Marshal(facts)
		_ = json.Unmarshal(raw, &st)
	}
	return b.String(), res.IsError, st
}

// call runs tool with args.
func (h *harness) call(tool string, args map[string]any) (string, bool, map[string]any) {
	h.t.Helper()
	return h.callParams(&mcp.CallToolParams{Name: tool, Arguments: args})
}

// op calls the harness's tool with operation op; args may be nil.
func (h *harness) op(op string, args map[string]any) (string, bool, map[string]any) {
	h.t.Helper()
	m := map[string]any{"operation": op}
	for k, v := range args {
		m[k] = v
	}
	return h.call(h.tool, m)
}

// mustOp is op that fails the test when the call is an error.
func (h *harness) mustOp(op string, args map[string]any) (string, map[string]any) {
	h.t.Helper()
	text, isErr, st := h.op(op, args)
	if isErr {
		h.t.Fatalf("%s %s %v failed:\n%s", h.tool, op, args, text)
	}
	return text, st
}

// write creates files under the working directory: path -> content.
func (h *harness) write(files map[string]string) {
	h.t.Helper()
	filetest.Write(h.t, h.wd, files)
}

func (h *harness) read(p string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.wd, filepath.FromSlash(p)))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

func (h *harness) exists(p string) bool {
	_, err := os.Lstat(filepath.Join(h.wd, filepath.FromSlash(p)))
	return err == nil
}
