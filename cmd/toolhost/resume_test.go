package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cutProxy forwards TCP connections to a server and, once, cuts the connection that carries
// the after-th progress notification in the middle of what it read, as a network that drops
// a long answer would. It records whether a request then asked to resume (Last-Event-ID).
type cutProxy struct {
	target  string
	after   int
	cut     atomic.Bool
	resumed atomic.Bool
}

func startCutProxy(t *testing.T, target string, after int) (string, *cutProxy) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	p := &cutProxy{target: target, after: after}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.handle(c)
		}
	}()
	return ln.Addr().String(), p
}

func (p *cutProxy) handle(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		client.Close()
		return
	}
	defer client.Close()
	defer server.Close()
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := client.Read(buf)
			if n > 0 {
				if bytes.Contains(bytes.ToLower(buf[:n]), []byte("last-event-id:")) {
					p.resumed.Store(true)
				}
				server.Write(buf[:n])
			}
			if err != nil {
				server.Close()
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	seen := 0
	for {
		n, err := server.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if !p.cut.Load() {
				seen += bytes.Count(chunk, []byte("notifications/progress"))
				if seen >= p.after && p.cut.CompareAndSwap(false, true) {
					client.Write(chunk[:n/2]) // half an event, then the line goes dead
					return
				}
			}
			if _, werr := client.Write(chunk); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestHTTPStreamResumesAfterDroppedConnection runs a long run_command through the real binary
// over HTTP with its output streaming as progress notifications, drops the TCP connection in
// the middle of the stream, and checks that the go-sdk client resumes with Last-Event-ID and
// that every notification arrives exactly once, in order, followed by the whole result.
func TestHTTPStreamResumesAfterDroppedConnection(t *testing.T) {
	url, token := startServe(t)
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	proxy, cut := startCutProxy(t, host, 3)

	var mu sync.Mutex
	var got []float64
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, req.Params.Progress)
			mu.Unlock()
		},
	})
	transport := &mcp.StreamableClientTransport{
		Endpoint:   "http://" + proxy + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token: token, base: &http.Transport{}}},
		// The standalone GET stream would be cut instead of the call's when it carries the
		// notification; this test is about the call's stream.
		DisableStandaloneSSE: true,
	}
	ctx := context.Background()
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const lines = 10
	params := &mcp.CallToolParams{Name: "terminal_operations", Arguments: map[string]any{
		"operation": "run_command",
		"command":   fmt.Sprintf("for i in $(seq 1 %d); do echo line-$i; sleep 0.4; done", lines),
	}}
	params.SetProgressToken("run-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("run_command across a dropped connection: %v", err)
	}
	if !cut.cut.Load() || !cut.resumed.Load() {
		t.Fatalf("the proxy cut the stream: %v, the client resumed it: %v", cut.cut.Load(), cut.resumed.Load())
	}
	text := res.Content[0].(*mcp.TextContent).Text
	for i := 1; i <= lines; i++ {
		if !slices.Contains(strings.Fields(text), fmt.Sprintf("line-%d", i)) {
			t.Errorf("result lacks line-%d:\n%s", i, text)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := make([]float64, len(got))
	for i := range want {
		want[i] = float64(i + 1)
	}
	if len(got) < 4 || !slices.Equal(got, want) {
		t.Errorf("progress notifications = %v, want 1..n each once, in order (n >= 4)", got)
	}
	t.Logf("connection cut after the 3rd progress notification; %d notifications received, each once, in order", len(got))
}
