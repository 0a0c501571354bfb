package consolidated

import (
	"strings"
	"testing"
)

// TestWaitForImpliesWait: wait_for without wait_ms waits for the pattern instead of answering
// with what was there before the input.
func TestWaitForImpliesWait(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	h.mustOp("create_session", map[string]any{"session_id": "w"})
	tests := []struct {
		name string
		op   string
		args map[string]any
		want string
	}{
		{"send_input", "send_input", map[string]any{"session_id": "w", "text": "sleep 0.5; echo ready-$((6*7))", "wait_for": "ready-42"}, "ready-42"},
		{"get_output", "get_output", map[string]any{"session_id": "w", "wait_for": "later-42"}, "later-42"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.op == "get_output" {
				// Let the first case's prompt come back (its wait ended on the pattern, before
				// the command had finished), then start a command that keeps running, so that
				// only the pattern can end the wait. A line typed while the first command still
				// runs would be a typed-ahead line, whose start the engine can only guess within
				// a grace period that a loaded machine outlasts.
				h.awaitPrompt("w")
				h.mustOp("send_input", map[string]any{"session_id": "w", "text": "true", "wait_ms": 5000})
				h.awaitPrompt("w")
				h.mustOp("send_input", map[string]any{"session_id": "w", "text": "sh -c 'sleep 0.5; echo later-$((6*7)); exec sleep 30'"})
			}
			text, st := h.mustOp(tc.op, tc.args)
			if !strings.Contains(text, tc.want) || strings.Contains(text, "sent without waiting") {
				t.Errorf("%s %v = %q (%v), want %q after a wait", tc.op, tc.args, text, st, tc.want)
			}
		})
	}
}
