package terminal

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"toolhost/internal/proctest"
)

// testWait is generous: the CI machine is small and shared.
const testWait = 30000

func newTestManager(t *testing.T, cfg Config) *Manager {
	t.Helper()
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatalf("NewManager() = %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := m.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown() = %v", err)
		}
	})
	return m
}

func createSession(t *testing.T, m *Manager, conv, name string) Info {
	t.Helper()
	inf, err := m.Create(context.Background(), conv, SessionSpec{Name: name, Cwd: t.TempDir()})
	if err != nil {
		t.Fatalf("Create(%q) = %v", name, err)
	}
	return inf
}

// runIn sends a command and collects output until the command is reported finished.
func runIn(t *testing.T, m *Manager, conv, id, cmd string) (string, Output) {
	t.Helper()
	ctx := context.Background()
	out, err := m.Send(ctx, conv, id, Input{Text: cmd, Wait: OutputQuery{WaitMS: testWait, MaxBytes: maxMaxBytes}})
	if err != nil {
		t.Fatalf("Send(%q) = %v", cmd, err)
	}
	var b strings.Builder
	b.WriteString(out.Text)
	deadline := time.Now().Add(time.Minute)
	for !out.Finished && time.Now().Before(deadline) {
		out, err = m.Output(ctx, conv, id, OutputQuery{WaitMS: testWait, MaxBytes: maxMaxBytes})
		if err != nil {
			t.Fatalf("Output() = %v", err)
		}
		b.WriteString(out.Text)
	}
	if !out.Finished {
		t.Fatalf("command %q did not finish; output so far %q", cmd, b.String())
	}
	return b.String(), out
}

// waitFor polls get_output until re matches the accumulated output.
func waitFor(t *testing.T, m *Manager, conv, id, re string) string {
	t.Helper()
	out, err := m.Output(context.Background(), conv, id, OutputQuery{WaitMS: testWait, WaitFor: re, MaxBytes: maxMaxBytes})
	if err != nil {
		t.Fatalf("Output(wait_for %q) = %v", re, err)
	}
	if !out.Matched {
		t.Fatalf("Output(wait_for %q) did not match (reason %s); got %q", re, out.Reason, out.Text)
	}
	return out.Text
}

// procArg returns n prefixed with this test process's pid, for the command lines of the
// processes a test starts and then looks for in /proc: other runs of these tests (-count in
// parallel, other checkouts on the machine) start the same commands at the same time. Where
// n is a sleep's duration, the sleep only grows longer.
func procArg(n string) string {
	return fmt.Sprintf("%07d%s", os.Getpid(), n)
}

// waitNoProcs waits (bounded) until no process carries arg; zombies have no cmdline.
func waitNoProcs(t *testing.T, arg string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		left := proctest.Matching(arg)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes with %q still alive: %v", arg, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// zombieChildren lists zombie processes whose parent is this test process.
func zombieChildren() []string {
	ents, _ := os.ReadDir("/proc")
	self := " " + strconv.Itoa(os.Getpid()) + " "
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		rest := s[i+1:]
		if strings.HasPrefix(rest, " Z") && strings.HasPrefix(rest[2:], self) {
			out = append(out, s)
		}
	}
	return out
}

func hasProgram(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

func waitUntil(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
