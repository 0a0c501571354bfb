package consolidated

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Roots: when the user gave no working directory, a client that supports roots sets it with
// its first root, per MCP session. Each working directory is a workspace of its own (its
// guard, engines and tools, opened by the wiring as another Registry); this registry, the one
// registered on the server, routes each session's calls, resource reads, lists, subscriptions
// and completions to its workspace.

// A WorkspaceOpener returns the registry serving a client's root (a file:// URI), opening it on
// first use, or an error that says why the root is refused (not a directory, not allowed by the
// user's configuration).
type WorkspaceOpener func(ctx context.Context, rootURI string) (*Registry, error)

// rootsWait bounds how long a call of a session waits for its roots to be resolved.
const rootsWait = 10 * time.Second

// workspace is a session's routing: the registry its root opened, or why the root was refused.
type workspace struct {
	ready chan struct{} // closed once reg or err is set
	root  string
	reg   *Registry
	err   error
}

type sessionRoots struct {
	open WorkspaceOpener
	mu   sync.Mutex
	by   map[*mcp.ServerSession]*workspace
}

// UseRoots makes the registry ask each client that supports roots for them once it is
// initialized (and again on roots/list_changed), and route that session to the workspace
// open returns. Without UseRoots every session is served by r itself.
func (r *Registry) UseRoots(open WorkspaceOpener) {
	r.roots = &sessionRoots{open: open, by: map[*mcp.ServerSession]*workspace{}}
}

// Initialized is the server's InitializedHandler: it resolves the session's roots.
func (r *Registry) Initialized(ctx context.Context, req *mcp.InitializedRequest) {
	r.resolveRoots(req.Session)
}

// RootsChanged is the server's RootsListChangedHandler: the session follows its new first root.
func (r *Registry) RootsChanged(ctx context.Context, req *mcp.RootsListChangedRequest) {
	r.resolveRoots(req.Session)
}

func (r *Registry) resolveRoots(ss *mcp.ServerSession) {
	if r.roots == nil || ss == nil {
		return
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.RootsV2 == nil { // RootsV2: present iff the client has roots
		return // the client has no roots: the session stays on the default workspace
	}
	w := &workspace{ready: make(chan struct{})}
	r.roots.mu.Lock()
	if _, known := r.roots.by[ss]; !known {
		go func() { // forget the session when it ends
			_ = ss.Wait()
			r.roots.mu.Lock()
			delete(r.roots.by, ss)
			r.roots.mu.Unlock()
		}()
	}
	r.roots.by[ss] = w
	r.roots.mu.Unlock()
	// A server-to-client request cannot be made from inside the notification's handler
	// (the client answers on the same connection): ask from a goroutine.
	go func() {
		defer close(w.ready)
		ctx, cancel := context.WithTimeout(context.Background(), rootsWait)
		defer cancel()
		res, err := ss.ListRoots(ctx, nil)
		if err != nil {
			w.err = fmt.Errorf("roots/list failed: %w", err)
			r.env.logger().Warn("roots", "err", err)
			return
		}
		if len(res.Roots) == 0 {
			return // no roots: the default workspace
		}
		w.root = res.Roots[0].URI
		w.reg, w.err = r.roots.open(ctx, w.root)
		if w.err != nil {
			r.env.logger().Warn("client root refused", "root", w.root, "err", w.err)
			return
		}
		w.reg.serveOn(r.servers())
		r.env.logger().Info("client root", "root", w.root, "workdir", w.reg.env.Workdir)
	}()
}

// route returns the registry that serves session, waiting for its roots to be resolved, or
// the refusal of its root.
func (r *Registry) route(ctx context.Context, ss *mcp.ServerSession) (*Registry, error) {
	if r.roots == nil || ss == nil {
		return r, nil
	}
	r.roots.mu.Lock()
	w := r.roots.by[ss]
	r.roots.mu.Unlock()
	if w == nil {
		return r, nil
	}
	select {
	case <-w.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	switch {
	case w.err != nil:
		return nil, &ToolError{Code: CodeRootRefused, Message: fmt.Sprintf("the client's root %s is refused: %v", w.root, w.err),
			Next: "ask the user to allow it ([http] allowed_roots in their toolhost config) or to start toolhost with --workdir"}
	case w.reg != nil:
		return w.reg, nil
	}
	return r, nil
}

// servers are the servers r is registered on.
func (r *Registry) servers() []*mcp.Server {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*mcp.Server(nil), r.registeredOn...)
}

// serveOn gives a workspace's tools the servers to notify (live terminal sessions, updates),
// once per server.
func (r *Registry) serveOn(servers []*mcp.Server) {
	r.mu.Lock()
	var fresh []*mcp.Server
	for _, s := range servers {
		if !r.served[s] {
			if r.served == nil {
				r.served = map[*mcp.Server]bool{}
			}
			r.served[s] = true
			fresh = append(fresh, s)
		}
	}
	r.mu.Unlock()
	for _, s := range fresh {
		for _, t := range r.advertised() {
			if t.Subscriptions != nil {
				t.Subscriptions.Serve(s)
			}
		}
	}
}

// errorResult is the isError result of a call that could not be routed.
func errorResult(err error) *mcp.CallToolResult {
	te, ok := err.(*ToolError)
	if !ok {
		te = &ToolError{Code: CodeCancelled, Message: "the call ended before the client's roots were known: " + err.Error()}
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: te.Error()}}}
}

// readResource serves a resources/read from a workspace's own resources: a prefix route, a
// resource by URI, or a template that matches. ok is false when none does (a live terminal
// session, which the workspace registered on the server itself).
func (r *Registry) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (res *mcp.ReadResourceResult, ok bool, err error) {
	uri := req.Params.URI
	if read := r.prefixRoute(uri); read != nil {
		res, err = read(ctx, req)
		return res, true, err
	}
	for _, t := range r.advertised() {
		for _, x := range t.Resources {
			if x.Resource != nil && x.Resource.URI == uri || x.Template != nil && templateMatches(x.Template.URITemplate, uri) {
				res, err = x.Read(ctx, req)
				return res, true, err
			}
		}
	}
	return nil, false, nil
}

// templateMatches reports whether uri fits a level-1 URI template: each {variable} stands for
// one non-empty path segment.
func templateMatches(tmpl, uri string) bool {
	for {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			return tmpl == uri
		}
		if !strings.HasPrefix(uri, tmpl[:open]) {
			return false
		}
		uri = uri[open:]
		end := strings.IndexByte(tmpl[open:], '}')
		if end < 0 {
			return false
		}
		tmpl = tmpl[open+end+1:]
		seg := strings.IndexAny(uri, "/?#")
		if seg < 0 {
			seg = len(uri)
		}
		if seg == 0 {
			return false
		}
		uri = uri[seg:]
	}
}
