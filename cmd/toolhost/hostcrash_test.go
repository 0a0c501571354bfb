//go:build linux

package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"toolhost/internal/proctest"
)

// TestTerminalHostCrashLosesNoRecord kills the terminal host with SIGKILL while a command it
// runs prints numbered lines: the command is reported ended with every line it printed up to
// the kill (the host kept its output in the store), its processes are gone, the conversation's
// finished commands are still listed, and a new command gets a fresh id.
func TestTerminalHostCrashLosesNoRecord(t *testing.T) {
	state, work := keepState(t, "")
	cs, _ := keptServer(t, state, work)
	if text, _ := term(t, cs, map[string]any{"operation": "run_command", "command": "echo first-done"}); !strings.Contains(text, "first-done") {
		t.Fatalf("run_command = %s", text)
	}
	victim := "crash-victim-" + strconv.FormatInt(time.Now().UnixNano(), 36) // this run's, not another checkout's
	script := "for i in $(seq 1 400); do echo tick-$i; sleep 0.05; done # " + victim
	text, _ := term(t, cs, map[string]any{"operation": "run_command", "command": script, "yield_seconds": 1})
	m := regexp.MustCompile(`still running after .*get_output session_id=(\S+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the command finished within its yield (%s)", text)
	}
	id := m[1]
	// Let it print a few dozen lines; get_history reads without moving the read cursor.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		h, _ := term(t, cs, map[string]any{"operation": "get_history", "session_id": id, "offset": 0})
		if strings.Contains(h, "tick-30\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command did not reach tick-30: %s", h)
		}
	}
	pids := waitHosts(t, state, 1, 10*time.Second)
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// What the command printed before the kill: at least up to tick-30 (it printed more while
	// the kill was on its way; the host writes its output every 200 ms).
	for deadline := time.Now().Add(15 * time.Second); len(proctest.Matching(victim)) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the command outlived its killed host: %v", proctest.Matching(victim))
		}
	}
	out, _ := term(t, cs, map[string]any{"operation": "get_output", "session_id": id})
	if strings.HasPrefix(out, "ERROR") {
		t.Fatalf("get_output of the command after its host's kill = %s", out)
	}
	last := 0
	for _, l := range strings.Split(out, "\n") {
		if n, err := strconv.Atoi(strings.TrimPrefix(l, "tick-")); err == nil && strings.HasPrefix(l, "tick-") {
			if n != last+1 {
				t.Fatalf("get_output after the kill: tick-%d follows tick-%d:\n%s", n, last, out)
			}
			last = n
		}
	}
	if last < 30 {
		t.Fatalf("get_output after the kill ends at tick-%d, want at least tick-30:\n%s", last, out)
	}
	list, _ := term(t, cs, map[string]any{"operation": "list_sessions"})
	if !regexp.MustCompile(regexp.QuoteMeta(id) + ` command ended`).MatchString(list) {
		t.Fatalf("list_sessions after the kill = %s, want %s ended", list, id)
	}
	if text, _ := term(t, cs, map[string]any{"operation": "get_last_command"}); !strings.Contains(text, "echo first-done") {
		t.Fatalf("get_last_command after the kill = %s, want the command that finished before it", text)
	}
	// A new host; the next command does not take the killed one's id.
	text, _ = term(t, cs, map[string]any{"operation": "run_command", "command": "echo after-the-crash"})
	if !strings.Contains(text, "after-the-crash") {
		t.Fatalf("run_command after the kill = %s", text)
	}
	list, _ = term(t, cs, map[string]any{"operation": "list_sessions"})
	if n := len(regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(id)+` `).FindAllString(list, -1)); n != 1 {
		t.Fatalf("list_sessions after a new command = %s, want %s once", list, id)
	}
	if h, _ := term(t, cs, map[string]any{"operation": "get_history", "session_id": id, "offset": 0}); !strings.Contains(h, fmt.Sprintf("tick-%d\n", last)) {
		t.Fatalf("the killed command's history after a new command = %s", h)
	}
}
