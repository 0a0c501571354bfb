package consolidated

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/reminders"
)

// Conversation-scoped resources. A resource of a conversation has the conversation in its URI
// (toolhost://terminals/{conversation}/..., toolhost://conversations/{id}/...), and only the
// client whose calls run in that conversation sees it: resources/list leaves out every other
// conversation's resources, and resources/read, subscribe and completion answer "not found"
// for them, exactly as for a URI that never existed.

const conversationURIPrefix = "toolhost://conversations/"

// ConversationURI returns the URI of a conversation's resource kind ("todos", "commands").
func ConversationURI(conv, kind string) string {
	return conversationURIPrefix + url.PathEscape(conv) + "/" + kind
}

// ResourceConversation returns the conversation a resource URI belongs to; scoped is false for
// resources of no conversation (files, the working directory, the git context). A URI under a
// conversation prefix that does not parse is scoped to no conversation anybody has.
func ResourceConversation(uri string) (conv string, scoped bool) {
	if strings.HasPrefix(uri, terminalURIPrefix) {
		conv, _, _, _ := parseTerminalURI(uri)
		return conv, true
	}
	if rest, ok := strings.CutPrefix(uri, conversationURIPrefix); ok {
		if c, ok := reminders.ConversationFromURI(uri); ok {
			return c, true
		}
		esc, _, _ := strings.Cut(rest, "/")
		c, err := url.PathUnescape(esc)
		if err != nil {
			return "", true
		}
		return c, true
	}
	return "", false
}

// Conversation returns the conversation the client behind session works in (extra: the
// request's transport details; see Sessions.Conversation): the one its tool calls run in, so
// that what resources show is what its tools act on. A nil session (an in-process call) has
// the default conversation. It is the one lookup of a session's conversation: Dispatch,
// resources, subscriptions, completion and the todo reminder prompt all use it.
func (r *Registry) Conversation(ctx context.Context, session *mcp.ServerSession, extra *mcp.RequestExtra) (string, error) {
	return r.env.sessionConversation(ctx, session, extra)
}

// callerConversation is Conversation for resources, subscriptions and completion: a session
// whose conversation cannot be leased (the server is stopping, another principal's session)
// owns no conversation's resources.
func (r *Registry) callerConversation(ctx context.Context, session *mcp.ServerSession, extra *mcp.RequestExtra) string {
	conv, err := r.Conversation(ctx, session, extra)
	if err != nil {
		return ""
	}
	return conv
}

// callConversation is the conversation of a tool call.
func (r *Registry) callConversation(ctx context.Context, req *mcp.CallToolRequest) (string, error) {
	if req == nil {
		return r.Conversation(ctx, nil, nil)
	}
	return r.Conversation(ctx, req.Session, req.Extra)
}

// ownResource reports whether a caller working in conversation conv may see uri.
func ownResource(conv, uri string) bool {
	c, scoped := ResourceConversation(uri)
	return !scoped || c != "" && c == conv
}

// resourceMiddleware is the gate of conversation-scoped resource reads: resources/read of
// another conversation's URI answers not found before any handler runs (terminal sessions are
// registered on the server as concrete resources, for every client), and resources/list is
// completed per caller by ListResources. Subscriptions are checked in Subscribe, which both
// resources/subscribe and the 2026-07-28 subscriptions/listen reach.
func (r *Registry) resourceMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "resources/read" && method != "resources/list" {
				return next(ctx, method, req)
			}
			ss, _ := req.GetSession().(*mcp.ServerSession)
			reg, err := r.route(ctx, ss) // the session's workspace
			if err != nil {
				return nil, resourceError(err)
			}
			conv := reg.callerConversation(ctx, ss, req.GetExtra())
			ctx = context.WithValue(ctx, conversationKey{}, conv)
			if x, ok := req.(*mcp.ReadResourceRequest); ok && x.Params != nil {
				if !ownResource(conv, x.Params.URI) {
					return nil, mcp.ResourceNotFoundError(x.Params.URI)
				}
				if reg != r {
					if res, found, err := reg.readResource(ctx, x); found {
						return res, err
					}
				} else if read := r.prefixRoute(x.Params.URI); read != nil {
					return read(ctx, x)
				}
			}
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListResourcesResult); ok && err == nil {
				reg.ListResources(ctx, conv, lr)
			}
			return res, err
		}
	}
}

// prefixRoute returns the handler of an advertised resource whose Prefix uri starts with.
func (r *Registry) prefixRoute(uri string) mcp.ResourceHandler {
	for _, t := range r.advertised() {
		for _, res := range t.Resources {
			if res.Prefix != "" && strings.HasPrefix(uri, res.Prefix) {
				return res.Read
			}
		}
	}
	return nil
}

type conversationKey struct{}

// CallerConversation is the conversation of the client whose resource request ctx serves
// (see Registry.Conversation); "" outside one.
func CallerConversation(ctx context.Context) string {
	conv, _ := ctx.Value(conversationKey{}).(string)
	return conv
}

// ListResources completes a resources/list result for a caller working in conversation conv:
// it drops the resources of other conversations (live terminal sessions are registered on the
// server for all) and adds the caller's own conversation resources that the advertised tools
// list (its todo list, its command history).
func (r *Registry) ListResources(ctx context.Context, conv string, res *mcp.ListResourcesResult) {
	res.Resources = slices.DeleteFunc(res.Resources, func(x *mcp.Resource) bool {
		return !ownResource(conv, x.URI) || x.URI == RecentExecutionsURI && r.env.Executions == nil
	})
	if res.NextCursor != "" || conv == "" {
		return // the live resources go on the last page
	}
	for _, t := range r.advertised() {
		if t.ListResources != nil {
			res.Resources = append(res.Resources, t.ListResources(ctx, conv)...)
		}
	}
	if r.env.Executions != nil {
		res.Resources = append(res.Resources, &mcp.Resource{URI: ConversationURI(conv, "log"), Name: "log", Title: "Call log",
			Description: "Every call of this conversation: arguments (masked), outcome, duration, execution id.", MIMEType: "application/json", Annotations: forUser(0.3)})
	}
}

// resourceError is a resources/read failure the client can act on (a guard refusal), as an
// invalid-params error with the same text a tool result would carry.
func resourceError(err error) error {
	if te, ok := err.(*ToolError); ok {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: te.Error()}
	}
	return err
}

// notifier tells subscribers that a resource changed. The go-sdk keeps who subscribed to
// what (the registry's middleware has refused other conversations' URIs by then), so a tool
// only names the URI; the notification goes out from its own goroutine, so that a slow
// client never holds up the call that made the change.
type notifier struct {
	mu      sync.Mutex
	servers []*mcp.Server
}

func (n *notifier) Subscribe(context.Context, *mcp.SubscribeRequest) error     { return nil }
func (n *notifier) Unsubscribe(context.Context, *mcp.UnsubscribeRequest) error { return nil }

// Serve adds s to the servers notifications go to.
func (n *notifier) Serve(s *mcp.Server) {
	n.mu.Lock()
	n.servers = append(n.servers, s)
	n.mu.Unlock()
}

// Updated sends notifications/resources/updated for uri to its subscribers.
func (n *notifier) Updated(uri string) {
	n.mu.Lock()
	servers := slices.Clone(n.servers)
	n.mu.Unlock()
	if len(servers) == 0 {
		return
	}
	go func() {
		for _, s := range servers {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			_ = s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
			cancel()
		}
	}()
}

// forBoth and forUser are a resource's annotations: who it is for (the model and the user, or
// the user alone) and how much it matters to the work, from 0 to 1 (the conversation's plan
// most, the history of executions least). Clients that attach resources use them to choose.
func forBoth(priority float64) *mcp.Annotations {
	return &mcp.Annotations{Audience: []mcp.Role{"user", "assistant"}, Priority: priority}
}

func forUser(priority float64) *mcp.Annotations {
	return &mcp.Annotations{Audience: []mcp.Role{"user"}, Priority: priority}
}
