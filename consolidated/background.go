package consolidated

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/engine"
)

// Background work is what outlives its call: a command past its yield (run_command, run_task,
// run_tests, get_errors) and an import. When it ends, the conversation hears of it three ways:
// subscribers of its resources get notifications/resources/updated, the conversation's sessions
// get a log message (notifications/message) naming it with its exit code and duration, and
// every later tool result of the conversation ends with a one-line notice until the model has
// read the outcome (the handler that shows it calls Call.Acknowledge).

// maxNotices bounds the notices kept per conversation (the oldest go first); noticesShown is
// how many one result carries, the rest counted.
const (
	maxNotices   = 32
	noticesShown = 3
	// maxAcknowledged bounds the handles remembered as read before their work was announced.
	maxAcknowledged = 64
)

// backgroundLogger is the logger name of the log messages that announce finished work.
const backgroundLogger = "toolhost.background"

// backgroundBoard keeps, per conversation, the finished background work whose outcome the
// model has not read yet, and the servers whose subscribers hear of it. The zero value is
// ready to use.
type backgroundBoard struct {
	mu      sync.Mutex
	notices map[string][]notice // conversation -> unread outcomes, oldest first
	// read holds handles acknowledged before their work was announced: a get_output that
	// showed the end can race the goroutine that records it.
	read    map[string][]string
	servers []*mcp.Server
}

// notice is one finished piece of work the model has not read about.
type notice struct {
	handle string // the id the model reads the outcome with (a command id, "import:NAME")
	line   string
}

// Finished describes background work that ended.
type Finished struct {
	// Handle is what the model reads the outcome by: a command id, or "import:" and a name.
	Handle string
	// What names the work for the model: the command line, or the document imported.
	What string
	// ExitCode is the command's status; nil for work that has none (an import).
	ExitCode *int
	Status   engine.Status
	Duration time.Duration
	// Read says how to read the outcome (the next step in the notice).
	Read string
	// URIs are the resources that changed (the conversation's commands, the command's log).
	URIs []string
}

// addServer makes s's subscribers hear of finished work.
func (b *backgroundBoard) addServer(s *mcp.Server) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !slices.Contains(b.servers, s) {
		b.servers = append(b.servers, s)
	}
}

// line is the notice of f, also the log message's text.
func (f Finished) line() string {
	how := string(f.Status)
	switch {
	case f.Status == engine.StatusTimeout && f.ExitCode != nil:
		how = fmt.Sprintf("timed out (exit %d)", *f.ExitCode)
	case f.Status == engine.StatusCancelled && f.ExitCode != nil:
		how = fmt.Sprintf("cancelled (exit %d)", *f.ExitCode)
	case f.ExitCode != nil:
		how = fmt.Sprintf("exit %d", *f.ExitCode)
	}
	return fmt.Sprintf("background: %s %q finished: %s in %s; %s", f.Handle, truncateRunes(f.What, 80), how, roundDur(f.Duration), f.Read)
}

// announce tells conv's sessions (and the session that started the work, if it is still
// there) that f ended, and keeps its notice until the model reads the outcome.
func (e *Env) announce(conv string, started *mcp.ServerSession, f Finished) {
	b := &e.background
	line := f.line()
	b.mu.Lock()
	if i := slices.Index(b.read[conv], f.Handle); i >= 0 {
		b.read[conv] = slices.Delete(b.read[conv], i, i+1)
	} else {
		if b.notices == nil {
			b.notices = map[string][]notice{}
		}
		ns := slices.DeleteFunc(b.notices[conv], func(n notice) bool { return n.handle == f.Handle })
		ns = append(ns, notice{handle: f.Handle, line: line})
		if len(ns) > maxNotices {
			ns = slices.Delete(ns, 0, len(ns)-maxNotices)
		}
		b.notices[conv] = ns
	}
	servers := slices.Clone(b.servers)
	b.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range servers {
		for _, uri := range f.URIs {
			_ = s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
	}
	var sessions []*mcp.ServerSession
	if e.Conversations != nil {
		sessions = e.Conversations.SessionsOf(conv)
	}
	if started != nil && !slices.Contains(sessions, started) {
		sessions = append(sessions, started)
	}
	data := map[string]any{"event": "background_finished", "id": f.Handle, "command": truncateRunes(f.What, 200),
		"status": string(f.Status), "duration_ms": f.Duration.Milliseconds(), "message": line}
	if f.ExitCode != nil {
		data["exit_code"] = *f.ExitCode
	}
	level := mcp.LoggingLevel("notice")
	if f.Status != engine.StatusSuccess {
		level = "warning"
	}
	for _, ss := range sessions {
		if err := ss.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: backgroundLogger, Data: data}); err != nil {
			e.logger().Debug("announce finished work", "id", f.Handle, "err", err)
		}
	}
}

// Acknowledge records that the call showed the model the outcome of background work handle:
// its notice leaves the conversation's results.
func (c *Call) Acknowledge(handle string) {
	if c.Env == nil || c.Conversation == "" || handle == "" {
		return
	}
	b := &c.Env.background
	b.mu.Lock()
	defer b.mu.Unlock()
	ns := b.notices[c.Conversation]
	if i := slices.IndexFunc(ns, func(n notice) bool { return n.handle == handle }); i >= 0 {
		b.notices[c.Conversation] = slices.Delete(ns, i, i+1)
		if len(b.notices[c.Conversation]) == 0 {
			delete(b.notices, c.Conversation)
		}
		return
	}
	if b.read == nil {
		b.read = map[string][]string{}
	}
	rs := append(b.read[c.Conversation], handle)
	if len(rs) > maxAcknowledged {
		rs = slices.Delete(rs, 0, len(rs)-maxAcknowledged)
	}
	b.read[c.Conversation] = rs
}

// backgroundNotes are the notices a result of conv carries: the oldest few unread outcomes and
// a count of the rest.
func (e *Env) backgroundNotes(conv string) []string {
	if conv == "" {
		return nil
	}
	b := &e.background
	b.mu.Lock()
	defer b.mu.Unlock()
	ns := b.notices[conv]
	if len(ns) == 0 {
		return nil
	}
	out := make([]string, 0, noticesShown+1)
	for _, n := range ns[:min(len(ns), noticesShown)] {
		out = append(out, n.line)
	}
	if len(ns) > noticesShown {
		out = append(out, fmt.Sprintf("background: %d more finished; list_sessions shows them", len(ns)-noticesShown))
	}
	return out
}
