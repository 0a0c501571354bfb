package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"toolhost/internal/mcptest"
	"toolhost/internal/server"
)

// stdioRaw is a raw line-level client of the real binary, for what the SDK client cannot send:
// calls before initialize and messages over the size limit.
type stdioRaw struct {
	t     *testing.T
	in    io.WriteCloser
	lines *bufio.Scanner
}

func startStdioRaw(t *testing.T) *stdioRaw {
	t.Helper()
	cmd := command(t, "stdio")
	os.WriteFile(cmd.Args[len(cmd.Args)-1], nil, 0o600)
	in, lines := startPiped(t, cmd)
	return &stdioRaw{t: t, in: in, lines: lines}
}

// startPiped starts cmd with a pipe to its stdin and its stdout read by lines (of up to
// 4 MiB); when the test ends, stdin is closed and the process killed and reaped.
func startPiped(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, *bufio.Scanner) {
	t.Helper()
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 4<<20)
	return in, sc
}

func (s *stdioRaw) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// answer reads messages until the response with id, skipping notifications.
func (s *stdioRaw) answer(id int) map[string]any {
	s.t.Helper()
	for s.lines.Scan() {
		var m map[string]any
		if err := json.Unmarshal(s.lines.Bytes(), &m); err != nil {
			s.t.Fatalf("response %q: %v", s.lines.Text(), err)
		}
		if got, ok := m["id"].(float64); ok && int(got) == id {
			return m
		}
	}
	s.t.Fatalf("no response with id %d: %v", id, s.lines.Err())
	return nil
}

func (s *stdioRaw) call(id int, tool string, args map[string]any) string {
	s.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	s.send(string(b))
	m := s.answer(id)
	res, _ := m["result"].(map[string]any)
	if res == nil {
		s.t.Fatalf("%s %v answered %v", tool, args, m)
	}
	b, _ = json.Marshal(res["content"])
	return string(b)
}

func errorMessage(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	msg, _ := e["message"].(string)
	return msg
}

func errorCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0
	}
	c, _ := e["code"].(float64)
	return c
}

// TestStdioProtocolEdges drives the real binary over raw stdio: a call before initialize gets the
// SDKs' "not initialized" code, and a message over the size limit is answered with an error for
// that request only, while the session and its terminal live on.
func TestStdioProtocolEdges(t *testing.T) {
	s := startStdioRaw(t)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if m := s.answer(1); errorCode(m) != server.CodeNotInitialized || errorMessage(m) != server.NotInitializedMessage("tools/list") {
		t.Errorf("tools/list before initialize = %v, want error code %d and %q", m, server.CodeNotInitialized, server.NotInitializedMessage("tools/list"))
	}
	s.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := s.answer(2); m["result"] == nil {
		t.Fatalf("initialize after an early call = %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.call(3, "terminal_operations", map[string]any{"operation": "create_session", "session_id": "keep"})
	s.call(4, "terminal_operations", map[string]any{"operation": "send_input", "session_id": "keep", "input": "echo before-$((6*7))\n"})

	big := fmt.Sprintf(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"think","arguments":{"thoughts":"%s"}}}`, strings.Repeat("x", server.MaxStdioLine+1))
	s.send(big)
	if m := s.answer(5); errorCode(m) != -32600 || !strings.Contains(fmt.Sprint(m["error"]), "longer than") {
		t.Errorf("oversized message answered %v, want -32600 for id 5", m)
	}
	// send_input may already carry the echo (a slow machine waits longer in it); get_output
	// then has the rest.
	sent := s.call(6, "terminal_operations", map[string]any{"operation": "send_input", "session_id": "keep", "input": "echo after-$((6*7))\n"})
	if !strings.Contains(sent, "after-42") {
		if out := s.call(8, "terminal_operations", map[string]any{"operation": "get_output", "session_id": "keep", "wait_ms": 5000}); !strings.Contains(out, "after-42") {
			t.Errorf("terminal after the oversized message = %s then %s, want it alive", sent, out)
		}
	}
	if out := s.call(7, "think", map[string]any{"thoughts": "still here"}); !strings.Contains(out, "Thought recorded") {
		t.Errorf("think after the oversized message = %s", out)
	}
}

// pingLine is a ping with id whose line is exactly size bytes, padded in a parameter the
// server ignores (size must be over a hundred). A ping costs the server least per byte.
func pingLine(id, size int) string {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"padding":"`, id)
	tail := `"}}`
	return head + strings.Repeat("x", size-len(head)-len(tail)) + tail
}

// TestStdioLineLimit holds both sides of the one stdio line limit, server.MaxStdioLine, through
// the binary: a line up to it reaches the server and is answered, a longer one is answered
// with an error for its id, and the session goes on either way. The go-sdk's transport has a
// bound of its own, set to the same number: with its default (16 MiB) a line between the two
// ended the session.
func TestStdioLineLimit(t *testing.T) {
	s := startStdioRaw(t)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := s.answer(1); m["result"] == nil {
		t.Fatalf("initialize = %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	id := 10
	for _, tt := range []struct {
		name   string
		size   int
		passed bool
	}{
		{"just under", server.MaxStdioLine - 1, true},
		{"at", server.MaxStdioLine, true},
		{"just over", server.MaxStdioLine + 1, false},
		{"far over", 3 * server.MaxStdioLine, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			id++
			s.send(pingLine(id, tt.size))
			m := s.answer(id)
			if tt.passed && m["result"] == nil {
				t.Errorf("a line of %d bytes = %.300v, want the ping answered", tt.size, m)
			}
			if !tt.passed && (errorCode(m) != -32600 || !strings.Contains(fmt.Sprint(m["error"]), fmt.Sprintf("longer than %d bytes", server.MaxStdioLine))) {
				t.Errorf("a line of %d bytes = %.300v, want error -32600 naming the limit", tt.size, m)
			}
			id++
			if out := s.call(id, "think", map[string]any{"thoughts": "still here"}); !strings.Contains(out, "Thought recorded") {
				t.Errorf("think after a line of %d bytes = %s, want the session alive", tt.size, out)
			}
		})
	}
}

// mcpPost posts one JSON-RPC message to a `toolhost serve` at url with token, in session (""
// before initialize), and returns the answer decoded from JSON or from its SSE event.
func mcpPost(t *testing.T, url, token, session string, body []byte) (*http.Response, map[string]any) {
	t.Helper()
	version := "" // none on initialize
	if session != "" {
		version = "2025-06-18"
	}
	resp, err := http.DefaultClient.Do(mcptest.NewRequest(url, token, version, session, string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if i := bytes.Index(raw, []byte("data: ")); i >= 0 && resp.Header.Get("Content-Type") == "text/event-stream" {
		raw = raw[i+6:]
		if j := bytes.IndexByte(raw, '\n'); j >= 0 {
			raw = raw[:j]
		}
	}
	json.Unmarshal(raw, &m)
	return resp, m
}

// rawHTTPSession initializes a session with a `toolhost serve` and returns its id.
func rawHTTPSession(t *testing.T, url, token string) string {
	t.Helper()
	resp, _ := mcpPost(t, url, token, "", []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	session := resp.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatalf("initialize gave no session (status %d)", resp.StatusCode)
	}
	mcpPost(t, url, token, session, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return session
}

// TestHTTPProtocolEdges: over HTTP a call before initialize gets the "not initialized" code.
func TestHTTPProtocolEdges(t *testing.T) {
	url, token := startServe(t)
	resp, m := mcpPost(t, url, token, "", []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if errorCode(m) != server.CodeNotInitialized || errorMessage(m) != server.NotInitializedMessage("tools/list") {
		t.Errorf("tools/list before initialize over HTTP = %d %v, want error code %d and %q", resp.StatusCode, m, server.CodeNotInitialized, server.NotInitializedMessage("tools/list"))
	}
}

// TestHTTPBodyLimit holds both sides of the one request body limit, server.DefaultMaxBodyBytes
// (toolhost's check and the go-sdk handler's bound are the same number), through the binary:
// a body up to it is served, a longer one is answered with a JSON-RPC error for its id and
// status 413, which clients surface as that call's error, and the session goes on.
func TestHTTPBodyLimit(t *testing.T) {
	url, token := startServe(t)
	session := rawHTTPSession(t, url, token)
	id := 10
	for _, tt := range []struct {
		name   string
		size   int
		passed bool
	}{
		{"just under", server.DefaultMaxBodyBytes - 1, true},
		{"at", server.DefaultMaxBodyBytes, true},
		{"just over", server.DefaultMaxBodyBytes + 1, false},
		{"far over", 4 * server.DefaultMaxBodyBytes, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			id++
			resp, m := mcpPost(t, url, token, session, []byte(pingLine(id, tt.size)))
			if got, _ := m["id"].(float64); int(got) != id {
				t.Fatalf("a body of %d bytes = %d %.300v, want an answer for id %d", tt.size, resp.StatusCode, m, id)
			}
			if tt.passed && (resp.StatusCode != http.StatusOK || m["result"] == nil) {
				t.Errorf("a body of %d bytes = %d %.300v, want the ping answered", tt.size, resp.StatusCode, m)
			}
			if !tt.passed && (resp.StatusCode != http.StatusRequestEntityTooLarge || errorCode(m) != -32600 ||
				!strings.Contains(fmt.Sprint(m["error"]), fmt.Sprintf("longer than %d bytes", server.DefaultMaxBodyBytes))) {
				t.Errorf("a body of %d bytes = %d %.300v, want 413 and error -32600 naming the limit", tt.size, resp.StatusCode, m)
			}
			id++
			_, m = mcpPost(t, url, token, session, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"think","arguments":{"thoughts":"after"}}}`, id)))
			if res, _ := m["result"].(map[string]any); res == nil {
				t.Errorf("a call after a body of %d bytes = %v, want the session alive", tt.size, m)
			}
		})
	}
}
