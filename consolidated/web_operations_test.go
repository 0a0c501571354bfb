package consolidated

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/browser"
	"toolhost/internal/logtest"
	"toolhost/internal/nettest"
	"toolhost/internal/web"
)

// webHarness is the shared harness serving web_operations and user_collaboration, with a network
// guard that allows only names the test lists (resolved by a scripted resolver, so no DNS server
// is asked) and a dialer that can reach only loopback.
type webHarness struct {
	*harness
	ng       *authz.NetGuard
	resolver *nettest.Resolver
	dialer   *nettest.LoopbackDialer
	browsers *browser.Manager
	logs     *logtest.Buffer
}

func newWebHarness(t *testing.T, allow []string, withBrowser bool) *webHarness {
	t.Helper()
	w := &webHarness{resolver: nettest.NewResolver(), dialer: &nettest.LoopbackDialer{}, logs: &logtest.Buffer{}}
	logger := slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	w.harness = newHarness(t, harnessOptions{tools: func(h *harness) []*Tool {
		var err error
		if w.ng, err = authz.NewNetGuard(h.guard, authz.NetConfig{Allow: allow, Resolver: w.resolver, Dialer: w.dialer}); err != nil {
			t.Fatal(err)
		}
		client, err := web.New(web.Config{Guard: w.ng, Logger: logger, Proxy: func(*url.URL) (*url.URL, error) { return nil, nil }})
		if err != nil {
			t.Fatal(err)
		}
		if withBrowser {
			if _, err := browser.FindChromium(""); err != nil {
				nettest.Missing(t, "Chromium is not installed (apt-get install chromium)")
			}
			if w.browsers, err = browser.NewManager(browser.Config{Web: client, Guard: w.ng, Logger: logger}); err != nil {
				t.Fatal(err)
			}
		}
		return []*Tool{
			WebTool(WebConfig{Client: client, Guard: h.guard, Browsers: w.browsers}),
			UserCollaborationTool(CollaborationConfig{Guard: h.guard, MaxWait: 100 * time.Millisecond}),
		}
	}})
	w.env.Logger = logger
	return w
}

// serve starts a loopback server reachable as http://name:port.
func (h *webHarness) serve(name string, handler http.Handler) string {
	s := httptest.NewServer(handler)
	h.t.Cleanup(s.Close)
	h.resolver.Set(name, []string{"127.0.0.1"})
	return fmt.Sprintf("http://%s:%d", name, s.Listener.Addr().(*net.TCPAddr).Port)
}

// callRaw runs a tool (with a progress token when progress is set) and returns the text, whether
// it is an error, and the full result (images included).
func (h *webHarness) callRaw(tool string, args map[string]any, progress bool) (string, bool, *mcp.CallToolResult) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p := &mcp.CallToolParams{Name: tool, Arguments: args}
	if progress {
		p.SetProgressToken("tok")
	}
	res, err := h.cs.CallTool(ctx, p)
	if err != nil {
		h.t.Fatalf("CallTool(%s %v): %v", tool, args, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n"), res.IsError, res
}

func (h *webHarness) web(args map[string]any) (string, bool) {
	h.t.Helper()
	text, isErr, _ := h.callRaw("web_operations", args, false)
	return text, isErr
}

func TestWebOperations(t *testing.T) {
	h := newWebHarness(t, []string{"site.test"}, false)
	mux := http.NewServeMux()
	mux.HandleFunc("/api", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Set-Cookie", "sid=SECRETCOOKIE")
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, `{ "method": %q, "got_auth": %t, "body": %q }`, r.Method, r.Header.Get("Authorization") == "Bearer SECRETTOKEN", b)
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<html><head><title>Guide</title></head><body><nav><a href="/x">Nav</a></nav><main><h1>Guide</h1><p>`+
			strings.Repeat("Some guide text about the topic. ", 20)+`<a href="/next">Next</a></p></main><script>var s="SCRIPT"</script></body></html>`)
	})
	mux.HandleFunc("/to-meta", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/", http.StatusFound)
	})
	base := h.serve("site.test", mux)
	h.resolver.Set("evil.test", []string{"127.0.0.1"})
	for _, tc := range []struct {
		name      string
		args      map[string]any
		wantErr   bool
		want      []string
		forbidden []string
	}{
		{name: "post json", args: map[string]any{"operation": "http_request", "method": "POST", "url": base + "/api", "body": "aGk=", "base64": true,
			"headers": map[string]string{"Authorization": "Bearer SECRETTOKEN"}},
			want: []string{"HTTP 200 OK", `{"method":"POST","got_auth":true,"body":"hi"}`, "set-cookie: sid=***"}, forbidden: []string{"SECRET"}},
		{name: "fetch page", args: map[string]any{"operation": "fetch_page", "url": base + "/page"},
			want: []string{"# Guide", "Next [1]", "[1] " + base + "/next"}, forbidden: []string{"SCRIPT", "Nav"}},
		{name: "file scheme", args: map[string]any{"operation": "http_request", "url": "file:///etc/passwd"}, wantErr: true,
			want: []string{"error unsupported_scheme", "parameter: url"}},
		{name: "gopher scheme", args: map[string]any{"operation": "fetch_page", "url": "gopher://site.test/"}, wantErr: true,
			want: []string{"error unsupported_scheme"}},
		{name: "malformed", args: map[string]any{"operation": "http_request", "url": "http://[::1"}, wantErr: true, want: []string{"error invalid_url"}},
		{name: "name resolving to loopback", args: map[string]any{"operation": "fetch_page", "url": strings.Replace(base, "site.test", "evil.test", 1)},
			wantErr: true, want: []string{"error network_refused", "loopback", `"path":"evil.test","access":"web_operations:network"`, "[web] allow"}},
		{name: "redirect to metadata", args: map[string]any{"operation": "http_request", "url": base + "/to-meta"},
			wantErr: true, want: []string{"error network_refused", "metadata"}},
		{name: "bad base64", args: map[string]any{"operation": "http_request", "url": base + "/api", "body": "%%%", "base64": true},
			wantErr: true, want: []string{"error invalid_value", "parameter: body"}},
		{name: "unknown parameter", args: map[string]any{"operation": "http_request", "url": base, "ref": "e1"},
			want: []string{"HTTP 404", "Note: http_request does not take ref; ignored."}},
		{name: "unknown parameter, url missing", args: map[string]any{"operation": "http_request", "href": base},
			wantErr: true, want: []string{"error unexpected_parameter", "does not take href, and requires url"}},
		{name: "browser without chromium", args: map[string]any{"operation": "browser_open"}, wantErr: true,
			want: []string{"error unavailable", "apt-get install chromium"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, isErr := h.web(tc.args)
			if isErr != tc.wantErr {
				t.Fatalf("isError = %t, want %t:\n%s", isErr, tc.wantErr, text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("result lacks %q:\n%s", w, text)
				}
			}
			for _, f := range tc.forbidden {
				if strings.Contains(text, f) {
					t.Errorf("result contains %q:\n%s", f, text)
				}
			}
		})
	}
	if logs := h.logs.String(); strings.Contains(logs, "SECRET") {
		t.Errorf("a header or cookie value reached the log:\n%s", logs)
	}
}

// TestWebGrantFlow: a refused host is opened by the user's grant for one conversation, through
// the request_authorization call the refusal names.
func TestWebGrantFlow(t *testing.T) {
	h := newWebHarness(t, nil, false)
	base := h.serve("intranet.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "internal wiki") }))
	text, isErr := h.web(map[string]any{"operation": "http_request", "url": base + "/"})
	if !isErr || !strings.Contains(text, "network_refused") {
		t.Fatalf("before the grant:\n%s", text)
	}
	text, _, st := h.call("user_collaboration", map[string]any{"operation": "request_authorization", "path": "intranet.test",
		"access": "web_operations:network", "reason": "read the wiki"})
	if !strings.Contains(text, "pending: web_operations:network on host intranet.test") {
		t.Fatalf("request_authorization:\n%s", text)
	}
	id := st["request_id"].(string)
	if _, _, err := h.guard.Approve(context.Background(), id, time.Minute, false, "test"); err != nil {
		t.Fatal(err)
	}
	text, _, _ = h.call("user_collaboration", map[string]any{"operation": "check_request", "request_id": id})
	if !strings.Contains(text, "Granted web_operations:network on host intranet.test") {
		t.Errorf("check_request:\n%s", text)
	}
	if text, isErr := h.web(map[string]any{"operation": "http_request", "url": base + "/"}); isErr || !strings.Contains(text, "internal wiki") {
		t.Errorf("after the grant:\n%s", text)
	}
	if text, isErr := h.web(map[string]any{"operation": "http_request", "url": base + "/", "conversation_id": "other"}); !isErr {
		t.Errorf("another conversation used the grant:\n%s", text)
	}
}

func TestWebDownload(t *testing.T) {
	h := newWebHarness(t, []string{"site.test"}, false)
	payload := bytes.Repeat([]byte("x"), 3<<20)
	base := h.serve("site.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(payload)))
		for i := 0; i < len(payload); i += 256 << 10 {
			w.Write(payload[i:min(len(payload), i+256<<10)])
			w.(http.Flusher).Flush()
			time.Sleep(100 * time.Millisecond)
		}
	}))
	text, isErr, _ := h.callRaw("web_operations", map[string]any{"operation": "download", "url": base + "/f.bin", "path": "out/f.bin"}, true)
	if isErr || !strings.Contains(text, "Saved") {
		t.Fatalf("download:\n%s", text)
	}
	if b, _ := os.ReadFile(filepath.Join(h.wd, "out", "f.bin")); !bytes.Equal(b, payload) {
		t.Errorf("downloaded %d bytes, want %d", len(b), len(payload))
	}
	h.mu.Lock()
	n := len(h.progress)
	h.mu.Unlock()
	if n == 0 {
		t.Errorf("no progress notifications")
	}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"exists", map[string]any{"path": "out/f.bin"}, "error exists"},
		{"outside workdir", map[string]any{"path": filepath.Join(t.TempDir(), "f.bin")}, "error outside_workdir"},
		{"protected", map[string]any{"path": ".git/hooks/pre-commit"}, "error protected_path"},
		{"too large", map[string]any{"path": "small.bin", "max_bytes": 1000}, "error too_large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := map[string]any{"operation": "download", "url": base + "/f.bin"}
			for k, v := range tc.args {
				args[k] = v
			}
			text, isErr := h.web(args)
			if !isErr || !strings.Contains(text, tc.want) {
				t.Errorf("download %v:\n%s", tc.args, text)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(h.wd, "small.bin")); !os.IsNotExist(err) {
		t.Errorf("a refused download left a file")
	}
}

func TestWebBrowserOperations(t *testing.T) {
	h := newWebHarness(t, []string{"site.test"}, true)
	base := h.serve("site.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/done" {
			io.WriteString(w, "<title>Done</title><h1>Thanks "+r.URL.Query().Get("name")+"</h1>")
			return
		}
		io.WriteString(w, `<title>Sign up</title><h1>Sign up</h1><form action="/done"><input name="name" aria-label="Name"><select name="plan" aria-label="Plan"><option>Free</option><option>Pro</option></select><button>Send</button></form>`)
	}))
	h.resolver.Set("site.test", []string{"127.0.0.1"})
	steps := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"operation": "browser_snapshot"}, "error not_open"},
		{map[string]any{"operation": "browser_open", "url": base + "/"}, "Page: Sign up"},
		{map[string]any{"operation": "browser_snapshot"}, `textbox "Name" [ref=e`},
	}
	for _, s := range steps {
		text, _ := h.web(s.args)
		if !strings.Contains(text, s.want) {
			t.Fatalf("%v:\n%s", s.args, text)
		}
	}
	snap, _ := h.web(map[string]any{"operation": "browser_snapshot"})
	refOf := func(label string) string {
		for _, l := range strings.Split(snap, "\n") {
			if strings.Contains(l, label) {
				i := strings.Index(l, "[ref=")
				return l[i+5 : i+5+strings.Index(l[i+5:], "]")]
			}
		}
		t.Fatalf("no %s in\n%s", label, snap)
		return ""
	}
	if text, isErr := h.web(map[string]any{"operation": "browser_select", "ref": refOf(`combobox "Plan"`), "value": "Pro"}); isErr {
		t.Errorf("select:\n%s", text)
	}
	if text, isErr := h.web(map[string]any{"operation": "browser_type", "ref": refOf(`textbox "Name"`), "text": "Ada", "submit": true}); isErr || !strings.Contains(text, "Page: Done") {
		t.Errorf("type+submit:\n%s", text)
	}
	if text, isErr := h.web(map[string]any{"operation": "browser_wait", "text": "Thanks Ada"}); isErr {
		t.Errorf("wait:\n%s", text)
	}
	if text, isErr := h.web(map[string]any{"operation": "browser_click", "ref": "e99999"}); !isErr || !strings.Contains(text, "error not_found") || !strings.Contains(text, "browser_snapshot") {
		t.Errorf("click on a missing element:\n%s", text)
	}
	_, isErr, res := h.callRaw("web_operations", map[string]any{"operation": "browser_screenshot"}, false)
	var img *mcp.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(*mcp.ImageContent); ok {
			img = ic
		}
	}
	if isErr || img == nil || img.MIMEType != "image/jpeg" || len(img.Data) < 100 || len(img.Data) > browser.MaxScreenshotBytes {
		t.Errorf("screenshot: isError %t, image %v", isErr, img != nil)
	}
	if text, isErr := h.web(map[string]any{"operation": "browser_navigate", "url": "http://127.0.0.1:65000/"}); !isErr || !strings.Contains(text, "network_refused") {
		t.Errorf("navigate to a refused address:\n%s", text)
	}
	if text, _ := h.web(map[string]any{"operation": "browser_close"}); !strings.Contains(text, "Browser closed") {
		t.Errorf("close:\n%s", text)
	}
	if len(h.browsers.Conversations()) != 0 {
		t.Errorf("browser still open after browser_close")
	}
}
