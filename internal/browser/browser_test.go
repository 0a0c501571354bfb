//go:build unix

package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/jpeg"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/internal/nettest"
	"toolhost/internal/proctest"
	"toolhost/internal/web"
)

// fixture is a browser manager whose guard allows exactly the test's allowed server, over a
// dialer that can only reach loopback.
type fixture struct {
	m      *Manager
	ng     *authz.NetGuard
	dialer *nettest.LoopbackDialer
}

func requireChromium(t testing.TB) {
	t.Helper()
	if _, err := FindChromium(""); err != nil {
		if tt, ok := t.(*testing.T); ok {
			nettest.Missing(tt, "Chromium is not installed (apt-get install chromium): "+err.Error())
		} else {
			t.Skip("Chromium is not installed")
		}
	}
}

func newFixture(t testing.TB, allow []string, mutate func(*Config)) *fixture {
	t.Helper()
	requireChromium(t)
	f := &fixture{dialer: &nettest.LoopbackDialer{}}
	res := nettest.NewResolver()
	var err error
	f.ng, err = authz.NewNetGuard(nil, authz.NetConfig{Allow: allow, Resolver: res, Dialer: f.dialer})
	if err != nil {
		t.Fatal(err)
	}
	wc, err := web.New(web.Config{Guard: f.ng, Proxy: func(*urlT) (*urlT, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Web: wc, Guard: f.ng, NavTimeout: 15 * time.Second}
	if mutate != nil {
		mutate(&cfg)
	}
	f.m, err = NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.m.Shutdown)
	return f
}

// server starts a loopback server and returns its base URL and port.
func server(t testing.TB, h http.Handler) (string, int) {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	port := s.Listener.Addr().(*net.TCPAddr).Port
	return fmt.Sprintf("http://127.0.0.1:%d", port), port
}

func allowPort(port int) []string { return []string{fmt.Sprintf("127.0.0.1:%d", port)} }

const formPage = `<!doctype html><html><head><title>Form page</title></head><body>
<h1>Search the docs</h1>
<nav><a href="/about">About us</a></nav>
<form action="/result" method="get">
<label>Query <input name="q" type="text"></label>
<label>Kind <select name="kind"><option value="a">Alpha</option><option value="b">Beta</option></select></label>
<button type="submit">Go</button>
</form>
<button id="toggle" onclick="document.getElementById('out').textContent='clicked '+document.querySelector('select').value">Toggle</button>
<p id="out">not clicked</p>
<div style="height:3000px"></div><p>Bottom of the page</p>
<script>setTimeout(function(){var p=document.createElement('p');p.id='late';p.textContent='Late arrival';document.body.appendChild(p)},300)</script>
</body></html>`

func formHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, formPage) })
	mux.HandleFunc("/result", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<title>Result</title><h1>You searched %s</h1>", r.URL.Query().Get("q"))
	})
	mux.HandleFunc("/about", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<title>About</title><h1>About page</h1>")
	})
	return mux
}

// ref finds the ref of the first snapshot line containing want.
func ref(t *testing.T, snap, want string) string {
	t.Helper()
	for _, l := range strings.Split(snap, "\n") {
		if strings.Contains(l, want) {
			if i := strings.Index(l, "[ref="); i >= 0 {
				return strings.TrimSuffix(l[i+5:], "]")[:strings.Index(l[i+5:], "]")]
			}
		}
	}
	t.Fatalf("no ref for %q in snapshot:\n%s", want, snap)
	return ""
}

func TestBrowserFlow(t *testing.T) {
	base, port := server(t, formHandler())
	f := newFixture(t, allowPort(port), nil)
	ctx := context.Background()
	s, started, err := f.m.Open(ctx, "c1")
	if err != nil || !started {
		t.Fatalf("Open: %v %v", started, err)
	}
	if ps, err := s.Navigate(ctx, base+"/", 0); err != nil || ps.Title != "Form page" {
		t.Fatalf("Navigate: %+v %v (%v)", ps, err, errors.Unwrap(err))
	}
	snap, _, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`heading "Search the docs" [level=1]`, `link "About us" [ref=e`, `textbox "Query" [ref=e`, `combobox "Kind"`, `button "Go" [ref=e`} {
		if !strings.Contains(snap, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, snap)
		}
	}
	if _, _, err := s.Select(ctx, ref(t, snap, `combobox "Kind"`), "Beta"); err != nil {
		t.Fatalf("Select: %v", err)
	}
	if _, _, err := s.Select(ctx, ref(t, snap, `combobox "Kind"`), "Gamma"); err == nil || !strings.Contains(err.(*Error).Next, "Alpha, Beta") {
		t.Errorf("Select of a missing option: %v", err)
	}
	if _, _, err := s.Click(ctx, ref(t, snap, `button "Toggle"`)); err != nil {
		t.Fatalf("Click: %v", err)
	}
	if _, err := s.Wait(ctx, "", "clicked b", 5*time.Second); err != nil {
		t.Errorf("the click did not run the page's handler: %v", err)
	}
	if _, err := s.Wait(ctx, "#late", "", 5*time.Second); err != nil {
		t.Errorf("Wait for a late element: %v", err)
	}
	if _, err := s.Wait(ctx, "#never", "", 500*time.Millisecond); codeOf(err) != CodeNotFound {
		t.Errorf("Wait for a missing element: %v", err)
	}
	if _, err := s.Wait(ctx, "div[[", "", time.Second); codeOf(err) != CodeInvalid {
		t.Errorf("Wait with a bad selector: %v", err)
	}
	pos, _, err := s.Scroll(ctx, "", 0)
	if err != nil || strings.HasPrefix(pos, "scrollY=0 ") {
		t.Errorf("Scroll: %q %v", pos, err)
	}
	img, mime, _, err := s.Screenshot(ctx, false)
	if err != nil || mime != "image/jpeg" {
		t.Fatalf("Screenshot: %v", err)
	}
	if _, err := jpeg.Decode(bytes.NewReader(img)); err != nil {
		t.Errorf("screenshot is not a JPEG: %v", err)
	}
	if _, _, err := s.Click(ctx, "e999999"); codeOf(err) != CodeNotFound {
		t.Errorf("click on a missing element: %v", err)
	}
	if _, _, err := s.Click(ctx, "button"); codeOf(err) != CodeInvalid {
		t.Errorf("click with a bad ref: %v", err)
	}
	if _, _, err := s.Type(ctx, ref(t, snap, `button "Toggle"`), "x", false); codeOf(err) != CodeInvalid {
		t.Errorf("typing into a button: %v", err)
	}
	if _, ps, err := s.Type(ctx, ref(t, snap, `textbox "Query"`), "chromedp", true); err != nil || ps.Title != "Result" {
		t.Fatalf("Type+submit: %+v %v", ps, err)
	}
	snap, _, _ = s.Snapshot(ctx)
	if !strings.Contains(snap, "You searched chromedp") {
		t.Errorf("after submit:\n%s", snap)
	}
}

func codeOf(err error) string {
	var be *Error
	if errors.As(err, &be) {
		return be.Code
	}
	if d, ok := authz.IsNetDenial(err); ok {
		return d.Code
	}
	var we *web.Error
	if errors.As(err, &we) {
		return we.Code
	}
	if err == nil {
		return ""
	}
	return "other: " + err.Error()
}

// TestBrowserRequestsAreGuarded: a page on the allowed server tries every way a page reaches
// another address — a redirect, an image, an iframe, fetch(), XHR, a WebSocket, a form post — at
// a loopback server the guard refuses, and at toolhost's own proxy. None reaches it. Run inside a
// network namespace with only loopback (where one can be made), the page also tries metadata,
// private and public addresses: even a browser that skipped the proxy could not send them a
// packet there.
func TestBrowserRequestsAreGuarded(t *testing.T) {
	if nettest.Reexec(t) {
		return
	}
	var mu sync.Mutex
	var refusedHits []string
	refused := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		refusedHits = append(refusedHits, r.Method+" "+r.URL.String())
		mu.Unlock()
		// Readable from any page, so a fetch() that got here would show it.
		w.Header().Set("Access-Control-Allow-Origin", "*")
		io.WriteString(w, "SECRET FROM REFUSED SERVER")
	}))
	defer refused.Close()
	rport := refused.Listener.Addr().(*net.TCPAddr).Port
	others := ""
	if nettest.Isolated() {
		others = `"http://169.254.169.254/latest/meta-data/", "http://metadata.google.internal/", "http://10.0.0.1/", "http://192.168.1.1/", "http://[fd00:ec2::254]/", "http://203.0.113.7/"`
	}
	attack := fmt.Sprintf(`<!doctype html><title>attack</title><body>
<img src="http://127.0.0.1:%[1]d/img">
<iframe src="http://127.0.0.1:%[1]d/frame"></iframe>
<iframe src="http://localhost:%[1]d/frame2"></iframe>
<iframe src="/redirect"></iframe>
<form id="f" method="post" action="http://127.0.0.1:%[1]d/post" target="sink"><input name="a" value="b"></form><iframe name="sink"></iframe>
<p id="log"></p>
<script>
const log = (s) => { document.getElementById('log').textContent += s + ' ' };
const targets = ["http://127.0.0.1:%[1]d/fetch", "http://localhost:%[1]d/fetch2", "http://[::1]:%[1]d/fetch3", "http://127.0.0.2:%[1]d/fetch4", "http://0x7f.1:%[1]d/fetch5", "http://PROXY/own", %[2]s];
document.getElementById('f').submit();
Promise.allSettled([
  ...targets.map(u => fetch(u).then(r => r.text()).then(t => log('read ' + t), () => log('blocked'))),
  new Promise(res => { const x = new XMLHttpRequest(); x.open('GET', 'http://127.0.0.1:%[1]d/xhr'); x.onloadend = res; x.send(); }),
  new Promise(res => { try { const ws = new WebSocket('ws://127.0.0.1:%[1]d/ws'); ws.onopen = () => { log('ws open'); res(); }; ws.onerror = res; ws.onclose = res; } catch (e) { res(); } }),
]).then(() => setTimeout(() => log('DONE'), 500));
</script></body>`, rport, others)
	var page string
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, page) })
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, fmt.Sprintf("http://127.0.0.1:%d/redirected", rport), http.StatusFound)
	})
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	base, port := server(t, mux)
	f := newFixture(t, allowPort(port), nil)
	ctx := context.Background()
	s, _, err := f.m.Open(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	page = strings.Replace(attack, "PROXY", strings.TrimPrefix(s.proxy.URL(), "http://"), 1)
	if _, err := s.Navigate(ctx, base+"/", 0); err != nil {
		t.Fatalf("Navigate to the allowed page: %v", err)
	}
	if _, err := s.Wait(ctx, "", "DONE", 20*time.Second); err != nil {
		snap, _, _ := s.Snapshot(ctx)
		t.Fatalf("the attack page did not finish: %v\n%s", err, snap)
	}
	snap, ps, _ := s.Snapshot(ctx)
	if strings.Contains(snap, "read ") || strings.Contains(snap, "ws open") || strings.Contains(snap, "SECRET") || !strings.Contains(snap, "blocked") {
		t.Errorf("the page reached a refused address:\n%s", snap)
	}
	_ = ps
	// Every attempt reached the proxy and was refused there: 10 subresources and fetches plus the
	// isolated run's 6 more. (Chromium may retry some, so at least that many.)
	want := int64(11)
	if nettest.Isolated() {
		want += 6
	}
	if n := s.proxy.refusals.Load(); n < want {
		t.Errorf("the proxy refused %d requests, want at least %d: some did not go through it", n, want)
	}
	t.Logf("the proxy refused %d requests; page:\n%s", s.proxy.refusals.Load(), snap)
	// Direct navigation to refused addresses is refused with the guard's denial.
	for _, u := range []string{fmt.Sprintf("http://127.0.0.1:%d/", rport), base + "/to-metadata"} {
		if _, err := s.Navigate(ctx, u, 0); err == nil {
			t.Errorf("Navigate(%s) = nil error", u)
		} else if u == fmt.Sprintf("http://127.0.0.1:%d/", rport) && codeOf(err) != authz.CodeNetworkRefused {
			t.Errorf("Navigate(%s) = %v, want network_refused", u, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(refusedHits) != 0 {
		t.Errorf("the refused server was reached: %v", refusedHits)
	}
	for _, d := range f.dialer.Dials() {
		// Public addresses pass the guard and are refused by the test dialer; no other loopback
		// address may be dialed.
		if ap, err := netip.ParseAddrPort(d); err != nil || ap.Addr().IsLoopback() && d != fmt.Sprintf("127.0.0.1:%d", port) || authz.ClassifyAddr(ap.Addr()) != authz.AddrPublic && !ap.Addr().IsLoopback() {
			t.Errorf("the guard dialed %s", d)
		}
	}
}

func TestBrowserNeverLoads(t *testing.T) {
	stop := make(chan struct{})
	base, port := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<title>Slow</title><h1>Partial content</h1>"+strings.Repeat(" ", 2048))
		w.(http.Flusher).Flush()
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	defer close(stop)
	f := newFixture(t, allowPort(port), nil)
	ctx := context.Background()
	s, _, err := f.m.Open(ctx, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Navigate(ctx, base+"/", 2*time.Second); codeOf(err) != CodeLoadTimeout {
		t.Fatalf("Navigate: %v, want load_timeout", err)
	}
	snap, _, err := s.Snapshot(ctx)
	if err != nil || !strings.Contains(snap, "Partial content") {
		t.Errorf("snapshot after a timeout: %v\n%s", err, snap)
	}
}

// openAt opens conversation conv's browser and navigates it to url, failing tb on an error.
func (f *fixture) openAt(tb testing.TB, conv, url string) *Session {
	tb.Helper()
	ctx := context.Background()
	s, _, err := f.m.Open(ctx, conv)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := s.Navigate(ctx, url, 0); err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestBrowserIdleTimeoutKillsTree(t *testing.T) {
	base, port := server(t, formHandler())
	f := newFixture(t, allowPort(port), func(c *Config) { c.IdleTimeout = 400 * time.Millisecond })
	ctx := context.Background()
	s := f.openAt(t, "c1", base+"/")
	pid, dir := s.PID(), s.DataDir()
	if pid == 0 || len(proctest.Matching(dir)) < 2 {
		t.Fatalf("pid %d, processes %v: want a browser with child processes", pid, proctest.Matching(dir))
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(f.m.Conversations()) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if n := f.m.Conversations(); len(n) != 0 {
		t.Fatalf("browser still open after the idle timeout: %v", n)
	}
	for time.Now().Before(deadline) && len(proctest.Matching(dir)) > 0 {
		time.Sleep(100 * time.Millisecond)
	}
	if left := proctest.Matching(dir); len(left) > 0 {
		t.Errorf("processes left after close: %v", left)
	}
	for time.Now().Before(deadline) {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("profile %s not removed: %v", dir, err)
	}
	if _, _, err := s.Snapshot(ctx); err == nil {
		t.Errorf("a closed session still answers")
	}
	// The conversation gets a new browser on its next open.
	if _, started, err := f.m.Open(ctx, "c1"); err != nil || !started {
		t.Errorf("reopen: %v %v", started, err)
	}
}

func TestMissingChromium(t *testing.T) {
	f := &fixture{}
	ng, _ := authz.NewNetGuard(nil, authz.NetConfig{Dialer: &nettest.LoopbackDialer{}, Resolver: nettest.NewResolver()})
	wc, _ := web.New(web.Config{Guard: ng})
	m, err := NewManager(Config{Web: wc, Guard: ng, Chromium: "/nonexistent/chromium"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown()
	f.m = m
	_, _, err = m.Open(context.Background(), "c1")
	if !errors.Is(err, ErrNoChromium) || !strings.Contains(err.Error(), "apt-get install chromium") {
		t.Errorf("Open without Chromium: %v, want the install hint", err)
	}
	if len(m.Conversations()) != 0 {
		t.Errorf("a failed start kept a session")
	}
}

// BenchmarkBrowserOpenSnapshotCold: start a browser, load a local page and snapshot it (the
// close after each is not timed). Reports the median (target: 1.5 s).
func BenchmarkBrowserOpenSnapshotCold(b *testing.B) {
	base, port := server(b, formHandler())
	f := newFixture(b, allowPort(port), nil)
	ctx := context.Background()
	var durs []time.Duration
	for b.Loop() {
		start := time.Now()
		s := f.openAt(b, "bench", base+"/")
		if _, _, err := s.Snapshot(ctx); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
		b.StopTimer()
		f.m.Close("bench")
		b.StartTimer()
	}
	reportP50(b, durs)
}

// BenchmarkBrowserSnapshotWarm: load a local page in an open browser and snapshot it. Reports
// the median (target: 150 ms).
func BenchmarkBrowserSnapshotWarm(b *testing.B) {
	base, port := server(b, formHandler())
	f := newFixture(b, allowPort(port), nil)
	ctx := context.Background()
	s, _, err := f.m.Open(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	var durs []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := s.Navigate(ctx, base+"/", 0); err != nil {
			b.Fatal(err)
		}
		if _, _, err := s.Snapshot(ctx); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
	}
	reportP50(b, durs)
}

// reportP50 reports the median of durs in milliseconds.
func reportP50(b *testing.B, durs []time.Duration) {
	if len(durs) == 0 {
		return
	}
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
}

type urlT = url.URL

// TestBrowserAllowedFetchWorks is the control of TestBrowserRequestsAreGuarded: with the second
// server allowed, the same kind of fetch() reads it, so "blocked" there means the guard.
func TestBrowserAllowedFetchWorks(t *testing.T) {
	other, oport := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		io.WriteString(w, "READABLE")
	}))
	base, port := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>ok</title><p id="log"></p><script>fetch(%q).then(r=>r.text()).then(t=>{document.getElementById('log').textContent='read '+t},()=>{document.getElementById('log').textContent='blocked'})</script>`, other+"/x")
	}))
	f := newFixture(t, append(allowPort(port), allowPort(oport)...), nil)
	ctx := context.Background()
	s := f.openAt(t, "c1", base+"/")
	if _, err := s.Wait(ctx, "", "read READABLE", 10*time.Second); err != nil {
		snap, _, _ := s.Snapshot(ctx)
		t.Fatalf("allowed fetch: %v\n%s", err, snap)
	}
}

// TestConcurrentOpen: calls of one conversation that race to open share one browser, and a start
// that fails releases every waiter.
func TestConcurrentOpen(t *testing.T) {
	for _, tc := range []struct {
		name     string
		chromium string
		wantErr  bool
	}{
		{"real browser", "", false},
		{"browser that fails to start", "/bin/false", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil, func(c *Config) { c.Chromium = tc.chromium })
			var wg sync.WaitGroup
			sessions := make([]*Session, 4)
			errs := make([]error, 4)
			for i := range sessions {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
					defer cancel()
					sessions[i], _, errs[i] = f.m.Open(ctx, "c1")
				}()
			}
			wg.Wait()
			for i := range sessions {
				if (errs[i] != nil) != tc.wantErr {
					t.Errorf("Open %d: %v", i, errs[i])
				}
				if !tc.wantErr && sessions[i] != sessions[0] {
					t.Errorf("Open %d got another session", i)
				}
			}
		})
	}
}
