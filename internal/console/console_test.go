package console

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/store/storetest"
)

// fixture is a console over a real guard and store, served by httptest on loopback.
type fixture struct {
	c      *Console
	g      *authz.Guard
	srv    *httptest.Server
	cred   atomic.Value // string
	peer   atomic.Value // error returned by CheckPeer
	checks atomic.Int64 // CheckPeer calls
	outDir string
	state  string // the state directory
}

func newFixture(t testing.TB, mutate func(*Options)) *fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wd, state, out := filepath.Join(base, "wd"), filepath.Join(base, "state"), filepath.Join(base, "out")
	for _, d := range []string{wd, state, out} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	st := storetest.OpenDir(t, state)
	g, err := authz.New(context.Background(), authz.Config{WorkDir: wd, StateDir: state, ConfigFile: filepath.Join(base, "config.toml"), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	f := &fixture{g: g, outDir: out, state: state}
	f.cred.Store("operator-credential-0123456789")
	f.peer.Store(errors.New(""))
	o := Options{
		Guard:      g,
		Store:      st,
		Credential: func() (string, error) { return f.cred.Load().(string), nil },
		AuditFile:  filepath.Join(state, "audit.jsonl"),
		CheckPeer: func(r *http.Request) (authz.Origin, error) {
			f.checks.Add(1)
			if err := f.peer.Load().(error); err.Error() != "" {
				return authz.Origin{}, err
			}
			return checkPeer(r)
		},
		Poll:  20 * time.Millisecond,
		Watch: 20 * time.Millisecond,
	}
	if mutate != nil {
		mutate(&o)
	}
	if f.c, err = New(o); err != nil {
		t.Fatal(err)
	}
	f.srv = httptest.NewUnstartedServer(f.c)
	f.srv.Config.ConnContext = ConnContext
	f.srv.Start()
	t.Cleanup(func() { f.c.Close(); f.srv.Close() })
	return f
}

// client is a browser-like client: a cookie jar, its own connections, no redirects followed.
func (f *fixture) client(t testing.TB) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	tr := &http.Transport{} // connections of its own: the peer verdict is kept per connection
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Jar: jar, Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// signIn spends a fresh sign-in link with cl and returns the page's CSRF token.
func (f *fixture) signIn(t testing.TB, cl *http.Client) string {
	t.Helper()
	resp, err := cl.Get(f.c.SignInURL(f.srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in link: status %d, want 303", resp.StatusCode)
	}
	_, body := f.get(t, cl, "/")
	m := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no CSRF token on the signed-in page:\n%s", body)
	}
	return m[1]
}

func (f *fixture) get(t testing.TB, cl *http.Client, path string) (int, string) {
	t.Helper()
	resp, err := cl.Get(f.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// post sends a form as a page of this console would, then lets mod spoil it.
func (f *fixture) post(t testing.TB, cl *http.Client, path string, form url.Values, mod func(*http.Request)) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", f.srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", f.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if mod != nil {
		mod(req)
	}
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (f *fixture) request(t testing.TB, path string) authz.Approval {
	t.Helper()
	ap, err := f.g.RequestAuthorization(context.Background(), authz.AuthorizationRequest{
		Conversation: "conv-1", Path: filepath.Join(f.outDir, path), Access: "file_operations:read", Reason: "read the report"})
	if err != nil {
		t.Fatal(err)
	}
	return ap
}

// TestSecurityRules tries each way around the console's rules; every attempt must leave the
// approval request pending.
func TestSecurityRules(t *testing.T) {
	f := newFixture(t, nil)
	user := f.client(t)
	csrf := f.signIn(t, user)
	ap := f.request(t, "a.txt")
	approve := url.Values{"csrf": {csrf}, "decision": {"approve"}, "duration": {"once"}}
	stranger := f.client(t)
	cases := []struct {
		name string
		do   func() (int, string)
		want int
	}{
		{"no cookie: page redirects to sign-in", func() (int, string) { return f.get(t, stranger, "/") }, http.StatusSeeOther},
		{"no cookie: live events refused", func() (int, string) { return f.get(t, stranger, "/events?topic=approvals") }, http.StatusUnauthorized},
		{"no cookie: approve refused", func() (int, string) {
			return f.post(t, stranger, "/approvals/"+ap.ID, approve, nil)
		}, http.StatusUnauthorized},
		{"forged cookie", func() (int, string) {
			return f.post(t, stranger, "/approvals/"+ap.ID, approve, func(r *http.Request) {
				r.AddCookie(&http.Cookie{Name: CookieName, Value: strings.Repeat("ab", 24) + "." + strings.Repeat("cd", 32)})
			})
		}, http.StatusUnauthorized},
		{"wrong origin", func() (int, string) {
			return f.post(t, user, "/approvals/"+ap.ID, approve, func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") })
		}, http.StatusForbidden},
		{"another loopback origin", func() (int, string) {
			return f.post(t, user, "/approvals/"+ap.ID, approve, func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:1") })
		}, http.StatusForbidden},
		{"https origin of the same host", func() (int, string) {
			return f.post(t, user, "/approvals/"+ap.ID, approve, func(r *http.Request) { r.Header.Set("Origin", strings.Replace(f.srv.URL, "http:", "https:", 1)) })
		}, http.StatusForbidden},
		{"no origin on a change", func() (int, string) {
			return f.post(t, user, "/approvals/"+ap.ID, approve, func(r *http.Request) { r.Header.Del("Origin") })
		}, http.StatusForbidden},
		{"cross-site fetch metadata", func() (int, string) {
			return f.post(t, user, "/approvals/"+ap.ID, approve, func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") })
		}, http.StatusForbidden},
		{"missing CSRF", func() (int, string) {
			return f.post(t, user, "/approvals/"+ap.ID, url.Values{"decision": {"approve"}, "duration": {"once"}}, nil)
		}, http.StatusForbidden},
		{"wrong CSRF", func() (int, string) {
			return f.post(t, user, "/approvals/"+ap.ID, url.Values{"csrf": {strings.Repeat("0", 48)}, "decision": {"approve"}, "duration": {"once"}}, nil)
		}, http.StatusForbidden},
		{"CSRF of another session", func() (int, string) {
			other := f.client(t)
			f.signIn(t, other)
			return f.post(t, other, "/approvals/"+ap.ID, url.Values{"csrf": {csrf}, "decision": {"approve"}, "duration": {"once"}}, nil)
		}, http.StatusForbidden},
		{"wrong credential in the sign-in form", func() (int, string) {
			return f.post(t, stranger, "/signin", url.Values{"credential": {"guess"}}, nil)
		}, http.StatusForbidden},
		{"descendant process with the user's cookie", func() (int, string) {
			f.peer.Store(authz.ErrDescendant)
			defer f.peer.Store(errors.New(""))
			// A connection of its own: the verdict is kept per connection.
			desc := &http.Client{Jar: user.Jar, Transport: &http.Transport{}, CheckRedirect: user.CheckRedirect}
			return f.post(t, desc, "/approvals/"+ap.ID, approve, nil)
		}, http.StatusForbidden},
		{"descendant process with a fresh sign-in link", func() (int, string) {
			f.peer.Store(authz.ErrDescendant)
			defer f.peer.Store(errors.New(""))
			return f.get(t, f.client(t), strings.TrimPrefix(f.c.SignInURL(f.srv.URL), f.srv.URL))
		}, http.StatusForbidden},
		{"duration beyond the longest grant", func() (int, string) {
			return f.post(t, user, "/approvals/"+ap.ID, url.Values{"csrf": {csrf}, "decision": {"approve"}, "duration": {"99999999"}}, nil)
		}, http.StatusBadRequest},
		{"unknown decision", func() (int, string) {
			return f.post(t, user, "/approvals/"+ap.ID, url.Values{"csrf": {csrf}, "decision": {"maybe"}}, nil)
		}, http.StatusBadRequest},
		{"unknown path before sign-in is 404", func() (int, string) { return f.get(t, stranger, "/.well-known/oauth-authorization-server") }, http.StatusNotFound},
		{"GET of an action", func() (int, string) { return f.get(t, user, "/approvals/"+ap.ID) }, http.StatusMethodNotAllowed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got, body := tc.do(); got != tc.want {
				t.Errorf("status = %d, want %d\n%s", got, tc.want, body)
			}
			got, err := f.g.Approvals().Get(context.Background(), ap.ID)
			if err != nil || got.Status != authz.StatusPending {
				t.Errorf("request after the attempt: %+v, %v; want still pending", got.Status, err)
			}
		})
	}
	// The same form with everything right is accepted: the cases above failed for their reason.
	if got, body := f.post(t, user, "/approvals/"+ap.ID, approve, nil); got != http.StatusSeeOther {
		t.Fatalf("approve with every rule met: %d\n%s", got, body)
	}
	if got, _ := f.g.Approvals().Get(context.Background(), ap.ID); got.Status != authz.StatusApproved || !strings.HasPrefix(got.DecidedBy, "console:") || !strings.Contains(got.DecidedBy, "pid ") {
		t.Errorf("after approving: %+v", got)
	}
}

// TestSignInLink: a link works once; a replay, an unknown token and a rotated credential all
// leave the browser signed out.
func TestSignInLink(t *testing.T) {
	f := newFixture(t, nil)
	link := f.c.SignInURL(f.srv.URL)
	first, second := f.client(t), f.client(t)
	resp, err := first.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ck := resp.Cookies()
	if resp.StatusCode != http.StatusSeeOther || len(ck) != 1 || !ck[0].HttpOnly || ck[0].SameSite != http.SameSiteStrictMode || ck[0].Path != "/" {
		t.Fatalf("sign-in: %d %+v; want 303 and one HttpOnly SameSite=Strict cookie", resp.StatusCode, ck)
	}
	if loc := resp.Header.Get("Location"); loc != "/" {
		t.Errorf("sign-in redirects to %q, want / (the token leaves the address bar)", loc)
	}
	if code, _ := f.get(t, first, "/"); code != http.StatusOK {
		t.Errorf("signed-in page: %d", code)
	}
	cases := []struct {
		name, url string
	}{
		{"replayed link", link},
		{"unknown token", f.srv.URL + "/signin?token=" + strings.Repeat("ab", 24)},
		{"empty token", f.srv.URL + "/signin?token="},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := second.Get(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusSeeOther || len(resp.Cookies()) != 0 {
				t.Errorf("status %d, cookies %v; want no session", resp.StatusCode, resp.Cookies())
			}
			if code, _ := f.get(t, second, "/"); code != http.StatusSeeOther {
				t.Errorf("page after %s: %d, want 303 to sign-in", tc.name, code)
			}
		})
	}
	t.Run("rotated credential", func(t *testing.T) {
		f.cred.Store("a-new-operator-credential-987654")
		if code, _ := f.get(t, first, "/"); code != http.StatusSeeOther {
			t.Errorf("page after the credential rotated: %d, want 303 to sign-in", code)
		}
	})
	t.Run("credential form", func(t *testing.T) {
		cl := f.client(t)
		code, _ := f.post(t, cl, "/signin", url.Values{"credential": {"a-new-operator-credential-987654"}}, nil)
		if code != http.StatusSeeOther {
			t.Fatalf("sign-in with the credential: %d", code)
		}
		if code, _ := f.get(t, cl, "/"); code != http.StatusOK {
			t.Errorf("page after the credential form: %d", code)
		}
	})
}

// TestHeaders: every response, signed in or not, carries the strict policy.
func TestHeaders(t *testing.T) {
	f := newFixture(t, nil)
	cl := f.client(t)
	f.signIn(t, cl)
	for _, p := range []string{"/", "/signin", "/static/console.js", "/nope", "/tools", "/health", "/activity", "/terminals", "/plans", "/memory"} {
		t.Run(p, func(t *testing.T) {
			resp, err := cl.Get(f.srv.URL + p)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			csp := resp.Header.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "form-action 'self'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Referrer-Policy") != "same-origin" {
				t.Errorf("headers: %v", resp.Header)
			}
		})
	}
}

// TestDecisions: approve for a duration, approve once, deny and revoke through the forms.
func TestDecisions(t *testing.T) {
	f := newFixture(t, nil)
	cl := f.client(t)
	csrf := f.signIn(t, cl)
	ctx := context.Background()
	cases := []struct {
		name     string
		form     url.Values
		status   authz.Status
		once     bool
		lifetime time.Duration
	}{
		{"ten minutes", url.Values{"decision": {"approve"}, "duration": {"10"}}, authz.StatusApproved, false, 10 * time.Minute},
		{"once", url.Values{"decision": {"approve"}, "duration": {"once"}}, authz.StatusApproved, true, 0},
		{"deny", url.Values{"decision": {"deny"}}, authz.StatusDenied, false, 0},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ap := f.request(t, strings.Repeat("x", i+1))
			tc.form.Set("csrf", csrf)
			if code, body := f.post(t, cl, "/approvals/"+ap.ID, tc.form, nil); code != http.StatusSeeOther {
				t.Fatalf("decide: %d\n%s", code, body)
			}
			got, _ := f.g.Approvals().Get(ctx, ap.ID)
			if got.Status != tc.status {
				t.Fatalf("status = %s, want %s", got.Status, tc.status)
			}
			if tc.status != authz.StatusApproved {
				return
			}
			gr, err := f.g.Grants().Get(ctx, got.GrantID)
			if err != nil {
				t.Fatal(err)
			}
			if gr.Once != tc.once {
				t.Errorf("grant once = %v, want %v", gr.Once, tc.once)
			}
			if tc.lifetime > 0 {
				if d := gr.Expires.Wall.Sub(gr.Created); d < tc.lifetime-time.Second || d > tc.lifetime+time.Second {
					t.Errorf("grant lasts %v, want %v", d, tc.lifetime)
				}
			}
			// A second answer to the same request is refused and changes nothing.
			if code, _ := f.post(t, cl, "/approvals/"+ap.ID, url.Values{"csrf": {csrf}, "decision": {"deny"}}, nil); code != http.StatusConflict {
				t.Errorf("second answer: %d, want 409", code)
			}
			_, page := f.get(t, cl, "/")
			if !strings.Contains(page, "grant-"+gr.ID) {
				t.Errorf("the page does not list grant %s", gr.ID)
			}
			if code, body := f.post(t, cl, "/grants/"+gr.ID+"/revoke", url.Values{"csrf": {csrf}}, nil); code != http.StatusSeeOther {
				t.Fatalf("revoke: %d\n%s", code, body)
			}
			if _, err := f.g.Grants().Get(ctx, gr.ID); !errors.Is(err, authz.ErrNotFound) {
				t.Errorf("grant after revoke: %v, want not found", err)
			}
		})
	}
}

// stream opens the event stream of a topic; it ends with the test.
func (f *fixture) stream(t *testing.T, cl *http.Client, topic string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", f.srv.URL+"/events?topic="+topic, nil)
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// TestLiveApprovals: a request made while the event stream is open arrives as an event
// carrying the rendered request.
func TestLiveApprovals(t *testing.T) {
	f := newFixture(t, nil)
	cl := f.client(t)
	f.signIn(t, cl)
	resp := f.stream(t, cl, "approvals")
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	events := readEvents(resp)
	first := <-events
	if !strings.HasPrefix(first, "event: approvals\n") || !strings.Contains(first, `data-pending="0"`) {
		t.Fatalf("first event:\n%s", first)
	}
	ap := f.request(t, "live.txt")
	for ev := range events {
		if strings.Contains(ev, "req-"+ap.ID) {
			if !strings.Contains(ev, `data-pending="1"`) || !strings.Contains(ev, "read the report") {
				t.Errorf("event lacks the count or the reason:\n%s", ev)
			}
			return
		}
	}
	t.Fatal("the stream ended without the request")
}

// readEvents splits an event stream into its events.
func readEvents(resp *http.Response) <-chan string {
	events := make(chan string, 16)
	go func() {
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.WriteString(string(buf[:n]))
			for {
				s := b.String()
				i := strings.Index(s, "\n\n")
				if i < 0 {
					break
				}
				events <- s[:i]
				b.Reset()
				b.WriteString(s[i+2:])
			}
			if err != nil {
				close(events)
				return
			}
		}
	}()
	return events
}

// TestLiveApprovalsAcrossProcesses: a request written through another handle on the state
// directory, as another toolhost process writes it (no commit of this Store wakes the
// stream), reaches the open stream through the store's Version; and while nothing changes,
// the stream neither reads the store nor renders.
func TestLiveApprovalsAcrossProcesses(t *testing.T) {
	var renders atomic.Int64 // each render checks the session, which reads the credential
	f := newFixture(t, func(o *Options) {
		o.Refresh = time.Hour
		cred := o.Credential
		o.Credential = func() (string, error) { renders.Add(1); return cred() }
	})
	cl := f.client(t)
	f.signIn(t, cl)
	// The file's time goes back, as after a quiet while: its Version is settled.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(f.state, "toolhost.db"), old, old); err != nil {
		t.Fatal(err)
	}
	events := readEvents(f.stream(t, cl, "approvals"))
	if first := <-events; !strings.Contains(first, `data-pending="0"`) {
		t.Fatalf("first event:\n%s", first)
	}
	before := renders.Load()
	time.Sleep(20 * f.c.o.Watch)
	if n := renders.Load() - before; n > 0 {
		t.Errorf("%d renders in 20 polls while nothing changed, want none", n)
	}
	other := storetest.OpenDir(t, f.state)
	g2, err := authz.New(context.Background(), authz.Config{WorkDir: filepath.Join(filepath.Dir(f.state), "wd"), StateDir: f.state, Store: other})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g2.Close() })
	ap, err := g2.RequestAuthorization(context.Background(), authz.AuthorizationRequest{
		Conversation: "conv-2", Path: filepath.Join(f.outDir, "other.txt"), Access: "file_operations:read", Reason: "from another process"})
	if err != nil {
		t.Fatal(err)
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("the stream ended without the request")
			}
			if strings.Contains(ev, "req-"+ap.ID) {
				return
			}
		case <-timeout:
			t.Fatal("the other handle's request did not reach the open stream")
		}
	}
}

// TestPeerCheckedPerConnection: the peer process is looked up once per connection, and a new
// connection is looked up again.
func TestPeerCheckedPerConnection(t *testing.T) {
	f := newFixture(t, nil)
	cl := f.client(t)
	f.signIn(t, cl)
	before := f.checks.Load()
	for range 5 {
		if code, _ := f.get(t, cl, "/"); code != http.StatusOK {
			t.Fatalf("page: %d", code)
		}
	}
	if n := f.checks.Load() - before; n != 0 {
		t.Errorf("%d peer checks for five requests on a checked connection, want 0", n)
	}
	other := &http.Client{Jar: cl.Jar, Transport: &http.Transport{}}
	f.get(t, other, "/")
	if n := f.checks.Load() - before; n != 1 {
		t.Errorf("%d peer checks after a new connection, want 1", n)
	}
}

// TestStreamEndsWithSession: signing out ends the open event streams of that session.
func TestStreamEndsWithSession(t *testing.T) {
	f := newFixture(t, nil)
	cl := f.client(t)
	csrf := f.signIn(t, cl)
	resp := f.stream(t, cl, "approvals")
	other := &http.Client{Jar: cl.Jar, Transport: &http.Transport{}, CheckRedirect: cl.CheckRedirect}
	if code, _ := f.post(t, other, "/signout", url.Values{"csrf": {csrf}}, nil); code != http.StatusSeeOther {
		t.Fatalf("sign out: %d", code)
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatalf("the stream did not end cleanly after sign-out: %v", err)
	}
}
