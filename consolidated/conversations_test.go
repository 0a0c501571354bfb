package consolidated

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/conversation"
	"toolhost/reminders"
	"toolhost/store/storetest"
)

// newConvHarness serves the tools whose state follows the conversation: todos (with their
// resource), files and read_tool_result, with a budget small enough to spill a listing.
func newConvHarness(t *testing.T) *harness {
	t.Helper()
	return newHarness(t, harnessOptions{budgetTokens: 300, tools: func(h *harness) []*Tool {
		return []*Tool{TodoTool(h.st, nil), testFileTool(h), ReadToolResultTool()}
	}})
}

func todoTitles(h *harness, session string) string {
	h.t.Helper()
	text, isErr, _ := h.call("todo_operations", map[string]any{"operation": "read", "conversation_id": session})
	if isErr {
		h.t.Fatalf("read todos in %s: %s", session, text)
	}
	return text
}

// TestSessionsKeepTheirOwnConversation: two sessions on one server (two chats on one project)
// never see each other's plan, whatever they call first.
func TestSessionsKeepTheirOwnConversation(t *testing.T) {
	h := newConvHarness(t)
	if a, b := h.conversation(""), h.conversation("b"); a == b || a != testConversation {
		t.Fatalf("sessions leased %q and %q; want %q and another", a, b, testConversation)
	}
	h.call("todo_operations", map[string]any{"operation": "write", "todos": []map[string]any{{"id": 1, "title": "plan of a", "status": "in-progress"}}})
	h.call("todo_operations", map[string]any{"operation": "write", "conversation_id": "b", "todos": []map[string]any{{"id": 1, "title": "plan of b", "status": "in-progress"}}})
	tests := []struct{ name, session, want, notWant string }{
		{"first session", "", "plan of a", "plan of b"},
		{"second session", "b", "plan of b", "plan of a"},
		{"third session", "c", "", "plan of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := todoTitles(h, tt.session)
			if !strings.Contains(got, tt.want) || strings.Contains(got, tt.notWant) {
				t.Errorf("todos of session %q = %q, want %q and not %q", tt.session, got, tt.want, tt.notWant)
			}
		})
	}
}

// TestModelCannotNameAConversation: conversation_id is not a parameter; a call that sends one
// is refused and changes nothing, in any spelling a model might try.
func TestModelCannotNameAConversation(t *testing.T) {
	h := newConvHarness(t)
	other := h.conversation("other")
	h.call("todo_operations", map[string]any{"operation": "write", "conversation_id": "other",
		"todos": []map[string]any{{"id": 1, "title": "secret plan", "status": "in-progress"}}})
	tests := []struct {
		name string
		args map[string]any
	}{
		{"read another conversation", map[string]any{"operation": "read", "conversation_id": other}},
		{"camelCase", map[string]any{"operation": "read", "conversationId": other}},
		{"write into another conversation", map[string]any{"operation": "write", "conversation_id": other,
			"todos": []map[string]any{{"id": 1, "title": "overwritten", "status": "in-progress"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// h.cs directly: the harness would take conversation_id as a session's name.
			res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "todo_operations", Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			if !res.IsError || !strings.Contains(text, "the connection chooses the conversation") || strings.Contains(text, "secret plan") {
				t.Errorf("call with %v = %q (error %v), want unexpected_parameter naming the conversation", tt.args, text, res.IsError)
			}
		})
	}
	if got := todoTitles(h, "other"); !strings.Contains(got, "secret plan") {
		t.Errorf("the other conversation's plan = %q, want it untouched", got)
	}
	if got := todoTitles(h, ""); strings.Contains(got, "secret plan") || strings.Contains(got, "overwritten") {
		t.Errorf("the caller's own plan = %q, want empty", got)
	}
}

// TestSpillFollowsTheConversation: a spilled result's id pages only in the conversation whose
// call produced it.
func TestSpillFollowsTheConversation(t *testing.T) {
	h := newConvHarness(t)
	var files = map[string]string{}
	for i := range 80 {
		files["dir/file-with-a-long-name-"+strings.Repeat("x", 20)+string(rune('a'+i%26))+strings.Repeat("y", i)+".txt"] = "x"
	}
	h.write(files)
	text, isErr, _ := h.call("file_operations", map[string]any{"operation": "list_dir", "path": "dir"})
	m := regexp.MustCompile(`"id":"(r[0-9a-f]{12})"`).FindStringSubmatch(text)
	if isErr || m == nil {
		t.Fatalf("list_dir was not spilled: %s", text)
	}
	tests := []struct {
		name, session string
		wantErr       bool
	}{
		{"own conversation", "", false},
		{"another conversation", "other", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, isErr, _ := h.call("read_tool_result", map[string]any{"id": m[1], "conversation_id": tt.session})
			if isErr != tt.wantErr || tt.wantErr && !strings.Contains(got, "not_found") {
				t.Errorf("read_tool_result(%s) in %s = %q (error %v), want error %v", m[1], tt.session, got, isErr, tt.wantErr)
			}
		})
	}
}

// TestResourcesFollowTheConversation: a session reads its own todo resource; another
// conversation's URI is not found, as if it named nothing.
func TestResourcesFollowTheConversation(t *testing.T) {
	h := newConvHarness(t)
	other := h.conversation("other")
	h.call("todo_operations", map[string]any{"operation": "write", "conversation_id": "other",
		"todos": []map[string]any{{"id": 1, "title": "secret plan", "status": "in-progress"}}})
	ctx := context.Background()
	if _, err := h.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: reminders.ResourceURI(other)}); err == nil {
		t.Errorf("ReadResource of another conversation's todos succeeded, want not found")
	}
	res, err := h.session("other").ReadResource(ctx, &mcp.ReadResourceParams{URI: reminders.ResourceURI(other)})
	if err != nil || !strings.Contains(res.Contents[0].Text, "secret plan") {
		t.Errorf("ReadResource of the session's own todos = %v, %v", res, err)
	}
}

// TestClosedSessionIsResumed: when a session ends, the next new session takes its
// conversation and finds its plan (an agent restarted).
func TestClosedSessionIsResumed(t *testing.T) {
	h := newConvHarness(t)
	a := h.conversation("a")
	h.call("todo_operations", map[string]any{"operation": "write", "conversation_id": "a",
		"todos": []map[string]any{{"id": 1, "title": "plan of a", "status": "in-progress"}}})
	h.session("a").Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		// The release follows the session's end asynchronously; a session opened before it
		// gets a conversation of its own, so ask until a new session resumes.
		name := "resumed-" + time.Now().Format("150405.000000")
		if h.conversation(name) == a {
			if got := todoTitles(h, name); !strings.Contains(got, "plan of a") {
				t.Errorf("resumed session's todos = %q, want the plan of a", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new session resumed %s after it was released", a)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSessionPrincipals: the principal comes from the transport (the context, else the
// verified token's user id), a session keeps the principal it leased with, and a stateless
// request works in its principal's shared conversation.
func TestSessionPrincipals(t *testing.T) {
	st := storetest.Open(t)
	leases, err := conversation.New(st, conversation.Options{Workdir: "/w", Base: "wd-x"})
	if err != nil {
		t.Fatal(err)
	}
	sessions := NewSessions(leases, nil)
	t.Cleanup(func() { sessions.Close(context.Background()) })
	server := mcp.NewServer(&mcp.Implementation{Name: "toolhost", Version: "test"}, nil)
	connect := func() *mcp.ServerSession {
		sTrans, _ := mcp.NewInMemoryTransports()
		ss, err := server.Connect(context.Background(), sTrans, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		return ss
	}
	as := func(name string) context.Context {
		return authz.WithPrincipal(context.Background(), authz.Principal{Name: name})
	}
	token := func(user string) *mcp.RequestExtra {
		return &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{UserID: user}}
	}
	// first is a principal's first leased conversation: its stateless one's name without the
	// suffix.
	first := func(p string) string { return strings.TrimSuffix(leases.Shared(p), "-stateless") }
	alice, carol := connect(), connect()
	tests := []struct {
		name    string
		ctx     context.Context
		ss      *mcp.ServerSession
		extra   *mcp.RequestExtra
		want    string // "" when an error is wanted
		wantErr bool
	}{
		{"alice's session leases", as("alice"), alice, nil, first("alice"), false},
		{"alice again, same conversation", as("alice"), alice, nil, first("alice"), false},
		{"bob on alice's session", as("bob"), alice, nil, "", true},
		{"the local user on alice's session", context.Background(), alice, nil, "", true},
		{"a token's user id names the principal", context.Background(), carol, token("carol"), first("carol"), false},
		{"stateless request", as("alice"), connect(), &mcp.RequestExtra{Header: map[string][]string{}}, leases.Shared("alice"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sessions.Conversation(tt.ctx, tt.ss, tt.extra)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("Conversation = %q, %v; want %q (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestRequestsAndGrantsFollowTheConversation: a pending request and the grant the user gives
// for it belong to the conversation that asked; another session can neither follow the request
// nor use the grant.
func TestRequestsAndGrantsFollowTheConversation(t *testing.T) {
	h := newCollabHarness(t, false)
	out, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	text, isErr, st := h.call("user_collaboration", map[string]any{"operation": "request_authorization", "path": out, "access": "file_operations:write", "recursive": true})
	id, _ := st["request_id"].(string)
	if isErr || id == "" {
		t.Fatalf("request_authorization = %q %v, want a pending request", text, st)
	}
	if got, isErr, _ := h.call("user_collaboration", map[string]any{"operation": "check_request", "request_id": id, "conversation_id": "other"}); !isErr || !strings.Contains(got, "another conversation") {
		t.Errorf("check_request of another session's request = %q, want not found", got)
	}
	if _, _, err := h.guard.Approve(context.Background(), id, time.Minute, false, "test user"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, session string
		wantErr       bool
	}{
		{"the conversation that asked", "", false},
		{"another session", "other", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, isErr, _ := h.call("file_operations", map[string]any{"operation": "create_file", "conversation_id": tt.session,
				"path": filepath.Join(out, tt.name+".txt"), "content": "x"})
			if isErr != tt.wantErr {
				t.Errorf("create_file outside from %s = %q (error %v), want error %v", tt.name, got, isErr, tt.wantErr)
			}
		})
	}
}
