package web

import (
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitUntil polls cond until it holds, failing the test after a generous bound (a condition,
// not a timing: a correct program meets it at once, a broken one never).
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestForwarderPerHostCap: the browser's forwarded requests wait for one of their host's slots,
// as the HTTP engine's do; each forwarder (each conversation's browser) has slots of its own, so
// a page that holds them all delays neither another conversation's browser nor the HTTP engine;
// and a CONNECT tunnel takes a slot only while it is being opened.
func TestForwarderPerHostCap(t *testing.T) {
	f := newFixture(t, fixtureOpts{allow: []string{"site.test"}, mutate: func(c *Config) { c.PerHost = 2 }})
	release := make(chan struct{})
	var arrived atomic.Int32
	base := f.serve(t, "site.test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/free" {
			io.WriteString(w, "free")
			return
		}
		arrived.Add(1)
		<-release
		io.WriteString(w, "held")
	}))
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the server closes, also when the test fails
	u, _ := url.Parse(base)
	get := func(fw *Forwarder, path string) (string, error) {
		req, err := http.NewRequestWithContext(ctxFor(), "GET", base+path, nil)
		if err != nil {
			return "", err
		}
		resp, err := fw.RoundTrip(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	page, other := f.c.NewForwarder(), f.c.NewForwarder()
	defer page.Close()
	defer other.Close()

	var wg sync.WaitGroup
	for range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if body, err := get(page, "/held"); err != nil || body != "held" {
				t.Errorf("held request: %q %v", body, err)
			}
		}()
	}
	waitUntil(t, "two requests at the host and three waiting for a slot", func() bool {
		_, waiting := page.hosts.state("site.test")
		return arrived.Load() == 2 && waiting == 3
	})
	if n := arrived.Load(); n != 2 {
		t.Fatalf("%d requests reached the host, want 2", n)
	}
	// Another conversation's browser and the HTTP engine have slots of their own.
	if body, err := get(other, "/free"); err != nil || body != "free" {
		t.Errorf("another forwarder's request: %q %v", body, err)
	}
	if resp, err := f.c.Do(ctxFor(), Request{URL: base + "/free"}); err != nil || string(resp.Body) != "free" {
		t.Errorf("the HTTP engine's request: %v", err)
	}
	// A tunnel waits for a slot to open...
	type tunnel struct {
		c   io.Closer
		err error
	}
	tc := make(chan tunnel, 1)
	go func() {
		c, err := page.Tunnel(ctxFor(), u.Host)
		tc <- tunnel{c, err}
	}()
	waitUntil(t, "the tunnel waiting for a slot", func() bool { _, waiting := page.hosts.state("site.test"); return waiting == 4 })
	unblock()
	wg.Wait()
	tun := <-tc
	if tun.err != nil {
		t.Fatalf("Tunnel: %v", tun.err)
	}
	defer tun.c.Close()
	// ...and, once open, holds none.
	if inUse, waiting := page.hosts.state("site.test"); inUse != 0 || waiting != 0 {
		t.Errorf("with the tunnel open: %d slots in use, %d waiting; want 0, 0", inUse, waiting)
	}
	if n := arrived.Load(); n != 5 {
		t.Errorf("%d held requests reached the host, want 5", n)
	}
}
