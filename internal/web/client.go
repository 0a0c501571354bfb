// Package web is toolhost's HTTP engine: requests, readable pages (readability-style extraction
// and HTML→Markdown with numbered links), downloads and an optional search backend. Every
// connection goes through the network guard (authz.NetGuard) at dial time, on every redirect, and
// for proxied requests before they are handed to the proxy. It knows nothing about MCP.
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
	// NO_PROXY). ProxyAddrs lists the proxies' host:port, which are dialed without the address
	// policy (the user configured them); nil means those of the environment.
	Proxy      func(*url.URL) (*url.URL, error)
	ProxyAddrs []string
	// TLSConfig is for tests that trust a local CA; nil means the system roots.
	TLSConfig *tls.Config
	Logger    *slog.Logger
}

// Client makes guarded HTTP requests. Safe for concurrent use.
type Client struct {
	cfg     Config
	hc      *http.Client
	proxy   func(*url.URL) (*url.URL, error)
	proxies map[string]bool
	dialer  net.Dialer
	log     *slog.Logger

	mu    sync.Mutex
	hosts map[string]chan struct{}
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
	c := &Client{cfg: cfg, log: cfg.Logger, hosts: map[string]chan struct{}{}, proxies: map[string]bool{},
		dialer: net.Dialer{Timeout: 30 * time.Second}}
	c.proxy, c.cfg.ProxyAddrs = cfg.Proxy, cfg.ProxyAddrs
	if c.proxy == nil {
		env := httpproxy.FromEnvironment()
		c.proxy = env.ProxyFunc()
		if c.cfg.ProxyAddrs == nil {
			for _, p := range []string{env.HTTPProxy, env.HTTPSProxy} {
				if a := proxyAddr(p); a != "" {
					c.cfg.ProxyAddrs = append(c.cfg.ProxyAddrs, a)
				}
			}
		}
	}
	for _, a := range c.cfg.ProxyAddrs {
		c.proxies[a] = true
	}
	tr := &http.Transport{
		Proxy:       c.chooseProxy,
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
	c.hc = &http.Client{Transport: &hostLimiter{c: c, next: tr}, CheckRedirect: c.checkRedirect}
	return c, nil
}

// proxyAddr returns host:port of a proxy URL from the environment ("" if none).
func proxyAddr(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		if u, err = url.Parse("http://" + s); err != nil || u.Host == "" {
			return ""
		}
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "socks5": "1080"}[u.Scheme]
		if port == "" {
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// chooseProxy picks the environment's proxy for a request and, when there is one, decides the
// target before the request is handed over: the proxy connects on toolhost's behalf, so the
// target's name and its addresses (as this machine resolves them) must pass the guard.
func (c *Client) chooseProxy(req *http.Request) (*url.URL, error) {
	p, err := c.proxy(req.URL)
	if err != nil || p == nil {
		return nil, err
	}
	if _, err := c.cfg.Guard.Check(req.Context(), req.URL.Hostname(), portOf(req.URL)); err != nil {
		return nil, err
	}
	return p, nil
}

// ProxyFor returns the environment's proxy for u (nil when none applies), for the browser's
// proxy, which forwards through the same upstream proxy.
func (c *Client) ProxyFor(u *url.URL) (*url.URL, error) { return c.proxy(u) }

// DialUpstream dials addr for the browser's proxy: directly when addr is a configured upstream
// proxy, else through the guard.
func (c *Client) DialUpstream(ctx context.Context, network, addr string) (net.Conn, error) {
	return c.dial(ctx, network, addr)
}

// ForwardTransport returns a transport for a forwarding proxy (the browser's): the same guarded
// dialing and upstream-proxy choice as the client, but it follows no redirects (the browser
// does) and keeps connections for reuse by the same proxy, which serves one conversation.
func (c *Client) ForwardTransport() *http.Transport {
	return &http.Transport{
		Proxy:                  c.chooseProxy,
		DialContext:            c.dial,
		TLSHandshakeTimeout:    15 * time.Second,
		ResponseHeaderTimeout:  c.cfg.MaxTimeout,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 256 << 10,
		TLSClientConfig:        c.cfg.TLSConfig,
		ForceAttemptHTTP2:      true,
	}
}

func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if c.proxies[addr] {
		return c.dialer.DialContext(ctx, network, addr)
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

// hostLimiter caps concurrent requests per host. A request waits for a slot until its deadline.
type hostLimiter struct {
	c    *Client
	next http.RoundTripper
}

func (h *hostLimiter) RoundTrip(req *http.Request) (*http.Response, error) {
	sem := h.c.hostSlot(strings.ToLower(req.URL.Hostname()))
	select {
	case sem <- struct{}{}:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	resp, err := h.next.RoundTrip(req)
	if err != nil {
		<-sem
		return nil, err
	}
	resp.Body = &releaseBody{ReadCloser: resp.Body, release: func() { <-sem }}
	return resp, nil
}

func (c *Client) hostSlot(host string) chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.hosts[host]
	if !ok {
		s = make(chan struct{}, c.cfg.PerHost)
		c.hosts[host] = s
	}
	return s
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

// Redact returns u as text without credentials and without a query string's values' tails, for
// messages and logs.
func Redact(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	c.User = nil
	s := c.String()
	return shorten(s, 200)
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
