package consolidated

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestMentionsTasks: a body passes TaskHandler untouched unless it holds a message the
// rewriter changes, and every such message is let in.
func TestMentionsTasks(t *testing.T) {
	tests := []struct {
		body string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"think","arguments":{"thoughts":"x"}}}`, false},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"x"}}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"terminal_operations","task":{}}}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`, true},
	}
	for _, tc := range tests {
		if got := mentionsTasks([]byte(tc.body)); got != tc.want {
			t.Errorf("mentionsTasks(%s) = %v, want %v", tc.body, got, tc.want)
		}
	}
}

// TestTaskWriter: the answers of a response are rewritten whether the body is JSON (one
// message or a batch) or an SSE stream whose events arrive in pieces; other events and other
// answers keep their bytes, and the events' other fields stay.
func TestTaskWriter(t *testing.T) {
	wrapped := `{"jsonrpc":"2.0","id":7,"result":{"content":[],"_meta":{"toolhost/rpc":{"status":"working"}}}}`
	plain := `{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"hi"}]}}`
	tests := []struct {
		name        string
		contentType string
		writes      []string
		want        string
	}{
		{"JSON", "application/json", []string{wrapped[:20], wrapped[20:]}, `{"jsonrpc":"2.0","id":7,"result":{"status":"working"}}`},
		{"JSON batch", "application/json", []string{"[" + wrapped + "," + plain + "]"},
			`[{"jsonrpc":"2.0","id":7,"result":{"status":"working"}},{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"hi"}]}}]`},
		{"JSON untouched", "application/json", []string{plain}, plain},
		{"SSE in pieces", "text/event-stream", []string{"event: message\nid: s_1\ndata: " + wrapped[:30], wrapped[30:] + "\n\nevent: message\nid: s_2\ndata: " + plain + "\n\n"},
			"event: message\nid: s_1\ndata: " + `{"jsonrpc":"2.0","id":7,"result":{"status":"working"}}` + "\n\nevent: message\nid: s_2\ndata: " + plain + "\n\n"},
		{"SSE prime event", "text/event-stream", []string{"id: s_0\ndata: \n\n"}, "id: s_0\ndata: \n\n"},
		{"plain text", "text/plain", []string{"session not found\n"}, "session not found\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			w := &taskWriter{ResponseWriter: rec, rw: newTaskRewriter(false)}
			w.Header().Set("Content-Type", tc.contentType)
			w.WriteHeader(http.StatusOK)
			for _, p := range tc.writes {
				w.Write([]byte(p))
				w.Flush()
			}
			w.finish()
			if got := rec.Body.String(); strings.TrimSpace(got) != strings.TrimSpace(tc.want) {
				t.Errorf("body = %q, want %q", got, tc.want)
			}
		})
	}
}
