package secret

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestArgs(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"secret key", `{"password":"hunter2","path":"a.txt"}`, `{"password":"***","path":"a.txt"}`},
		{"nested header", `{"headers":{"Authorization":"Bearer abcdefghijkl"}}`, `{"headers":{"Authorization":"***"}}`},
		{"bearer in text", `{"command":"curl -H 'Authorization: Bearer abcdefghijklmnop' x"}`, `{"command":"curl -H 'Authorization: ***' x"}`},
		{"url credentials", `{"url":"postgres://bob:pw@db/x"}`, `{"url":"postgres://bob:***@db/x"}`},
		{"token prefix", `{"command":"echo ghp_abcdefghijklmnopqrstu"}`, `{"command":"echo ***"}`},
		{"assignment", `{"command":"API_KEY=xyz123 run"}`, `{"command":"API_KEY=*** run"}`},
		{"url query", `{"url":"https://x.example/a?access_token=t0k&page=2"}`, `{"url":"https://x.example/a?access_token=***\u0026page=2"}`},
		{"session ids stay", `{"session_id":"s1","keys":["ctrl-c"]}`, `{"keys":["ctrl-c"],"session_id":"s1"}`},
		{"long value cut", `{"content":"` + strings.Repeat("a", 300) + `"}`, `{"content":"` + strings.Repeat("a", 200) + `…(300 bytes)"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(RawArgs(json.RawMessage(tt.in))); got != tt.want {
				t.Errorf("RawArgs(%s) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
	if got := string(RawArgs(json.RawMessage(`{oops`))); got != `"(5 bytes, not a JSON object)"` {
		t.Errorf("RawArgs(not JSON) = %s", got)
	}
}

// TestArgsAreBounded: whatever a client sends (many keys, a long array), the masked arguments
// are at most MaxArgs bytes: the start of their JSON text, cut with its size.
func TestArgsAreBounded(t *testing.T) {
	var keys, items []string
	for i := range 2000 {
		keys = append(keys, fmt.Sprintf(`"k%d":"v"`, i))
		items = append(items, `"item"`)
	}
	for name, in := range map[string]string{
		"many keys":  "{" + strings.Join(keys, ",") + "}",
		"long array": `{"paths":[` + strings.Join(items, ",") + `]}`,
	} {
		t.Run(name, func(t *testing.T) {
			got := RawArgs(json.RawMessage(in))
			var cut string
			if err := json.Unmarshal(got, &cut); err != nil || len(got) > MaxArgs || !strings.HasPrefix(cut, `{"`) || !strings.HasSuffix(cut, " bytes)") {
				t.Errorf("RawArgs(%d bytes) = %d bytes %.80q…, want the start of the JSON text, cut with its size", len(in), len(got), got)
			}
		})
	}
}
