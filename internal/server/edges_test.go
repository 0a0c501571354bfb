package server

import (
	"encoding/json"
	"testing"
)

// TestFixNotInitialized: the go-sdk's answer to a request before initialize gets toolhost's
// code and message, in a JSON answer and in an SSE event; anything else passes unchanged.
func TestFixNotInitialized(t *testing.T) {
	sdk := `{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"method \"tools/list\" is invalid during session initialization"}}`
	tests := []struct {
		name, in string
		changed  bool
	}{
		{"json", sdk, true},
		{"sse", "event: message\ndata: " + sdk + "\n\n", true},
		{"other error", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found"}}`, false},
		{"a result mentioning it", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"is invalid during session initialization"}]}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changed := fixNotInitialized([]byte(tt.in))
			if changed != tt.changed {
				t.Fatalf("fixNotInitialized(%s) changed = %v, want %v", tt.in, changed, tt.changed)
			}
			if !changed {
				if string(out) != tt.in {
					t.Errorf("unchanged message altered: %s", out)
				}
				return
			}
			body := out
			if i := len("event: message\ndata: "); tt.name == "sse" {
				body = out[i : len(out)-2]
			}
			var m struct {
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatalf("fixed message is not JSON: %v\n%s", err, out)
			}
			if m.Error.Code != CodeNotInitialized || m.Error.Message != NotInitializedMessage("tools/list") {
				t.Errorf("fixed error = %d %q, want %d %q", m.Error.Code, m.Error.Message, CodeNotInitialized, NotInitializedMessage("tools/list"))
			}
		})
	}
}
