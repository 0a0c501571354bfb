package consolidated

import (
	"context"
	"fmt"
	"net/url"
	"slices"
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
	// CommandsTemplate is a conversation's command history.
	CommandsTemplate  = "toolhost://conversations/{conversation}/commands"
	terminalURIPrefix = "toolhost://terminals/"
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
// Updated method, and Serve gives it the servers to notify.
type terminalResources struct {
	mgr *terminal.Manager

	mu      sync.Mutex
	servers []*mcp.Server
	subs    map[string]int       // subscribed URI -> subscriptions
	last    map[string]time.Time // conv/id -> last notification
	pending map[string]bool      // conv/id -> a trailing notification is scheduled
	// live holds the sessions registered on the server as concrete resources, per
	// conversation, so that resources/list shows them and the go-sdk sends
	// notifications/resources/list_changed when they come and go.
	live map[string]map[string]bool
	// seen holds every conv/id whose output started a sync, so that output of a command,
	// which never becomes a listed session, does not start one each time.
	seen map[string]bool
	// syncMu orders syncs, so that two never register and remove the same session at once.
	syncMu sync.Mutex
}

func newTerminalResources(m *terminal.Manager) *terminalResources {
	return &terminalResources{mgr: m, subs: map[string]int{}, last: map[string]time.Time{}, pending: map[string]bool{}, live: map[string]map[string]bool{}, seen: map[string]bool{}}
}

// sync registers conv's sessions that are new and removes those that are gone. It runs after
// every call that may start or end one (terminal_operations, build_and_version_control's runs)
// and when a session the server does not list yet produces output; a session ended by the
// idle timeout leaves the list at the next of these.
func (r *terminalResources) sync(ctx context.Context, conv string) {
	r.mu.Lock()
	servers := slices.Clone(r.servers)
	r.mu.Unlock()
	if len(servers) == 0 || r.mgr == nil {
		return
	}
	infos := r.mgr.Sessions(conv)
	want := map[string]terminal.Info{}
	for _, in := range infos {
		if in.State == terminal.StateRunning || in.State == terminal.StateExited {
			want[in.ID] = in
		}
	}
	r.syncMu.Lock()
	defer r.syncMu.Unlock()
	r.mu.Lock()
	for _, in := range infos {
		r.seen[conv+"\x00"+in.ID] = true
	}
	have := r.live[conv]
	var gone []string
	for id := range have {
		if _, ok := want[id]; !ok {
			gone = append(gone, TerminalURI(conv, id, "screen"), TerminalURI(conv, id, "history"))
			delete(have, id)
		}
	}
	var added []terminal.Info
	for id, in := range want {
		if !have[id] {
			added = append(added, in)
		}
	}
	if len(added) > 0 && have == nil {
		have = map[string]bool{}
		r.live[conv] = have
	}
	for _, in := range added {
		have[in.ID] = true
	}
	if len(have) == 0 {
		delete(r.live, conv)
	}
	r.mu.Unlock()
	for _, s := range servers {
		if len(gone) > 0 {
			s.RemoveResources(gone...)
		}
		for _, in := range added {
			title := "terminal " + in.ID
			if in.Cwd != "" {
				title += " in " + in.Cwd
			}
			for _, kind := range []struct{ name, what string }{
				{"screen", "The session's visible screen, rendered as text."},
				{"history", "The session's recent output (ANSI removed)."},
			} {
				s.AddResource(&mcp.Resource{URI: TerminalURI(conv, in.ID, kind.name), Name: "terminal-" + kind.name + "-" + in.ID,
					Title: title + ": " + kind.name, Description: kind.what, MIMEType: "text/plain", Annotations: forBoth(0.6)}, r.read)
			}
		}
	}
}

// afterCall keeps the registered sessions current after the calls that start and end them.
func (r *terminalResources) afterCall(ctx context.Context, c *Call, _ *Result) {
	if c.Tool == terminalToolName || c.Tool == "build_and_version_control" {
		r.sync(ctx, c.Conversation)
	}
}

// resources are the screen and history templates.
func (r *terminalResources) resources() []Resource {
	return []Resource{
		{Template: &mcp.ResourceTemplate{
			Name:        "terminal-screen",
			URITemplate: TerminalScreenTemplate,
			Description: "A terminal session's visible screen, rendered as text.",
			MIMEType:    "text/plain",
			Annotations: forBoth(0.6),
		}, Read: r.read, Complete: r.complete},
		{Template: &mcp.ResourceTemplate{
			Name:        "commands",
			URITemplate: CommandsTemplate,
			Description: "Every command run in a conversation (run_command, and lines typed into sessions whose shell reports statuses), with exit code and duration.",
			MIMEType:    "text/plain",
			Annotations: forBoth(0.4),
		}, Read: r.readCommands, Complete: r.complete},
		{Template: &mcp.ResourceTemplate{
			Name:        "terminal-history",
			URITemplate: TerminalHistoryTemplate,
			Description: "The recent output of a terminal session (ANSI removed).",
			MIMEType:    "text/plain",
			Annotations: forBoth(0.5),
		}, Read: r.read, Complete: r.complete},
	}
}

// readCommands renders a conversation's command history, oldest first.
func (r *terminalResources) readCommands(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	conv, _ := ResourceConversation(uri)
	if conv == "" || uri != ConversationURI(conv, "commands") {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var recs []terminal.CommandRecord
	if r.mgr != nil {
		recs = r.mgr.Commands(conv)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d commands (oldest first; the last %d are kept)\n", len(recs), terminal.MaxCommandRecords)
	for _, c := range recs {
		exit := "exit ?"
		if c.ExitCode >= 0 {
			exit = fmt.Sprintf("exit %d", c.ExitCode)
		}
		fmt.Fprintf(&b, "%s  %-8s %7s  [%s] %s\n", c.Started.Format(time.DateTime), exit, c.Duration.Round(time.Millisecond*100), c.Session, c.Command)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: b.String()}}}, nil
}

// listResources shows the caller its command history.
func (r *terminalResources) listResources(_ context.Context, conv string) []*mcp.Resource {
	return []*mcp.Resource{{URI: ConversationURI(conv, "commands"), Name: "commands", Title: "Command history",
		Description: "Every command run in this conversation, with exit code and duration.", MIMEType: "text/plain", Annotations: forBoth(0.4)}}
}

// complete proposes the caller's conversation and the ids of its sessions.
func (r *terminalResources) complete(ctx context.Context, conv, variable, value string, chosen map[string]string) []string {
	switch variable {
	case "conversation":
		return completeOwnConversation(conv, value)
	case "id":
		if c, ok := chosen["conversation"]; ok && c != conv || r.mgr == nil {
			return nil
		}
		var out []string
		for _, in := range r.mgr.Sessions(conv) {
			if strings.HasPrefix(in.ID, value) && !slices.Contains(out, in.ID) {
				out = append(out, in.ID)
			}
		}
		return out
	}
	return nil
}

// Serve adds s to the servers that update notifications and live sessions go to.
func (r *terminalResources) Serve(s *mcp.Server) {
	r.mu.Lock()
	r.servers = append(r.servers, s)
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
	if len(r.servers) > 0 && !r.live[conv][id] && !r.seen[k] {
		r.seen[k] = true                      // once per session or command
		go r.sync(context.Background(), conv) // a session started outside a call's sync
	}
	if len(r.servers) == 0 || r.pending[k] {
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
		servers := slices.Clone(r.servers)
		var uris []string
		for _, u := range []string{screen, history} {
			if r.subs[u] > 0 {
				uris = append(uris, u)
			}
		}
		r.mu.Unlock()
		for _, s := range servers {
			for _, u := range uris {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				_ = s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: u})
				cancel()
			}
		}
	})
}
