package consolidated

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/terminal"
)

// Terminal resource URIs. Session ids are unique only within a conversation (s1, s2, ... in
// each), so the conversation is part of the URI. Both parts are query-escaped, since a
// conversation id may hold ':' or '@', which a URI template variable does not match.
const (
	TerminalScreenTemplate  = "toolhost://terminals/{conversation}/{id}/screen"
	TerminalHistoryTemplate = "toolhost://terminals/{conversation}/{id}/history"
	terminalURIPrefix       = "toolhost://terminals/"
	// terminalHistoryBytes is how much of the history the resource shows: the recent tail.
	terminalHistoryBytes = 64 << 10
	// terminalUpdateEvery bounds resource-updated notifications per session.
	terminalUpdateEvery = 250 * time.Millisecond
)

// TerminalURI returns the URI of a session's screen or history resource (kind "screen" or
// "history").
func TerminalURI(conv, id, kind string) string {
	return terminalURIPrefix + url.QueryEscape(conv) + "/" + url.QueryEscape(id) + "/" + kind
}

// parseTerminalURI splits a terminal resource URI into its parts.
func parseTerminalURI(uri string) (conv, id, kind string, ok bool) {
	rest, found := strings.CutPrefix(uri, terminalURIPrefix)
	if !found {
		return "", "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || (parts[2] != "screen" && parts[2] != "history") {
		return "", "", "", false
	}
	conv, err1 := url.QueryUnescape(parts[0])
	id, err2 := url.QueryUnescape(parts[1])
	if err1 != nil || err2 != nil || conv == "" || id == "" {
		return "", "", "", false
	}
	return conv, id, parts[2], true
}

// terminalResources serves each session's rendered screen and recent history as MCP resources
// of terminal_operations and tells subscribers when they change: the engine's update hook is its
// Updated method, and Serve gives it the server to notify.
type terminalResources struct {
	mgr *terminal.Manager

	mu      sync.Mutex
	server  *mcp.Server
	subs    map[string]int       // subscribed URI -> subscriptions
	last    map[string]time.Time // conv/id -> last notification
	pending map[string]bool      // conv/id -> a trailing notification is scheduled
}

func newTerminalResources(m *terminal.Manager) *terminalResources {
	return &terminalResources{mgr: m, subs: map[string]int{}, last: map[string]time.Time{}, pending: map[string]bool{}}
}

// resources are the screen and history templates.
func (r *terminalResources) resources() []Resource {
	return []Resource{
		{Template: &mcp.ResourceTemplate{
			Name:        "terminal-screen",
			URITemplate: TerminalScreenTemplate,
			Description: "A terminal session's visible screen, rendered as text.",
			MIMEType:    "text/plain",
		}, Read: r.read, Conversation: terminalURIConversation},
		{Template: &mcp.ResourceTemplate{
			Name:        "terminal-history",
			URITemplate: TerminalHistoryTemplate,
			Description: "The recent output of a terminal session (ANSI removed).",
			MIMEType:    "text/plain",
		}, Read: r.read, Conversation: terminalURIConversation},
	}
}

// terminalURIConversation is the conversation a terminal resource URI belongs to.
func terminalURIConversation(uri string) (string, bool) {
	conv, _, _, ok := parseTerminalURI(uri)
	return conv, ok
}

// Serve makes s the server that update notifications go to.
func (r *terminalResources) Serve(s *mcp.Server) {
	r.mu.Lock()
	r.server = s
	r.mu.Unlock()
}

func (r *terminalResources) read(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	conv, id, kind, ok := parseTerminalURI(uri)
	m := r.mgr
	if !ok || m == nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var text string
	var err error
	if kind == "screen" {
		text, err = m.Screen(conv, id)
	} else {
		var p terminal.HistoryPage
		p, err = m.History(conv, id, -terminalHistoryBytes, terminalHistoryBytes)
		text = p.Text
	}
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
}

// Subscribe records a resources/subscribe. It counts every URI, its own or not; Updated
// notifies only about its own.
func (r *terminalResources) Subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	r.mu.Lock()
	r.subs[req.Params.URI]++
	r.mu.Unlock()
	return nil
}

// Unsubscribe records a resources/unsubscribe.
func (r *terminalResources) Unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	r.mu.Lock()
	if r.subs[req.Params.URI] > 1 {
		r.subs[req.Params.URI]--
	} else {
		delete(r.subs, req.Params.URI)
	}
	r.mu.Unlock()
	return nil
}

// Updated is the engine's OnUpdate hook. It never blocks: notifications for a session go out
// at most every 250 ms from their own goroutine, the last change always followed by one, and
// only for URIs somebody subscribed to.
func (r *terminalResources) Updated(conv, id string) {
	k := conv + "\x00" + id
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.server == nil || r.pending[k] {
		return
	}
	screen, history := TerminalURI(conv, id, "screen"), TerminalURI(conv, id, "history")
	if r.subs[screen] == 0 && r.subs[history] == 0 {
		return
	}
	r.pending[k] = true
	delay := max(terminalUpdateEvery-time.Since(r.last[k]), 0)
	time.AfterFunc(delay, func() {
		r.mu.Lock()
		delete(r.pending, k)
		r.last[k] = time.Now()
		s := r.server
		var uris []string
		for _, u := range []string{screen, history} {
			if r.subs[u] > 0 {
				uris = append(uris, u)
			}
		}
		r.mu.Unlock()
		for _, u := range uris {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: u})
			cancel()
		}
	})
}
