package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioSession starts a real `toolhost stdio` on state and work and connects to it.
func stdioSession(t *testing.T, state, work string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	cmd := commandIn(t, state, work, "stdio")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cs := connectStdio(t, ctx, cmd)
	t.Cleanup(func() { cs.Close() })
	return cs, cmd
}

// httpSession connects to a `serve` at url with protocol version (stateful before 2026-07-28).
func httpSession(t *testing.T, url, token, version string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func writePlan(t *testing.T, cs *mcp.ClientSession, title string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "todo_operations", Arguments: map[string]any{
		"operation": "write", "todos": []map[string]any{{"id": 1, "title": title, "status": "in-progress"}}}})
	if err != nil || res.IsError {
		t.Fatalf("write %q: %v %v", title, err, res)
	}
}

func readPlan(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "todo_operations", Arguments: map[string]any{"operation": "read"}})
	if err != nil || res.IsError {
		t.Fatalf("read: %v %v", err, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// planCheck is one session's expected view: the plans it must see and those it must not.
type planCheck struct {
	name      string
	cs        *mcp.ClientSession
	want, not []string
}

func checkPlans(t *testing.T, checks []planCheck) {
	t.Helper()
	for _, c := range checks {
		got := readPlan(t, c.cs)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: todos = %q, want %q", c.name, got, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: todos = %q, must not see %q", c.name, got, n)
			}
		}
	}
}

// TestStdioConversations: real stdio processes on one working directory and state directory.
// Two running at once keep apart; one that ends releases its conversation, and the next
// process resumes it (cleanly ended or killed).
func TestStdioConversations(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns several servers")
	}
	state, work := t.TempDir(), t.TempDir()
	a, _ := stdioSession(t, state, work)
	b, cmdB := stdioSession(t, state, work)
	writePlan(t, a, "plan of a")
	writePlan(t, b, "plan of b")
	checkPlans(t, []planCheck{
		{"a while b runs", a, []string{"plan of a"}, []string{"plan of b"}},
		{"b while a runs", b, []string{"plan of b"}, []string{"plan of a"}},
	})

	// a ends cleanly (its client closes stdin): the next process takes a's conversation,
	// while b, still running, keeps its own.
	a.Close() // closes stdin and waits for the process (the transport reaps it)
	c, _ := stdioSession(t, state, work)
	checkPlans(t, []planCheck{
		{"a restarted", c, []string{"plan of a"}, []string{"plan of b"}},
		{"b after a's restart", b, []string{"plan of b"}, []string{"plan of a"}},
	})

	// b is killed: its lease dies with it, and a new process resumes b's plan.
	cmdB.Process.Kill()
	b.Close() // the transport reaps the killed process; Wait here would race with it
	waitGone(t, cmdB.Process.Pid)
	d, _ := stdioSession(t, state, work)
	checkPlans(t, []planCheck{
		{"b restarted after SIGKILL", d, []string{"plan of b"}, []string{"plan of a"}},
	})

	// With every conversation held, one more process starts afresh.
	e, _ := stdioSession(t, state, work)
	checkPlans(t, []planCheck{{"a third concurrent process", e, nil, []string{"plan of a", "plan of b"}}})
}

// TestModelCannotNameAConversationOverStdio: conversation_id is refused by the real binary
// and the other conversation is untouched.
func TestModelCannotNameAConversationOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns servers")
	}
	state, work := t.TempDir(), t.TempDir()
	a, _ := stdioSession(t, state, work)
	b, _ := stdioSession(t, state, work)
	writePlan(t, a, "plan of a")
	for _, conv := range []string{"wd-0", "other"} {
		res, err := b.CallTool(context.Background(), &mcp.CallToolParams{Name: "todo_operations", Arguments: map[string]any{
			"operation": "write", "conversation_id": conv, "todos": []map[string]any{{"id": 1, "title": "overwritten"}}}})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "conversation_id is not a parameter") {
			t.Errorf("write with conversation_id %q = %v %v, want unexpected_parameter", conv, res, err)
		}
	}
	checkPlans(t, []planCheck{
		{"a after b's attempts", a, []string{"plan of a"}, []string{"overwritten"}},
		{"b after its attempts", b, nil, []string{"overwritten", "plan of a"}},
	})
}

// TestHTTPConversations: sessions of one `serve` (one Mcp-Session-Id each) keep apart, and a
// session that ends is resumed by the next. Stateless requests (protocol 2026-07-28) carry no
// session: clients of one token share one stateless conversation, apart from every session's.
func TestHTTPConversations(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the binary")
	}
	url, token := startServe(t)
	const stateful = "2025-11-25"
	a := httpSession(t, url, token, stateful)
	b := httpSession(t, url, token, stateful)
	writePlan(t, a, "plan of a")
	writePlan(t, b, "plan of b")
	s1 := httpSession(t, url, token, "2026-07-28")
	s2 := httpSession(t, url, token, "2026-07-28")
	writePlan(t, s1, "stateless plan")
	checkPlans(t, []planCheck{
		{"session a", a, []string{"plan of a"}, []string{"plan of b", "stateless plan"}},
		{"session b", b, []string{"plan of b"}, []string{"plan of a", "stateless plan"}},
		{"another stateless client of the token", s2, []string{"stateless plan"}, []string{"plan of a", "plan of b"}},
	})
	a.Close() // DELETE ends the session; the server releases its conversation
	deadline := time.Now().Add(20 * time.Second)
	for {
		c := httpSession(t, url, token, stateful)
		if strings.Contains(readPlan(t, c), "plan of a") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no new session resumed a's conversation after a ended")
		}
		time.Sleep(50 * time.Millisecond) // the release follows the session's end
	}
}

// TestConversationsCommand: `toolhost conversations` shows who holds what and which
// conversation a restarted agent resumes.
func TestConversationsCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns servers")
	}
	state, work := t.TempDir(), t.TempDir()
	list := func() string {
		t.Helper()
		out, err := commandIn(t, state, work, "conversations").CombinedOutput()
		if err != nil {
			t.Fatalf("conversations: %v %s", err, out)
		}
		return string(out)
	}
	if got := list(); !strings.Contains(got, "a new stdio session here starts conversation wd-") {
		t.Errorf("conversations before any session = %q", got)
	}
	a, cmdA := stdioSession(t, state, work)
	writePlan(t, a, "plan of a")
	if got, want := list(), fmt.Sprintf("held by pid %d", cmdA.Process.Pid); !strings.Contains(got, want) || strings.Contains(got, "resumes it") {
		t.Errorf("conversations while a runs = %q, want %q and nothing to resume", got, want)
	}
	a.Close() // waits for the process: the transport reaps it
	if got := list(); !strings.Contains(got, "released") || !strings.Contains(got, "<- a new stdio session here resumes it") {
		t.Errorf("conversations after a ended = %q, want it released and resumable", got)
	}
	out, err := commandIn(t, state, work, "--conversation", "pinned", "conversations").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "pinned to conversation pinned") {
		t.Errorf("conversations with a pinned conversation = %v %s", err, out)
	}
}

// waitGone waits until pid has left /proc (exited and reaped), so a lease check no longer sees it.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still exists 10 s after it was killed", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
