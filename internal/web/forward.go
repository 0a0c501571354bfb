package web

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Forwarder carries the requests of a forwarding proxy: the browser's, one per conversation. It
// routes and dials exactly as the client does (the guard decides every target, and only the hop
// to the proxy chosen for a request skips it), follows no redirects (the browser follows them,
// each one a new request through here), keeps connections for reuse by the same proxy, and caps
// concurrent requests per host with limits of its own, so that one conversation's pages never
// hold another's slots or the HTTP engine's.
type Forwarder struct {
	c     *Client
	tr    *http.Transport
	hosts *hostLimit
	rt    *routed
}

// NewForwarder returns a forwarder on c's guard, proxies and limits. Close it with the proxy.
func (c *Client) NewForwarder() *Forwarder {
	f := &Forwarder{c: c, hosts: newHostLimit(c.cfg.PerHost)}
	f.tr = &http.Transport{
		Proxy:                  hopProxy,
		DialContext:            c.dial,
		TLSHandshakeTimeout:    15 * time.Second,
		ResponseHeaderTimeout:  c.cfg.MaxTimeout,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 256 << 10,
		TLSClientConfig:        c.cfg.TLSConfig,
		ForceAttemptHTTP2:      true,
	}
	f.rt = &routed{c: c, hosts: f.hosts, next: f.tr}
	return f
}

// RoundTrip sends one forwarded request. It holds one of its host's slots until the response
// body is closed. A refusal is the guard's *authz.Denial.
func (f *Forwarder) RoundTrip(req *http.Request) (*http.Response, error) { return f.rt.RoundTrip(req) }

// Close drops the kept connections.
func (f *Forwarder) Close() { f.tr.CloseIdleConnections() }

// Tunnel opens a connection to target (host:port) for a CONNECT request: through the proxy the
// environment names for it, after the guard decided the target, else directly through the
// guard — never directly to an address because a proxy listens there. Opening a tunnel takes
// one of the target host's slots; an open tunnel does not keep it, because it carries any
// number of requests toolhost cannot see (TLS) and the browser keeps it open while idle (see
// docs/security.md, the network guard).
func (f *Forwarder) Tunnel(ctx context.Context, target string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(target)
	port, perr := strconv.Atoi(portStr)
	if err != nil || perr != nil || port <= 0 || port > 65535 {
		return nil, &Error{Code: CodeInvalidURL, Message: fmt.Sprintf("CONNECT target %q is not host:port", shorten(target, 80))}
	}
	release, err := f.hosts.acquire(ctx, host)
	if err != nil {
		return nil, err
	}
	defer release()
	// The scheme chooses HTTPS_PROXY: a browser tunnels HTTPS and WebSockets.
	p, err := f.c.proxy(&url.URL{Scheme: "https", Host: target})
	if err != nil {
		return nil, &Error{Code: CodeConnect, Message: "the proxy configuration (HTTP_PROXY, HTTPS_PROXY) is not valid",
			Next: "the user fixes the proxy environment of toolhost", Err: err}
	}
	if p == nil {
		return f.c.cfg.Guard.DialContext(ctx, "tcp", target)
	}
	if _, err := f.c.cfg.Guard.Check(ctx, host, port); err != nil {
		return nil, err
	}
	return f.c.connectVia(ctx, p, target)
}

// connectVia opens a tunnel to target through proxy p (http or https), whose hop the user
// configured; the caller decided target.
func (c *Client) connectVia(ctx context.Context, p *url.URL, target string) (net.Conn, error) {
	if p.Scheme != "http" && p.Scheme != "https" {
		return nil, &Error{Code: CodeConnect, Message: fmt.Sprintf("a %s proxy cannot carry the browser's tunnels", shorten(p.Scheme, 20)),
			Next: "the user sets HTTPS_PROXY to an http:// or https:// proxy"}
	}
	conn, err := c.proxyDialer.DialContext(ctx, "tcp", proxyAddr(p))
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if p.Scheme == "https" {
		cfg := &tls.Config{ServerName: p.Hostname()}
		if c.cfg.TLSConfig != nil {
			cfg = c.cfg.TLSConfig.Clone()
			cfg.ServerName = p.Hostname()
		}
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, err
		}
		conn = tc
	}
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: target}, Host: target, Header: http.Header{}}
	if p.User != nil {
		pw, _ := p.User.Password()
		req.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(p.User.Username()+":"+pw)))
	}
	if err := req.Write(conn); err != nil {
		conn.Close()
		return nil, err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		conn.Close()
		return nil, &Error{Code: CodeConnect, Message: fmt.Sprintf("the proxy refused to connect to %s: %s", shorten(target, 80), shorten(resp.Status, 60)),
			Next: "check the proxy, or ask the user"}
	}
	conn.SetDeadline(time.Time{})
	// Bytes that came with the answer belong to the tunnel.
	return &bufferedConn{Conn: conn, r: br}, nil
}

// bufferedConn reads through the reader that parsed the proxy's answer first.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }
