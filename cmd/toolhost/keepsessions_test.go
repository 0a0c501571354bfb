//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/proctest"
)

// These tests run the real binary with [terminal] keep_sessions: sessions and commands live in
// the terminal host of the state directory and outlive the servers that started them.

// keepState is a state directory whose config keeps sessions in the terminal host; the host is
// stopped when the test ends.
func keepState(t *testing.T, extra string) (state, work string) {
	t.Helper()
	state, work = t.TempDir(), t.TempDir()
	cfg := "[terminal]\nkeep_sessions = true\n" + extra
	if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	stopHostsAtCleanup(t, state)
	return state, work
}

// waitHosts waits until state has n terminal hosts and returns their pids.
func waitHosts(t *testing.T, state string, n int, d time.Duration) []int {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		pids := hostPIDs(state)
		if len(pids) == n {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("state has terminal hosts %v, want %d", pids, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// keptServer starts `toolhost stdio` on state pinned to conversation "kept".
func keptServer(t *testing.T, state, work string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	cmd := commandIn(t, state, work, "stdio", "--conversation", "kept")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, cmd
}

func term(t *testing.T, cs *mcp.ClientSession, args map[string]any) (string, map[string]any) {
	t.Helper()
	return call(t, cs, "terminal_operations", args)
}

// termOK is term for a call that must succeed: an error answer fails the test.
func termOK(t *testing.T, cs *mcp.ClientSession, args map[string]any) string {
	t.Helper()
	text, _ := term(t, cs, args)
	if strings.HasPrefix(text, "ERROR") {
		t.Fatalf("terminal_operations %v: %s", args, text)
	}
	return text
}

// pollOutput calls get_output on id until the command has finished, and returns everything it
// printed.
func pollOutput(t *testing.T, cs *mcp.ClientSession, id string) string {
	t.Helper()
	var all strings.Builder
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		text := termOK(t, cs, map[string]any{"operation": "get_output", "session_id": id, "wait_ms": 5000})
		all.WriteString(text)
		if strings.Contains(text, "command finished") {
			return all.String()
		}
	}
	t.Fatalf("command %s still running after a minute; output so far:\n%s", id, all.String())
	return ""
}

// TestKeptSessionsOutliveAKilledServer kills the server with SIGKILL while a command runs and
// a shell holds a variable; the next server finds the command still running, gets every line
// it printed, and types into the same shell.
func TestKeptSessionsOutliveAKilledServer(t *testing.T) {
	state, work := keepState(t, "")
	cs, cmd := keptServer(t, state, work)
	termOK(t, cs, map[string]any{"operation": "create_session", "name": "sh"})
	termOK(t, cs, map[string]any{"operation": "send_input", "session_id": "sh", "text": "KEPT=42", "wait_ms": 3000})
	const n = 40
	script := fmt.Sprintf("for i in $(seq 1 %d); do echo line-$i; sleep 0.05; done; echo the-end", n)
	text, _ := term(t, cs, map[string]any{"operation": "run_command", "command": script, "yield_seconds": 1})
	m := regexp.MustCompile(`still running after .*get_output session_id=(\S+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the command finished within its yield (%s); it must outlive the server", text)
	}
	id := m[1]
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no shutdown at all
		t.Fatal(err)
	}
	cs.Close() // reaps the killed process (the transport owns its Wait)

	cs2, _ := keptServer(t, state, work)
	text, _ = term(t, cs2, map[string]any{"operation": "list_sessions"})
	if !strings.Contains(text, id) || !strings.Contains(text, "sh") {
		t.Fatalf("list_sessions after the kill = %s, want %s and sh", text, id)
	}
	out := text + pollOutput(t, cs2, id)
	// The command's history holds every line it printed, before and after the kill.
	full, _ := term(t, cs2, map[string]any{"operation": "get_history", "session_id": id, "offset": 0})
	for i := 1; i <= n; i++ {
		if !strings.Contains(full, fmt.Sprintf("line-%d\n", i)) {
			t.Fatalf("line-%d missing from the command's history after the kill:\n%s\n(polled: %s)", i, full, out)
		}
	}
	if !strings.Contains(out, "the-end") {
		t.Fatalf("the command's end is missing from what the new server read:\n%s", out)
	}
	text, _ = term(t, cs2, map[string]any{"operation": "send_input", "session_id": "sh", "text": "echo kept=$KEPT", "wait_ms": 3000})
	if !strings.Contains(text, "kept=42") {
		t.Fatalf("the shell lost its state across servers: %s", text)
	}
	if pids := hostPIDs(state); len(pids) != 1 {
		t.Fatalf("terminal hosts %v, want one", pids)
	}
}

// TestKilledTerminalHostEndsItsSessions kills the terminal host: the server's calls do not hang,
// the session is reported ended with what it printed, and the next session starts a new host.
func TestKilledTerminalHostEndsItsSessions(t *testing.T) {
	state, work := keepState(t, "")
	cs, _ := keptServer(t, state, work)
	termOK(t, cs, map[string]any{"operation": "create_session", "name": "doomed"})
	// Printed after the session's last finished command: only the recording holds it.
	text, _ := term(t, cs, map[string]any{"operation": "send_input", "session_id": "doomed", "text": "echo before-the-kill; sleep 600.25", "wait_ms": 1000})
	if !strings.Contains(text, "before-the-kill") {
		t.Fatalf("send_input = %s", text)
	}
	// A command that outlives its call: nothing reads a terminal of it.
	if text, _ := term(t, cs, map[string]any{"operation": "run_command", "command": "sleep 600.5", "yield_seconds": 1}); !strings.Contains(text, "still running") {
		t.Fatalf("run_command = %s, want it still running", text)
	}
	time.Sleep(500 * time.Millisecond) // the recording is flushed within 200 ms
	pids := waitHosts(t, state, 1, 10*time.Second)
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The server may start a new host at once (it watches the command, and asks about it when
	// the host drops it); the killed one must be gone.
	for deadline := time.Now().Add(10 * time.Second); slices.Contains(hostPIDs(state), pids[0]); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the killed terminal host %d still runs", pids[0])
		}
	}
	// The session's processes end with the host (their terminal hangs up); the command's are
	// ended by the server that saw the host die.
	for _, arg := range []string{"600.25", "600.5"} {
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if len(proctest.Matching(arg)) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("sleep %s outlived the killed host: %v", arg, proctest.Matching(arg))
			}
		}
	}

	start := time.Now()
	text, _ = term(t, cs, map[string]any{"operation": "list_sessions"})
	if time.Since(start) > 20*time.Second {
		t.Errorf("list_sessions after the host's kill took %s", time.Since(start))
	}
	// The session and the command, both ended (the host kept the command's record in the
	// store); the command is also announced as finished (failed) on a line of its own.
	var listed []string
	for _, l := range strings.Split(text, "\n") {
		if l != "" && !strings.HasPrefix(l, "background: ") {
			listed = append(listed, l)
		}
	}
	if len(listed) != 2 || !strings.HasPrefix(listed[0], "doomed session ended") ||
		!strings.Contains(listed[1], " command ended ") || !strings.HasSuffix(listed[1], "last: sleep 600.5") {
		t.Fatalf("list_sessions after the host's kill = %s, want doomed and the command ended", text)
	}
	text, _ = term(t, cs, map[string]any{"operation": "get_output", "session_id": "doomed"})
	if !strings.Contains(text, "before-the-kill") {
		t.Fatalf("get_output of the ended session = %s, want what it printed", text)
	}
	if text, _ := term(t, cs, map[string]any{"operation": "send_input", "session_id": "doomed", "text": "echo hi"}); !strings.HasPrefix(text, "ERROR") {
		t.Fatalf("send_input to the ended session = %s, want an error", text)
	}
	termOK(t, cs, map[string]any{"operation": "create_session", "name": "fresh"}) // after the host's kill
	if text, _ := term(t, cs, map[string]any{"operation": "send_input", "session_id": "fresh", "text": "echo alive", "wait_ms": 3000}); !strings.Contains(text, "alive") {
		t.Fatalf("a new session after the host's kill = %s", text)
	}
	if now := hostPIDs(state); len(now) != 1 || now[0] == pids[0] {
		t.Fatalf("terminal hosts after the kill: %v, want one new one", now)
	}
}

// TestKeptSessionsIdleLimit: a session outlives a server that shut down cleanly, and a
// conversation no server then uses for keep_sessions_idle has its sessions closed.
func TestKeptSessionsIdleLimit(t *testing.T) {
	state, work := keepState(t, "keep_sessions_idle = \"1s\"\n")
	cs, _ := keptServer(t, state, work)
	termOK(t, cs, map[string]any{"operation": "create_session", "name": "idle"})
	text, _ := term(t, cs, map[string]any{"operation": "send_input", "session_id": "idle", "text": "echo shell-pid=$$", "wait_ms": 3000})
	m := regexp.MustCompile(`shell-pid=(\d+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("send_input = %s", text)
	}
	pid, _ := strconv.Atoi(m[1])
	cs.Close() // the transport waits for the process
	// Closed after the idle second (the host looks every quarter of it); asking the host about
	// the conversation would count as using it, so the shell's process is watched instead.
	alive := func() bool { return syscall.Kill(pid, 0) == nil && !strings.Contains(procState(pid), "Z") }
	if !alive() {
		t.Fatalf("the session's shell %d ended with the server that shut down", pid)
	}
	for deadline := time.Now().Add(15 * time.Second); alive(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the session's shell %d still runs well after keep_sessions_idle", pid)
		}
	}
	cs2, _ := keptServer(t, state, work)
	text, _ = term(t, cs2, map[string]any{"operation": "list_sessions"})
	if !strings.HasPrefix(text, "idle session ended") || strings.Count(text, "\n") > 0 {
		t.Fatalf("list_sessions after the idle limit = %s, want idle ended", text)
	}
}

// procState is the state letter of /proc/PID/stat ("" when the process is gone).
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2 : i+3]
	}
	return ""
}

// TestTerminalHostRefusesItsOwnCommands: a command running in the host (here unsandboxed, so
// it can read the host's key) that starts toolhost on the same state directory is refused by
// the host's peer check, since it descends from the host; that toolhost keeps its terminals
// itself.
func TestTerminalHostRefusesItsOwnCommands(t *testing.T) {
	state, work := keepState(t, "sandbox = \"off\"\n")
	cs, _ := keptServer(t, state, work)
	inner, err := json.Marshal(map[string]any{"operation": "run_command", "command": "echo inner-ran"})
	if err != nil {
		t.Fatal(err)
	}
	nested := fmt.Sprintf("%s --state-dir %s --workdir %s --config %s --conversation inner call terminal_operations '%s' 2>&1",
		binary, state, work, filepath.Join(state, "config.toml"), inner)
	text, _ := term(t, cs, map[string]any{"operation": "run_command", "command": nested, "timeout_seconds": 60})
	if !strings.Contains(text, "the terminal host refused this process") || !strings.Contains(text, "inner-ran") {
		t.Fatalf("a toolhost started by a kept command = %s; want it refused by the host and running the command itself", text)
	}
	log, err := os.ReadFile(filepath.Join(state, "terminal-host.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "terminal host: connection refused") || !strings.Contains(string(log), "runs under a toolhost server") {
		t.Fatalf("the host's log does not show the refusal:\n%s", log)
	}
}
