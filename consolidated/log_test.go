package consolidated

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type logPage struct {
	Conversation string     `json:"conversation"`
	Calls        []logEntry `json:"calls"`
	Older        string     `json:"older"`
}

func readLog(t *testing.T, cs *mcp.ClientSession, uri string) (logPage, error) {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return logPage{}, err
	}
	var p logPage
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &p); err != nil {
		t.Fatalf("log %s is not JSON: %v\n%s", uri, err, res.Contents[0].Text)
	}
	return p, nil
}

// TestConversationLog: toolhost://conversations/{id}/log holds every call of the
// conversation with its masked arguments, outcome, duration and execution id, in pages of 50
// that follow each other by ?before; the conversation's own resource list names it, and
// another conversation's log is not found.
func TestConversationLog(t *testing.T) {
	h := newTermHarness(t, harnessOptions{executions: true})
	conv := h.conversation("")
	h.mustOp("run_command", map[string]any{"command": "echo curl -H 'Authorization: Bearer abcdef0123456789' https://u:hunter2@example.com/x"})
	h.op("run_command", map[string]any{"command": "exit 4"})
	h.op("get_output", map[string]any{"session_id": "nope"})
	for i := range 57 {
		h.mustOp("list_sessions", map[string]any{"note_" + fmt.Sprint(i%2): nil})
	}
	uri := ConversationURI(conv, "log")
	first, err := readLog(t, h.cs, uri)
	if err != nil {
		t.Fatal(err)
	}
	if first.Conversation != conv || len(first.Calls) != logPageSize || first.Older == "" {
		t.Fatalf("first page: conversation %q, %d calls, older %q; want %s, %d and a link", first.Conversation, len(first.Calls), first.Older, conv, logPageSize)
	}
	second, err := readLog(t, h.cs, first.Older)
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Calls) != 60-logPageSize || second.Older != "" {
		t.Fatalf("second page: %d calls, older %q; want %d and none", len(second.Calls), second.Older, 60-logPageSize)
	}
	all := append(second.Calls, first.Calls...)
	seen := map[string]bool{}
	for i, c := range all {
		if seen[c.ExecutionID] || !strings.HasPrefix(c.ExecutionID, "exec_") || (i > 0 && c.ExecutionID < all[i-1].ExecutionID) {
			t.Fatalf("call %d: id %q repeated, malformed or out of order", i, c.ExecutionID)
		}
		seen[c.ExecutionID] = true
	}
	secret, failed, unknown := all[0], all[1], all[2]
	raw := string(secret.Arguments) + secret.Command
	if secret.Tool != "terminal_operations" || secret.Operation != "run_command" || secret.Status != "success" || secret.DurationMS <= 0 {
		t.Errorf("first call = %+v", secret)
	}
	if strings.Contains(raw, "abcdef0123456789") || strings.Contains(raw, "hunter2") || !strings.Contains(raw, "***") {
		t.Errorf("the secrets of the first call are not masked: %s", raw)
	}
	if failed.Status != "failed" || failed.ExitCode == nil || *failed.ExitCode != 4 {
		t.Errorf("failing command = %+v, want failed with exit 4", failed)
	}
	if unknown.Status != "failed" || unknown.ErrorCode == "" || unknown.Error == "" {
		t.Errorf("call of an unknown session = %+v, want its error code and message", unknown)
	}
	if _, err := readLog(t, h.cs, uri+"?before=exec_bogus"); err == nil || !strings.Contains(err.Error(), "before") {
		t.Errorf("log?before=exec_bogus = %v, want an error naming before", err)
	}
	other := h.conversation("other")
	if _, err := readLog(t, h.cs, ConversationURI(other, "log")); err == nil {
		t.Errorf("another conversation's log was read")
	}
	list, err := h.cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range list.Resources {
		found = found || r.URI == uri
	}
	if !found {
		t.Errorf("resources/list lacks %s", uri)
	}
}

// TestExecutionIDInMeta: every result, an error's too, carries its execution id in _meta (no
// tokens for the model), and the id names the call's record in the conversation's log.
func TestExecutionIDInMeta(t *testing.T) {
	h := newTermHarness(t, harnessOptions{executions: true})
	ctx := context.Background()
	var ids []string
	for _, args := range []map[string]any{{"operation": "list_sessions"}, {"operation": "get_output", "session_id": "nope"}, {"operation": "bogus"}} {
		res, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: "terminal_operations", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.Meta[ExecutionMetaKey].(string)
		if !strings.HasPrefix(id, "exec_") {
			t.Fatalf("%v: _meta = %v, want %s", args, res.Meta, ExecutionMetaKey)
		}
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok && strings.Contains(tc.Text, id) {
				t.Errorf("%v: the id is in the text the model reads: %s", args, tc.Text)
			}
		}
		ids = append(ids, id)
	}
	page, err := readLog(t, h.cs, ConversationURI(h.conversation(""), "log"))
	if err != nil {
		t.Fatal(err)
	}
	var logged []string
	for _, c := range page.Calls {
		logged = append(logged, c.ExecutionID)
	}
	if strings.Join(logged, ",") != strings.Join(ids, ",") {
		t.Errorf("log ids = %v, want the results' %v", logged, ids)
	}
}

// TestNoMetaForJSONForwarders: a client that shows the model each result's whole JSON (Cline,
// mcp-use) gets no _meta, which would cost the model tokens there; its text is the same.
func TestNoMetaForJSONForwarders(t *testing.T) {
	for _, tc := range []struct {
		client string
		meta   bool
	}{{"Cline", false}, {"@cline/core", false}, {"mcp-use", false}, {"claude-code", true}, {"test", true}} {
		t.Run(tc.client, func(t *testing.T) {
			h := newTermHarness(t, harnessOptions{executions: true, clientName: tc.client})
			res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "terminal_operations", Arguments: map[string]any{"operation": "list_sessions"}})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := res.Meta[ExecutionMetaKey]; ok != tc.meta {
				t.Errorf("client %q: _meta = %v, want the execution id %v", tc.client, res.Meta, tc.meta)
			}
		})
	}
}
