package consolidated

import (
	"context"
	"strings"
	"testing"
	"time"

	"toolhost/internal/golden"
	"toolhost/internal/terminal"
)

// TestTerminalUserTyped: keys the user typed into a session (as the console and toolhost
// attach type them) are named as the user's on the model's next read of the session, once.
func TestTerminalUserTyped(t *testing.T) {
	var mgr *terminal.Manager
	typed := terminal.NewUserInputs()
	h := newHarness(t, harnessOptions{tools: func(h *harness) []*Tool {
		var err error
		mgr, err = terminal.NewManager(terminal.Config{Store: h.st, CloseGrace: 500 * time.Millisecond, MaxWait: 20 * time.Second})
		if err != nil {
			h.t.Fatal(err)
		}
		return []*Tool{TerminalTool(TerminalConfig{Manager: mgr, Guard: h.guard, MaxWait: 20 * time.Second, Typed: typed})}
	}})
	h.mustOp("create_session", map[string]any{"session_id": "ask"})
	// The send itself waits for the question: a read after it may find it already read.
	if text, _ := h.mustOp("send_input", map[string]any{"session_id": "ask", "text": `read -p 'name? ' n; echo "hello $n"`, "wait_for": `name\? $`, "wait_ms": 15000}); !strings.Contains(text, "wait_for matched") {
		t.Fatalf("the question did not come: %q", text)
	}

	// The user answers the prompt, key by key, as the console sends them.
	conv := h.conversation("")
	no := false
	at := time.Date(2026, 12, 6, 20, 41, 3, 0, time.UTC)
	for i, k := range []string{"A", "d", "a", "\r"} {
		if _, err := mgr.Send(context.Background(), conv, "ask", terminal.Input{Text: k, PressEnter: &no, User: true}); err != nil {
			t.Fatal(err)
		}
		typed.Add(conv, "ask", terminal.Typed{At: at.Add(time.Duration(i) * time.Second), Via: "console", Text: k})
	}
	// Up to the next prompt, so that the snapshot does not depend on whether the shell had
	// printed it when "hello Ada" came.
	text, _ := h.mustOp("get_output", map[string]any{"session_id": "ask", "wait_for": `hello Ada\r?\n.*# $`, "wait_ms": 15000})
	if !strings.Contains(text, "⟦user typed (console 20:41:03-20:41:06): Ada⏎⟧") || !strings.Contains(text, "hello Ada") {
		t.Fatalf("get_output after the user typed = %q, want the user's keys named and the echo", text)
	}
	golden.CheckString(t, "testdata/terminal_operations/user_typed.txt", h.normalize(text)+"\n")
	text, _ = h.mustOp("get_output", map[string]any{"session_id": "ask"})
	if strings.Contains(text, "user typed") {
		t.Errorf("the next read names the keys again: %q", text)
	}
	// The screen says so too, when it is the model's next look.
	if _, err := mgr.Send(context.Background(), conv, "ask", terminal.Input{Text: "\r", PressEnter: &no, User: true}); err != nil {
		t.Fatal(err)
	}
	typed.Add(conv, "ask", terminal.Typed{At: at, Via: "attach", Text: "\r"})
	text, _ = h.mustOp("get_screen", map[string]any{"session_id": "ask"})
	if !strings.HasPrefix(text, "⟦user typed (attach 20:41:03): ⏎⟧\n") {
		t.Errorf("get_screen after the user typed = %q, want the note first", text)
	}
}
