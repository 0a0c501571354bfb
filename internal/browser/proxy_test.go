package browser

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/internal/nettest"
	"toolhost/internal/web"
)

// upstreamProxy is a CONNECT proxy on loopback standing in for the environment's proxy: it
// records the targets it is asked for and answers inside the tunnel itself (it connects nowhere).
type upstreamProxy struct {
	ln      net.Listener
	mu      sync.Mutex
	targets []string
}

func startUpstream(t *testing.T) *upstreamProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := &upstreamProxy{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil || req.Method != http.MethodConnect {
					return
				}
				u.mu.Lock()
				u.targets = append(u.targets, req.Host)
				u.mu.Unlock()
				io.WriteString(c, "HTTP/1.1 200 OK\r\n\r\nhello from "+req.Host)
			}()
		}
	}()
	return u
}

// TestProxyThroughUpstream: the browser's proxy tunnels through the environment's proxy only
// after deciding the target, and answers 403 without contacting it when the guard refuses.
func TestProxyThroughUpstream(t *testing.T) {
	up := startUpstream(t)
	upURL, _ := url.Parse("http://" + up.ln.Addr().String())
	res := nettest.NewResolver()
	res.Set("public.test", []string{"203.0.113.20"})
	res.Set("private.test", []string{"10.1.1.1"})
	ng, err := authz.NewNetGuard(nil, authz.NetConfig{Resolver: res, Dialer: &nettest.LoopbackDialer{}})
	if err != nil {
		t.Fatal(err)
	}
	wc, err := web.New(web.Config{Guard: ng, Proxy: func(*url.URL) (*url.URL, error) { return upURL, nil }, ProxyAddrs: []string{upURL.Host}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := startProxy(wc, ng, authz.NetCaller{Conversation: "c1", Tool: "web_operations", Operation: "browser_navigate"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	connect := func(target string) (string, string) {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(p.URL(), "http://"), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 {
			b, _ := io.ReadAll(resp.Body)
			return resp.Status, string(b)
		}
		b, _ := io.ReadAll(br)
		return resp.Status, string(b)
	}
	status, body := connect("public.test:443")
	t.Logf("public: %s %q", status, body)
	if !strings.HasPrefix(status, "200") || body != "hello from public.test:443" {
		t.Errorf("public target: %s %q", status, body)
	}
	for _, target := range []string{"private.test:443", "169.254.169.254:80", "127.0.0.1:22"} {
		if status, body := connect(target); !strings.HasPrefix(status, "403") || !strings.Contains(body, "toolhost") {
			t.Errorf("%s: %s %q, want 403 from the guard", target, status, body)
		}
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	if len(up.targets) != 1 || up.targets[0] != "public.test:443" {
		t.Errorf("the upstream proxy was asked for %v, want only public.test:443", up.targets)
	}
	if got := p.takeBlocked(); len(got) != 3 {
		t.Errorf("blocked = %+v, want 3", got)
	}
}
