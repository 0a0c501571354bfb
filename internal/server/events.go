package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultEventStoreBytes bounds the server-sent events kept for replay, over all sessions.
const DefaultEventStoreBytes = 8 << 20

// eventStore keeps the server-sent events of stateful HTTP sessions, so that a client whose
// connection drops in the middle of a long answer (a run_command streaming its output as
// progress) reconnects with Last-Event-ID and receives what it missed, once. It is the
// go-sdk's memory store, bounded in bytes: the oldest events go first.
type eventStore struct {
	*mcp.MemoryEventStore
}

func newEventStore(maxBytes int) *eventStore {
	s := &eventStore{mcp.NewMemoryEventStore(nil)}
	if maxBytes <= 0 {
		maxBytes = DefaultEventStoreBytes
	}
	s.SetMaxBytes(maxBytes)
	return s
}

// tooOld reports whether the events after the Last-Event-ID value eid of a session's stream
// have been dropped to keep the store bounded: replaying would leave a gap.
func (s *eventStore) tooOld(ctx context.Context, sessionID, eid string) bool {
	// The go-sdk's event ids are STREAM_INDEX.
	stream, idx, ok := strings.Cut(eid, "_")
	n, err := strconv.Atoi(idx)
	if !ok || err != nil || n < 0 {
		return false // the go-sdk answers a malformed id itself
	}
	for _, err := range s.After(ctx, sessionID, stream, n) {
		return errors.Is(err, mcp.ErrEventsPurged)
	}
	return false
}

// checkReplay answers a reconnect whose Last-Event-ID is older than what the store still
// holds with an error that says so, instead of the go-sdk's "failed to replay events": the
// client must know that events were lost, and that retrying cannot bring them back.
func checkReplay(next http.Handler, s *eventStore) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		eid, session := r.Header.Get("Last-Event-ID"), r.Header.Get("Mcp-Session-Id")
		if r.Method == http.MethodGet && eid != "" && session != "" && s.tooOld(r.Context(), session, eid) {
			http.Error(w, fmt.Sprintf("Last-Event-ID %q is too old: the events after it were dropped (toolhost keeps the most recent %d bytes of events); they cannot be replayed, so repeat the request", eid, s.MaxBytes()), http.StatusBadRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}
