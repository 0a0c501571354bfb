package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/golden"
	"toolhost/internal/mcptest"
)

// These tests drive the MCP surface besides tools (resource subscriptions, conversation scoping
// of resources, prompts, stream resumption) through the built binary, as clients see it; the
// in-process tests in internal/app and internal/server cover the same behaviour in detail.

// binaryTransports start a fresh binary and return how a client reaches it: `toolhost stdio`,
// or `toolhost serve` on loopback with its bearer token.
var binaryTransports = map[string]func(t *testing.T) mcp.Transport{
	"stdio": func(t *testing.T) mcp.Transport {
		return &mcp.CommandTransport{Command: command(t, "stdio")}
	},
	"http": func(t *testing.T) mcp.Transport {
		url, token := startServe(t)
		return &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token: token, base: http.DefaultTransport}}}
	},
}

// connectBinary connects a go-sdk client with opts over transport on protocol 2025-11-25.
func connectBinary(t *testing.T, transport mcp.Transport, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// listedURI returns the URI in the session's resources/list that starts with prefix and ends
// with suffix: its own conversation's todos or commands.
func listedURI(t *testing.T, cs *mcp.ClientSession, prefix, suffix string) string {
	t.Helper()
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		if strings.HasPrefix(r.URI, prefix) && strings.HasSuffix(r.URI, suffix) {
			return r.URI
		}
		uris = append(uris, r.URI)
	}
	t.Fatalf("resources/list = %v, want one %s...%s", uris, prefix, suffix)
	return ""
}

// callOK calls a tool and fails the test on an error result.
func callOK(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res := callWithin(t, cs, 0, tool, args)
	text := textOf(res, "")
	if res.IsError {
		t.Fatalf("%s %v: %s", tool, args["operation"], text)
	}
	return text
}

// TestResourceSubscribeThroughBinary: a client subscribed to its todo list hears
// notifications/resources/updated for that list when the plan changes, over stdio and HTTP.
func TestResourceSubscribeThroughBinary(t *testing.T) {
	for name, transport := range binaryTransports {
		t.Run(name, func(t *testing.T) {
			updated := make(chan string, 16)
			cs := connectBinary(t, transport(t), &mcp.ClientOptions{
				ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
			})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			todos := listedURI(t, cs, "toolhost://conversations/", "/todos")
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: todos}); err != nil {
				t.Fatalf("subscribe %s: %v", todos, err)
			}
			callOK(t, cs, "todo_operations", map[string]any{"operation": "write", "todos": []map[string]any{{"id": 1, "title": "Ship the release", "status": "in-progress"}}})
			select {
			case uri := <-updated:
				if uri != todos {
					t.Errorf("notifications/resources/updated for %s, want %s", uri, todos)
				}
			case <-ctx.Done():
				t.Fatalf("no notifications/resources/updated for %s after a todo write", todos)
			}
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: todos})
			if err != nil || !strings.Contains(res.Contents[0].Text, "Ship the release") {
				t.Errorf("read %s after the write = %v, %v; want the new plan", todos, res, err)
			}
		})
	}
}

// TestForeignConversationResourcesThroughBinary: two HTTP sessions on one `serve` work in two
// conversations. The second is shown none of the first's resources; every way it tries to name
// one (the listed URI, percent-encoded, with a query or a fragment, the scheme in capitals,
// dot segments) reads as an error, never as the first's plan, the listed URIs read and
// subscribe as not found; and whatever it subscribed to, it hears of its own plan's changes
// only.
func TestForeignConversationResourcesThroughBinary(t *testing.T) {
	url, token := startServe(t)
	transport := func() mcp.Transport {
		return &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token: token, base: http.DefaultTransport}}}
	}
	owner := connectBinary(t, transport(), nil)
	const secret = "plan-of-the-owner-7f3a"
	callOK(t, owner, "todo_operations", map[string]any{"operation": "write", "todos": []map[string]any{{"id": 1, "title": secret, "status": "in-progress"}}})
	callOK(t, owner, "terminal_operations", map[string]any{"operation": "run_command", "command": "echo " + secret})
	callOK(t, owner, "terminal_operations", map[string]any{"operation": "create_session", "session_id": "owned"})
	todos := listedURI(t, owner, "toolhost://conversations/", "/todos")
	commands := listedURI(t, owner, "toolhost://conversations/", "/commands")
	screen := listedURI(t, owner, "toolhost://terminals/", "/owned/screen")
	conv := strings.TrimSuffix(strings.TrimPrefix(todos, "toolhost://conversations/"), "/todos")
	if res, err := owner.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: todos}); err != nil || !strings.Contains(res.Contents[0].Text, secret) {
		t.Fatalf("the owner reads its own %s = %v, %v", todos, res, err)
	}

	heard := make(chan string, 16)
	other := connectBinary(t, transport(), &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { heard <- req.Params.URI },
	})
	own := listedURI(t, other, "toolhost://conversations/", "/todos")
	if own == todos {
		t.Fatalf("a second session works in the first one's conversation (%s)", own)
	}
	listed, err := other.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range listed.Resources {
		if strings.Contains(r.URI, "/"+conv+"/") {
			t.Errorf("the other session's resources/list shows %s of the owner's conversation", r.URI)
		}
	}
	escaped := func(s string) string {
		var b strings.Builder
		for _, c := range []byte(s) {
			fmt.Fprintf(&b, "%%%02X", c)
		}
		return b.String()
	}
	attempts := []struct {
		name, uri string
		notFound  bool // the listed URI itself: answered as not found, as if it did not exist
	}{
		{"todos", todos, true},
		{"commands", commands, true},
		{"terminal screen", screen, true},
		{"todos, id percent-encoded", "toolhost://conversations/" + escaped(conv) + "/todos", false},
		{"todos with a query", todos + "?conversation=mine", false},
		{"todos with a fragment", todos + "#x", false},
		{"todos, scheme in capitals", strings.Replace(todos, "toolhost://", "TOOLHOST://", 1), false},
		{"todos with a trailing slash", todos + "/", false},
		{"todos through dot segments", "toolhost://conversations/x/../" + conv + "/todos", false},
	}
	ctx := context.Background()
	for _, a := range attempts {
		t.Run(a.name, func(t *testing.T) {
			res, err := other.ReadResource(ctx, &mcp.ReadResourceParams{URI: a.uri})
			if err == nil {
				t.Fatalf("read %s from another conversation = %v, want an error", a.uri, res.Contents)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("read %s: the error carries the owner's plan: %v", a.uri, err)
			}
			var je *jsonrpc.Error
			if a.notFound && (!errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound || !strings.Contains(strings.ToLower(je.Message), "not found")) {
				t.Errorf("read %s from another conversation = %v, want resource not found (%d)", a.uri, err, mcp.CodeResourceNotFound)
			}
			if err := other.Subscribe(ctx, &mcp.SubscribeParams{URI: a.uri}); a.notFound && (!errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound) {
				t.Errorf("subscribe to %s from another conversation = %v, want resource not found", a.uri, err)
			}
		})
	}
	// The owner's plan changes, then the other's: the other hears of its own change first,
	// so no subscription above brought it news of the owner's plan.
	if err := other.Subscribe(ctx, &mcp.SubscribeParams{URI: own}); err != nil {
		t.Fatalf("subscribe to its own %s: %v", own, err)
	}
	callOK(t, owner, "todo_operations", map[string]any{"operation": "add", "todos": []map[string]any{{"id": 2, "title": "owner's next step", "status": "not-started"}}})
	callOK(t, other, "todo_operations", map[string]any{"operation": "write", "todos": []map[string]any{{"id": 1, "title": "their own plan", "status": "in-progress"}}})
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	select {
	case uri := <-heard:
		if uri != own {
			t.Errorf("the other session heard first of %s, want only its own %s", uri, own)
		}
	case <-wait.Done():
		t.Fatalf("the other session heard nothing of its own plan's change (%s)", own)
	}
}

// TestPromptThroughBinary: prompts/get fix_error over stdio and HTTP answers the text that
// prompts/testdata/fix_error.golden pins (rendered there with the same argument).
func TestPromptThroughBinary(t *testing.T) {
	golden, err := os.ReadFile(filepath.Join("..", "..", "prompts", "testdata", "fix_error.golden"))
	if err != nil {
		t.Fatal(err)
	}
	_, want, ok := strings.Cut(string(golden), "\n----\n")
	if !ok {
		t.Fatalf("fix_error.golden has no ---- line before the prompt text")
	}
	for name, transport := range binaryTransports {
		t.Run(name, func(t *testing.T) {
			cs := connectBinary(t, transport(t), nil)
			ctx := context.Background()
			list, err := cs.ListPrompts(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(list.Prompts, func(p *mcp.Prompt) bool { return p.Name == "fix_error" }) {
				t.Fatalf("prompts/list has no fix_error: %v", list.Prompts)
			}
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "fix_error", Arguments: map[string]string{"error": "<error>"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
				t.Fatalf("prompts/get fix_error = %d messages, want one user message", len(res.Messages))
			}
			tc, ok := res.Messages[0].Content.(*mcp.TextContent)
			if !ok || tc.Text != want {
				t.Errorf("prompts/get fix_error text:\n%v\nwant (prompts/testdata/fix_error.golden):\n%s", res.Messages[0].Content, want)
			}
			if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "fix_error"}); err == nil {
				t.Errorf("prompts/get fix_error without its required argument error succeeded")
			}
		})
	}
}

// sseEvent is one server-sent event of a raw HTTP exchange.
type sseEvent struct{ id, data string }

// rawMCP posts body to a stateful `serve` session (session empty for initialize) and returns
// the answer's session id and events.
func rawMCP(t *testing.T, url, token, session, body string) (string, []sseEvent) {
	t.Helper()
	resp, err := http.DefaultClient.Do(mcptest.NewRequest(url, token, "2025-11-25", session, body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %.80s: %d %s", body, resp.StatusCode, b)
	}
	var events []sseEvent
	var ev sseEvent
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	for {
		line, err := br.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && (ev.id != "" || ev.data != ""):
			events = append(events, ev)
			ev = sseEvent{}
		case strings.HasPrefix(line, "id:"):
			ev.id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
		case strings.HasPrefix(line, "data:"):
			ev.data += strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
		}
		if err != nil {
			break
		}
	}
	return resp.Header.Get("Mcp-Session-Id"), events
}

// TestLastEventIDTooOldThroughBinary: `serve` keeps the last 8 MiB of events over all sessions.
// A client that reconnects with the Last-Event-ID of a stream whose events were since dropped
// gets 400 saying the events are too old and cannot be replayed, not a stream with a silent
// gap; a recent Last-Event-ID of the same session still resumes.
func TestLastEventIDTooOldThroughBinary(t *testing.T) {
	sv := startServeFull(t, "")
	// Just under the 1 MiB a file resource may hold: ten reads push the first call's events
	// out of the 8 MiB store.
	big := strings.Repeat("0123456789abcde\n", (1<<20-4096)/16)
	if err := os.WriteFile(filepath.Join(sv.work, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	session, _ := rawMCP(t, sv.url, sv.token, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if session == "" {
		t.Fatal("initialize gave no Mcp-Session-Id")
	}
	rawMCP(t, sv.url, sv.token, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	_, first := rawMCP(t, sv.url, sv.token, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"think","arguments":{"thoughts":"before the flood"}}}`)
	if len(first) == 0 || first[0].id == "" {
		t.Fatalf("the tools/call answer has no event with an id: %v", first)
	}
	// The stream's first event: a client that lost the connection right after it asks for the rest.
	lost := first[0].id
	var last string
	for i := range 10 {
		_, events := rawMCP(t, sv.url, sv.token, session, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"file://%s/big.txt"}}`, 10+i, sv.work))
		if len(events) == 0 || !strings.Contains(events[len(events)-1].data, "0123456789abcde") {
			t.Fatalf("resources/read big.txt gave no content")
		}
		last = events[0].id
	}
	get := func(eid string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, sv.url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Authorization", "Bearer "+sv.token)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Last-Event-ID", eid)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := http.DefaultClient.Do(req.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		// A replay's stream stays open for what comes next; its first bytes are enough.
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return resp.StatusCode, string(b)
	}
	code, body := get(lost)
	if code != http.StatusBadRequest || !strings.Contains(body, "too old") || !strings.Contains(body, "cannot be replayed") || !strings.Contains(body, lost) {
		t.Errorf("GET with the dropped Last-Event-ID %s = %d %q, want 400 saying it is too old and cannot be replayed", lost, code, body)
	}
	if code, body := get(last); code != http.StatusOK || !strings.Contains(body, "0123456789abcde") {
		t.Errorf("GET with the recent Last-Event-ID %s = %d %.200q, want 200 replaying the read", last, code, body)
	}
}

// TestResourceTableDoc keeps docs/tools.md's resource table what the binary's resources/list and
// resources/templates/list answer a client that has a terminal session open. A listed resource
// of the caller's conversation or session is shown as its template; TOOLHOST_GOLDEN=update
// rewrites the block.
func TestResourceTableDoc(t *testing.T) {
	cs := connectBinary(t, binaryTransports["stdio"](t), nil)
	callOK(t, cs, "terminal_operations", map[string]any{"operation": "create_session", "session_id": "docs"})
	ctx := context.Background()
	listed, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ uri, listed, description string }
	var static, instances, only []row
	matched := map[string]bool{}
	for _, r := range listed.Resources {
		i := slices.IndexFunc(templates.ResourceTemplates, func(tm *mcp.ResourceTemplate) bool { return matchesTemplate(tm.URITemplate, r.URI) })
		if i < 0 {
			static = append(static, row{r.URI, "listed", r.Description})
			continue
		}
		uri := templates.ResourceTemplates[i].URITemplate
		if !matched[uri] {
			matched[uri] = true
			instances = append(instances, row{uri, "listed (the caller's)", r.Description})
		}
	}
	for _, tm := range templates.ResourceTemplates {
		if !matched[tm.URITemplate] {
			only = append(only, row{tm.URITemplate, "template", tm.Description})
		}
	}
	var b strings.Builder
	b.WriteString("| resource | in `resources/list` | what it holds |\n|----------|--------------------|---------------|\n")
	for _, group := range [][]row{static, instances, only} {
		slices.SortFunc(group, func(a, b row) int { return strings.Compare(a.uri, b.uri) })
		for _, r := range group {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.uri, r.listed, strings.ReplaceAll(r.description, "|", `\|`))
		}
	}
	golden.CheckBlock(t, filepath.Join("..", "..", "docs", "tools.md"), "<!-- begin: resources/list -->", "<!-- end: resources/list -->", b.String())
}

// matchesTemplate reports whether uri is an instance of the URI template tmpl, each {variable}
// standing for one non-empty path segment; a query expression ({?name}) may be left out.
func matchesTemplate(tmpl, uri string) bool {
	if i := strings.Index(tmpl, "{?"); i >= 0 && strings.HasSuffix(tmpl, "}") && !strings.Contains(uri, "?") {
		tmpl = tmpl[:i]
	}
	for {
		open := strings.Index(tmpl, "{")
		if open < 0 {
			return tmpl == uri
		}
		if !strings.HasPrefix(uri, tmpl[:open]) {
			return false
		}
		uri = uri[open:]
		end := strings.Index(tmpl, "}")
		if end < open {
			return false
		}
		tmpl = tmpl[end+1:]
		seg := strings.IndexAny(uri, "/")
		if seg < 0 {
			seg = len(uri)
		}
		if seg == 0 {
			return false
		}
		uri = uri[seg:]
	}
}

func TestMatchesTemplate(t *testing.T) {
	tests := []struct {
		name, tmpl, uri string
		want            bool
	}{
		{"no variable, same", "toolhost://workdir", "toolhost://workdir", true},
		{"no variable, longer", "toolhost://workdir", "toolhost://workdir/git", false},
		{"one variable", "toolhost://conversations/{id}/todos", "toolhost://conversations/c-1/todos", true},
		{"two variables", "toolhost://terminals/{conversation}/{id}/screen", "toolhost://terminals/c-1/w/screen", true},
		{"variable spans a slash", "toolhost://conversations/{id}/todos", "toolhost://conversations/a/b/todos", false},
		{"empty variable", "toolhost://conversations/{id}/todos", "toolhost://conversations//todos", false},
		{"other suffix", "toolhost://conversations/{id}/todos", "toolhost://conversations/c-1/commands", false},
		{"other prefix", "toolhost://conversations/{id}/todos", "toolhost://terminals/c-1/todos", false},
		{"query left out", "toolhost://conversations/{id}/log{?before}", "toolhost://conversations/c-1/log", true},
		{"query given", "toolhost://conversations/{id}/log{?before}", "toolhost://conversations/c-1/log?before=x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matchesTemplate(tt.tmpl, tt.uri); got != tt.want {
				t.Errorf("matchesTemplate(%q, %q) = %v, want %v", tt.tmpl, tt.uri, got, tt.want)
			}
		})
	}
}
