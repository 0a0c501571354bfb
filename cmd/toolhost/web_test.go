package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// webCall runs web_operations and returns the joined text and isError.
func webCall(t *testing.T, cs *mcp.ClientSession, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "web_operations", Arguments: args})
	if err != nil {
		t.Fatalf("web_operations %v: %v", args, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError
}

// TestWebBinary drives web_operations through the real binary over stdio: a loopback server
// opened by [web] allow, a loopback port that is not, and the real Chromium.
func TestWebBinary(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<html><head><title>Binary test</title></head><body><main><h1>Hello from loopback</h1><p>`+
			strings.Repeat("This page is served to the real binary. ", 15)+`</p><a href="/next">Next page</a></main></body></html>`)
	})
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{ "ok": true }`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	refused := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Errorf("refused server reached: %s", r.URL) }))
	defer refused.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port

	state := t.TempDir()
	cfg := fmt.Sprintf("[web]\nallow = [\"127.0.0.1:%d\"]\nbrowser_idle_timeout = \"1m\"\n", port)
	if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := commandIn(t, state, t.TempDir(), "stdio")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	if text, isErr := webCall(t, cs, map[string]any{"operation": "http_request", "url": srv.URL + "/api"}); isErr || !strings.Contains(text, `{"ok":true}`) {
		t.Errorf("http_request:\n%s", text)
	}
	if text, isErr := webCall(t, cs, map[string]any{"operation": "fetch_page", "url": srv.URL + "/"}); isErr || !strings.Contains(text, "# Hello from loopback") || !strings.Contains(text, "Next page [1]") {
		t.Errorf("fetch_page:\n%s", text)
	}
	if text, isErr := webCall(t, cs, map[string]any{"operation": "http_request", "url": refused.URL + "/"}); !isErr || !strings.Contains(text, "network_refused") {
		t.Errorf("a loopback port outside the allow list:\n%s", text)
	}
	if _, err := exec.LookPath("chromium"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("Chromium is not installed (.ci/run installs it)")
		}
		t.Skip("Chromium is not installed; the browser half of this test needs it")
	}
	if text, isErr := webCall(t, cs, map[string]any{"operation": "browser_open", "url": srv.URL + "/"}); isErr || !strings.Contains(text, "Page: Binary test") {
		t.Fatalf("browser_open:\n%s", text)
	}
	snap, isErr := webCall(t, cs, map[string]any{"operation": "browser_snapshot"})
	if isErr || !strings.Contains(snap, `heading "Hello from loopback"`) || !strings.Contains(snap, `link "Next page" [ref=e`) {
		t.Errorf("browser_snapshot:\n%s", snap)
	}
	if text, isErr := webCall(t, cs, map[string]any{"operation": "browser_navigate", "url": refused.URL + "/"}); !isErr || !strings.Contains(text, "network_refused") {
		t.Errorf("browser_navigate to a refused port:\n%s", text)
	}
	if text, _ := webCall(t, cs, map[string]any{"operation": "browser_close"}); !strings.Contains(text, "Browser closed") {
		t.Errorf("browser_close:\n%s", text)
	}
}

// TestServeRefusesItsOwnListener: even with every loopback address allowed, a tool cannot reach
// the server it runs in.
func TestServeRefusesItsOwnListener(t *testing.T) {
	url, token := startServeWith(t, "[web]\nallow = [\"127.0.0.0/8\", \"localhost\"]\n")
	if token == "" {
		t.Fatal("serve printed no token")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, u := range []string{url, strings.Replace(url, "127.0.0.1", "localhost", 1)} {
		text, isErr := webCall(t, cs, map[string]any{"operation": "http_request", "url": u})
		if !isErr || !strings.Contains(text, "network_denied") || !strings.Contains(text, "own listeners") {
			t.Errorf("request to the server itself (%s):\n%s", u, text)
		}
	}
}
