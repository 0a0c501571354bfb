package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"toolhost/internal/mcptest"
)

// taskStdio is a raw stdio client of the binary that speaks MCP Tasks (the go-sdk client
// cannot), on a given state directory and working directory, so that a second server can
// follow a killed one.
type taskStdio struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines *bufio.Scanner
	id    int
	seen  []map[string]any // notifications read while waiting for answers
}

func startTaskStdio(t *testing.T, state, wd string) *taskStdio {
	t.Helper()
	cmd := commandIn(t, state, wd, "stdio")
	in, lines := startPiped(t, cmd)
	s := &taskStdio{t: t, cmd: cmd, in: in, lines: lines}
	init := s.must("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tasks": map[string]any{}},
		"clientInfo": map[string]any{"name": "tasks-test", "version": "1"}})
	if !strings.Contains(string(init), `"tasks":{"cancel":{},"list":{},"requests":{"tools":{"call":{}}}}`) {
		t.Fatalf("initialize = %s, want the tasks capability", init)
	}
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	s.must("logging/setLevel", map[string]any{"level": "info"})
	return s
}

// send sends a request and returns its answer (result or error), keeping notifications.
func (s *taskStdio) send(method string, params any) map[string]any {
	s.t.Helper()
	s.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params})
	if _, err := s.in.Write(append(b, '\n')); err != nil {
		s.t.Fatal(err)
	}
	for s.lines.Scan() {
		var m map[string]any
		if err := json.Unmarshal(s.lines.Bytes(), &m); err != nil {
			s.t.Fatalf("line %q: %v", s.lines.Text(), err)
		}
		if got, ok := m["id"].(float64); ok && int(got) == s.id {
			return m
		}
		if _, isNote := m["method"]; isNote {
			s.seen = append(s.seen, m)
		}
	}
	s.t.Fatalf("no answer to %s: %v", method, s.lines.Err())
	return nil
}

func (s *taskStdio) must(method string, params any) json.RawMessage {
	s.t.Helper()
	return mcptest.Result(s.t, method, params, s.send(method, params))
}

func (s *taskStdio) text(tool string, args map[string]any) string {
	s.t.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	json.Unmarshal(s.must("tools/call", map[string]any{"name": tool, "arguments": args}), &r)
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// TestStdioTaskSurvivesRestart drives a task through the real binary over stdio: created at
// once, fetched with tasks/result, and fetched again from a new server on the same state after
// the first was killed; another conversation does not find it.
func TestStdioTaskSurvivesRestart(t *testing.T) {
	state, wd := t.TempDir(), t.TempDir()
	s := startTaskStdio(t, state, wd)
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
			Status string `json:"status"`
		} `json:"task"`
	}
	raw := s.must("tools/call", map[string]any{"name": "terminal_operations", "arguments": map[string]any{"operation": "run_command",
		"command": "sleep 1; echo task-$((6*7))"}, "task": map[string]any{"ttl": 600000}})
	if json.Unmarshal(raw, &created); created.Task.TaskID == "" || created.Task.Status != "working" {
		t.Fatalf("task-augmented call = %s, want a working task", raw)
	}
	id := created.Task.TaskID
	if res := string(s.must("tasks/result", map[string]any{"taskId": id})); !strings.Contains(res, "task-42") || !strings.Contains(res, "exit 0") {
		t.Fatalf("tasks/result = %s, want the command's output and exit", res)
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()

	again := startTaskStdio(t, state, wd)
	if res := string(again.must("tasks/result", map[string]any{"taskId": id})); !strings.Contains(res, "task-42") {
		t.Errorf("tasks/result from a new server = %s, want the kept result", res)
	}
	var st map[string]any
	json.Unmarshal(again.must("tasks/get", map[string]any{"taskId": id}), &st)
	if st["status"] != "completed" {
		t.Errorf("tasks/get from a new server = %v, want completed", st)
	}
	// A second live server leases another conversation: the task is not found there.
	other := startTaskStdio(t, state, wd)
	if m := other.send("tasks/get", map[string]any{"taskId": id}); m["error"] == nil {
		t.Errorf("tasks/get from another conversation = %v, want not found", m)
	}
}

// TestStdioBackgroundAndLastCommand checks through the binary that a command handed back past
// its yield announces its end (a log message naming it, exit code and duration; a notice on the
// next result) and that get_last_command shows it.
func TestStdioBackgroundAndLastCommand(t *testing.T) {
	s := startTaskStdio(t, t.TempDir(), t.TempDir())
	out := s.text("terminal_operations", map[string]any{"operation": "run_command", "command": "sleep 1.5; echo bg-$((6*7)); exit 4", "yield_seconds": 1})
	if !strings.Contains(out, "still running") {
		t.Fatalf("run_command = %q, want it handed back", out)
	}
	var notice string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && notice == ""; time.Sleep(200 * time.Millisecond) {
		text := s.text("think", map[string]any{"thoughts": "waiting"})
		if i := strings.Index(text, "background: "); i >= 0 {
			notice = text[i:]
		}
	}
	if !strings.Contains(notice, "exit 4") || !strings.Contains(notice, "sleep 1.5; echo bg-$((6*7)); exit 4") {
		t.Errorf("notice = %q, want the command and exit 4", notice)
	}
	logged := false
	for _, m := range s.seen {
		if m["method"] != "notifications/message" {
			continue
		}
		p, _ := m["params"].(map[string]any)
		d, _ := p["data"].(map[string]any)
		if p["logger"] == "toolhost.background" && d["exit_code"] == float64(4) && d["duration_ms"].(float64) >= 1400 {
			logged = true
		}
	}
	if !logged {
		t.Errorf("no toolhost.background log message with exit 4 among %v", s.seen)
	}
	last := s.text("terminal_operations", map[string]any{"operation": "get_last_command"})
	if !strings.Contains(last, "$ sleep 1.5; echo bg-$((6*7)); exit 4") || !strings.Contains(last, "exit 4 in") || !strings.Contains(last, "bg-42") {
		t.Errorf("get_last_command = %q, want the command, its exit and output", last)
	}
	if text := s.text("think", map[string]any{"thoughts": "after"}); strings.Contains(text, "background: ") {
		t.Errorf("result after get_last_command = %q, want the notice gone", text)
	}
}
