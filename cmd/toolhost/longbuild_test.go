//go:build linux

package main

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/proctest"
)

// TestLongBuildSurvivesDisruptions is issue 31's "done when" through the binary: a 30-second
// build (numbered lines, then exit 3) started over stdio lives in the terminal host while its
// conversation goes through 20 disruptions, cycling through a client restart (the stdio server
// shuts down and a new one starts), a server killed with SIGKILL, and an HTTP client whose
// connection drops in the middle of a call. Between them each new server sees the build
// running; at the end the model reads every numbered line exactly once (what run_command
// handed back, then get_output) and exit code 3, and no process of the build or host is left.
func TestLongBuildSurvivesDisruptions(t *testing.T) {
	if testing.Short() {
		t.Skip("a 30-second build")
	}
	const lines, disruptions = 300, 20
	state, work := keepState(t, "")
	// Markers of this run's processes: other runs of this test (another checkout's, at the
	// same time on the same machine) have their own.
	nonce := strconv.FormatInt(time.Now().UnixNano(), 36)
	buildMark, droppedMark := "done-when-build-"+nonce, "dropped-call-"+nonce
	build := fmt.Sprintf("for i in $(seq 1 %d); do echo build-line-$i; sleep 0.1; done; exit 3 # %s", lines, buildMark)

	// The HTTP server of the same state directory and conversation, for the dropped calls.
	serve := commandIn(t, state, work, "serve", "--addr", "127.0.0.1:0", "--conversation", "kept")
	sv := readServe(t, serve)

	cs, cmd := keptServer(t, state, work)
	start := time.Now()
	first, _ := term(t, cs, map[string]any{"operation": "run_command", "command": build, "yield_seconds": 1})
	m := regexp.MustCompile(`still running after .*get_output session_id=(\S+)`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("run_command = %s, want the build still running", first)
	}
	id := m[1]
	running := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(id) + ` command running`)

	for i := range disruptions {
		time.Sleep(time.Until(start.Add(time.Duration(i+1) * 1400 * time.Millisecond)))
		var list string
		switch kind := i % 3; kind {
		case 0: // the client restarts its stdio server: a clean shutdown, then a new one
			cs.Close() // the transport waits for the process; a second Wait here would race it
			cs, cmd = keptServer(t, state, work)
			list, _ = term(t, cs, map[string]any{"operation": "list_sessions"})
		case 1: // the server is killed with SIGKILL: no shutdown at all
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cs.Close() // reaps the killed process (the transport owns its Wait)
			cs, cmd = keptServer(t, state, work)
			list, _ = term(t, cs, map[string]any{"operation": "list_sessions"})
		case 2: // an HTTP client's connection drops in the middle of a call
			hc := droppableClient(t, sv.url, sv.token)
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			_, err := hc.CallTool(ctx, &mcp.CallToolParams{Name: "terminal_operations",
				Arguments: map[string]any{"operation": "run_command", "command": "sleep 30 # " + droppedMark}})
			cancel()
			hc.Close()
			if err == nil {
				t.Fatalf("disruption %d: the dropped call answered", i)
			}
			hc = droppableClient(t, sv.url, sv.token)
			list, _ = term(t, hc, map[string]any{"operation": "list_sessions"})
			hc.Close()
		}
		if !running.MatchString(list) {
			t.Fatalf("after disruption %d (kind %d, %s in): list_sessions = %s, want %s running", i, i%3, time.Since(start).Round(time.Millisecond), list, id)
		}
	}

	// The model reads on until the build ends: every line once, and its exit code.
	read := first + pollOutput(t, cs, id)
	for n := 1; n <= lines; n++ {
		if c := len(regexp.MustCompile(fmt.Sprintf(`(?m)^build-line-%d$`, n)).FindAllString(read, -1)); c != 1 {
			t.Fatalf("build-line-%d read %d times, want once; everything read:\n%s", n, c, read)
		}
	}
	final, _ := term(t, cs, map[string]any{"operation": "get_output", "session_id": id})
	if !regexp.MustCompile(`command finished in \S+; exit 3;`).MatchString(final) {
		t.Fatalf("get_output after the build = %s, want it finished with exit code 3", final)
	}
	if elapsed := time.Since(start); elapsed < 30*time.Second {
		t.Fatalf("the build ended after %s, before its 30 seconds", elapsed)
	}
	for deadline := time.Now().Add(10 * time.Second); len(proctest.Matching(buildMark))+len(proctest.Matching(droppedMark)) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("processes of the test left: %v %v", proctest.Matching(buildMark), proctest.Matching(droppedMark))
		}
	}
}

// droppableClient connects an MCP client over HTTP that the caller closes (or drops).
func droppableClient(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "dropper", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
