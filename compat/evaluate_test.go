//go:build compat

package compat

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestEvaluate runs the checks of TestAgentCLIs on synthetic recordings: toolhost's answers as
// a real recording holds them, forwarded to the model by a client that passes the text on (every
// check passes), and by clients and toolhost answers with one defect each, which must fail
// exactly the checks named for it. Without it, a check that cannot fail would pass every client.
func TestEvaluate(t *testing.T) {
	text := func(step string, a *sentAnswer) []any { return textBlocks(a.texts) }
	tests := []struct {
		name      string
		transport string
		// toolhost changes toolhost's answers; structured makes it send structuredContent
		// (the facts its handlers report) beside the text.
		toolhost   func(map[string]*sentAnswer)
		structured bool
		// forward is the content the client sends the model for a step's result.
		forward func(step string, a *sentAnswer) []any
		// lost are steps whose call got "404 session not found" and no result.
		lost []string
		idle *idleWait
		want []string // the checks that fail
		// forwards is the table's classification of what the client passes on (default text).
		forwards string
	}{
		{name: "text forwarded, stdio", transport: "stdio", forward: text},
		{name: "text forwarded, http", transport: "http", forward: text, idle: &idleWait{closed: true}},
		{
			// Claude Code and Codex pass structuredContent on instead of the text when there is
			// one; toolhost therefore sends none.
			name: "structuredContent forwarded instead of the text", transport: "stdio", structured: true,
			forward: func(step string, a *sentAnswer) []any {
				if a.facts == nil {
					return textBlocks(a.texts)
				}
				b, _ := json.Marshal(a.facts)
				return textBlocks([]string{string(b)})
			},
			// The todo list is in the facts (once); list_dir and the cut grep have no facts, so
			// the reminder and the cut notice come through as text.
			want:     []string{"read_file_content", "command_output", "edit_diff", "send_input_wait_for", "todo_synonyms", "injected_key"},
			forwards: "structured only",
		},
		{
			// Qwen Code passes both on.
			name: "text and structuredContent forwarded", transport: "stdio", structured: true,
			forward: func(step string, a *sentAnswer) []any {
				out := textBlocks(a.texts)
				if a.facts != nil {
					b, _ := json.Marshal(a.facts)
					out = append(out, map[string]any{"type": "text", "text": string(b)})
				}
				return out
			},
			want:     []string{"todo_list_once/todo_write", "todo_list_once/todo_read"},
			forwards: "text+structured",
		},
		{
			name: "every text forwarded twice", transport: "stdio",
			forward: func(step string, a *sentAnswer) []any { return textBlocks(append(a.texts, a.texts...)) },
			want:    []string{"todo_list_once/todo_write", "todo_list_once/todo_read", "no_duplicate_payload"},
		},
		{
			// A client that cuts a large result to its head itself, dropping toolhost's notice.
			name: "cut marker dropped", transport: "stdio",
			forward: func(step string, a *sentAnswer) []any {
				if step != "big_result" {
					return textBlocks(a.texts)
				}
				_, rest, _ := strings.Cut(a.texts[0], "\n")
				return textBlocks([]string{rest[:2000]})
			},
			want: []string{"cut_marker", "passed_whole"},
		},
		{
			// Kilo Code 7.7 keeps a result's first 2,000 lines: a full page with its header
			// loses its last line, and nothing says so.
			name: "first 2,000 lines kept", transport: "stdio",
			forward: func(step string, a *sentAnswer) []any {
				lines := strings.SplitAfter(a.texts[0], "\n")
				if len(lines) <= 2000 {
					return textBlocks(a.texts)
				}
				return textBlocks([]string{strings.Join(lines[:2000], "")})
			},
			want: []string{"passed_whole"},
		},
		{
			name: "send_input answered without waiting for wait_for", transport: "stdio", forward: text,
			toolhost: func(as map[string]*sentAnswer) {
				as["wait_for"].texts = []string{"compat-wait: command running; sent without waiting: get_output wait_ms=5000 reads the result; next cursor 60\n/work# sleep 1; echo wait-marker-$((6*7))-" + testMarker}
			},
			want: []string{"send_input_wait_for"},
		},
		{
			// Codex exec and Copilot -p answer toolhost's elicitation themselves: declined, and
			// the model hears so; the question reached the client and the answer came back.
			name: "approval answered by the client", transport: "stdio", forward: text,
			toolhost: func(as map[string]*sentAnswer) {
				as["approval_request"].texts = []string{"The user declined: no grant for file_operations.create_file on /c/outside.txt. Do not retry the same request unless the user asks you to."}
				as["approval_check"].texts = []string{"error not_found: no authorization request \"\""}
				as["approval_retry"].texts = []string{"error outside_workdir: /c/outside.txt is outside the working directory"}
			},
		},
		{
			// A request lost on its way: the check finds no grant.
			name: "approval denied", transport: "stdio", forward: text,
			toolhost: func(as map[string]*sentAnswer) {
				as["approval_check"].texts = []string{"Denied file_operations.create_file on /c/outside.txt."}
			},
			want: []string{"approval_roundtrip"},
		},
		{
			name: "status done read as not-started", transport: "stdio", forward: text,
			toolhost: func(as map[string]*sentAnswer) {
				as["todo_write"].texts = []string{strings.Replace(as["todo_write"].texts[0], "1/3 completed (33%), 1 in-progress, 1 not-started", "0/3 completed (0%), 1 in-progress, 2 not-started", 1)}
			},
			want: []string{"todo_synonyms"},
		},
		{
			name: "session lost at the restart", transport: "http", forward: text, idle: &idleWait{closed: true},
			lost: []string{"after_restart"},
			want: []string{"survives_restart"},
		},
		{
			name: "no idle close seen", transport: "http", forward: text, idle: &idleWait{waited: 7 * time.Second},
			want: []string{"survives_idle"},
		},
		{
			name: "session lost after the idle close", transport: "http", forward: text, idle: &idleWait{closed: true},
			lost: []string{"after_idle"},
			want: []string{"survives_idle"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			answers := recordedAnswers(testMarker)
			if tc.toolhost != nil {
				tc.toolhost(answers)
			}
			r, o := syntheticRun(t, tc.transport, answers, tc.structured, tc.forward, tc.lost, tc.idle)
			rep := evaluate(r, o)
			var failed []string
			for _, ch := range rep.checks {
				if !ch.ok {
					failed = append(failed, ch.name)
					t.Logf("%s: %s", ch.name, ch.detail)
				}
			}
			want := slices.Clone(tc.want)
			slices.Sort(failed)
			slices.Sort(want)
			if diff := cmp.Diff(want, failed, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("failed checks (-want +got):\n%s", diff)
			}
			wantForwards := tc.forwards
			if wantForwards == "" {
				wantForwards = "text"
			}
			if rep.forwards != wantForwards {
				t.Errorf("forwards = %q, want %q", rep.forwards, wantForwards)
			}
			if n := len(rep.checks); n < 15 {
				t.Errorf("evaluate made %d checks, want all of them (15 on stdio, 17 on http)", n)
			}
		})
	}
}

const testMarker = "c0ffee00"

// sentAnswer is toolhost's answer to one step: its text blocks, and the facts its handler
// reported (Result.Structured; nil for none), which toolhost does not send today.
type sentAnswer struct {
	texts []string
	facts map[string]any
}

func textBlocks(texts []string) []any {
	var out []any
	for _, s := range texts {
		out = append(out, map[string]any{"type": "text", "text": s})
	}
	return out
}

// recordedAnswers are toolhost's answers to script(m) as a recording of a run holds them (the
// reminder due on reminder_read and after_restart, the big result cut), with the facts
// `toolhost call` prints for each.
func recordedAnswers(m string) map[string]*sentAnswer {
	notes := "notes.txt: lines 1-1 of 1\nThese notes hold file-marker-" + m + " for the compat suite."
	other := "other.txt: lines 1-1 of 1\nnothing to see here"
	todos := "Todos v1: 1/3 completed (33%), 1 in-progress, 1 not-started\n[>] 1. todo-marker-" + m + " first\n[ ] 2. second step\n[x] 3. third step"
	reminder := "<system-reminder>\nTodos: 1/3 completed (33%).\nIn progress: 1. todo-marker-" + m + " first\nNext: 2. second step\n</system-reminder>"
	todoFacts := map[string]any{"version": 1, "stats": map[string]any{"total": 3, "not_started": 1, "in_progress": 1, "completed": 1, "blocked": 0, "percent_done": 33},
		"todos": []any{map[string]any{"id": 1, "title": "todo-marker-" + m + " first", "status": "in-progress"},
			map[string]any{"id": 2, "title": "second step", "status": "not-started"}, map[string]any{"id": 3, "title": "third step", "status": "completed"}}}
	readFacts := func(path string, size int) map[string]any {
		return map[string]any{"first_line": 1, "last_line": 1, "path": path, "size": size, "total_lines": 1}
	}
	var big strings.Builder
	fmt.Fprintf(&big, "[result cut to 9636 of 250948 bytes: bytes 6361-247673 are left out; the read_tool_result tool pages the rest: {\"id\":\"r5331545a15a7\",\"offset\":6361}]\n3000 matching line(s) in 1 file(s) (1 searched)\nbig.log\n")
	for i := 1; i <= 75; i++ {
		fmt.Fprintf(&big, "%d:line %06d of the big log: lorem ipsum dolor sit amet, consectetur adipiscing\n", i, i)
	}
	for i := 2926; i <= 3000; i++ {
		fmt.Fprintf(&big, "%d:line %06d of the big log: lorem ipsum dolor sit amet, consectetur adipiscing\n", i, i)
	}
	return map[string]*sentAnswer{
		"read_file":   {texts: []string{notes}, facts: readFacts("notes.txt", 60)},
		"run_command": {texts: []string{"exit 0 in 8ms\n--- stdout ---\necho-marker-42-" + m}, facts: map[string]any{"id": "cmd1", "exit_code": 0, "duration_ms": 8}},
		"create_session": {texts: []string{"session compat-wait started: pid 4242, /work, 120x40, /bin/bash; exit codes reported; sandbox workspace-write.\nnext: send_input session_id=compat-wait"},
			facts: map[string]any{"id": "compat-wait", "pid": 4242, "cwd": "/work"}},
		"wait_for": {texts: []string{"compat-wait: command finished; exit 0; wait_for matched \"wait-marker-42-" + m + "\"; next cursor 164\n/work# sleep 1; echo wait-marker-$((6*7))-" + m + "\nwait-marker-42-" + m + "\n/work# "},
			facts: map[string]any{"id": "compat-wait", "cursor": 0, "next_cursor": 164, "finished": true, "exit_code": 0, "matched": true}},
		"edit": {texts: []string{"edit.txt: 1 replacement at line 2\n--- a/edit.txt\n+++ b/edit.txt\n@@ -1,3 +1,3 @@\n alpha-" + m + "\n-beta\n+gamma-" + m + "\n delta"},
			facts: map[string]any{"files": []any{map[string]any{"bytes": 36, "op": "update", "path": "edit.txt"}}}},
		"todo_write":       {texts: []string{todos}, facts: todoFacts},
		"quiet_read":       {texts: []string{other}, facts: readFacts("other.txt", 20)},
		"reminder_read":    {texts: []string{".: 4 entries\nbig.log 231.4K now\nedit.txt 36B now\nnotes.txt 60B now\nother.txt 20B now", reminder}},
		"big_result":       {texts: []string{big.String()}},
		"todo_read":        {texts: []string{todos}, facts: todoFacts},
		"injected_key":     {texts: []string{notes}, facts: readFacts("notes.txt", 60)},
		"after_restart":    {texts: []string{other, reminder}, facts: readFacts("other.txt", 20)},
		"size_5k":          {texts: []string{"size-5k.txt: lines 1-51 of 51\n" + sizedText(5)}},
		"size_10k":         {texts: []string{"size-10k.txt: lines 1-101 of 101\n" + sizedText(10)}},
		"size_20k":         {texts: []string{"size-20k.txt: lines 1-201 of 201\n" + sizedText(20)}},
		"size_80k":         {texts: []string{"size-80k.txt: lines 1-801 of 801\n" + sizedText(80)}},
		"approval_write":   {texts: []string{"error outside_workdir: /c/outside-" + m + ".txt is outside the working directory /c/work; writing there needs the user's grant\nparameter: path\nnext: the user_collaboration tool with {\"operation\":\"request_authorization\",\"path\":\"/c/outside-" + m + ".txt\"}"}},
		"approval_request": {texts: []string{"Authorization request r-7zxa34cum8xrbgfm is pending: file_operations.create_file on /c/outside-" + m + ".txt.\nAsk the user to approve it in a terminal:\n  toolhost approve r-7zxa34cum8xrbgfm"}},
		"approval_check":   {texts: []string{"Granted file_operations.create_file on /c/outside-" + m + ".txt until 18:38:58 (until it expires). Retry the operation now."}},
		"approval_retry":   {texts: []string{"created /c/outside-" + m + ".txt (1 lines, 25 bytes)"}},
		"lines_page":       {texts: []string{"lines.txt: lines 1-2000 of 3000; truncated, continue with start_line 2001\n" + shortLines(2000)}},
		"after_idle":       {texts: []string{todos}, facts: todoFacts},
	}
}

// syntheticRun builds what a run of the script would have recorded: the MCP messages between
// client and toolhost (answers from answers), and the model's last request of the main
// conversation (Anthropic Messages API, the whole history) with each result as forward passes
// it on.
func syntheticRun(t *testing.T, transport string, answers map[string]*sentAnswer, structured bool, forward func(string, *sentAnswer) []any, lost []string, idle *idleWait) (*run, outcome) {
	t.Helper()
	session := ""
	if transport == "http" {
		session = "SESSION1"
	}
	rpcMsg := func(dir string, v map[string]any) Message {
		v["jsonrpc"] = "2.0"
		b, _ := json.Marshal(v)
		return Message{Dir: dir, Session: session, Msg: b}
	}
	msgs := []Message{
		rpcMsg("c2s", map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-06-18", "clientInfo": map[string]any{"name": "synthetic", "version": "1"}}}),
		rpcMsg("s2c", map[string]any{"id": 1, "result": map[string]any{"protocolVersion": "2025-06-18"}}),
	}
	history := []any{map[string]any{"role": "user", "content": "Run the toolhost compatibility script " + testMarker + "."}}
	for i, st := range script(testMarker) {
		a := answers[st.Name]
		if a == nil {
			t.Fatalf("no recorded answer for step %s", st.Name)
		}
		msgs = append(msgs, rpcMsg("c2s", map[string]any{"id": i + 2, "method": "tools/call", "params": map[string]any{"name": st.Tool, "arguments": st.Args}}))
		content, isError := forward(st.Name, a), false
		if slices.Contains(lost, st.Name) {
			msgs = append(msgs, Message{Dir: "s2c", Status: 404, Msg: json.RawMessage(`"session not found"`)})
			content, isError = textBlocks([]string{"MCP error: session not found"}), true
		} else {
			res := map[string]any{"content": textBlocks(a.texts)}
			if structured && a.facts != nil {
				res["structuredContent"] = a.facts
			}
			msgs = append(msgs, rpcMsg("s2c", map[string]any{"id": i + 2, "result": res}))
		}
		id := fmt.Sprintf("toolu_compat_%02d", i)
		history = append(history,
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": "mcp__toolhost__" + st.Tool, "input": st.Args}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isError}}})
	}
	var tools []any
	for _, name := range []string{"file_operations", "terminal_operations", "todo_operations", "read_tool_result"} {
		tools = append(tools, map[string]any{"name": "mcp__toolhost__" + name, "description": name, "input_schema": map[string]any{"type": "object"}})
	}
	body, _ := json.Marshal(map[string]any{"model": "m", "tools": tools, "messages": history})
	req, err := parseRequest(APIAnthropic, "/v1/messages", "", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Answer = "text"
	r := &run{fixture: &fixture{transport: transport, marker: testMarker}}
	return r, outcome{requests: []*Request{req}, session: analyze(msgs), idle: idle}
}
