package consolidated

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
)

// Leaser hands conversations to sessions; internal/conversation.Leases implements it over the
// store, so that several processes sharing a state directory agree on who holds what.
type Leaser interface {
	// Acquire leases a conversation of principal to a new session.
	Acquire(ctx context.Context, principal, session string) (string, error)
	// Release gives a conversation back when its session ends.
	Release(ctx context.Context, conv string) error
	// Shared is principal's conversation for requests without a session (stateless HTTP).
	Shared(principal string) string
}

// Sessions maps each live MCP session to the conversation it leased: the transport decides a
// call's conversation, never its arguments. A session leases on its first call and releases
// when it ends (go-sdk closes an HTTP session on DELETE or idleness; a stdio session ends with
// its process, and Close releases what is left).
type Sessions struct {
	leases Leaser
	logger *slog.Logger

	mu       sync.Mutex
	live     map[*mcp.ServerSession]*sessionLease
	closed   bool
	releases sync.WaitGroup // releases of ended sessions under way; Close waits for them
	ended    []func(conv string)
}

// sessionLease is one session's conversation, leased once however many calls arrive together.
type sessionLease struct {
	once      sync.Once
	principal string
	conv      string
	err       error
	// leased is conv once the lease is taken, guarded by Sessions.mu (conv is written inside
	// once, which SessionsOf cannot wait for).
	leased string
}

// NewSessions leases conversations from leases for the sessions of this process.
func NewSessions(leases Leaser, logger *slog.Logger) *Sessions {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Sessions{leases: leases, logger: logger, live: map[*mcp.ServerSession]*sessionLease{}}
}

// OnConversationEnded adds f to what runs when a session ends and its conversation is released
// (after the release, whether or not the store took it): a tool lets go of what it holds for
// the conversation, such as its browser. Not when the server stops (Close): the tools' own Close
// follows and ends everything. Call it before the server serves.
func (s *Sessions) OnConversationEnded(f func(conv string)) {
	s.mu.Lock()
	s.ended = append(s.ended, f)
	s.mu.Unlock()
}

var (
	// errSessionPrincipal: a request on a session came with another principal's credential.
	errSessionPrincipal = errors.New("this session belongs to another principal")
	// errSessionsClosed: the server is stopping and leases no more conversations.
	errSessionsClosed = errors.New("the server is stopping")
)

// Conversation is the conversation of a request on ss (with extra, the request's transport
// details) from its principal (principalOf). A session without an id that came over HTTP is
// a stateless request: it has no session to lease for and works in its principal's shared
// conversation (Leaser.Shared).
func (s *Sessions) Conversation(ctx context.Context, ss *mcp.ServerSession, extra *mcp.RequestExtra) (string, error) {
	principal := principalOf(ctx, extra)
	if ss.ID() == "" && extra != nil && extra.Header != nil {
		return s.leases.Shared(principal), nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return "", errSessionsClosed
	}
	l, ok := s.live[ss]
	if !ok {
		l = &sessionLease{principal: principal}
		s.live[ss] = l
	}
	s.mu.Unlock()
	l.once.Do(func() {
		// Not the call's context: the lease outlives the call, and a cancelled first call
		// must not leave the session without one.
		l.conv, l.err = s.leases.Acquire(context.WithoutCancel(ctx), principal, ss.ID())
		if l.err != nil {
			s.mu.Lock()
			delete(s.live, ss) // the next call tries again
			s.mu.Unlock()
			return
		}
		s.mu.Lock()
		l.leased = l.conv
		s.mu.Unlock()
		s.logger.Info("conversation leased", "conv", l.conv, "session", ss.ID(), "principal", principal)
		go s.releaseWhenDone(ss, l)
	})
	if l.err != nil {
		if stateError("", "", "", l.err) != nil {
			// Without a writable state there is no lease to take; the session works in its
			// principal's shared conversation, so that file and terminal calls go on, and the
			// next call tries to lease again.
			s.logger.Warn("no conversation lease: the state is unavailable; using the shared conversation", "session", ss.ID(), "err", l.err)
			return s.leases.Shared(principal), nil
		}
		return "", l.err
	}
	if l.conv == "" {
		return "", errSessionsClosed // Close ran first and settled the lease empty
	}
	if l.principal != principal {
		return "", errSessionPrincipal
	}
	return l.conv, nil
}

// SessionsOf returns the live sessions that leased conv (at most one, unless a lease was lost).
func (s *Sessions) SessionsOf(conv string) []*mcp.ServerSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*mcp.ServerSession
	for ss, l := range s.live {
		if l.leased == conv {
			out = append(out, ss)
		}
	}
	return out
}

// principalOf names who sends a request: the principal in ctx (authz.WithPrincipal, set by a
// transport that runs the handler on the request's context), else the user id of the bearer
// token the HTTP transport verified (go-sdk hands it to handlers as RequestExtra.TokenInfo,
// while the HTTP request's own context does not reach them), else the local user
// (authz.StdioPrincipal).
func principalOf(ctx context.Context, extra *mcp.RequestExtra) string {
	if p, ok := authz.PrincipalFrom(ctx); ok && p.Name != "" {
		return p.Name
	}
	if extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
		return extra.TokenInfo.UserID
	}
	return authz.StdioPrincipal.Name
}

// releaseWhenDone gives the session's conversation back when the session ends.
func (s *Sessions) releaseWhenDone(ss *mcp.ServerSession, l *sessionLease) {
	ss.Wait()
	s.mu.Lock()
	_, live := s.live[ss]
	delete(s.live, ss)
	if !live || s.closed {
		s.mu.Unlock()
		return // Close released it
	}
	s.releases.Add(1)
	ended := s.ended
	s.mu.Unlock()
	defer s.releases.Done()
	defer func() {
		for _, f := range ended {
			f(l.conv)
		}
	}()
	if err := s.leases.Release(context.Background(), l.conv); err != nil {
		s.logger.Warn("conversation not released; it counts as released once this process ends", "conv", l.conv, "err", err)
		return
	}
	s.logger.Info("conversation released", "conv", l.conv, "session", ss.ID())
}

// Close releases the conversations of every session still live (the server is stopping),
// after the releases of sessions that just ended; none follow once it returns.
func (s *Sessions) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	held := make([]*sessionLease, 0, len(s.live))
	for ss, l := range s.live {
		held = append(held, l)
		delete(s.live, ss)
	}
	s.mu.Unlock()
	s.releases.Wait()
	var first error
	for _, l := range held {
		l.once.Do(func() {}) // waits for a lease being taken
		if l.conv == "" {
			continue
		}
		if err := s.leases.Release(ctx, l.conv); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// sessionConversation is the conversation of a request on ss (tool call, resource read,
// prompt).
func (e *Env) sessionConversation(ctx context.Context, ss *mcp.ServerSession, extra *mcp.RequestExtra) (string, error) {
	if e.Conversations == nil || ss == nil {
		return e.DefaultConversation, nil
	}
	return e.Conversations.Conversation(ctx, ss, extra)
}
