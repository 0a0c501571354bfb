//go:build compat

package compat

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// These tests check the suite's own parts (the fake model and the recording analysis) without
// any Node.js client, so a wrong check cannot hide behind a CLI.

var testScript = []Step{
	{Name: "read", Tool: "file_operations", Args: map[string]any{"operation": "read_file", "path": "a.txt"}},
	{Name: "todo", Tool: "todo_operations", Args: map[string]any{"operation": "read"}},
}

func TestModelAnswers(t *testing.T) {
	tests := []struct {
		name, path, body string
		// wants are substrings of the response body.
		wants []string
	}{
		{
			name: "anthropic first call uses the client's prefixed name",
			path: "/v1/messages",
			body: `{"model":"m","stream":true,"tools":[{"name":"Read","input_schema":{}},{"name":"mcp__toolhost__file_operations","input_schema":{}},{"name":"mcp__toolhost__todo_operations","input_schema":{}}],
				"messages":[{"role":"user","content":"go"}]}`,
			wants: []string{"event: content_block_start", `"name":"mcp__toolhost__file_operations"`, `\"path\":\"a.txt\"`, `"stop_reason":"tool_use"`},
		},
		{
			name: "anthropic second call counts the history",
			path: "/v1/messages",
			body: `{"model":"m","tools":[{"name":"mcp__toolhost__file_operations","input_schema":{}},{"name":"mcp__toolhost__todo_operations","input_schema":{}}],
				"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_compat_00","name":"mcp__toolhost__file_operations","input":{}}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_compat_00","content":"x"}]}]}`,
			wants: []string{`"name":"mcp__toolhost__todo_operations"`, `"operation":"read"`},
		},
		{
			name:  "anthropic deferred tools: search first",
			path:  "/v1/messages",
			body:  `{"model":"m","tools":[{"name":"ToolSearch","input_schema":{}}],"messages":[{"role":"user","content":[{"type":"text","text":"deferred:\nmcp__toolhost__file_operations\nmcp__toolhost__todo_operations"}]}]}`,
			wants: []string{`"name":"ToolSearch"`, `select:mcp__toolhost__file_operations,mcp__toolhost__todo_operations`},
		},
		{
			name:  "responses namespace call names the namespace",
			path:  "/v1/responses",
			body:  `{"model":"m","stream":true,"tools":[{"type":"namespace","name":"mcp__toolhost","tools":[{"type":"function","name":"file_operations","parameters":{}}]}],"input":[]}`,
			wants: []string{"event: response.completed", `"namespace":"mcp__toolhost"`, `"name":"file_operations"`, `"call_id":"compat_00"`},
		},
		{
			name: "chat after the script answers with the final text",
			path: "/v1/chat/completions",
			body: `{"model":"m","stream":true,"tools":[{"type":"function","function":{"name":"toolhost_file_operations","parameters":{}}},{"type":"function","function":{"name":"toolhost_todo_operations","parameters":{}}}],
				"messages":[{"role":"assistant","tool_calls":[{"id":"compat_00","function":{"name":"toolhost_file_operations","arguments":"{}"}}]},{"role":"tool","tool_call_id":"compat_00","content":"x"},
				{"role":"assistant","tool_calls":[{"id":"compat_01","function":{"name":"toolhost_todo_operations","arguments":"{}"}}]},{"role":"tool","tool_call_id":"compat_01","content":"y"}]}`,
			wants: []string{`"content":"the end"`, `"finish_reason":"stop"`, "data: [DONE]"},
		},
		{
			name:  "chat deferred tools: proxy call after the search",
			path:  "/v1/chat/completions",
			body:  `{"model":"m","tools":[{"type":"function","function":{"name":"tool_search","parameters":{}}},{"type":"function","function":{"name":"tool_call","parameters":{}}}],"messages":[{"role":"user","content":"- mcp__toolhost__file_operations: read"},{"role":"assistant","tool_calls":[{"id":"compat_search_00","function":{"name":"tool_search","arguments":"{}"}}]},{"role":"tool","tool_call_id":"compat_search_00","content":"<functions>"}]}`,
			wants: []string{`"name":"tool_call"`, `\"name\":\"mcp__toolhost__file_operations\"`, `"id":"compat_00"`},
		},
		{
			name:  "gemini stream call",
			path:  "/v1beta/models/gemini-x:streamGenerateContent?alt=sse",
			body:  `{"contents":[{"role":"user","parts":[{"text":"go"}]}],"tools":[{"functionDeclarations":[{"name":"mcp_toolhost_file_operations","parametersJsonSchema":{}}]}]}`,
			wants: []string{"data: ", `"functionCall":{"args":{"operation":"read_file","path":"a.txt"},"name":"mcp_toolhost_file_operations"}`},
		},
		{
			name:  "gemini JSON side request",
			path:  "/v1beta/models/flash:generateContent",
			body:  `{"contents":[{"role":"user","parts":[{"text":"who speaks next?"}]}],"generationConfig":{"responseMimeType":"application/json"}}`,
			wants: []string{`next_speaker`},
		},
		{
			name:  "side request without toolhost's tools",
			path:  "/v1/messages",
			body:  `{"model":"haiku","messages":[{"role":"user","content":"title?"}]}`,
			wants: []string{`"text":"compat"`, `"stop_reason":"end_turn"`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &Model{Script: testScript, Final: "the end"}
			srv := httptest.NewServer(m)
			defer srv.Close()
			resp, err := http.Post(srv.URL+tc.path, "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			for _, w := range tc.wants {
				if !strings.Contains(string(b), w) {
					t.Errorf("POST %s answered\n%s\nwant it to contain %s", tc.path, b, w)
				}
			}
		})
	}
}

func TestParseResults(t *testing.T) {
	tests := []struct {
		name       string
		api        API
		body       string
		wantLeaves []string
	}{
		{"anthropic blocks", APIAnthropic, `{"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"one"},{"type":"text","text":"two"}]}]}]}`, []string{"one", "two"}},
		{"responses string output", APIResponses, `{"input":[{"type":"function_call_output","call_id":"c","output":"out"}]}`, []string{"out"}},
		{"chat parts", APIChat, `{"messages":[{"role":"tool","tool_call_id":"c","content":[{"type":"text","text":"part"}]}]}`, []string{"part"}},
		{"gemini structured object", APIGemini, `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{"b":"second","a":"first"}}}]}]}`, []string{"first", "second"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := parseRequest(tc.api, "/x", "", []byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if len(req.Results) != 1 {
				t.Fatalf("parsed %d results, want 1", len(req.Results))
			}
			if got := req.Results[0].Leaves; strings.Join(got, "|") != strings.Join(tc.wantLeaves, "|") {
				t.Errorf("leaves = %q, want %q", got, tc.wantLeaves)
			}
		})
	}
}

func TestAnalyze(t *testing.T) {
	msg := func(dir string, v string) Message { return Message{Dir: dir, Msg: json.RawMessage(v)} }
	tests := []struct {
		name         string
		msgs         []Message
		wantProtocol string
		wantAnswered []bool
		wantSessions []string
	}{
		{
			name: "initialize",
			msgs: []Message{
				msg("c2s", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":{"name":"c","version":"1"}}}`),
				msg("s2c", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`),
				msg("c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"think","arguments":{}}}`),
				msg("s2c", `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}`),
			},
			wantProtocol: "2025-06-18",
			wantAnswered: []bool{true},
		},
		{
			// The stdio recorder's two directions race to the log: an answer may come first.
			name: "an answer logged before its call",
			msgs: []Message{
				msg("c2s", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`),
				msg("s2c", `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}`),
				msg("s2c", `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"early"}]}}`),
				msg("c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"think","arguments":{}}}`),
				msg("c2s", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"think","arguments":{}}}`),
				msg("s2c", `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`),
			},
			wantProtocol: "2025-11-25",
			wantAnswered: []bool{true, true},
		},
		{
			name: "a session over HTTP",
			msgs: []Message{
				msg("c2s", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`),
				{Dir: "s2c", Status: 200, Session: "S1", Msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`)},
				{Dir: "c2s", Session: "S1", Msg: json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"think","arguments":{}}}`)},
				{Dir: "s2c", Status: 200, Session: "S1", Msg: json.RawMessage(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)},
			},
			wantProtocol: "2025-06-18",
			wantAnswered: []bool{true},
			wantSessions: []string{"S1"},
		},
		{
			name: "stateless meta, a call lost to a 404",
			msgs: []Message{
				msg("c2s", `{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`),
				msg("c2s", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"think","arguments":{}}}`),
				{Dir: "s2c", Status: 404, Msg: json.RawMessage(`"session not found"`)},
			},
			wantProtocol: "2026-07-28",
			wantAnswered: []bool{false},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := analyze(tc.msgs)
			if s.Protocol != tc.wantProtocol {
				t.Errorf("Protocol = %q, want %q", s.Protocol, tc.wantProtocol)
			}
			var answered []bool
			for _, c := range s.Calls {
				answered = append(answered, c.Answered)
			}
			if !slices.Equal(answered, tc.wantAnswered) {
				t.Errorf("answered = %v, want %v", answered, tc.wantAnswered)
			}
			if !slices.Equal(s.SessionIDs, tc.wantSessions) {
				t.Errorf("SessionIDs = %v, want %v", s.SessionIDs, tc.wantSessions)
			}
		})
	}
}
