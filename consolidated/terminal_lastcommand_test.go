package consolidated

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGetLastCommand checks get_last_command through the protocol: nothing before the first
// command, then the last of run_command and session commands, with its cwd, exit code,
// duration and only its own output; other conversations see theirs only.
func TestGetLastCommand(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	if err := os.Mkdir(filepath.Join(h.wd, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}

	text, isErr, _ := h.op("get_last_command", nil)
	if !isErr || !strings.Contains(text, "no command has finished") {
		t.Fatalf("get_last_command before any command = %q (error %v), want a not-found error", text, isErr)
	}

	h.mustOp("run_command", map[string]any{"command": "echo first"})
	h.mustOp("run_command", map[string]any{"command": "echo out; echo err >&2; exit 3", "cwd": "sub"})
	text, st := h.mustOp("get_last_command", nil)
	for _, want := range []string{"$ echo out; echo err >&2; exit 3\n", "exit 3 in ", "cwd " + filepath.Join(h.wd, "sub"), "\nout", "\nerr"} {
		if !strings.Contains(text, want) {
			t.Errorf("get_last_command after run_command = %q, want it to contain %q", text, want)
		}
	}
	if strings.Contains(text, "first") {
		t.Errorf("get_last_command = %q, shows an earlier command's output", text)
	}
	if st["exit_code"] != float64(3) || st["cwd"] != filepath.Join(h.wd, "sub") {
		t.Errorf("structured = %v, want exit_code 3 and the cwd", st)
	}

	// A command typed into a session: its own output, not the prompt or the command before.
	h.mustOp("create_session", map[string]any{"session_id": "w", "cwd": "sub"})
	h.mustOp("send_input", map[string]any{"session_id": "w", "text": "echo before", "wait_for": "^before"})
	h.awaitPrompt("w")
	h.mustOp("send_input", map[string]any{"session_id": "w", "text": "cd .. && seq 3 && (exit 4)"})
	h.awaitPrompt("w")
	text, st = h.mustOp("get_last_command", nil)
	if st["session"] != "w" || st["exit_code"] != float64(4) || st["command"] != "cd .. && seq 3 && (exit 4)" {
		t.Errorf("get_last_command after a session command: structured = %v, want session w, exit 4 and the line", st)
	}
	if !strings.Contains(text, "1\n2\n3") || strings.Contains(text, "before") {
		t.Errorf("get_last_command after a session command = %q, want seq's output and nothing of the command before", text)
	}
	if st["cwd"] != filepath.Join(h.wd, "sub") {
		t.Errorf("get_last_command cwd = %v, want the shell's directory when the command started (%s)", st["cwd"], filepath.Join(h.wd, "sub"))
	}

	// Another conversation has its own last command.
	text, isErr, _ = h.op("get_last_command", map[string]any{"conversation_id": "other"})
	if !isErr {
		t.Errorf("get_last_command in another conversation = %q, want not found", text)
	}
}

// TestGetLastCommandLargeOutput checks that a large output is cut and spilled like every
// result: head and tail in the answer, the rest readable with read_tool_result.
func TestGetLastCommandLargeOutput(t *testing.T) {
	h := newHarness(t, harnessOptions{budgetTokens: 2000, tools: func(h *harness) []*Tool {
		return []*Tool{testTerminalTool(h), ReadToolResultTool()}
	}})
	h.mustOp("run_command", map[string]any{"command": "seq 50000", "max_bytes": 1000})
	text, _ := h.mustOp("get_last_command", nil)
	if !strings.Contains(text, "\n1\n2\n") || !strings.Contains(text, "50000") {
		t.Errorf("get_last_command of seq 50000 = %.300q…, want the head and the tail", text)
	}
	if !strings.Contains(text, "read_tool_result") || len(text) > 2000*bytesPerToken+2000 {
		t.Errorf("get_last_command of seq 50000 answered %d bytes, want it cut to the budget with a read_tool_result hint", len(text))
	}
}
