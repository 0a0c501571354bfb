package browser

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
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
// Any other request is recorded and answered too, so that reaching it by its address shows.
type upstreamProxy struct {
	ln      net.Listener
	mu      sync.Mutex
	targets []string
	seen    []string // "METHOD host Proxy-Authorization", every request
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
				if err != nil {
					return
				}
				u.mu.Lock()
				u.seen = append(u.seen, req.Method+" "+req.Host+" "+req.Header.Get("Proxy-Authorization"))
				if req.Method == http.MethodConnect {
					u.targets = append(u.targets, req.Host)
				}
				u.mu.Unlock()
				if req.Method != http.MethodConnect {
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 19\r\n\r\nupstream, directly\n")
					return
				}
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
	wc, err := web.New(web.Config{Guard: ng, Proxy: func(*url.URL) (*url.URL, error) { return upURL, nil }, ProxyDialer: &nettest.LoopbackDialer{}})
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

// TestProxyAddressIsNotTrustedByTheBrowser is the attacker's side of an upstream proxy for the
// browser: the environment names a proxy on loopback and a page aims at the proxy's own address,
// by CONNECT (HTTPS, WebSockets) and by a plain request, directly, by name, through NO_PROXY.
// Go never proxies loopback, so those go direct, and direct is always the guard's to decide:
// 403, and the upstream proxy sees nothing. A public target still tunnels through it, with the
// proxy's credentials, after the guard decided it.
func TestProxyAddressIsNotTrustedByTheBrowser(t *testing.T) {
	up := startUpstream(t)
	uport := up.ln.Addr().(*net.TCPAddr).Port
	at := func(host string) string { return net.JoinHostPort(host, strconv.Itoa(uport)) }
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("user:s3cret"))
	for _, tc := range []struct {
		name     string
		proxy    string // HTTP_PROXY and HTTPS_PROXY
		noProxy  string
		method   string // CONNECT or GET
		target   string // host:port
		status   int
		upstream string // what the upstream proxy must have seen ("" = nothing)
	}{
		{name: "CONNECT to the proxy's address", proxy: "http://" + at("127.0.0.1"), method: "CONNECT", target: at("127.0.0.1"), status: 403},
		{name: "CONNECT to the proxy as localhost", proxy: "http://" + at("localhost"), method: "CONNECT", target: at("localhost"), status: 403},
		{name: "CONNECT to the proxy's name, exempted by NO_PROXY", proxy: "http://" + at("proxy.test"), noProxy: "proxy.test", method: "CONNECT", target: at("proxy.test"), status: 403},
		{name: "CONNECT with NO_PROXY=*", proxy: "http://" + at("127.0.0.1"), noProxy: "*", method: "CONNECT", target: at("127.0.0.1"), status: 403},
		{name: "CONNECT to a proxy with userinfo", proxy: "http://user:s3cret@" + at("127.0.0.1"), method: "CONNECT", target: at("127.0.0.1"), status: 403},
		{name: "GET of the proxy's address", proxy: "http://" + at("127.0.0.1"), method: "GET", target: at("127.0.0.1"), status: 403},
		{name: "GET with NO_PROXY=*", proxy: "http://" + at("127.0.0.1"), noProxy: "*", method: "GET", target: at("127.0.0.1"), status: 403},
		// The control: the hop the environment chose, with its credentials.
		{name: "CONNECT to a public host", proxy: "http://user:s3cret@" + at("127.0.0.1"), method: "CONNECT", target: "public.test:443", status: 200,
			upstream: "CONNECT public.test:443 " + auth},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"} {
				v := tc.proxy
				if k == "NO_PROXY" {
					v = tc.noProxy
				}
				t.Setenv(k, v)
				t.Setenv(strings.ToLower(k), v)
			}
			t.Setenv("REQUEST_METHOD", "")
			up.mu.Lock()
			before := len(up.seen)
			up.mu.Unlock()
			res := nettest.NewResolver()
			res.Set("public.test", []string{"203.0.113.20"})
			res.Set("proxy.test", []string{"127.0.0.1"})
			guardDialer := &nettest.LoopbackDialer{}
			ng, err := authz.NewNetGuard(nil, authz.NetConfig{Resolver: res, Dialer: guardDialer})
			if err != nil {
				t.Fatal(err)
			}
			// Proxy nil: the environment, as in production.
			wc, err := web.New(web.Config{Guard: ng, ProxyDialer: &nettest.HopDialer{Resolver: res}})
			if err != nil {
				t.Fatal(err)
			}
			p, err := startProxy(wc, ng, authz.NetCaller{Conversation: "c1", Tool: "web_operations", Operation: "browser_navigate"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer p.close()
			c, err := net.DialTimeout("tcp", strings.TrimPrefix(p.URL(), "http://"), 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			if tc.method == "CONNECT" {
				fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", tc.target, tc.target)
			} else {
				fmt.Fprintf(c, "GET http://%s/ HTTP/1.1\r\nHost: %s\r\n\r\n", tc.target, tc.target)
			}
			resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: tc.method})
			if err != nil {
				t.Fatal(err)
			}
			var body []byte
			if resp.StatusCode != 200 {
				body, _ = io.ReadAll(resp.Body)
			}
			if resp.StatusCode != tc.status {
				t.Errorf("%s %s = %s %q, want %d", tc.method, tc.target, resp.Status, body, tc.status)
			}
			if strings.Contains(string(body), "s3cret") {
				t.Errorf("the refusal shows the proxy's password: %q", body)
			}
			up.mu.Lock()
			got := append([]string(nil), up.seen[before:]...)
			up.mu.Unlock()
			var want []string
			if tc.upstream != "" {
				want = []string{tc.upstream}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("the upstream proxy saw %q, want %q", got, want)
			}
			for _, d := range guardDialer.Dials() {
				if d == at("127.0.0.1") {
					t.Errorf("the guard dialed the proxy's address %s", d)
				}
			}
		})
	}
}
