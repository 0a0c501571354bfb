// Package web is toolhost's HTTP engine: requests, readable pages (readability-style extraction
// and HTML→Markdown with numbered links), downloads and an optional search backend. Every
// connection goes through the network guard (authz.NetGuard) at dial time, on every redirect, and
// for proxied requests before they are handed to the proxy; the one connection that skips it is
// the hop to the proxy the environment chose for that request (see route). It knows nothing
// about MCP.
//
// Limits: response size (bodies are streamed and cut, never buffered whole), redirects (at most
// 10), time (a deadline per request), and a cap on concurrent requests per host. Request headers
// (Authorization, Cookie) are sent but never returned or logged, and Set-Cookie values are
// redacted from results.
package web

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http/httpproxy"

	"toolhost/authz"
	"toolhost/internal/secret"
)

// Defaults of Config.
const (
	DefaultTimeout          = 30 * time.Second
	DefaultMaxTimeout       = 5 * time.Minute
	DefaultMaxResponseBytes = 10 << 20
	DefaultMaxDownloadBytes = 1 << 30
	DefaultMaxRedirects     = 10
	DefaultPerHost          = 4
	DefaultUserAgent        = "toolhost (+https://modelcontextprotocol.io)"
)

// MaxRedirects is the most redirects any request follows, whatever the configuration says.
const MaxRedirects = 10

// Config configures a Client. Zero values mean the defaults.
type Config struct {
	Guard *authz.NetGuard
	// Timeout is a request's default deadline; MaxTimeout caps a caller's.
	Timeout, MaxTimeout time.Duration
	// MaxResponseBytes caps a body read for http_request and fetch_page.
	MaxResponseBytes int64
	// MaxDownloadBytes caps a download.
	MaxDownloadBytes int64
	// MaxRedirects caps redirects (at most MaxRedirects).
	MaxRedirects int
	// PerHost caps concurrent requests to one host; more wait their turn.
	PerHost   int
	UserAgent string
	// Proxy chooses a proxy for a request; nil means the environment (HTTP_PROXY, HTTPS_PROXY,
	// NO_PROXY). The hop to the proxy chosen for a request is dialed without the address policy
	// (the user configured the proxy), and only for that request, after its target passed the
	// guard; no other connection skips the guard, whatever its address.
	Proxy func(*url.URL) (*url.URL, error)
	// ProxyDialer dials those hops; nil means a net.Dialer. Tests inject one that can reach only
	// loopback.
	ProxyDialer authz.Dialer
	// TLSConfig is for tests that trust a local CA; nil means the system roots.
	TLSConfig *tls.Config
	Logger    *slog.Logger
}

// Client makes guarded HTTP requests. Safe for concurrent use.
type Client struct {
	cfg         Config
	hc          *http.Client
	proxy       func(*url.URL) (*url.URL, error)
	proxyDialer authz.Dialer
	hosts       *hostLimit
	log         *slog.Logger
}

// New builds a client on cfg.Guard (required).
func New(cfg Config) (*Client, error) {
	if cfg.Guard == nil {
		return nil, errors.New("web: no network guard")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxTimeout <= 0 {
		cfg.MaxTimeout = DefaultMaxTimeout
	}
	cfg.Timeout = min(cfg.Timeout, cfg.MaxTimeout)
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if cfg.MaxDownloadBytes <= 0 {
		cfg.MaxDownloadBytes = DefaultMaxDownloadBytes
	}
	if cfg.MaxRedirects <= 0 || cfg.MaxRedirects > MaxRedirects {
		cfg.MaxRedirects = MaxRedirects
	}
	if cfg.PerHost <= 0 {
		cfg.PerHost = DefaultPerHost
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = DefaultUserAgent
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Client{cfg: cfg, log: cfg.Logger, hosts: newHostLimit(cfg.PerHost), proxy: cfg.Proxy, proxyDialer: cfg.ProxyDialer}
	if c.proxy == nil {
		c.proxy = httpproxy.FromEnvironment().ProxyFunc()
	}
	if c.proxyDialer == nil {
		c.proxyDialer = &net.Dialer{Timeout: 30 * time.Second}
	}
	tr := &http.Transport{
		Proxy:       hopProxy,
		DialContext: c.dial,
		// Every request dials anew: a pooled connection would carry one conversation's grant
		// to another conversation's request, and would skip the dial-time check.
		DisableKeepAlives:      true,
		TLSHandshakeTimeout:    15 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 256 << 10,
		TLSClientConfig:        cfg.TLSConfig,
		ForceAttemptHTTP2:      true,
	}
	c.hc = &http.Client{Transport: &routed{c: c, hosts: c.hosts, next: tr}, CheckRedirect: c.checkRedirect}
	return c, nil
}

// proxyHop is the proxy chosen for one request: route puts it in the request's context, the
// transport's Proxy reads it there, and dial lets exactly its address through unchecked.
type proxyHop struct {
	url  *url.URL
	addr string // host:port as the transport dials it
}

type proxyHopKey struct{}

// hopOf returns the proxy route chose for the request of ctx (nil: none, dial directly).
func hopOf(ctx context.Context) *proxyHop {
	h, _ := ctx.Value(proxyHopKey{}).(*proxyHop)
	return h
}

// hopProxy is the transport's Proxy: the choice route made, never a second one.
func hopProxy(req *http.Request) (*url.URL, error) {
	if h := hopOf(req.Context()); h != nil {
		return h.url, nil
	}
	return nil, nil
}

// route decides how req leaves, before the transport sees it. With no proxy for its URL (none
// configured, NO_PROXY, or a loopback target, which Go never proxies) it goes direct, and every
// connection of it is decided by the guard, even one to a proxy's address. With a proxy, the
// target is decided here — the proxy connects on toolhost's behalf, so the target's name and
// its addresses as this machine resolves them must pass the guard — and the hop is recorded in
// the request's context, the only place dial trusts. A hop inherited from a caller's context
// is dropped: each request (each redirect too) is routed anew.
func (c *Client) route(req *http.Request) (*http.Request, error) {
	var hop *proxyHop
	p, err := c.proxy(req.URL)
	if err != nil {
		return nil, &Error{Code: CodeConnect, Message: "the proxy configuration (HTTP_PROXY, HTTPS_PROXY) is not valid",
			Next: "the user fixes the proxy environment of toolhost", Err: err}
	}
	if p != nil {
		if _, err := c.cfg.Guard.Check(req.Context(), req.URL.Hostname(), portOf(req.URL)); err != nil {
			return nil, err
		}
		hop = &proxyHop{url: p, addr: proxyAddr(p)}
	}
	if hopOf(req.Context()) == nil && hop == nil {
		return req, nil
	}
	return req.WithContext(context.WithValue(req.Context(), proxyHopKey{}, hop)), nil
}

// proxyAddr is the address the transport dials for proxy u (its canonical host:port).
func proxyAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
		if port == "" {
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// dial is the transport's dialer: the hop route chose for this request goes to the proxy as
// configured; every other address, a proxy's included, is decided by the guard.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if h := hopOf(ctx); h != nil && h.addr == addr {
		return c.proxyDialer.DialContext(ctx, network, addr)
	}
	return c.cfg.Guard.DialContext(ctx, network, addr)
}

func portOf(u *url.URL) int {
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return p
	}
	if u.Scheme == "https" || u.Scheme == "wss" {
		return 443
	}
	return 80
}

func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > c.cfg.MaxRedirects {
		return &Error{Code: CodeTooManyRedirects, Message: fmt.Sprintf("more than %d redirects (last to %s)", c.cfg.MaxRedirects, Redact(req.URL)),
			Next: "request the final URL directly, or check for a redirect loop"}
	}
	if err := checkScheme(req.URL); err != nil {
		return err
	}
	return nil
}

// routed is the client's transport (and a Forwarder's): each request is routed (route), then
// waits for one of its host's slots, which it holds until its body is closed.
type routed struct {
	c     *Client
	hosts *hostLimit
	next  http.RoundTripper
}

func (r *routed) RoundTrip(req *http.Request) (*http.Response, error) {
	req, err := r.c.route(req)
	if err != nil {
		return nil, err
	}
	release, err := r.hosts.acquire(req.Context(), req.URL.Hostname())
	if err != nil {
		return nil, err
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		release()
		return nil, err
	}
	resp.Body = &releaseBody{ReadCloser: resp.Body, release: release}
	return resp, nil
}

// hostLimit caps concurrent requests per host. A request waits for a slot until its deadline.
type hostLimit struct {
	per   int
	mu    sync.Mutex
	hosts map[string]chan struct{}
	// waiting counts the callers blocked for a slot (tests wait on it instead of on time).
	waiting int
}

func newHostLimit(per int) *hostLimit { return &hostLimit{per: per, hosts: map[string]chan struct{}{}} }

// acquire waits for a slot of host; release gives it back.
func (h *hostLimit) acquire(ctx context.Context, host string) (release func(), err error) {
	host = strings.ToLower(host)
	h.mu.Lock()
	sem, ok := h.hosts[host]
	if !ok {
		sem = make(chan struct{}, h.per)
		h.hosts[host] = sem
	}
	h.mu.Unlock()
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	default:
	}
	h.setWaiting(+1)
	defer h.setWaiting(-1)
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (h *hostLimit) setWaiting(d int) {
	h.mu.Lock()
	h.waiting += d
	h.mu.Unlock()
}

// state returns the slots in use at host and the callers waiting for any host.
func (h *hostLimit) state(host string) (inUse, waiting int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.hosts[strings.ToLower(host)]), h.waiting
}

type releaseBody struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (b *releaseBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}

// Limits returns the effective configuration (defaults applied).
func (c *Client) Limits() Config { return c.cfg }

// timeout clamps a caller's timeout.
func (c *Client) timeout(d time.Duration) time.Duration {
	if d <= 0 {
		return c.cfg.Timeout
	}
	return min(d, c.cfg.MaxTimeout)
}

// ParseURL validates a URL a model gave: http or https, a host, no credentials in it.
func ParseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, &Error{Code: CodeInvalidURL, Message: "url is empty", Next: "give an absolute http:// or https:// URL"}
	}
	if len(raw) > 8192 {
		return nil, &Error{Code: CodeInvalidURL, Message: "url is longer than 8192 bytes"}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, &Error{Code: CodeInvalidURL, Message: fmt.Sprintf("url does not parse: %s", strings.TrimPrefix(err.Error(), "parse ")),
			Next: "give an absolute http:// or https:// URL"}
	}
	if u.Scheme == "" && u.Host == "" && !strings.HasPrefix(raw, "/") && strings.Contains(strings.SplitN(raw, "/", 2)[0], ".") {
		return nil, &Error{Code: CodeInvalidURL, Message: fmt.Sprintf("url %q has no scheme", shorten(raw, 80)), Next: "use https://" + shorten(raw, 80)}
	}
	if err := checkScheme(u); err != nil {
		return nil, err
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, &Error{Code: CodeInvalidURL, Message: "url has no host", Next: "give an absolute http:// or https:// URL"}
	}
	if u.User != nil {
		return nil, &Error{Code: CodeInvalidURL, Message: "url carries credentials (user:password@)",
			Next: "send them in an Authorization header instead; headers are never shown in results or logs"}
	}
	if _, err := authz.CanonicalHost(u.Hostname()); err != nil {
		return nil, &Error{Code: CodeInvalidURL, Message: fmt.Sprintf("url host %q is not a valid host name or address", shorten(u.Hostname(), 80))}
	}
	u.Fragment = ""
	return u, nil
}

func checkScheme(u *url.URL) error {
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return nil
	case "":
		return &Error{Code: CodeInvalidURL, Message: "url has no scheme", Next: "give an absolute http:// or https:// URL"}
	}
	return &Error{Code: CodeUnsupportedScheme, Message: fmt.Sprintf("scheme %q is not supported; only http and https are", shorten(u.Scheme, 20)),
		Next: "use the file_operations tool for local files"}
}

// Redact returns u as text for messages, results and logs, masked as secret.URL masks it (no
// password, the values of secret-looking query and fragment parameters hidden), shortened.
// A presigned or token-bearing URL a redirect led to is not repeated in full.
func Redact(u *url.URL) string {
	return shorten(secret.URL(u), 200)
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
