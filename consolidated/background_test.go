package consolidated

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// waitLog waits for a log message of logger about id and returns its data.
func (h *harness) waitLog(logger, id string) map[string]any {
	h.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		h.mu.Lock()
		for _, l := range h.logs {
			if d, ok := l.Data.(map[string]any); ok && l.Logger == logger && d["id"] == id {
				h.mu.Unlock()
				return d
			}
		}
		h.mu.Unlock()
	}
	h.t.Fatalf("no %s log message about %s", logger, id)
	return nil
}

// TestBackgroundAnnounced checks that a command handed back past its yield announces its end:
// a log message with its command, exit code and duration, resources/updated for the
// conversation's commands, and a one-line notice on every later result of the conversation
// until get_output shows the outcome.
func TestBackgroundAnnounced(t *testing.T) {
	h := newHarness(t, harnessOptions{executions: true, tools: func(h *harness) []*Tool { return []*Tool{testTerminalTool(h)} }})
	ctx := context.Background()
	if err := h.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	commands := ConversationURI(h.conversation(""), "commands")
	if err := h.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: commands}); err != nil {
		t.Fatal(err)
	}
	notice := regexp.MustCompile(`background: (cmd\d+) "sleep 1.5; echo done; exit 3" finished: exit 3 in [^;]+; get_output session_id=cmd\d+ reads it`)

	_, st := h.mustOp("run_command", map[string]any{"command": "sleep 1.5; echo done; exit 3", "yield_seconds": 1})
	id, _ := st["id"].(string)
	if st["running"] != true || id == "" {
		t.Fatalf("run_command structured = %v, want a command still running", st)
	}
	if text, _ := h.mustOp("list_sessions", nil); strings.Contains(text, "background:") {
		t.Errorf("list_sessions while the command runs = %q, want no notice yet", text)
	}
	d := h.waitLog(backgroundLogger, id)
	if d["exit_code"] != float64(3) || d["command"] != "sleep 1.5; echo done; exit 3" || d["duration_ms"].(float64) < 1400 || d["status"] != "failed" {
		t.Errorf("log message = %v, want the command, exit code 3, status failed and a duration of at least 1.5 s", d)
	}
	h.mu.Lock()
	updated := slices.Contains(h.updated, commands)
	h.mu.Unlock()
	if !updated {
		t.Errorf("resources/updated for %s never came", commands)
	}

	// Every result carries the notice until the outcome is read; another conversation's never.
	for i := range 2 {
		text, _ := h.mustOp("list_sessions", nil)
		if m := notice.FindStringSubmatch(text); m == nil || m[1] != id {
			t.Errorf("result %d after the end = %q, want the notice about %s", i, text, id)
		}
	}
	if text, _ := h.mustOp("list_sessions", map[string]any{"conversation_id": "other"}); strings.Contains(text, "background:") {
		t.Errorf("another conversation's result = %q, want no notice", text)
	}
	text, _ := h.mustOp("get_output", map[string]any{"session_id": id})
	if !strings.Contains(text, "exit 3") || strings.Contains(text, "background:") {
		t.Errorf("get_output of the finished command = %q, want its exit and no notice", text)
	}
	if text, _ := h.mustOp("list_sessions", nil); strings.Contains(text, "background:") {
		t.Errorf("result after get_output = %q, want the notice gone", text)
	}

	// An outcome read before the end was announced leaves no notice behind.
	_, st = h.mustOp("run_command", map[string]any{"command": "sleep 1.5; echo done; exit 3", "yield_seconds": 1})
	id2, _ := st["id"].(string)
	// Read until the outcome shows: on a loaded machine a wait can end on "done" or on idle
	// output before the exit, and an outcome not yet seen is not yet read.
	text, _ = h.mustOp("get_output", map[string]any{"session_id": id2, "wait_ms": 10000, "wait_for": "done"})
	for i := 0; !strings.Contains(text, "exit 3"); i++ {
		if i == 20 {
			t.Fatalf("get_output of %s never showed its exit: %q", id2, text)
		}
		text, _ = h.mustOp("get_output", map[string]any{"session_id": id2, "wait_ms": 10000})
	}
	h.waitLog(backgroundLogger, id2)
	if text, _ := h.mustOp("list_sessions", nil); strings.Contains(text, "background:") {
		t.Errorf("result after the outcome was read during the run = %q, want no notice", text)
	}
}

// TestBackgroundNoticesBounded checks that one result carries at most noticesShown notices and
// counts the rest.
func TestBackgroundNoticesBounded(t *testing.T) {
	for _, n := range []int{noticesShown - 1, noticesShown, noticesShown + 1, maxNotices + 5} {
		e := &Env{}
		for i := range n {
			e.announce("c", nil, Finished{Handle: "cmd" + string(rune('a'+i%26)) + strings.Repeat("x", i/26), What: "true", Read: "get_output"})
		}
		notes := e.backgroundNotes("c")
		want := min(n, noticesShown)
		if n > noticesShown {
			want++
		}
		if len(notes) != want {
			t.Errorf("%d finished: %d notes %q, want %d", n, len(notes), notes, want)
		}
		if n > noticesShown && !strings.Contains(notes[len(notes)-1], "more finished") {
			t.Errorf("%d finished: last note %q, want the count of the rest", n, notes[len(notes)-1])
		}
		e.background.mu.Lock()
		kept := len(e.background.notices["c"])
		e.background.mu.Unlock()
		if kept > maxNotices {
			t.Errorf("%d finished: %d notices kept, want at most %d", n, kept, maxNotices)
		}
	}
}
