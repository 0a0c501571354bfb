package server

import (
	"crypto/subtle"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Token is the bearer token every request must carry; empty only with NoAuth.
	Token  string
	NoAuth bool
	// Stateless serves every request without a session. Requests on protocol 2026-07-28 or later
	// are always served statelessly, as that protocol requires.
	Stateless bool
	// SessionTimeout closes stateful sessions idle this long.
	SessionTimeout time.Duration
	// MaxBodyBytes bounds a request body.
	MaxBodyBytes int64
	// AllowedHosts are extra Host header values accepted besides loopback names (for a
	// non-loopback bind).
	AllowedHosts []string
	// EventStoreBytes bounds the events kept so that a stateful client can resume a dropped
	// stream with Last-Event-ID (default DefaultEventStoreBytes).
	EventStoreBytes int
	// Routes are extra handlers behind the MCP client token (or none, with NoAuth).
	Routes map[string]http.Handler
	// OperatorRoutes are the operator endpoints (approvals, grants, the operator API): each is
	// served behind Operator with OperatorToken, never behind the client token, and NoAuth does
	// not open them. Without an OperatorToken they answer 401 to everything.
	OperatorRoutes map[string]http.Handler
	OperatorToken  string
	Logger         *slog.Logger
}

// DefaultMaxBodyBytes bounds an HTTP request body.
const DefaultMaxBodyBytes = 8 << 20

// NewHTTPHandler serves s at /mcp behind the Host, Origin and bearer-token checks.
func NewHTTPHandler(s *mcp.Server, o HTTPOptions) http.Handler {
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = 30 * time.Minute
	}
	get := func(*http.Request) *mcp.Server { return s }
	stateless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless: true, Logger: logger, MaxRequestBodyBytes: o.MaxBodyBytes, PropagateRequestCancellation: true,
	})
	events := newEventStore(o.EventStoreBytes)
	var stateful http.Handler = mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Logger: logger, MaxRequestBodyBytes: o.MaxBodyBytes, SessionTimeout: o.SessionTimeout,
		EventStore: events,
	})
	stateful = checkReplay(stateful, events)
	client := http.NewServeMux()
	client.Handle("/mcp", protocolEdges(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o.Stateless || r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	}), o.MaxBodyBytes))
	for path, h := range o.Routes {
		client.Handle(path, h)
	}
	// Two credentials, two trees: the client token opens /mcp and Routes, the operator token
	// opens OperatorRoutes, and neither opens the other's.
	mux := http.NewServeMux()
	mux.Handle("/", authenticate(client, o.Token, o.NoAuth))
	for path, h := range o.OperatorRoutes {
		mux.Handle(path, Operator(h, o.OperatorToken, logger))
	}
	var h http.Handler = mux
	h = checkOrigin(h)
	h = checkHost(h, o.AllowedHosts)
	return h
}

// NewHTTPServer wraps h with timeouts and header limits.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

func authenticate(next http.Handler, token string, noAuth bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !noAuth {
			// The scheme name is case-insensitive (RFC 9110 §11.1); some clients send "bearer".
			scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
			ok = ok && strings.EqualFold(scheme, "Bearer")
			if !ok || token == "" || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="toolhost"`)
				http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// checkOrigin refuses browser requests from pages that are not on this machine: a page on any
// web site could otherwise drive the server through the user's browser.
func checkOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" {
			u, err := url.Parse(origin)
			if err != nil || !IsLoopbackHost(u.Hostname()) {
				http.Error(w, "origin not allowed", http.StatusForbidden)
				return
			}
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" {
			http.Error(w, "cross-site request refused", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkHost refuses Host headers that do not name this server, which defeats DNS rebinding.
func checkHost(next http.Handler, allowed []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.Trim(host, "[]")
		ok := IsLoopbackHost(host)
		for _, a := range allowed {
			if strings.EqualFold(a, host) || strings.EqualFold(a, r.Host) {
				ok = true
			}
		}
		if !ok {
			http.Error(w, "host not allowed", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// IsLoopbackHost reports whether host names this machine's loopback interface.
func IsLoopbackHost(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
