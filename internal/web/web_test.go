package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/internal/nettest"
)

// fixture is a client whose guard allows only the names the test lists; every name resolves
// through a scripted resolver and every connection goes through a dialer that can reach only
// loopback, so nothing here can leave the machine.
type fixture struct {
	c        *Client
	ng       *authz.NetGuard
	dialer   *nettest.LoopbackDialer
	resolver *nettest.Resolver
}

type fixtureOpts struct {
	allow  []string
	mutate func(*Config)
}

func newFixture(t testing.TB, o fixtureOpts) *fixture {
	t.Helper()
	f := &fixture{dialer: &nettest.LoopbackDialer{}, resolver: nettest.NewResolver()}
	ng, err := authz.NewNetGuard(nil, authz.NetConfig{Allow: o.allow, Resolver: f.resolver, Dialer: f.dialer})
	if err != nil {
		t.Fatal(err)
	}
	f.ng = ng
	cfg := Config{Guard: ng, Proxy: func(*url.URL) (*url.URL, error) { return nil, nil }, ProxyDialer: f.dialer}
	if o.mutate != nil {
		o.mutate(&cfg)
	}
	if f.c, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	return f
}

// serve starts a loopback server and names it: the URL uses host name, which the resolver maps
// to 127.0.0.1.
func (f *fixture) serve(t testing.TB, name string, h http.Handler) string {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	f.resolver.Set(name, []string{"127.0.0.1"})
	return "http://" + net.JoinHostPort(name, fmt.Sprint(s.Listener.Addr().(*net.TCPAddr).Port))
}

func ctxFor() context.Context {
	return authz.WithNetCaller(context.Background(), authz.NetCaller{Conversation: "c1", Tool: "web_operations", Operation: "http_request"})
}

func TestHTTPRequestBodies(t *testing.T) {
	f := newFixture(t, fixtureOpts{allow: []string{"site.test"}})
	mux := http.NewServeMux()
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("Set-Cookie", "session=SECRETCOOKIE; HttpOnly")
		io.WriteString(w, "{\n  \"a\": 1,\n  \"b\": [1, 2]\n}\n")
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=windows-1252")
		w.Write([]byte("caf\xe9 \x80"))
	})
	mux.HandleFunc("/bogus", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=x-no-such-charset")
		w.Write([]byte("ok \xff"))
	})
	mux.HandleFunc("/meta", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html><head><meta charset=\"iso-8859-1\"></head><body>na\xefve</body></html>"))
	})
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s auth=%t body=%s", r.Method, r.Header.Get("X-Test"), r.Header.Get("Authorization") != "", b)
	})
	base := f.serve(t, "site.test", mux)
	for _, tc := range []struct {
		name, path, method, body string
		wantText, wantNote       string
		binary                   bool
	}{
		{name: "json compacted", path: "/json", wantText: `{"a":1,"b":[1,2]}`},
		{name: "declared charset", path: "/latin1", wantText: "café €"},
		{name: "invalid charset", path: "/bogus", wantText: "ok \uFFFD", wantNote: "unknown charset"},
		{name: "meta charset", path: "/meta", wantText: `<html><head><meta charset="iso-8859-1"></head><body>naïve</body></html>`},
		{name: "binary", path: "/png", binary: true},
		{name: "post body", path: "/echo", method: "POST", body: "hello", wantText: "POST yes auth=true body=hello"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := f.c.Do(ctxFor(), Request{Method: tc.method, URL: base + tc.path, Body: []byte(tc.body),
				Headers: map[string]string{"X-Test": "yes", "Authorization": "Bearer SECRETTOKEN"}})
			if err != nil {
				t.Fatal(err)
			}
			got := DecodeBody(resp.Body, resp.ContentType, resp.Charset)
			if got.Binary != tc.binary || got.Text != tc.wantText || !strings.Contains(got.Note, tc.wantNote) {
				t.Errorf("DecodeBody = %+v, want text %q note %q binary %t", got, tc.wantText, tc.wantNote, tc.binary)
			}
			for _, h := range ShownHeaders(resp.Header) {
				if strings.Contains(h, "SECRETCOOKIE") {
					t.Errorf("cookie value shown: %s", h)
				}
			}
		})
	}
}

func TestRequestRefusals(t *testing.T) {
	f := newFixture(t, fixtureOpts{allow: []string{"site.test"}})
	var hits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { hits.Add(1); io.WriteString(w, "ok") })
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/to-file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/to-loopback", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://evil.test:"+r.URL.Query().Get("port")+"/", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	base := f.serve(t, "site.test", mux)
	u, _ := url.Parse(base)
	port := u.Port()
	f.resolver.Set("evil.test", []string{"127.0.0.1"})
	for _, tc := range []struct {
		name, url, method string
		headers           map[string]string
		code              string
	}{
		{name: "malformed", url: "http://[::1", code: CodeInvalidURL},
		{name: "file scheme", url: "file:///etc/passwd", code: CodeUnsupportedScheme},
		{name: "gopher scheme", url: "gopher://site.test:70/", code: CodeUnsupportedScheme},
		{name: "no scheme", url: "site.test/x", code: CodeInvalidURL},
		{name: "credentials", url: "http://user:pw@site.test:" + port + "/", code: CodeInvalidURL},
		{name: "bad method", url: base + "/", method: "TRACE", code: CodeInvalidValue},
		{name: "header injection", url: base + "/", headers: map[string]string{"X-A": "a\r\nX-B: b"}, code: CodeInvalidValue},
		{name: "name resolving to 127.0.0.1", url: "http://evil.test:" + port + "/", code: authz.CodeNetworkRefused},
		{name: "loopback literal", url: "http://127.0.0.1:" + port + "/", code: authz.CodeNetworkRefused},
		{name: "redirect to metadata", url: base + "/to-metadata", code: authz.CodeNetworkRefused},
		{name: "redirect to loopback name", url: base + "/to-loopback?port=" + port, code: authz.CodeNetworkRefused},
		{name: "redirect to file", url: base + "/to-file", code: CodeUnsupportedScheme},
		{name: "redirect loop", url: base + "/loop", code: CodeTooManyRedirects},
		{name: "unknown host", url: "http://nowhere.test/", code: CodeDNS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.c.Do(ctxFor(), Request{Method: tc.method, URL: tc.url, Headers: tc.headers})
			if got := codeOf(err); got != tc.code {
				t.Errorf("Do(%s) = %v (code %q), want code %s", tc.url, err, got, tc.code)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("refused requests reached the server %d times", n)
	}
	for _, d := range f.dialer.Dials() {
		if !strings.HasPrefix(d, "127.0.0.1:"+port) {
			t.Errorf("dialed %s", d)
		}
	}
}

func codeOf(err error) string {
	if d, ok := authz.IsNetDenial(err); ok {
		return d.Code
	}
	var we *Error
	if errors.As(err, &we) {
		return we.Code
	}
	if err == nil {
		return ""
	}
	return "other: " + err.Error()
}

func TestHugeBodyIsCapped(t *testing.T) {
	f := newFixture(t, fixtureOpts{allow: []string{"site.test"}})
	var written atomic.Int64
	huge := func(chunked bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if !chunked {
				w.Header().Set("Content-Length", fmt.Sprint(int64(2)<<30))
			}
			buf := make([]byte, 64<<10)
			for written.Load() < int64(2)<<30 {
				n, err := w.Write(buf)
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/sized", huge(false))
	mux.Handle("/chunked", huge(true))
	base := f.serve(t, "site.test", mux)

	resp, err := f.c.Do(ctxFor(), Request{URL: base + "/chunked", MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Truncated || len(resp.Body) != 1<<20 {
		t.Errorf("Do: truncated=%t len=%d, want the first MiB", resp.Truncated, len(resp.Body))
	}
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, p := range []string{"/sized", "/chunked"} {
		_, err = f.c.DownloadTo(ctxFor(), base+p, root, "big.bin", DownloadOptions{MaxBytes: 4 << 20})
		if codeOf(err) != CodeTooLarge {
			t.Errorf("download %s: %v, want too_large", p, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("a refused download left %v", entries)
	}
	// The server stops once the client hangs up: far less than 2 GB went over the wire.
	deadline := time.Now().Add(5 * time.Second)
	for {
		w1 := written.Load()
		time.Sleep(100 * time.Millisecond)
		if written.Load() == w1 || time.Now().After(deadline) {
			break
		}
	}
	if w := written.Load(); w > 256<<20 {
		t.Errorf("server wrote %d bytes; the client should have stopped reading at the cap", w)
	}
}

func TestSlowServers(t *testing.T) {
	f := newFixture(t, fixtureOpts{allow: []string{"site.test"}})
	stop := make(chan struct{})
	defer close(stop)
	mux := http.NewServeMux()
	mux.HandleFunc("/loris", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	mux.HandleFunc("/silent", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	})
	base := f.serve(t, "site.test", mux)
	for _, p := range []string{"/loris", "/silent"} {
		start := time.Now()
		_, err := f.c.Do(ctxFor(), Request{URL: base + p, Timeout: 700 * time.Millisecond})
		if codeOf(err) != CodeTimeout {
			t.Errorf("%s: %v, want timeout", p, err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s took %s", p, d)
		}
	}
}

func TestTLSErrors(t *testing.T) {
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secure") }))
	defer s.Close()
	port := s.Listener.Addr().(*net.TCPAddr).Port
	f := newFixture(t, fixtureOpts{allow: []string{"127.0.0.1"}})
	_, err := f.c.Do(ctxFor(), Request{URL: fmt.Sprintf("https://127.0.0.1:%d/", port)})
	if codeOf(err) != CodeTLS {
		t.Errorf("untrusted certificate: %v, want tls_error", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(s.Certificate())
	trusted := newFixture(t, fixtureOpts{allow: []string{"127.0.0.1"}, mutate: func(c *Config) { c.TLSConfig = &tls.Config{RootCAs: pool} }})
	resp, err := trusted.c.Do(ctxFor(), Request{URL: fmt.Sprintf("https://127.0.0.1:%d/", port)})
	if err != nil || string(resp.Body) != "secure" {
		t.Errorf("trusted TLS: %v %q", err, resp.Body)
	}
}

func TestPerHostConcurrency(t *testing.T) {
	f := newFixture(t, fixtureOpts{allow: []string{"site.test"}, mutate: func(c *Config) { c.PerHost = 2 }})
	var cur, peak atomic.Int32
	release := make(chan struct{})
	arrived := make(chan struct{}, 10)
	base := f.serve(t, "site.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := cur.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		arrived <- struct{}{}
		<-release
		cur.Add(-1)
		io.WriteString(w, "ok")
	}))
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := f.c.Do(ctxFor(), Request{URL: base + "/"}); err != nil {
				t.Error(err)
			}
		}()
	}
	<-arrived
	<-arrived
	select {
	case <-arrived:
		t.Errorf("a third request reached the host while two were running")
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	wg.Wait()
	if p := peak.Load(); p != 2 {
		t.Errorf("peak concurrency %d, want 2", p)
	}
}

// TestEnvironmentProxy: with a proxy, the target is decided before the request is handed over:
// a public name goes through the proxy, a private one or a metadata address never reaches it.
func TestEnvironmentProxy(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.String())
		mu.Unlock()
		io.WriteString(w, "via proxy "+r.URL.Host)
	}))
	defer proxy.Close()
	pu, _ := url.Parse(proxy.URL)
	f := newFixture(t, fixtureOpts{mutate: func(c *Config) {
		c.Proxy = func(*url.URL) (*url.URL, error) { return pu, nil }
	}})
	f.resolver.Set("public.test", []string{"203.0.113.10"})
	f.resolver.Set("private.test", []string{"10.0.0.1"})
	resp, err := f.c.Do(ctxFor(), Request{URL: "http://public.test/page"})
	if err != nil || string(resp.Body) != "via proxy public.test" {
		t.Fatalf("proxied public request: %v %+v", err, resp)
	}
	for _, u := range []string{"http://private.test/", "http://169.254.169.254/", "http://metadata.google.internal/"} {
		if _, err := f.c.Do(ctxFor(), Request{URL: u}); codeOf(err) != authz.CodeNetworkRefused {
			t.Errorf("proxied %s: %v, want refused", u, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 {
		t.Errorf("the proxy saw %v, want only the public request", seen)
	}
}

func TestDownload(t *testing.T) {
	f := newFixture(t, fixtureOpts{allow: []string{"site.test"}})
	payload := bytes.Repeat([]byte("0123456789abcdef"), 100000)
	base := f.serve(t, "site.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(payload)
	}))
	dir := t.TempDir()
	root, _ := os.OpenRoot(dir)
	defer root.Close()
	var calls int
	d, err := f.c.DownloadTo(ctxFor(), base+"/file.bin", root, "sub/file.bin", DownloadOptions{Progress: func(done, total int64) { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(payload)
	got, _ := os.ReadFile(filepath.Join(dir, "sub", "file.bin"))
	if !bytes.Equal(got, payload) || d.SHA256 != hex.EncodeToString(sum[:]) || d.Bytes != int64(len(payload)) || calls == 0 {
		t.Errorf("download = %+v, %d bytes on disk, %d progress calls", d, len(got), calls)
	}
	os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("mine"), 0o644)
	if _, err := f.c.DownloadTo(ctxFor(), base+"/file.bin", root, "keep.txt", DownloadOptions{}); codeOf(err) != CodeExists {
		t.Errorf("download over an existing file: %v, want exists", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(b) != "mine" {
		t.Errorf("existing file changed to %q", b)
	}
	if _, err := f.c.DownloadTo(ctxFor(), base+"/missing", root, "keep.txt", DownloadOptions{Overwrite: true}); codeOf(err) != "http_error" {
		t.Errorf("404 download: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(b) != "mine" {
		t.Errorf("a failed download changed the file to %q", b)
	}
	d, err = f.c.DownloadTo(ctxFor(), base+"/file.bin", root, "keep.txt", DownloadOptions{Overwrite: true})
	if err != nil || !d.Replaced {
		t.Errorf("overwrite: %+v %v", d, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestNoSecretsInLogs(t *testing.T) {
	f := newFixture(t, fixtureOpts{allow: []string{"site.test", "signed.test"}})
	base := f.serve(t, "site.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/", http.StatusFound)
	}))
	_, err := f.c.Do(ctxFor(), Request{URL: base + "/", Headers: map[string]string{"Authorization": "Bearer SECRETTOKEN", "Cookie": "sid=SECRETCOOKIE"}})
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("error %v, want a refusal without header values", err)
	}
	// A redirect to a presigned URL that fails: the message names it without its signature.
	signed := f.serve(t, "signed.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/start" {
			http.Redirect(w, r, "/object?X-Amz-Signature=SECRETSIG&X-Amz-Expires=60", http.StatusFound)
			return
		}
		http.NotFound(w, r)
	}))
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, err = f.c.DownloadTo(ctxFor(), signed+"/start", root, "object.bin", DownloadOptions{})
	if codeOf(err) != CodeHTTPError || strings.Contains(err.Error(), "SECRETSIG") || !strings.Contains(err.Error(), "X-Amz-Signature=***") {
		t.Errorf("failed download after a redirect: %v, want http_error naming the URL without its signature", err)
	}
}
