package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
)

// sessionServer is one "serve" process: a fresh MCP server and handler on a shared session dir.
type sessionServer struct {
	mcp *mcp.Server
	h   http.Handler
}

func newSessionServer(dir string, timeout time.Duration) *sessionServer {
	return serveSessions(thinkServer(), dir, timeout)
}

func serveSessions(s *mcp.Server, dir string, timeout time.Duration) *sessionServer {
	return &sessionServer{mcp: s, h: NewHTTPHandler(s, HTTPOptions{Token: "tok", SessionDir: dir, SessionTimeout: timeout})}
}

// post sends one JSON-RPC message on session id ("" for none) and returns the status, the
// session id the answer names and the body.
func (ss *sessionServer) post(t *testing.T, id, body string) (int, string, string) {
	t.Helper()
	w := ss.postAs(t, "tok", id, body)
	return w.Code, w.Header().Get(sessionIDHeader), w.Body.String()
}

func (ss *sessionServer) send(t *testing.T, method, id string) int {
	t.Helper()
	r := httptest.NewRequest(method, "http://127.0.0.1:1/mcp", nil)
	r.Header.Set("Authorization", "Bearer tok")
	r.Header.Set(sessionIDHeader, id)
	w := httptest.NewRecorder()
	ss.h.ServeHTTP(w, r)
	return w.Code
}

// initialize opens a session as client "gemini-cli" and returns its id.
func (ss *sessionServer) initialize(t *testing.T) string {
	t.Helper()
	code, id, body := ss.post(t, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"gemini-cli","version":"0.61.0"}}}`)
	if code != http.StatusOK || id == "" {
		t.Fatalf("initialize = %d, session %q: %s", code, id, body)
	}
	if code, _, body := ss.post(t, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); code != http.StatusAccepted {
		t.Fatalf("notifications/initialized = %d: %s", code, body)
	}
	return id
}

const thinkCall = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"think","arguments":{"thoughts":"still here"}}}`

// callThink calls the think tool on session id and reports whether a tool result came back.
func (ss *sessionServer) callThink(t *testing.T, id string) (int, bool) {
	t.Helper()
	code, _, body := ss.post(t, id, thinkCall)
	return code, code == http.StatusOK && strings.Contains(body, `"result"`) && !strings.Contains(body, `"isError":true`)
}

// session returns the server's live session with id, or nil.
func (ss *sessionServer) session(id string) *mcp.ServerSession {
	for s := range ss.mcp.Sessions() {
		if s.ID() == id {
			return s
		}
	}
	return nil
}

// TestHTTPSessionSurvivesRestart: a client that keeps its session id across a restart of
// serve (as Gemini CLI and TS SDK 1.x hosts do) gets answers from the new process, which knows
// the client's name and capabilities from the session's record.
func TestHTTPSessionSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	first := newSessionServer(dir, time.Hour)
	id := first.initialize(t)
	if code, ok := first.callThink(t, id); !ok {
		t.Fatalf("tools/call before the restart = %d", code)
	}
	for s := range first.mcp.Sessions() {
		s.Close() // the process ends
	}

	second := newSessionServer(dir, time.Hour)
	if code, ok := second.callThink(t, id); !ok {
		t.Fatalf("tools/call after the restart with the old session id = %d, want a result", code)
	}
	s := second.session(id)
	if s == nil {
		t.Fatalf("no live session %q after the resume", id)
	}
	if ip := s.InitializeParams(); ip == nil || ip.ClientInfo == nil || ip.ClientInfo.Name != "gemini-cli" || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		t.Errorf("resumed session's initialize params = %+v, want client gemini-cli with elicitation", ip)
	}

	// A DELETE ends it for good, in this process and the next.
	if code := second.send(t, http.MethodDelete, id); code != http.StatusNoContent {
		t.Errorf("DELETE = %d, want 204", code)
	}
	if code, _ := second.callThink(t, id); code != http.StatusNotFound {
		t.Errorf("tools/call after DELETE = %d, want 404 (initialise again)", code)
	}
	third := newSessionServer(dir, time.Hour)
	if code, _ := third.callThink(t, id); code != http.StatusNotFound {
		t.Errorf("tools/call after DELETE and a restart = %d, want 404", code)
	}
}

// TestHTTPSessionUnknownIDs: only ids this server handed out come back; anything else is the
// spec's 404, which tells a client to initialise again.
func TestHTTPSessionUnknownIDs(t *testing.T) {
	dir := t.TempDir()
	ss := newSessionServer(dir, time.Hour)
	id := ss.initialize(t)
	tests := []struct {
		name, id string
	}{
		{"made up", "0123456789ABCDEF"},
		{"path traversal", "../../../etc/passwd"},
		{"prefix of a real id", id[:len(id)-1]},
		{"real id with a suffix", id + "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if code, _ := ss.callThink(t, tt.id); code != http.StatusNotFound {
				t.Errorf("tools/call with session %q = %d, want 404", tt.id, code)
			}
			if ss.session(tt.id) != nil {
				t.Errorf("a session %q was created", tt.id)
			}
		})
	}
}

// TestHTTPSessionIdleness: a session closes after the idle timeout unless a request is in
// flight or a GET stream is open; a closed session comes back on the client's next call.
func TestHTTPSessionIdleness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 30 * time.Minute
		ss := newSessionServer("", timeout)
		id := ss.initialize(t)

		// An open GET stream keeps the session, however quiet.
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() {
			r := httptest.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:1/mcp", nil)
			r.Header.Set("Accept", "text/event-stream")
			r.Header.Set("Authorization", "Bearer tok")
			r.Header.Set(sessionIDHeader, id)
			r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			ss.h.ServeHTTP(httptest.NewRecorder(), r)
		})
		synctest.Wait()
		time.Sleep(3 * timeout)
		synctest.Wait()
		if ss.session(id) == nil {
			t.Fatalf("session closed after %v with a GET stream open", 3*timeout)
		}

		// Once the stream is gone, the timeout runs.
		cancel()
		wg.Wait()
		time.Sleep(timeout - time.Minute)
		synctest.Wait()
		if ss.session(id) == nil {
			t.Fatalf("session closed before the timeout")
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if ss.session(id) != nil {
			t.Fatalf("session still open %v after the stream closed", timeout+time.Minute)
		}

		// The client comes back after a lunch break: its session resumes.
		if code, ok := ss.callThink(t, id); !ok {
			t.Fatalf("tools/call after expiry = %d, want a result", code)
		}
		if s := ss.session(id); s == nil || s.InitializeParams().ClientInfo.Name != "gemini-cli" {
			t.Errorf("resumed session = %v, want gemini-cli's", s)
		}
		for s := range ss.mcp.Sessions() {
			s.Close()
		}
		synctest.Wait()
	})
}

// TestHTTPSessionResumeRunsInitialized: a resumed session goes through the server's
// InitializedHandler again, with the client's capabilities as it sent them (roots included),
// so that what the server decides there (the workspace of the client's root) holds for the
// resumed session too, instead of the default workspace.
func TestHTTPSessionResumeRunsInitialized(t *testing.T) {
	var dir string
	type seen struct {
		id    string
		roots bool
	}
	var mu sync.Mutex
	var inits []seen
	newServer := func() *sessionServer {
		s := mcp.NewServer(&mcp.Implementation{Name: "toolhost", Version: "test"}, &mcp.ServerOptions{
			InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
				caps := req.Session.InitializeParams().Capabilities
				mu.Lock()
				inits = append(inits, seen{req.Session.ID(), caps != nil && caps.RootsV2 != nil && caps.RootsV2.ListChanged})
				mu.Unlock()
			},
		})
		return serveSessions(s, dir, time.Hour)
	}
	dir = t.TempDir()
	first := newServer()
	code, id, body := first.post(t, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"qwen","version":"1"}}}`)
	if code != http.StatusOK || id == "" {
		t.Fatalf("initialize = %d, session %q: %s", code, id, body)
	}
	// The go-sdk handles notifications apart from the request that carried them.
	handled := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			mu.Lock()
			got := len(inits)
			mu.Unlock()
			if got >= n {
				return
			}
		}
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("InitializedHandler ran %d times, want %d", len(inits), n)
	}
	first.post(t, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	handled(1)
	for s := range first.mcp.Sessions() {
		s.Close()
	}

	second := newServer()
	if code, _, body := second.post(t, id, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); code != http.StatusOK {
		t.Fatalf("ping after the restart = %d: %s", code, body)
	}
	handled(2)
	mu.Lock()
	defer mu.Unlock()
	if want := []seen{{id, true}, {id, true}}; !slices.Equal(inits, want) {
		t.Errorf("InitializedHandler saw %v, want %v (once at the start, once on resume, with roots)", inits, want)
	}
}

// TestHTTPSessionResumeReopensGETStream: after a restart, a client reconnecting its GET stream
// with the Last-Event-ID of the old process gets a new stream (the old events are gone with the
// process), not an error that would leave it without server-to-client messages.
func TestHTTPSessionResumeReopensGETStream(t *testing.T) {
	tests := []struct {
		name, lastEventID string
		want              int
	}{
		{"standalone stream", "_7", http.StatusOK},
		{"a request's stream", "3_2", http.StatusOK},
		{"malformed", "x_y_z", http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A session per case: a session has one standalone stream at a time.
			dir := t.TempDir()
			first := newSessionServer(dir, time.Hour)
			id := first.initialize(t)
			for s := range first.mcp.Sessions() {
				s.Close()
			}
			srv := httptest.NewServer(newSessionServer(dir, time.Hour).h)
			defer srv.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/mcp", nil)
			r.Header.Set("Accept", "text/event-stream")
			r.Header.Set("Authorization", "Bearer tok")
			r.Header.Set(sessionIDHeader, id)
			r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
			r.Header.Set("Last-Event-ID", tt.lastEventID)
			resp, err := srv.Client().Do(r)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("GET with Last-Event-ID %q after the restart = %d, want %d", tt.lastEventID, resp.StatusCode, tt.want)
			}
		})
	}
}

// limitedServer is a serve process whose sessions are bounded; tokens "tok" (principal
// default) and "tok-NAME" (principal NAME) are accepted.
func limitedServer(limits SessionLimits) *sessionServer {
	s := thinkServer()
	return &sessionServer{mcp: s, h: NewHTTPHandler(s, HTTPOptions{Token: "tok", SessionTimeout: time.Hour, SessionLimits: limits,
		Resolve: func(_ context.Context, secret string) (authz.Principal, error) {
			if name, ok := strings.CutPrefix(secret, "tok-"); ok {
				return authz.Principal{Name: name, Tier: authz.TierAdmin}, nil
			}
			return authz.Principal{}, errors.New("unknown token")
		}})}
}

// postAs is post with another bearer token.
func (ss *sessionServer) postAs(t *testing.T, token, id, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	r.Header.Set("Authorization", "Bearer "+token)
	if id != "" {
		r.Header.Set(sessionIDHeader, id)
		r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	w := httptest.NewRecorder()
	ss.h.ServeHTTP(w, r)
	return w
}

const initializeBody = `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"limits-test","version":"1"}}}`

func (ss *sessionServer) live() int {
	n := 0
	for range ss.mcp.Sessions() {
		n++
	}
	return n
}

// TestHTTPSessionLimits: sessions are bounded in all and per principal, on both sides of each
// bound. Past a bound the least recently used idle session closes, and its client's next
// request takes it back (as after the idle timeout), closing another; with none idle, a new
// session gets 503, Retry-After and a JSON-RPC error naming the bound.
func TestHTTPSessionLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ss := limitedServer(SessionLimits{Max: 4, PerPrincipal: 2})
		open := func(token string) string {
			t.Helper()
			w := ss.postAs(t, token, "", initializeBody)
			id := w.Header().Get(sessionIDHeader)
			if w.Code != http.StatusOK || id == "" {
				t.Fatalf("initialize as %s = %d: %s", token, w.Code, w.Body)
			}
			ss.postAs(t, token, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			time.Sleep(time.Second) // an order of use
			synctest.Wait()
			return id
		}
		alive := func(id string) bool { return ss.session(id) != nil }

		a1, a2 := open("tok-a"), open("tok-a")
		if !alive(a1) || !alive(a2) {
			t.Fatal("two sessions of a, at the per-principal bound of 2: both must live")
		}
		a3 := open("tok-a") // just over the per-principal bound: a1, the least recently used, goes
		synctest.Wait()
		if alive(a1) || !alive(a2) || !alive(a3) {
			t.Fatalf("a third session of a: a1 alive %v (want false), a2 %v, a3 %v", alive(a1), alive(a2), alive(a3))
		}
		b1 := open("tok-b")
		b2 := open("tok-b") // 4 in all: at the bound
		if ss.live() != 4 {
			t.Fatalf("%d live sessions, want 4", ss.live())
		}
		c1 := open("tok-c") // over the bound in all: a2, the least recently used of all, goes
		synctest.Wait()
		if alive(a2) || !alive(c1) || ss.live() != 4 {
			t.Fatalf("a fifth session: a2 alive %v (want false), c1 %v, %d live (want 4)", alive(a2), alive(c1), ss.live())
		}
		// a1's client comes back: its session resumes (closing a3, now the least recently used).
		if w := ss.postAs(t, "tok-a", a1, thinkCall); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"result"`) {
			t.Fatalf("a call on a session closed for the limit = %d: %s", w.Code, w.Body)
		}
		synctest.Wait()
		if !alive(a1) || alive(a3) || !alive(b1) || ss.live() != 4 {
			t.Errorf("after a1 resumed: a1 alive %v, a3 alive %v (want false), b1 %v, %d live", alive(a1), alive(a3), alive(b1), ss.live())
		}

		// Every session busy (a GET stream each): nothing can be closed, a new one is refused.
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for _, s := range []struct{ token, id string }{{"tok-a", a1}, {"tok-b", b1}, {"tok-b", b2}, {"tok-c", c1}} {
			wg.Go(func() {
				r := httptest.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:1/mcp", nil)
				r.Header.Set("Accept", "text/event-stream")
				r.Header.Set("Authorization", "Bearer "+s.token)
				r.Header.Set(sessionIDHeader, s.id)
				r.Header.Set("Mcp-Protocol-Version", "2025-06-18")
				ss.h.ServeHTTP(httptest.NewRecorder(), r)
			})
		}
		synctest.Wait()
		w := ss.postAs(t, "tok-d", "", initializeBody)
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" ||
			!strings.Contains(w.Body.String(), `"id":7`) || !strings.Contains(w.Body.String(), "max_sessions 4, none idle") {
			t.Errorf("a new session with every session busy = %d, Retry-After %q: %s", w.Code, w.Header().Get("Retry-After"), w.Body)
		}
		w = ss.postAs(t, "tok-b", "", initializeBody)
		if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "max_sessions_per_principal 2") {
			t.Errorf("a third session of b, both busy = %d: %s", w.Code, w.Body)
		}
		// A closed session whose client comes back while everything is busy: refused the same way.
		if w := ss.postAs(t, "tok-a", a3, thinkCall); w.Code != http.StatusServiceUnavailable {
			t.Errorf("resuming a3 with every session busy = %d, want 503: %s", w.Code, w.Body)
		}
		cancel()
		wg.Wait()
		for s := range ss.mcp.Sessions() {
			s.Close()
		}
		synctest.Wait()
	})
}

// TestHTTPSessionFlood: a thousand sessions opened and abandoned leave at most max_sessions
// alive, and the heap does not grow with them.
func TestHTTPSessionFlood(t *testing.T) {
	ss := limitedServer(SessionLimits{Max: 64, PerPrincipal: 64})
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	flood := func(n int) {
		for range n {
			if w := ss.postAs(t, "tok-flood", "", initializeBody); w.Code != http.StatusOK {
				t.Fatalf("initialize = %d: %s", w.Code, w.Body)
			}
		}
	}
	flood(200) // warm up: the bound is reached, the pools are filled
	before := heap()
	flood(1000)
	if n := ss.live(); n > 64 {
		t.Errorf("%d sessions alive after 1,200 abandoned, want at most max_sessions 64", n)
	}
	after := heap()
	t.Logf("heap in use: %d KiB after 200 sessions, %d KiB after 1,000 more (%d live)", before>>10, after>>10, ss.live())
	if after > before+8<<20 {
		t.Errorf("heap grew by %d KiB over 1,000 abandoned sessions: the closed ones are not let go", (after-before)>>10)
	}
	for s := range ss.mcp.Sessions() {
		s.Close()
	}
}
