// Package console is the operator console that `toolhost serve` hosts at / on its loopback
// listener: the user's window into toolhost in a browser. It shows pending approval requests
// live and answers them, lists and revokes grants, switches tool operations on and off, shows
// terminals, todo lists, memory, activity and health.
//
// The pages are server-rendered Go templates with embedded static files and a little of our
// own JavaScript; live parts arrive as server-sent events carrying rendered HTML fragments, so
// the essential actions (approve, deny, revoke) are plain HTML forms that work without
// JavaScript.
//
// Only the user may act here, never a model: a session starts from the one-time sign-in link
// `serve` prints (or the operator credential typed into the sign-in form), lives in an
// HttpOnly SameSite=Strict cookie bound to the operator credential, and every request is
// refused when the process on the other end of the connection descends from a toolhost server
// (a model's terminal or browser). Every form carries a CSRF token, every state change must
// come with this console's own Origin, and the content security policy allows nothing but the
// console's own files. The session cookie is an HMAC of its id under the operator credential,
// kept in memory only; the peer is checked once per connection, and decisions record it as
// their origin.
//
// Tool switches go to a managed console.toml beside the config file (protected like it) and
// reach the running registry through the Tools interface (internal/app: Registry.SetAllow and
// Sync, which the go-sdk turns into notifications/tools/list_changed). Every other process on
// the configuration (each editor's toolhost stdio) stats the file before each request it is
// asked (app.RefreshSwitches: inode, size, modification time, read again while that time is
// within 2 s of now) and applies a changed list the same way, so a switch holds from that
// process's next request without a goroutine watching the file. The profile is not among the
// switches: each process takes it from its own configuration and flags at start (a window
// started --read-only stays so), and it also sets the guard's outside reads and the result
// budget there, so the Tools page names where it was chosen instead of offering a choice. A
// client token's tier or rate changes through authz.Tokens.Update (one transaction, a
// token_updated audit record with the origin), shared by `toolhost token update` and the Tools
// page through app.UpdateToken; tokens resolve per request, so the token's next call has the
// new tier in every process. The Activity page's history filters pass through
// server.ParseFilter in the wiring (consoleExecutions), so the page and /api/executions refuse
// the same input with the same parameter named.
//
// Live parts that the store holds (approvals) do not read it to look for changes: they wake on
// this process's commits (store.Commits) and compare store.Version (one stat of the file:
// inode, size, modification time, unsettled while that time is within 2 s of now, since file
// times move at a coarse clock) every 300 ms for other processes' commits, and render every 5 s
// whatever they say (requests expire without a write). Pages link the stylesheet and script as
// /static/NAME?v=HASH (a hash of the embedded file), served immutable for a year, so a page load
// is one request; other requests revalidate by ETag.
package console

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"toolhost/authz"
	"toolhost/internal/memory"
	"toolhost/internal/terminal"
	"toolhost/store"
)

//go:embed templates/*.html static/*
var files embed.FS

// Options are what the console shows and acts on. Guard and Credential are required; a page
// whose engine is nil says so instead of showing data.
type Options struct {
	// Guard holds approval requests and grants.
	Guard *authz.Guard
	// Credential returns the operator credential sessions are bound to: a session cookie is
	// valid only while the credential it was signed with is current, so rotating the
	// credential signs every browser out. It is also what the sign-in form accepts.
	Credential func() (string, error)
	// Store holds the conversations' todo lists.
	Store *store.Store
	// Memory is searched, browsed, deleted from and imported into on the memory page.
	Memory *memory.Service
	// Terminals are shown, typed into by the user (typing.go) and closed on request.
	Terminals *terminal.Manager
	// Typed keeps what the user types for the model's next read of the session; the
	// terminal tool takes it from there (consolidated.TerminalConfig.Typed).
	Typed *terminal.UserInputs
	// Tools lists and switches tool operations.
	Tools Tools
	// Executions is the execution engine's history; nil until one is wired.
	Executions Executions
	// Health describes the running server.
	Health func(ctx context.Context) Health
	// AuditFile is the guard's JSON-lines audit log (the state directory's audit.jsonl).
	AuditFile string
	Logger    *slog.Logger
	// CheckPeer refuses a request whose connection comes from a toolhost server or one of
	// its descendants, and otherwise describes the peer process for the decisions it makes;
	// nil means authz.CheckPeerOrigin on the request's connection.
	CheckPeer func(r *http.Request) (authz.Origin, error)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Poll is how often live parts the store does not hold render again to look for
	// changes (default 150ms).
	Poll time.Duration
	// Watch is how often live parts the store holds look at the store's Version, one stat
	// of its file, for other processes' commits (default 300ms); this process's commits
	// wake them at once.
	Watch time.Duration
	// Refresh is how often a live part the store holds is rendered whatever the store says
	// (default 5s): a request expires without a write.
	Refresh time.Duration
}

// Console is the console's HTTP handler.
type Console struct {
	o       Options
	pages   *pages
	static  *staticFiles
	auth    *auth
	routes  []route
	imports sync.Map // scope and name -> importJob started from the console

	closeOnce sync.Once
	closed    chan struct{} // ends the live event streams
}

// maxFormBytes bounds a form post (an upload adds importLimit).
const maxFormBytes = 64 << 10

// route is one row of the console's table of paths: a GET page, or a POST action that needs
// the CSRF token. Public routes are served before sign-in (the sign-in page and its styles).
type route struct {
	method  string
	pattern string
	public  bool
	handle  func(c *Console, w http.ResponseWriter, r *http.Request, s *session)
}

// New returns the console. It serves every path not claimed by the MCP endpoint and the API
// routes; paths it does not know are 404 before any sign-in check.
func New(o Options) (*Console, error) {
	if o.Guard == nil || o.Credential == nil {
		return nil, errors.New("console: Guard and Credential are required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Poll <= 0 {
		o.Poll = 150 * time.Millisecond
	}
	if o.Watch <= 0 {
		o.Watch = 300 * time.Millisecond
	}
	if o.Refresh <= 0 {
		o.Refresh = 5 * time.Second
	}
	if o.CheckPeer == nil {
		o.CheckPeer = checkPeer
	}
	static, err := newStatic()
	if err != nil {
		return nil, err
	}
	p, err := parsePages(static)
	if err != nil {
		return nil, err
	}
	c := &Console{o: o, pages: p, static: static, closed: make(chan struct{})}
	c.auth = newAuth(o.Credential, o.Now)
	c.routes = routes()
	return c, nil
}

// Close ends the live event streams, so that an HTTP server's Shutdown need not wait for
// open pages. The console keeps serving ordinary requests.
func (c *Console) Close() { c.closeOnce.Do(func() { close(c.closed) }) }

// routes is the console's table: every page and action, once.
func routes() []route {
	return []route{
		{method: "GET", pattern: "/signin", public: true, handle: (*Console).signInPage},
		{method: "POST", pattern: "/signin", public: true, handle: (*Console).signInWithCredential},
		{method: "GET", pattern: "/static/", public: true, handle: func(c *Console, w http.ResponseWriter, r *http.Request, _ *session) {
			c.static.ServeHTTP(w, r)
		}},
		{method: "POST", pattern: "/signout", handle: (*Console).signOut},
		{method: "GET", pattern: "/", handle: (*Console).approvalsPage},
		{method: "POST", pattern: "/approvals/", handle: (*Console).decide},
		{method: "POST", pattern: "/grants/", handle: (*Console).revoke},
		{method: "GET", pattern: "/events", handle: (*Console).events},
		{method: "GET", pattern: "/tools", handle: (*Console).toolsPage},
		{method: "POST", pattern: "/tools", handle: (*Console).toggle},
		{method: "POST", pattern: "/tokens", handle: (*Console).updateToken},
		{method: "GET", pattern: "/terminals", handle: (*Console).terminalsPage},
		{method: "GET", pattern: "/terminals/history", handle: (*Console).terminalHistory},
		{method: "GET", pattern: "/terminals/recording", handle: (*Console).terminalRecording},
		{method: "POST", pattern: "/terminals/close", handle: (*Console).closeTerminal},
		{method: "GET", pattern: "/terminals/type", handle: (*Console).typePage},
		{method: "GET", pattern: "/terminals/screen", handle: (*Console).typeScreen},
		{method: "POST", pattern: "/terminals/input", handle: (*Console).typeKeysPage},
		{method: "GET", pattern: "/plans", handle: (*Console).plansPage},
		{method: "GET", pattern: "/memory", handle: (*Console).memoryPage},
		{method: "POST", pattern: "/memory/delete", handle: (*Console).deleteMemory},
		{method: "POST", pattern: "/memory/forget", handle: (*Console).forgetInstruction},
		{method: "POST", pattern: "/memory/import", handle: (*Console).importDocument},
		{method: "GET", pattern: "/activity", handle: (*Console).activityPage},
		{method: "POST", pattern: "/executions/", handle: (*Console).cancelExecution},
		{method: "GET", pattern: "/health", handle: (*Console).healthPage},
	}
}

// match finds the route of a request: exact paths, and patterns ending in / as prefixes.
func (c *Console) match(r *http.Request) (route, bool) {
	for _, rt := range c.routes {
		if rt.method != r.Method && !(rt.method == "GET" && r.Method == http.MethodHead) {
			continue
		}
		if r.URL.Path == rt.pattern || rt.pattern != "/" && strings.HasSuffix(rt.pattern, "/") && strings.HasPrefix(r.URL.Path, rt.pattern) {
			return rt, true
		}
	}
	return route{}, false
}

// ServeHTTP applies the console's rules in order: security headers, the peer process, the
// route, the Origin, the session and, for a change, the CSRF token.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	// same-origin, not no-referrer: under no-referrer Chromium sends "Origin: null" with a
	// form post, and the Origin check must see the console's own.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	origin, err := c.peer(r)
	if err != nil {
		c.o.Logger.Warn("console request refused", "remote", r.RemoteAddr, "path", r.URL.Path, "err", err)
		http.Error(w, "refused: "+err.Error()+"; the console is for you, not for a process toolhost started", http.StatusForbidden)
		return
	}
	rt, ok := c.match(r)
	if !ok {
		if _, any := c.matchPath(r.URL.Path); any {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		http.NotFound(w, r)
		return
	}
	if err := checkOrigin(r); err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	r = r.WithContext(authz.WithOrigin(r.Context(), origin))
	if rt.public {
		rt.handle(c, w, r, nil)
		return
	}
	s := c.auth.session(r)
	if s == nil {
		if r.Method == http.MethodGet && r.URL.Path != "/events" {
			http.Redirect(w, r, "/signin", http.StatusSeeOther)
			return
		}
		c.refusedTyping(r, "not signed in (no console session, or one that ended)")
		http.Error(w, "sign in first: open the link `toolhost serve` printed", http.StatusUnauthorized)
		return
	}
	// Forms are small; only an uploaded document may be large.
	limit := int64(maxFormBytes)
	if r.Method == http.MethodPost {
		upload := strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data")
		if upload {
			limit = c.importLimit() + maxFormBytes
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		var tooLarge *http.MaxBytesError
		if upload && errors.As(r.ParseMultipartForm(limit), &tooLarge) {
			c.fail(w, r, s, http.StatusRequestEntityTooLarge, fmt.Sprintf("The file is larger than %s.", humanBytes(c.importLimit())), tooLarge)
			return
		}
	}
	if r.Method == http.MethodPost && !c.auth.validCSRF(r, s, limit) {
		c.refusedTyping(r, "missing or wrong CSRF token")
		http.Error(w, "missing or wrong CSRF token: reload the page and try again", http.StatusForbidden)
		return
	}
	rt.handle(c, w, r, s)
}

// matchPath reports whether any route has this path, whatever its method.
func (c *Console) matchPath(p string) (route, bool) {
	for _, rt := range c.routes {
		if p == rt.pattern || rt.pattern != "/" && strings.HasSuffix(rt.pattern, "/") && strings.HasPrefix(p, rt.pattern) {
			return rt, true
		}
	}
	return route{}, false
}

// connKey holds a connection's peerVerdict in its requests' contexts (ConnContext).
type connKey struct{}

// peerVerdict is the peer check of one connection, made on its first request.
type peerVerdict struct {
	once   sync.Once
	origin authz.Origin
	err    error
}

// ConnContext is for http.Server.ConnContext: each connection gets a place for its peer
// verdict. The process behind a connection does not change, so /proc is scanned once per
// connection instead of once per request (a scan costs milliseconds on a busy machine).
func ConnContext(ctx context.Context, _ net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, &peerVerdict{})
}

// peer runs CheckPeer once per connection when the server gives connections a context
// (ConnContext), else on every request.
func (c *Console) peer(r *http.Request) (authz.Origin, error) {
	v, ok := r.Context().Value(connKey{}).(*peerVerdict)
	if !ok {
		return c.o.CheckPeer(r)
	}
	v.once.Do(func() { v.origin, v.err = c.o.CheckPeer(r) })
	return v.origin, v.err
}

// checkPeer refuses connections from toolhost servers and their descendants
// (authz.CheckPeerOrigin), and requests whose connection cannot be checked.
func checkPeer(r *http.Request) (authz.Origin, error) {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	remote, err := net.ResolveTCPAddr("tcp", r.RemoteAddr)
	if local == nil || err != nil {
		return authz.Origin{}, errors.New("the console needs a TCP connection whose peer process can be checked")
	}
	return authz.CheckPeerOrigin("console", local, remote)
}

// decidedBy is who decides through r, as grants and the audit log record it: the console's
// channel with the peer process and its user.
func decidedBy(r *http.Request) string {
	if o, ok := authz.OriginFrom(r.Context()); ok && o.Channel != "" {
		return o.String()
	}
	return "console"
}
