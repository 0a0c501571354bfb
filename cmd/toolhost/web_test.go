package main

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"toolhost/internal/browser"
	"toolhost/internal/nettest"
	"toolhost/internal/proctest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// webCall runs web_operations and returns the joined text and isError.
func webCall(t *testing.T, cs *mcp.ClientSession, args map[string]any) (string, bool) {
	t.Helper()
	text, res := webCallRaw(t, cs, args)
	return text, res.IsError
}

// webCallRaw runs web_operations and returns the joined text and the whole result.
func webCallRaw(t *testing.T, cs *mcp.ClientSession, args map[string]any) (string, *mcp.CallToolResult) {
	t.Helper()
	res := callWithin(t, cs, 90*time.Second, "web_operations", args)
	return textOf(res, "\n"), res
}

// snapshotRef finds the ref of the first snapshot line containing want.
func snapshotRef(t *testing.T, snap, want string) string {
	t.Helper()
	for _, l := range strings.Split(snap, "\n") {
		if !strings.Contains(l, want) {
			continue
		}
		if _, rest, ok := strings.Cut(l, "[ref="); ok {
			if ref, _, ok := strings.Cut(rest, "]"); ok {
				return ref
			}
		}
	}
	t.Fatalf("no ref for %q in the snapshot:\n%s", want, snap)
	return ""
}

const binaryFormPage = `<!doctype html><html><head><title>Form page</title></head><body>
<h1>Search the docs</h1>
<form action="/result" method="get">
<label>Query <input name="q" type="text"></label>
<label>Kind <select name="kind"><option value="a">Alpha</option><option value="b">Beta</option></select></label>
<button type="submit">Go</button>
</form>
<button onclick="document.getElementById('out').textContent='clicked '+document.querySelector('select').value">Toggle</button>
<p id="out">not clicked</p>
<div style="height:3000px;background:linear-gradient(#fff,#38c)"></div><p>Bottom of the page</p>
</body></html>`

// TestWebBinary drives every web_operations operation through the real binary over stdio: a
// loopback server opened by [web] allow, a loopback port that is not, and the real Chromium.
func TestWebBinary(t *testing.T) {
	payload := bytes.Repeat([]byte("binary download payload\n"), 40000)
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<html><head><title>Binary test</title></head><body><main><h1>Hello from loopback</h1><p>`+
			strings.Repeat("This page is served to the real binary. ", 15)+`</p><a href="/next">Next page</a></main></body></html>`)
	})
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{ "ok": true }`)
	})
	mux.HandleFunc("/file.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(payload)
	})
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, binaryFormPage) })
	mux.HandleFunc("/result", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<title>Result</title><h1>You searched %s</h1>", html.EscapeString(r.URL.Query().Get("q")))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	refused := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Errorf("refused server reached: %s", r.URL) }))
	defer refused.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port

	state, work := t.TempDir(), t.TempDir()
	cfg := fmt.Sprintf("[web]\nallow = [\"127.0.0.1:%d\"]\nbrowser_idle_timeout = \"1m\"\n", port)
	if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := commandIn(t, state, work, "stdio")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := connectStdio(t, ctx, cmd)
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
	if text, isErr := webCall(t, cs, map[string]any{"operation": "download", "url": srv.URL + "/file.bin", "path": "downloads/file.bin"}); isErr || !strings.Contains(text, fmt.Sprintf("%d bytes", len(payload))) {
		t.Errorf("download:\n%s", text)
	}
	if got, err := os.ReadFile(filepath.Join(work, "downloads", "file.bin")); err != nil || !bytes.Equal(got, payload) {
		t.Errorf("downloaded file: %d bytes, %v; want the %d bytes served", len(got), err, len(payload))
	}
	if text, isErr := webCall(t, cs, map[string]any{"operation": "download", "url": refused.URL + "/file.bin", "path": "refused.bin"}); !isErr || !strings.Contains(text, "network_refused") {
		t.Errorf("download from a refused port:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(work, "refused.bin")); !os.IsNotExist(err) {
		t.Errorf("a refused download left a file: %v", err)
	}
	requireChromium(t)

	// The first browser call aims at a refused port: the browser starts, the page does not load.
	if text, isErr := webCall(t, cs, map[string]any{"operation": "browser_open", "url": refused.URL + "/"}); !isErr || !strings.Contains(text, "network_refused") {
		t.Errorf("browser_open of a refused port:\n%s", text)
	}
	if text, isErr := webCall(t, cs, map[string]any{"operation": "browser_open", "url": srv.URL + "/"}); isErr || !strings.Contains(text, "Page: Binary test") {
		t.Fatalf("browser_open:\n%s", text)
	}
	snap, isErr := webCall(t, cs, map[string]any{"operation": "browser_snapshot"})
	if isErr || !strings.Contains(snap, `heading "Hello from loopback"`) || !strings.Contains(snap, `link "Next page" [ref=e`) {
		t.Errorf("browser_snapshot:\n%s", snap)
	}
	if text, isErr := webCall(t, cs, map[string]any{"operation": "browser_navigate", "url": srv.URL + "/form"}); isErr || !strings.Contains(text, "Page: Form page") {
		t.Fatalf("browser_navigate:\n%s", text)
	}
	snap, _ = webCall(t, cs, map[string]any{"operation": "browser_snapshot"})
	if text, isErr := webCall(t, cs, map[string]any{"operation": "browser_select", "ref": snapshotRef(t, snap, `combobox "Kind"`), "value": "Beta"}); isErr || !strings.Contains(text, `Selected "Beta"`) {
		t.Errorf("browser_select:\n%s", text)
	}
	if text, isErr := webCall(t, cs, map[string]any{"operation": "browser_click", "ref": snapshotRef(t, snap, `button "Toggle"`)}); isErr || !strings.Contains(text, "Clicked") {
		t.Errorf("browser_click:\n%s", text)
	}
	// The click ran the page's handler, which read the selected option.
	if text, isErr := webCall(t, cs, map[string]any{"operation": "browser_wait", "text": "clicked b", "timeout_seconds": 10}); isErr || !strings.Contains(text, "Found it.") {
		t.Errorf("browser_wait:\n%s", text)
	}
	if text, isErr := webCall(t, cs, map[string]any{"operation": "browser_wait", "selector": "#never", "timeout_seconds": 1}); !isErr || !strings.Contains(text, "not_found") {
		t.Errorf("browser_wait for a missing element:\n%s", text)
	}
	if text, isErr := webCall(t, cs, map[string]any{"operation": "browser_scroll", "pixels": 600}); isErr || !strings.Contains(text, "Scrolled: scrollY=600 ") {
		t.Errorf("browser_scroll:\n%s", text)
	}
	text, res := webCallRaw(t, cs, map[string]any{"operation": "browser_screenshot"})
	if res.IsError || !strings.Contains(text, "Screenshot (image/") {
		t.Errorf("browser_screenshot:\n%s", text)
	}
	var images int
	for _, c := range res.Content {
		img, ok := c.(*mcp.ImageContent)
		if !ok {
			continue
		}
		images++
		jpeg, png := bytes.HasPrefix(img.Data, []byte{0xff, 0xd8, 0xff}), bytes.HasPrefix(img.Data, []byte("\x89PNG\r\n\x1a\n"))
		if !(img.MIMEType == "image/jpeg" && jpeg || img.MIMEType == "image/png" && png) {
			t.Errorf("screenshot %s starts with % x: not a JPEG or PNG of its type", img.MIMEType, img.Data[:min(8, len(img.Data))])
		}
		if len(img.Data) < 1000 || len(img.Data) > 800<<10 {
			t.Errorf("screenshot is %d bytes, want between 1 KB and 800 KB", len(img.Data))
		}
		// The viewport: the 1280x800 window less what Chromium keeps of it.
		if cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Data)); err != nil || cfg.Width != 1280 || cfg.Height < 400 || cfg.Height > 800 {
			t.Errorf("screenshot decodes as %s %dx%d, %v; want the viewport of a 1280x800 window", format, cfg.Width, cfg.Height, err)
		}
	}
	if images != 1 {
		t.Errorf("browser_screenshot returned %d images, want 1", images)
	}
	if text, isErr := webCall(t, cs, map[string]any{"operation": "browser_type", "ref": snapshotRef(t, snap, `textbox "Query"`), "text": "binary", "submit": true}); isErr || !strings.Contains(text, "Page: Result") {
		t.Errorf("browser_type with submit:\n%s", text)
	}
	if snap, _ := webCall(t, cs, map[string]any{"operation": "browser_snapshot"}); !strings.Contains(snap, "You searched binary") {
		t.Errorf("after submit:\n%s", snap)
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

// requireChromium fails under CI and skips elsewhere when the binary would find no Chromium.
func requireChromium(t *testing.T) {
	t.Helper()
	if _, err := browser.FindChromium(""); err != nil {
		nettest.Missing(t, "Chromium is not installed (apt-get install chromium; .ci/run installs it): "+err.Error())
	}
}

// browserProfiles lists the browser profile directories under tmp (the server's TMPDIR).
func browserProfiles(t *testing.T, tmp string) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(tmp, "toolhost-browser-*"))
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestBrowserClosesWithItsSession: over HTTP, each session's conversation has its own browser;
// when a session ends (the client closes it), its browser's whole process tree and profile go,
// while the server and the other session's browser go on.
func TestBrowserClosesWithItsSession(t *testing.T) {
	requireChromium(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<title>Session page</title><h1>Hello</h1>`)
	}))
	defer page.Close()
	port := page.Listener.Addr().(*net.TCPAddr).Port
	state, tmp := t.TempDir(), t.TempDir()
	cmd := commandIn(t, state, t.TempDir(), "serve", "--addr", "127.0.0.1:0")
	cfg := fmt.Sprintf("[web]\nallow = [\"127.0.0.1:%d\"]\nbrowser_idle_timeout = \"1h\"\n", port)
	if err := os.WriteFile(cmd.Args[len(cmd.Args)-1], []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp) // the browsers' profiles go there
	sv := readServe(t, cmd)
	open := func(cs *mcp.ClientSession) string {
		before := browserProfiles(t, tmp)
		if text, isErr := webCall(t, cs, map[string]any{"operation": "browser_open", "url": page.URL + "/"}); isErr || !strings.Contains(text, "Page: Session page") {
			t.Fatalf("browser_open:\n%s", text)
		}
		after := browserProfiles(t, tmp)
		if len(after) != len(before)+1 {
			t.Fatalf("profiles %v after %v, want one more", after, before)
		}
		for _, d := range after {
			if !slices.Contains(before, d) {
				if n := len(proctest.Matching(d)); n < 2 {
					t.Fatalf("%d processes use %s, want a browser with children", n, d)
				}
				return d
			}
		}
		return ""
	}
	// Sessions exist before the stateless protocol (2026-07-28), whose requests share their
	// principal's conversation and have no end: a browser there closes when idle.
	first, second := httpSession(t, sv.url, sv.token, "2025-11-25"), httpSession(t, sv.url, sv.token, "2025-11-25")
	firstDir, secondDir := open(first), open(second)

	if err := first.Close(); err != nil {
		t.Fatalf("closing the first session: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(firstDir); os.IsNotExist(err) && len(proctest.Matching(firstDir)) == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if left := proctest.Matching(firstDir); len(left) > 0 {
		t.Errorf("processes of the ended session's browser left: %v", left)
	}
	if _, err := os.Stat(firstDir); !os.IsNotExist(err) {
		t.Errorf("the ended session's profile %s is still there (%v)", firstDir, err)
	}
	if len(proctest.Matching(secondDir)) < 2 {
		t.Errorf("the other session's browser went too")
	}
	if text, isErr := webCall(t, second, map[string]any{"operation": "browser_snapshot"}); isErr || !strings.Contains(text, `heading "Hello"`) {
		t.Errorf("the other session's browser_snapshot:\n%s", text)
	}
}
