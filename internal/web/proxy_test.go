package web

import (
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"toolhost/authz"
	"toolhost/internal/nettest"
)

// setProxyEnv sets the proxy variables in both spellings, so that whatever the machine's
// environment holds, the test's values are the ones read.
func setProxyEnv(t *testing.T, httpProxy, httpsProxy, noProxy string) {
	t.Helper()
	for k, v := range map[string]string{"HTTP_PROXY": httpProxy, "HTTPS_PROXY": httpsProxy, "NO_PROXY": noProxy} {
		t.Setenv(k, v)
		t.Setenv(strings.ToLower(k), v)
	}
	t.Setenv("REQUEST_METHOD", "") // httpproxy ignores HTTP_PROXY under CGI
}

// recordingProxy is a forward proxy on loopback standing in for the environment's: it records
// what it is asked and answers itself (it connects nowhere). /redirect sends the client to the
// proxy's own address.
type recordingProxy struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string // "METHOD URL auth"
}

func startRecordingProxy(t *testing.T) *recordingProxy {
	t.Helper()
	p := &recordingProxy{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen = append(p.seen, r.Method+" "+r.URL.String()+" "+r.Header.Get("Proxy-Authorization"))
		p.mu.Unlock()
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "http://"+p.srv.Listener.Addr().String()+"/direct", http.StatusFound)
			return
		}
		io.WriteString(w, "via proxy "+r.URL.Host)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *recordingProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// TestProxyAddressIsNotTrusted is the attacker's side of proxies: a proxy on loopback is
// configured in the environment, and the model aims at the proxy's own address — directly (Go
// never proxies loopback), through NO_PROXY, by the proxy's name, over https, behind a redirect.
// Only a request the environment actually sends through the proxy reaches it, after its target
// passed the guard; every other connection is the guard's to decide, and loopback is refused.
func TestProxyAddressIsNotTrusted(t *testing.T) {
	proxy := startRecordingProxy(t)
	pport := proxy.srv.Listener.Addr().(*net.TCPAddr).Port
	at := func(host string) string { return net.JoinHostPort(host, strconv.Itoa(pport)) }
	secretAuth := "Basic " + base64.StdEncoding.EncodeToString([]byte("user:s3cret"))
	for _, tc := range []struct {
		name                  string
		httpProxy, httpsProxy string
		noProxy               string
		url                   string
		code                  string // "" = answered through the proxy
		proxied               string // what the proxy must have seen ("" = nothing)
	}{
		{name: "the proxy's address, loopback literal", httpProxy: "http://" + at("127.0.0.1"), url: "http://" + at("127.0.0.1") + "/", code: authz.CodeNetworkRefused},
		{name: "the proxy's address, as localhost", httpProxy: "http://" + at("localhost"), url: "http://" + at("localhost") + "/", code: authz.CodeNetworkRefused},
		{name: "proxy without scheme", httpProxy: at("127.0.0.1"), url: "http://" + at("127.0.0.1") + "/x", code: authz.CodeNetworkRefused},
		{name: "proxy named and exempted by NO_PROXY", httpProxy: "http://" + at("proxy.test"), noProxy: "proxy.test", url: "http://" + at("proxy.test") + "/", code: authz.CodeNetworkRefused},
		{name: "NO_PROXY=* and the proxy's address", httpProxy: "http://" + at("127.0.0.1"), noProxy: "*", url: "http://" + at("127.0.0.1") + "/", code: authz.CodeNetworkRefused},
		{name: "NO_PROXY=* and a name resolving to the proxy", httpProxy: "http://" + at("127.0.0.1"), noProxy: "*", url: "http://" + at("sneaky.test") + "/", code: authz.CodeNetworkRefused},
		{name: "https to the proxy's address", httpsProxy: "http://" + at("127.0.0.1"), url: "https://" + at("127.0.0.1") + "/", code: authz.CodeNetworkRefused},
		{name: "proxy with userinfo, its address", httpProxy: "http://user:s3cret@" + at("127.0.0.1"), url: "http://" + at("127.0.0.1") + "/", code: authz.CodeNetworkRefused},
		{name: "a redirect from the proxy to itself", httpProxy: "http://" + at("127.0.0.1"), url: "http://public.test/redirect", code: authz.CodeNetworkRefused,
			proxied: "GET http://public.test/redirect "},
		{name: "NO_PROXY sends a public name direct", httpProxy: "http://" + at("127.0.0.1"), noProxy: "public.test", url: "http://public.test/", code: CodeConnect},
		// The controls: the hop the environment chose works, with its credentials.
		{name: "proxied public request", httpProxy: "http://" + at("127.0.0.1"), url: "http://public.test/page", proxied: "GET http://public.test/page "},
		{name: "proxied with userinfo", httpProxy: "http://user:s3cret@" + at("127.0.0.1"), url: "http://public.test/page", proxied: "GET http://public.test/page " + secretAuth},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setProxyEnv(t, tc.httpProxy, tc.httpsProxy, tc.noProxy)
			before := len(proxy.requests())
			guardDialer, hops := &nettest.LoopbackDialer{}, &nettest.LoopbackDialer{}
			res := nettest.NewResolver()
			res.Set("proxy.test", []string{"127.0.0.1"})
			res.Set("sneaky.test", []string{"127.0.0.1"})
			res.Set("public.test", []string{"203.0.113.10"})
			ng, err := authz.NewNetGuard(nil, authz.NetConfig{Resolver: res, Dialer: guardDialer})
			if err != nil {
				t.Fatal(err)
			}
			// Proxy nil: the environment, as in production.
			c, err := New(Config{Guard: ng, ProxyDialer: &nettest.HopDialer{Resolver: res, Dialer: hops}})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Do(ctxFor(), Request{URL: tc.url})
			if got := codeOf(err); got != tc.code {
				t.Fatalf("Do(%s) = %v (code %q), want code %q", tc.url, err, got, tc.code)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the error shows the proxy's password: %v", err)
			}
			if tc.code == "" && !strings.HasPrefix(string(resp.Body), "via proxy ") {
				t.Errorf("body %q, want the proxy's answer", resp.Body)
			}
			var want []string
			if tc.proxied != "" {
				want = []string{tc.proxied}
			}
			if got := proxy.requests()[before:]; strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("the proxy saw %q, want %q", got, want)
			}
			for _, d := range guardDialer.Dials() {
				if d == at("127.0.0.1") {
					t.Errorf("the guard dialed the proxy's address %s", d)
				}
			}
			for _, d := range hops.Dials() {
				if tc.proxied == "" {
					t.Errorf("a proxy hop was dialed (%s) for a request not sent through the proxy", d)
				}
			}
		})
	}
}
