package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSessionLimitLosesNothing: with [http] max_sessions_per_principal = 1, a second client
// closes the first one's idle session; the first client's next call takes its session back,
// with its own conversation (its plan), and so does the second's after it. `toolhost
// conversations` counts the sessions against the bounds.
func TestSessionLimitLosesNothing(t *testing.T) {
	sv := startServeFull(t, "[http]\nmax_sessions = 8\nmax_sessions_per_principal = 1\n")
	connect := func() *mcp.ClientSession {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// No GET stream: a client holding one keeps its session in use, and nothing closes it.
		tr := &mcp.StreamableClientTransport{Endpoint: sv.url, DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: bearer{sv.token, http.DefaultTransport}}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "limit-test", Version: "1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	first := connect()
	writePlan(t, first, "first plan")
	second := connect() // closes first's session: one session per principal
	writePlan(t, second, "second plan")
	for i, c := range []struct {
		cs   *mcp.ClientSession
		want string
	}{{first, "first plan"}, {second, "second plan"}, {first, "first plan"}} {
		if got := readPlan(t, c.cs); !strings.Contains(got, c.want) {
			t.Errorf("read %d: the plan is %q, want %q: a session closed for the limit lost its conversation", i, got, c.want)
		}
	}
	b, err := commandIn(t, sv.state, sv.work, "conversations").CombinedOutput()
	if out := string(b); err != nil || !strings.Contains(out, "HTTP sessions holding a conversation: 1 of max_sessions 8; principal default: 1 of 1") {
		t.Errorf("toolhost conversations (%v) does not count the sessions:\n%s", err, out)
	}
}
