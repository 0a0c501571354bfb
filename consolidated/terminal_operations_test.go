package consolidated

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/golden"
	"toolhost/internal/terminal"
)

// TestRunCommand checks run_command beyond the text testdata/scenarios/terminal_session.txtar
// pins: structured content, cut output, cleaning, cwd and environment.
func TestRunCommand(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	text, st := h.mustOp("run_command", map[string]any{"command": "echo out; echo err >&2; exit 3"})
	for _, want := range []string{"exit 3 in ", "--- stdout ---\nout\n", "--- stderr ---\nerr"} {
		if !strings.Contains(text, want) {
			t.Errorf("run_command text = %q, want it to contain %q", text, want)
		}
	}
	if st["exit_code"] != float64(3) || st["id"] == "" {
		t.Errorf("structured = %v, want exit_code 3 and an id", st)
	}

	// Output beyond the budget keeps head and tail; the whole of it stays readable.
	text, st = h.mustOp("run_command", map[string]any{"command": "seq 100000", "max_bytes": 2000})
	if !strings.Contains(text, "\n1\n2\n") || !strings.Contains(text, "100000") || !strings.Contains(text, "bytes omitted") || st["truncated"] != true {
		t.Errorf("run_command seq 100000 = %q (%v), want head, tail and a marker", text, st)
	}
	if len(text) > 4000 {
		t.Errorf("run_command seq 100000 answered %d bytes, want about max_bytes", len(text))
	}
	if !strings.Contains(text, "get_history session_id=") {
		t.Errorf("run_command seq 100000 = %q, want the get_history hint", text)
	}
	hist, _ := h.mustOp("get_history", map[string]any{"session_id": st["id"], "offset": 288000, "max_bytes": 4000})
	if !strings.Contains(hist, "\n50000\n") || !strings.Contains(hist, "more: offset=292000") {
		t.Errorf("get_history of the middle = %q, want line 50000 and the next offset", hist)
	}
	hist, _ = h.mustOp("get_history", map[string]any{"session_id": st["id"], "offset": -7})
	if !strings.HasSuffix(hist, "\n100000\n") {
		t.Errorf("get_history of the end = %q, want the last line", hist)
	}

	// A progress meter is cleaned to its last state; the shorter text is not reported as cut.
	text, _ = h.mustOp("run_command", map[string]any{"command": `printf '10%%\r100%%\r\n'`})
	if !strings.HasSuffix(text, "--- stdout ---\n100%") {
		t.Errorf("run_command progress meter = %q, want a plain stdout header and its last state", text)
	}

	// camelCase and aliases are accepted; cwd relative to the working directory.
	if err := os.Mkdir(filepath.Join(h.wd, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	text, _ = h.mustOp("run_command", map[string]any{"cmd": "pwd; echo $FOO; echo ${TOOLHOST_SECRET:-scrubbed}", "workdir": "sub", "env": map[string]string{"FOO": "bar", "TOOLHOST_SECRET": "x"}})
	if want := filepath.Join(h.wd, "sub") + "\nbar\nscrubbed"; !strings.Contains(text, want) {
		t.Errorf("run_command in sub = %q, want it to contain %q", text, want)
	}
}

func TestRunCommandYieldThenPoll(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	for _, explicit := range []bool{true, false} {
		name := "own cursor"
		if explicit {
			name = "explicit cursor"
		}
		t.Run(name, func(t *testing.T) {
			text, st := h.mustOp("run_command", map[string]any{"command": "echo started; sleep 1.5; echo finished", "yield_seconds": 1})
			if !strings.HasPrefix(text, "still running after") || !strings.Contains(text, "get_output session_id=") {
				t.Fatalf("run_command text = %q, want a still-running handle", text)
			}
			id, _ := st["id"].(string)
			cursor, ok := st["cursor"].(float64)
			if id == "" || !ok || st["running"] != true {
				t.Fatalf("structured = %v, want id, cursor and running", st)
			}
			if explicit {
				golden.CheckString(t, "testdata/terminal_operations/run_command_running.txt", h.normalize(text)+"\n")
			}
			var out string
			eventually(t, 30*time.Second, "the command to finish", func() bool {
				args := map[string]any{"session_id": id, "wait_ms": 5000}
				if explicit {
					args["cursor"] = cursor
				}
				text, st := h.mustOp("get_output", args)
				_, body, _ := strings.Cut(text, "\n")
				if body != "(no new output)" {
					out += body
				}
				if st["finished"] == true {
					if !strings.Contains(text, "command finished in") || !strings.Contains(text, "exit 0") {
						t.Errorf("final get_output = %q, want finished with exit 0", text)
					}
					return true
				}
				cursor = st["next_cursor"].(float64)
				return false
			})
			if !strings.Contains(out, "finished") || strings.Contains(out, "started") {
				t.Errorf("output after the yield = %q, want only what came after it", out)
			}
		})
	}
}

func TestRunCommandTimeoutKillsTree(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	// Three sleepers: two in the command's process group, one escaped with setsid.
	sleeps := []string{sleepArg(1), sleepArg(2), sleepArg(3)}
	text, st := h.mustOp("run_command", map[string]any{
		"command":         fmt.Sprintf("sleep %s & sleep %s & setsid sleep %s & wait", sleeps[0], sleeps[1], sleeps[2]),
		"timeout_seconds": 1, "yield_seconds": 20,
	})
	if !strings.Contains(text, "timed out after") || st["timed_out"] != true {
		t.Fatalf("run_command text = %q (structured %v), want a timeout", text, st)
	}
	golden.CheckString(t, "testdata/terminal_operations/run_command_timeout.txt", h.normalize(text)+"\n")
	for _, arg := range sleeps {
		eventually(t, 10*time.Second, "sleep "+arg+" to be gone", func() bool { return len(procsWithArgs(t, "sleep", arg)) == 0 })
	}
}

func TestTerminalCwdOutsideNeedsGrant(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"run_command", "create_session"} {
		args := map[string]any{"cwd": outside}
		if op == "run_command" {
			args["command"] = "pwd"
		}
		text, isErr, _ := h.op(op, args)
		if !isErr || !strings.Contains(text, "user_collaboration") || !strings.Contains(text, "parameter: cwd") {
			t.Fatalf("%s outside = %q (isError %v), want an error naming user_collaboration and cwd", op, text, isErr)
		}
	}
	if _, err := h.guard.CreateGrant(context.Background(), authz.GrantSpec{
		Conversation: testConversation, Access: "terminal_operations:execute", Path: outside, Recursive: true, By: "test",
	}); err != nil {
		t.Fatal(err)
	}
	text, _ := h.mustOp("run_command", map[string]any{"command": "pwd", "cwd": outside})
	if !strings.Contains(text, "---\n"+outside) {
		t.Errorf("run_command with a grant = %q, want it to print %s", text, outside)
	}
}

func TestSessionLifecycle(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	text, st := h.mustOp("create_session", map[string]any{"session_id": "dev"})
	if st["id"] != "dev" || !strings.Contains(text, "session dev started") {
		t.Fatalf("create_session = %q (%v), want session dev started", text, st)
	}
	text, _ = h.mustOp("create_session", map[string]any{"session_id": "dev"})
	if !strings.Contains(text, "reused") {
		t.Errorf("create_session again = %q, want reused", text)
	}

	// send_input waits until the command finishes (bash prompt markers carry $?).
	text, st = h.mustOp("send_input", map[string]any{"session_id": "dev", "text": "echo hi; false", "wait_ms": 10000})
	if !strings.Contains(text, "hi\n") || st["finished"] != true || st["exit_code"] != float64(1) {
		t.Errorf("send_input echo hi; false = %q (%v), want hi, finished, exit 1", text, st)
	}
	golden.CheckString(t, "testdata/terminal_operations/send_input.txt", statusLine(h.normalize(text)))

	// get_output with wait_for: readiness of a slow starter in one call.
	// One foreground job (sh execs sleep), so the ctrl-c below cannot fall between two jobs of
	// a command list, where a real terminal loses it too.
	text, _ = h.mustOp("send_input", map[string]any{"session_id": "dev", "text": "sh -c 'sleep 0.5; echo Listening on 8080; exec sleep 30'"})
	if !strings.Contains(statusLine(text), "sent without waiting: get_output wait_ms=") {
		t.Errorf("send_input without wait_ms = %q, want a status line pointing to get_output", text)
	}
	text, st = h.mustOp("get_output", map[string]any{"session_id": "dev", "wait_for": "Listening on \\d+", "wait_ms": 15000})
	if st["matched"] != true || !strings.Contains(text, "Listening on 8080") || st["running"] != true {
		t.Errorf("get_output wait_for = %q (%v), want matched while running", text, st)
	}
	golden.CheckString(t, "testdata/terminal_operations/get_output_match.txt", statusLine(h.normalize(text)))

	// ctrl-c interrupts the sleep; the exit status is 130.
	// The wait may end when the output goes quiet after the echoed ^C, before bash has reaped
	// the command on a slow machine; poll until the prompt marker reports the status.
	text, st = h.mustOp("send_input", map[string]any{"session_id": "dev", "keys": []string{"ctrl-c"}, "wait_ms": 10000})
	for deadline := time.Now().Add(15 * time.Second); st["finished"] != true && time.Now().Before(deadline); {
		text, st = h.mustOp("get_output", map[string]any{"session_id": "dev", "wait_ms": 2000})
	}
	if st["finished"] != true || st["exit_code"] != float64(130) {
		t.Errorf("after ctrl-c: %q (%v), want finished with exit 130", text, st)
	}

	text, _ = h.mustOp("list_sessions", nil)
	if !strings.Contains(text, "dev session running") || !strings.Contains(text, "last: sh -c 'sleep 0.5") {
		t.Errorf("list_sessions = %q, want dev running with its last command", text)
	}
	golden.CheckString(t, "testdata/terminal_operations/list_sessions.txt", h.normalize(text)+"\n")

	text, _ = h.mustOp("close_session", map[string]any{"session_id": "dev"})
	if !strings.Contains(text, "closed dev") {
		t.Errorf("close_session = %q", text)
	}
	text, isErr, _ := h.op("send_input", map[string]any{"session_id": "dev", "text": "echo again"})
	if !isErr || !strings.Contains(text, "session_ended") {
		t.Errorf("send_input after close = %q (isError %v), want session_ended", text, isErr)
	}
	text, _ = h.mustOp("get_history", map[string]any{"session_id": "dev"})
	if !strings.Contains(text, "Listening on 8080") {
		t.Errorf("get_history after close = %q, want the old output", text)
	}
	text, isErr, _ = h.op("get_output", map[string]any{"session_id": "nope"})
	if !isErr || !strings.Contains(text, "no_session") || !strings.Contains(text, "list_sessions") {
		t.Errorf("get_output of an unknown id = %q, want no_session naming list_sessions", text)
	}
}

func TestSessionScreenProgressBar(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	h.mustOp("create_session", map[string]any{"session_id": "bar", "cols": 60, "rows": 10})
	h.mustOp("send_input", map[string]any{"session_id": "bar", "text": `printf 'P:10%%\rP:50%%\rP:100%%\n'`, "wait_ms": 10000})
	var screen string
	eventually(t, 10*time.Second, "the progress bar on screen", func() bool {
		screen, _ = h.mustOp("get_screen", map[string]any{"session_id": "bar"})
		return regexp.MustCompile(`(?m)^P:100%\s*$`).MatchString(screen)
	})
	if regexp.MustCompile(`(?m)^P:(10|50)%`).MatchString(screen) {
		t.Errorf("get_screen = %q, want the overwritten states gone", screen)
	}
	// get_output resolves the \r the same way for the log view.
	text, _ := h.mustOp("get_history", map[string]any{"session_id": "bar"})
	if !regexp.MustCompile(`(?m)^P:100%$`).MatchString(text) {
		t.Errorf("get_history = %q, want the line resolved to P:100%%", text)
	}
	h.mustOp("resize_session", map[string]any{"session_id": "bar", "cols": 80, "rows": 20})
	text, _ = h.mustOp("send_input", map[string]any{"session_id": "bar", "text": "stty size", "wait_ms": 10000})
	if !strings.Contains(text, "20 80") {
		t.Errorf("stty size after resize = %q, want 20 80", text)
	}
}

func TestTerminalConversationsIsolated(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	h.mustOp("create_session", map[string]any{"session_id": "a1", "conversation_id": "conv-a"})
	h.mustOp("send_input", map[string]any{"session_id": "a1", "conversation_id": "conv-a", "text": "echo only-a", "wait_ms": 10000})
	text, _ := h.mustOp("list_sessions", map[string]any{"conversation_id": "conv-b"})
	if strings.Contains(text, "a1") {
		t.Errorf("list_sessions of conv-b = %q, want no a1", text)
	}
	text, isErr, _ := h.op("get_output", map[string]any{"session_id": "a1", "conversation_id": "conv-b"})
	if !isErr || !strings.Contains(text, "no_session") {
		t.Errorf("get_output of a1 from conv-b = %q, want no_session", text)
	}
	// The same name in another conversation is another session.
	h.mustOp("create_session", map[string]any{"session_id": "a1", "conversation_id": "conv-b"})
	text, _ = h.mustOp("get_history", map[string]any{"session_id": "a1", "conversation_id": "conv-b"})
	if strings.Contains(text, "only-a") {
		t.Errorf("conv-b's a1 history = %q, want nothing of conv-a", text)
	}
}

func TestTerminalProgressNotifications(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	h.mustOp("create_session", map[string]any{"session_id": "p"})
	p := &mcp.CallToolParams{Name: "terminal_operations", Arguments: map[string]any{
		"operation": "send_input", "session_id": "p", "wait_ms": 15000, "wait_for": "tick6",
		"text": "for i in 1 2 3 4 5 6; do echo tick$i; sleep 0.2; done",
	}}
	p.SetProgressToken("tok-1")
	text, isErr, _ := h.callParams(p)
	if isErr || !strings.Contains(text, "tick6") {
		t.Fatalf("send_input = %q (isError %v)", text, isErr)
	}
	eventually(t, 5*time.Second, "a progress notification with output", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return strings.Contains(strings.Join(h.progress, ""), "tick")
	})

	// run_command streams too, and still answers with separated streams when it finishes.
	p = &mcp.CallToolParams{Name: "terminal_operations", Arguments: map[string]any{
		"operation": "run_command", "yield_seconds": 20,
		"command": "for i in 1 2 3 4 5 6; do echo run$i; sleep 0.2; done; echo oops >&2",
	}}
	p.SetProgressToken("tok-2")
	text, isErr, st := h.callParams(p)
	if isErr || !strings.Contains(text, "exit 0 in") || !strings.Contains(text, "--- stdout ---\nrun1\n") || !strings.Contains(text, "--- stderr ---\noops") {
		t.Fatalf("run_command with progress = %q (isError %v)", text, isErr)
	}
	if st["exit_code"] != float64(0) {
		t.Errorf("structured = %v, want exit_code 0", st)
	}
	eventually(t, 5*time.Second, "progress notifications of run_command", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return strings.Contains(strings.Join(h.progress, ""), "run")
	})

	// A command outliving the yield is handed back with its output so far.
	p = &mcp.CallToolParams{Name: "terminal_operations", Arguments: map[string]any{
		"operation": "run_command", "yield_seconds": 1, "command": "echo early; sleep 2; echo late",
	}}
	p.SetProgressToken("tok-3")
	text, _, st = h.callParams(p)
	if !strings.HasPrefix(text, "still running after") || !strings.Contains(text, "early") || st["running"] != true {
		t.Fatalf("run_command with progress past the yield = %q (%v)", text, st)
	}
	out := h.waitOutput(st["id"].(string), regexp.MustCompile(`late`), "")
	if strings.Contains(out, "early") {
		t.Errorf("get_output after the handed-back run_command = %q, want only new output", out)
	}
}

func TestTerminalCancelWaitingCall(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	h.mustOp("create_session", map[string]any{"session_id": "c"})
	h.mustOp("send_input", map[string]any{"session_id": "c", "text": "sleep 60"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: "terminal_operations", Arguments: map[string]any{
			"operation": "get_output", "session_id": "c", "wait_ms": 15000, "wait_for": "never-printed",
		}})
		done <- err
	}()
	time.Sleep(100 * time.Millisecond) // let the call start waiting; correctness does not depend on it
	began := time.Now()
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("cancelled CallTool returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelled CallTool did not return")
	}
	// The server is still responsive and the session still usable.
	text, st := h.mustOp("send_input", map[string]any{"session_id": "c", "keys": []string{"ctrl-c"}, "wait_ms": 10000})
	if st["finished"] != true {
		t.Errorf("send_input ctrl-c after a cancelled wait = %q (%v), want finished", text, st)
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("recovering from a cancelled wait took %s", d)
	}
}

func TestTerminalResources(t *testing.T) {
	for _, proto := range []string{"", "2025-06-18"} {
		t.Run("protocol="+proto, func(t *testing.T) {
			h := newTermHarness(t, harnessOptions{protocol: proto})
			h.mustOp("create_session", map[string]any{"session_id": "r"})
			screenURI := TerminalURI(testConversation, "r", "screen")
			ctx := context.Background()
			if err := h.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: screenURI}); err != nil {
				t.Fatalf("Subscribe(%s): %v", screenURI, err)
			}
			h.mustOp("send_input", map[string]any{"session_id": "r", "text": "echo resource-check", "wait_ms": 10000})
			eventually(t, 10*time.Second, "a resource-updated notification", func() bool {
				h.mu.Lock()
				defer h.mu.Unlock()
				for _, u := range h.updated {
					if u == screenURI {
						return true
					}
				}
				return false
			})
			for _, kind := range []string{"screen", "history"} {
				res, err := h.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: TerminalURI(testConversation, "r", kind)})
				if err != nil {
					t.Fatalf("ReadResource(%s): %v", kind, err)
				}
				if len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "resource-check") {
					t.Errorf("ReadResource(%s) = %+v, want the session's output", kind, res.Contents)
				}
			}
			if _, err := h.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: TerminalURI("other", "r", "screen")}); err == nil {
				t.Errorf("ReadResource of another conversation's id succeeded, want not found")
			}
		})
	}
}

func TestTerminalRestartShowsEnded(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	h.mustOp("create_session", map[string]any{"session_id": "old"})
	h.mustOp("send_input", map[string]any{"session_id": "old", "text": "echo before-restart", "wait_ms": 10000})
	h.close()
	h2 := newTermHarness(t, harnessOptions{st: h.st, wd: h.wd})
	text, _ := h2.mustOp("list_sessions", nil)
	if !strings.Contains(text, "old session "+terminal.StateEnded) {
		t.Errorf("list_sessions after restart = %q, want old ended", text)
	}
	text, _ = h2.mustOp("get_output", map[string]any{"session_id": "old", "cursor": 1})
	if !strings.Contains(text, "before-restart") {
		t.Errorf("get_output after restart = %q, want the stored tail", text)
	}
}

func TestTerminalArgumentErrors(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	h.mustOp("create_session", map[string]any{"session_id": "e"})
	h.mustOp("run_command", map[string]any{"command": "true"}) // cmd1, a job
	cases := []struct {
		name string
		op   string
		args map[string]any
		want string
	}{
		{"empty command", "run_command", map[string]any{"command": " "}, "parameter: command"},
		{"timeout above max", "run_command", map[string]any{"command": "true", "timeout_seconds": 100000}, "parameter: timeout_seconds"},
		{"unknown key", "send_input", map[string]any{"session_id": "e", "keys": []string{"hyper-x"}}, "parameter: keys"},
		{"nothing to send", "send_input", map[string]any{"session_id": "e"}, "missing_parameter"},
		{"bad regex", "get_output", map[string]any{"session_id": "e", "wait_for": "(", "wait_ms": 10}, "parameter: wait_for"},
		{"bad size", "resize_session", map[string]any{"session_id": "e", "cols": 1, "rows": 1}, "parameter: cols, rows"},
		{"bad name", "create_session", map[string]any{"session_id": "a b"}, "parameter: session_id"},
		{"input to a job", "send_input", map[string]any{"session_id": "cmd1", "text": "x"}, "parameter: session_id"},
		{"screen of a job", "get_screen", map[string]any{"session_id": "cmd1"}, "parameter: session_id"},
		{"wrong param, the required one missing", "get_screen", map[string]any{"sid": "e", "command": "ls"}, "unexpected_parameter"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text, isErr, _ := h.op(tc.op, tc.args)
			if !isErr || !strings.Contains(text, tc.want) {
				t.Errorf("%s(%v) = %q (isError %v), want an error containing %q", tc.op, tc.args, text, isErr, tc.want)
			}
		})
	}
}

// statusLine keeps the first line of a session answer: the output below it depends on how the
// PTY's echo and prompt interleave with the wait, which is timing.
func statusLine(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	return line + "\n"
}

// TestTerminalDevServerScenario is the "done when": start a dev server and wait for
// it to be ready, run tests in another session, watch both, interrupt one, close everything,
// and leave no process behind (background jobs and setsid escapees included).
func TestTerminalDevServerScenario(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	h.mustOp("create_session", map[string]any{"session_id": "dev"})
	h.mustOp("create_session", map[string]any{"session_id": "tests"})
	// The server is one process (sh), as a real one is. A loop run by the interactive shell
	// itself would lose a ctrl-c now and then, whatever the terminal does: between two of
	// its foreground commands the terminal's foreground group is the one that just exited,
	// until bash takes the terminal back, and the kernel signals nobody.
	sleeps := []string{sleepArg(1), sleepArg(2)}
	h.mustOp("send_input", map[string]any{"session_id": "dev",
		"text": fmt.Sprintf("setsid sleep %s & sleep %s & sh -c 'sleep 0.3; echo Listening on 4000; while :; do sleep 0.2; echo GET /; done'", sleeps[0], sleeps[1])})
	text, st := h.mustOp("get_output", map[string]any{"session_id": "dev", "wait_for": "Listening on \\d+", "wait_ms": 15000})
	if st["matched"] != true {
		t.Fatalf("dev server never became ready: %q", text)
	}
	// The tests session's first prompt has been unread for longer than the settle time by now;
	// the wait must still be for the command's output, not end on that old prompt.
	text, st = h.mustOp("send_input", map[string]any{"session_id": "tests", "text": "echo running tests; echo FAIL: TestX; (exit 3)", "wait_ms": 15000})
	if st["finished"] != true || st["exit_code"] != float64(3) || !strings.Contains(text, "FAIL: TestX") {
		t.Errorf("tests session = %q (%v), want finished with exit 3", text, st)
	}
	h.waitOutput("dev", regexp.MustCompile(`GET /`), "")

	// An interactive program: cat echoes a line back; ctrl-d ends it.
	// send_input answers with output nobody has read yet, so the echo may arrive in its answer
	// rather than in a later get_output: collect both.
	echoed := regexp.MustCompile(`hello-cat\r?\n(.|\n)*hello-cat`)
	var seen strings.Builder
	for _, in := range []string{"cat", "hello-cat"} {
		text, _ := h.mustOp("send_input", map[string]any{"session_id": "tests", "text": in})
		_, body, _ := strings.Cut(text, "\n")
		seen.WriteString(body)
	}
	for deadline := time.Now().Add(30 * time.Second); !echoed.MatchString(seen.String()); {
		if time.Now().After(deadline) {
			t.Fatalf("cat never echoed hello-cat; got:\n%s", seen.String())
		}
		text, _ := h.mustOp("get_output", map[string]any{"session_id": "tests", "wait_ms": 2000, "wait_for": echoed.String()})
		_, body, _ := strings.Cut(text, "\n")
		seen.WriteString(body)
	}
	if _, st = h.mustOp("send_input", map[string]any{"session_id": "tests", "keys": []string{"ctrl-d"}, "wait_ms": 10000}); st["finished"] != true {
		t.Errorf("ctrl-d did not end cat: %v", st)
	}

	// As in TestSessionLifecycle, the wait may end when the output goes quiet after the echoed
	// ^C, before bash has reaped the loop on a loaded machine; poll until the prompt marker
	// reports the status.
	text, st = h.mustOp("send_input", map[string]any{"session_id": "dev", "keys": []string{"ctrl-c"}, "wait_ms": 10000})
	for deadline := time.Now().Add(15 * time.Second); st["finished"] != true && time.Now().Before(deadline); {
		text, st = h.mustOp("get_output", map[string]any{"session_id": "dev", "wait_ms": 2000})
	}
	if st["finished"] != true {
		t.Errorf("ctrl-c did not stop the dev server: %q (%v)", text, st)
	}
	h.mustOp("close_session", map[string]any{"session_id": "dev"})
	h.mustOp("close_session", map[string]any{"session_id": "tests"})
	for _, arg := range sleeps {
		eventually(t, 10*time.Second, "sleep "+arg+" to be gone", func() bool { return len(procsWithArgs(t, "sleep", arg)) == 0 })
	}
	text, _ = h.mustOp("list_sessions", nil)
	if strings.Contains(text, "running") {
		t.Errorf("list_sessions after closing everything = %q, want nothing running", text)
	}
}

// TestSessionFloodSkipsToTail: output beyond a page read with the conversation's own cursor
// keeps its head and its newest part, so the model sees how it ended without paging; the
// skipped middle is named for get_history, and an explicit cursor still pages.
func TestSessionFloodSkipsToTail(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	h.mustOp("create_session", map[string]any{"session_id": "big"})
	text, st := h.mustOp("send_input", map[string]any{"session_id": "big", "text": "seq 1 30000; echo DONE", "wait_for": "DONE\\n", "wait_ms": 30000})
	for _, want := range []string{"\n1\n2\n3\n", "29999\n30000\nDONE\n", "bytes skipped; get_history session_id=big offset="} {
		if !strings.Contains(text, want) {
			t.Errorf("send_input(seq 1 30000) = %.200q…%q, want it to contain %q", text, text[max(len(text)-200, 0):], want)
		}
	}
	if len(text) > 17<<10 {
		t.Errorf("send_input(seq 1 30000) = %d bytes; want one page", len(text))
	}
	// Nothing of the flood is left behind. The shell's prompt may arrive after the page was
	// taken (on a loaded machine it often does): that is all the next read may hold.
	if st["has_more"] == true {
		rest, _ := h.mustOp("get_output", map[string]any{"session_id": "big", "wait_ms": 500})
		if strings.Contains(rest, "DONE") || strings.Contains(rest, "3000") || len(rest) > 512 {
			t.Errorf("send_input(seq 1 30000) left %d bytes behind: %q; want at most the prompt", len(rest), rest)
		}
	}
	_, st = h.mustOp("get_output", map[string]any{"session_id": "big", "cursor": 100, "max_bytes": 2048})
	if st["has_more"] != true || st["next_cursor"] != float64(100+2048) {
		t.Errorf("get_output(cursor 100, max 2048) = %v, want a page of 2048 bytes and has_more", st)
	}
}
