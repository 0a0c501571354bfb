package server

import (
	"context"
	"crypto/subtle"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/consolidated"
)

// HTTPOptions configure the streamable HTTP transport.
type HTTPOptions struct {
	// Token is the bearer token every request must carry; empty only with NoAuth.
	Token  string
	NoAuth bool
	// Stateless serves every request without a session. Requests on protocol 2026-07-28 or later
	// are always served statelessly, as that protocol requires.
	Stateless bool
	// SessionTimeout closes stateful sessions idle this long (no request in flight and no GET
	// stream open). A closed session comes back on the client's next request.
	SessionTimeout time.Duration
	// SessionLimits bound the stateful sessions (defaults 64, and 16 per principal).
	SessionLimits SessionLimits
	// Sessions, when set, is given the function that counts the live sessions (the console
	// and the operator API show them).
	Sessions func(count func() SessionCounts)
	// Evicted, when set, hears of each session closed for the session limits, just before
	// it closes: its conversation is kept for the client's return.
	Evicted func(sessionID string)
	// SessionDir keeps a record of each stateful session, so that a restarted server takes
	// the old session ids back; empty: sessions resume only within this process.
	SessionDir string
	// MaxBodyBytes bounds a request body.
	MaxBodyBytes int64
	// AllowedHosts are extra Host header values accepted besides loopback names (for a
	// non-loopback bind).
	AllowedHosts []string
	// EventStoreBytes bounds the events kept so that a stateful client can resume a dropped
	// stream with Last-Event-ID (default DefaultEventStoreBytes).
	EventStoreBytes int
	// Resolve maps a client bearer token other than Token to its principal (the token table,
	// authz.Tokens); nil accepts Token alone. Token itself is the admin principal "default".
	Resolve func(ctx context.Context, secret string) (authz.Principal, error)
	// Routes are extra handlers behind the MCP client token (or none, with NoAuth).
	Routes map[string]http.Handler
	// PrincipalRoutes (the execution history, stats, metrics) open to the operator token, as
	// the admin operator behind Operator, and to client tokens, as their own principal: each
	// handler reads the caller with authz.PrincipalFrom and shows a principal only its own.
	PrincipalRoutes map[string]http.Handler
	// Health answers GET /readyz: nil means ready. /healthz and /readyz need no credentials
	// and say nothing but ok or not.
	Health func(ctx context.Context) error
	// OperatorRoutes are the operator endpoints (approvals, grants, the operator API): each is
	// served behind Operator with OperatorToken, never behind the client token, and NoAuth does
	// not open them. Without an OperatorToken they answer 401 to everything.
	OperatorRoutes map[string]http.Handler
	OperatorToken  string
	// Console, when set, serves every path that is not /mcp, a route or an operator route,
	// without the client token: the operator console signs its users in with its own session
	// cookie bound to the operator token. The Host and Origin checks still apply to it.
	Console http.Handler
	Logger  *slog.Logger
}

// DefaultMaxBodyBytes bounds an HTTP request body. toolhost's check (protocolEdges, which
// answers a longer body with a JSON-RPC error) and the go-sdk handlers' own bound
// (MaxRequestBodyBytes, 4 MiB unless set) are given the same number, HTTPOptions.MaxBodyBytes.
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
	// The keeper, not the go-sdk, closes idle sessions (the go-sdk counts only POSTs as use) and
	// brings back sessions lost to a restart or to idleness.
	events := newEventStore(o.EventStoreBytes)
	sdkStateful := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Logger: logger, MaxRequestBodyBytes: o.MaxBodyBytes, EventStore: events,
	})
	var records *sessionRecords
	if o.SessionDir != "" {
		var err error
		if records, err = openSessionRecords(o.SessionDir); err != nil {
			logger.Warn("http sessions will not survive a restart", "err", err)
		}
	}
	keeper := newSessionKeeper(s, sdkStateful, o.SessionTimeout, o.SessionLimits, records, events, logger)
	keeper.evicted = o.Evicted
	if o.Sessions != nil {
		o.Sessions(keeper.Counts)
	}
	var stateful http.Handler = keeper
	stateful = checkReplay(stateful, events)
	var mcpHandler http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o.Stateless || r.Header.Get("Mcp-Protocol-Version") >= "2026-07-28" {
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
	// The go-sdk knows no MCP Tasks: TaskHandler speaks them, as TaskTransport does on stdio.
	mcpHandler = consolidated.TaskHandler(mcpHandler)
	// Oversized bodies and calls before initialize are answered as JSON-RPC errors (protocolEdges).
	mcpHandler = protocolEdges(mcpHandler, o.MaxBodyBytes)
	if !o.NoAuth {
		// The SDK carries the principal to tool handlers as the request's TokenInfo (per
		// request, also on stateful sessions), and pins a session to the principal that opened it.
		mcpHandler = auth.RequireBearerToken(func(ctx context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
			p, ok := authz.PrincipalFrom(r.Context())
			if !ok {
				return nil, auth.ErrInvalidToken
			}
			return TokenInfoOf(p), nil
		}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(mcpHandler)
	}
	client := http.NewServeMux()
	client.Handle("/mcp", mcpHandler)
	for path, h := range o.Routes {
		client.Handle(path, h)
	}
	// Two credentials, two trees: the client token opens /mcp and Routes, the operator token
	// opens OperatorRoutes, and neither opens the other's. PrincipalRoutes take either, each
	// with its own checks.
	mux := http.NewServeMux()
	clientAuth := authenticate(client, o)
	if o.Console == nil {
		// Paths neither tree serves are 404 before authentication (see notFound).
		mux.Handle("/", notFound(clientAuth, client))
	} else {
		// The console takes what no other tree claims; it answers 404 to paths it does not
		// know before asking anyone to sign in.
		mux.Handle("/", o.Console)
		mux.Handle("/mcp", clientAuth)
		for path := range o.Routes {
			mux.Handle(path, clientAuth)
		}
	}
	for path, h := range o.OperatorRoutes {
		mux.Handle(path, Operator(h, o.OperatorToken, logger))
	}
	for path, h := range o.PrincipalRoutes {
		mux.Handle(path, eitherCredential(Operator(h, o.OperatorToken, logger), authenticate(h, o), o.OperatorToken))
	}
	var h http.Handler = mux
	h = checkOrigin(h)
	h = checkHost(h, o.AllowedHosts)
	return withHealth(h, o.Health)
}

// eitherCredential sends a request that carries the operator token to operator (the admin
// operator, peer-checked), and any other to client (a client token's principal).
func eitherCredential(operator, client http.Handler, operatorToken string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		if ok && strings.EqualFold(scheme, "Bearer") && operatorToken != "" && authz.OperatorTokenMatches(operatorToken, strings.TrimSpace(got)) {
			operator.ServeHTTP(w, r)
			return
		}
		client.ServeHTTP(w, r)
	})
}

// withHealth answers the probes before any check: a load balancer or kubelet sends no token
// and may use any Host. They reveal only whether the server is up and ready.
func withHealth(next http.Handler, ready func(context.Context) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			io.WriteString(w, "ok\n")
		case "/readyz":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
			defer cancel()
			if ready != nil && ready(ctx) != nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, "not ready\n")
				return
			}
			io.WriteString(w, "ready\n")
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// Principals of client requests that carry the configured token, or none under NoAuth.
var (
	DefaultPrincipal   = authz.Principal{Name: "default", Tier: authz.TierAdmin}
	AnonymousPrincipal = authz.Principal{Name: "anonymous", Tier: authz.TierAdmin}
)

// TokenInfoOf is how a principal travels inside the SDK (RequestExtra.TokenInfo).
func TokenInfoOf(p authz.Principal) *auth.TokenInfo {
	return &auth.TokenInfo{UserID: p.Name, Extra: map[string]any{"tier": string(p.Tier), "rate": p.Rate}}
}

// PrincipalOf reads a principal back from TokenInfoOf; a missing or unknown tier is view_only,
// so a malformed one fails closed.
func PrincipalOf(ti *auth.TokenInfo) authz.Principal {
	p := authz.Principal{Name: ti.UserID, Tier: authz.TierViewOnly}
	if s, ok := ti.Extra["tier"].(string); ok {
		if t, err := authz.ParseTier(s); err == nil {
			p.Tier = t
		}
	}
	if s, ok := ti.Extra["rate"].(string); ok {
		p.Rate = s
	}
	return p
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

// authenticate requires a client bearer token and puts its principal into the request's
// context: the configured token is the admin "default", others come from the token table (a
// revoked one is wrong from its next request on). Its 401 says which of three things went wrong, in
// the form RFC 6750 gives clients to tell them apart: no credentials (a bare challenge), another
// scheme (invalid_request), or a wrong token (invalid_token). MCP clients that see a bare
// challenge look for OAuth and ask the user to "authenticate"; for a wrong token they should say
// so instead.
func authenticate(next http.Handler, o HTTPOptions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := AnonymousPrincipal
		if !o.NoAuth {
			header := strings.TrimSpace(r.Header.Get("Authorization"))
			// The scheme name is case-insensitive (RFC 9110 §11.1); some clients send "bearer".
			scheme, got, ok := strings.Cut(header, " ")
			ok = ok && strings.EqualFold(scheme, "Bearer")
			got = strings.TrimSpace(got)
			valid := false
			switch {
			case !ok:
			case o.Token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(o.Token)) == 1:
				p, valid = DefaultPrincipal, true
			case got != "" && o.Resolve != nil:
				var err error
				p, err = o.Resolve(r.Context(), got)
				if err != nil && !errors.Is(err, authz.ErrBadToken) {
					// The token table could not be read: not the client's fault.
					http.Error(w, "token check unavailable; retry", http.StatusServiceUnavailable)
					return
				}
				valid = err == nil
			}
			if !valid {
				challenge, msg := `Bearer realm="toolhost"`, "missing bearer token: send Authorization: Bearer TOKEN"
				switch {
				case header == "":
				case !ok:
					challenge += `, error="invalid_request", error_description="toolhost takes Authorization: Bearer TOKEN"`
					msg = "toolhost takes Authorization: Bearer TOKEN"
				default:
					challenge += `, error="invalid_token", error_description="wrong token: use the token toolhost serve printed (TOOLHOST_TOKEN or the token file in its state dir)"`
					msg = "wrong bearer token: use the token toolhost serve printed (TOOLHOST_TOKEN or the token file in its state dir)"
				}
				w.Header().Set("WWW-Authenticate", challenge)
				http.Error(w, msg, http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(authz.WithPrincipal(r.Context(), p)))
	})
}

// notFound answers 404 for paths the server does not serve, before authentication. OAuth
// clients probe /.well-known/oauth-protected-resource and friends after a 401; a 401 there too
// would make them believe an OAuth flow exists, where 404 says there is none.
func notFound(next http.Handler, mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "" {
			http.NotFound(w, r)
			return
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
