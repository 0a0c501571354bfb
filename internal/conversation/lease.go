// Package conversation decides which conversation a live MCP session works in. The transport
// picks it, never the model: every session (one stdio process, one HTTP Mcp-Session-Id) leases
// a conversation of its principal and working directory, and a conversation is leased by one
// live session at a time.
//
// A new session takes the conversation of the same principal and working directory that was
// released most recently, so an agent that restarts finds its plan, terminals' records and
// pending requests again; a second session opened while the first still runs gets a
// conversation of its own, so two chats on one project never see each other's state.
//
// Leases live in the store (bucket leases), because several toolhost processes share one state
// directory: the lease of a process that died without releasing (killed, crashed) counts as
// released. A holder is an owner.ID (pid, start time, boot id), so a reused pid is not
// mistaken for the process that took the lease.
//
// A lease record holds the principal (authz.PrincipalFrom; "stdio" when the transport named
// none), the working directory, the holder and the HTTP session id. A holder that no longer
// runs has released; so has this process's own record for a session it no longer serves. A new
// conversation's id is the working directory's (wd- and a hash, as before leases, so older
// state is found), then -2, -3, ...; another principal's ids carry a hash of its name. A session
// keeps the principal it leased with: a request on it with another principal's credential is
// refused. An HTTP session that internal/server resumed under its old id resumes its
// conversation too.
//
// A request without a session (stateless HTTP) works in [Leases.Shared]: one conversation per
// principal and working directory, never leased, so stateless clients sharing a token share it.
// The protocol's own answer (SEP-2567 state handles carried by the model) would let the model
// choose, so it is not used.
//
// Around this package: consolidated.Sessions holds the leases of live sessions, and the
// registry's one lookup (consolidated.Registry.Conversation) serves tool calls, a conversation's
// resources and the todo reminder prompt. When a session ends, Sessions runs the hooks given to
// OnConversationEnded after the release (the registry passes them to each tool's ConversationEnded: the web tool closes
// the conversation's browser). Terminals and the plan stay for the next session; at shutdown the
// tools' Close ends everything instead. Spill files carry a hash of their conversation in their
// name. A configured conversation pins every session to it, without leases.
package conversation

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"toolhost/internal/owner"
	"toolhost/store"
)

// LocalPrincipal is the principal name of a session whose transport named none (stdio, or an
// HTTP server with a single client token): authz.StdioPrincipal's name. Its conversations are
// named after the base alone, as they were before leases, so state kept by an older toolhost
// is found again.
const LocalPrincipal = "stdio"

// ErrBadBase: the base conversation id cannot name conversations.
var ErrBadBase = errors.New("conversation base id must be 1-100 characters of letters, digits and . _ : @ -")

var leasesPath = store.Path{store.BucketLeases}

// Options configures Leases. Workdir and Base are required.
type Options struct {
	// Workdir is the canonical working directory the sessions of this process work in.
	Workdir string
	// Base names conversations: the local principal's first conversation is Base, later ones
	// Base-2, Base-3, ...; another principal's are Base-<hash of its name>, -2, ...
	Base string
	// Self and Alive identify this process and tell whether another holder still runs; tests
	// replace them. Default: owner.Self and owner.Alive.
	Self  owner.ID
	Alive func(owner.ID) bool
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// Leases hands out conversations to the sessions of this process.
type Leases struct {
	st    *store.Store
	o     Options
	mu    sync.Mutex
	held  map[string]string // conversation -> session, leased by this process and not released
	count int               // leases taken, for the log
	keep  map[string]bool   // sessions closed for the session limit, whose release keeps (Keep)
}

// New returns the leases of st for the sessions of one process.
func New(st *store.Store, o Options) (*Leases, error) {
	if !validID(o.Base, 100) {
		return nil, fmt.Errorf("%w: %q", ErrBadBase, o.Base)
	}
	if o.Self == (owner.ID{}) {
		o.Self = owner.Self()
	}
	if o.Alive == nil {
		o.Alive = owner.Alive
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Leases{st: st, o: o, held: map[string]string{}}, nil
}

// record is one conversation's lease, keyed by the conversation id.
type record struct {
	Principal string    `json:"principal"`
	Workdir   string    `json:"workdir"`
	Holder    string    `json:"holder,omitempty"`  // owner.ID of the holding process; "" when released
	Session   string    `json:"session,omitempty"` // the holder's session (HTTP session id; "" on stdio)
	Leased    time.Time `json:"leased"`
	Released  time.Time `json:"released,omitzero"`
	// LastSession is the HTTP session that released it: that session, resumed under its
	// id (after the idle timeout or the session limit closed it), takes it back first.
	LastSession string `json:"last_session,omitempty"`
	// KeptFor is set when serve closed that session for its session limit: no other
	// session takes the conversation for keepFor, since its client comes back for it.
	KeptFor string `json:"kept_for,omitempty"`
}

// keepFor is how long a conversation released by a session closed for the session limit
// waits for that session's client before another session may take it.
const keepFor = 24 * time.Hour

// Keep marks HTTP session's conversation, about to be released because serve closed the
// session for its session limit, as kept for that session's return (see record.KeptFor).
func (l *Leases) Keep(session string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.keep == nil {
		l.keep = map[string]bool{}
	}
	l.keep[session] = true
}

// Acquire leases a conversation to a new session of principal ("" is LocalPrincipal): the
// most recently released one of principal in this working directory, else a new one. session
// is recorded for operators (the HTTP session id, or "" on stdio).
func (l *Leases) Acquire(ctx context.Context, principal, session string) (string, error) {
	if principal == "" {
		principal = LocalPrincipal
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var conv string
	err := l.st.Update(ctx, func(tx *store.Tx) error {
		var err error
		if conv, err = l.next(tx, principal, session); err != nil {
			return err
		}
		return tx.PutJSON(leasesPath, conv, record{
			Principal: principal, Workdir: l.o.Workdir,
			Holder: l.o.Self.String(), Session: session, Leased: l.o.Now().UTC(),
		})
	})
	if err != nil {
		return "", fmt.Errorf("lease a conversation: %w", err)
	}
	l.held[conv] = session
	l.count++
	return conv, nil
}

// next is the conversation a new session of principal takes: the free one its session
// released (an HTTP session resumed under its id), else the free one of principal in this
// working directory released most recently, else the first unused id.
func (l *Leases) next(tx *store.Tx, principal, session string) (string, error) {
	conv, own := "", ""
	var best time.Time
	taken := map[string]bool{}
	alive := map[owner.ID]bool{}
	err := tx.ForEach(leasesPath, func(id string, val []byte) error {
		taken[id] = true
		var r record
		if err := json.Unmarshal(val, &r); err != nil {
			return nil // an unreadable record keeps its id taken and is never handed out
		}
		if r.Principal != principal || r.Workdir != l.o.Workdir || !l.free(id, r, alive) {
			return nil
		}
		if session != "" && r.LastSession == session {
			own = id
		}
		if r.KeptFor != "" && r.KeptFor != session && l.o.Now().Sub(r.Released) < keepFor {
			return nil // its session's client comes back for it
		}
		at := r.Released
		if r.Holder != "" {
			at = r.Leased // a dead holder: when it took the lease is all we know
		}
		if conv == "" || at.After(best) {
			conv, best = id, at
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if own != "" {
		return own, nil
	}
	if conv == "" {
		conv = l.newID(principal, taken)
	}
	return conv, nil
}

// Next is the conversation the next new session of principal would take, without taking it:
// the one a restarted agent resumes.
func (l *Leases) Next(ctx context.Context, principal string) (string, error) {
	if principal == "" {
		principal = LocalPrincipal
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var conv string
	err := l.st.View(ctx, func(tx *store.Tx) error {
		var err error
		conv, err = l.next(tx, principal, "")
		return err
	})
	return conv, err
}

// free reports whether the lease on id is not held by a live session: released, held by a
// process that no longer runs, or held by this process for a session it no longer serves.
// alive remembers the holders already asked about (one process often holds many leases, and
// each question reads /proc).
func (l *Leases) free(id string, r record, alive map[owner.ID]bool) bool {
	if r.Holder == "" {
		return true
	}
	h, ok := owner.Parse(r.Holder)
	if !ok {
		return true
	}
	if h == l.o.Self {
		_, live := l.held[id]
		return !live
	}
	up, known := alive[h]
	if !known {
		up = l.o.Alive(h)
		alive[h] = up
	}
	return !up
}

// newID is the first conversation id of principal not yet in taken.
func (l *Leases) newID(principal string, taken map[string]bool) string {
	base := l.principalBase(principal)
	id := base
	for n := 2; taken[id]; n++ {
		id = base + "-" + strconv.Itoa(n)
	}
	return id
}

// Release gives conv back, so the next session of its principal takes it. Releasing a
// conversation this process does not hold does nothing.
func (l *Leases) Release(ctx context.Context, conv string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.held[conv]; !ok {
		return nil
	}
	delete(l.held, conv)
	err := l.st.Update(ctx, func(tx *store.Tx) error {
		var r record
		found, err := tx.GetJSON(leasesPath, conv, &r)
		if err != nil || !found || r.Holder != l.o.Self.String() {
			return err // taken over meanwhile (this process was thought dead): not ours to release
		}
		r.LastSession = r.Session
		if l.keep[r.Session] {
			delete(l.keep, r.Session)
			r.KeptFor = r.Session
		}
		r.Holder, r.Session, r.Released = "", "", l.o.Now().UTC()
		return tx.PutJSON(leasesPath, conv, r)
	})
	if err != nil {
		return fmt.Errorf("release conversation %s: %w", conv, err)
	}
	return nil
}

// Close releases every conversation this process still holds (the process is ending).
func (l *Leases) Close(ctx context.Context) error {
	l.mu.Lock()
	convs := make([]string, 0, len(l.held))
	for c := range l.held {
		convs = append(convs, c)
	}
	l.mu.Unlock()
	slices.Sort(convs) // a fixed order, so which one the next session resumes is reproducible
	var errs []error
	for _, c := range convs {
		errs = append(errs, l.Release(ctx, c))
	}
	return errors.Join(errs...)
}

// Shared is the conversation of principal's requests that come without a session (the
// stateless HTTP protocol, 2026-07-28 or --stateless): one per principal and working
// directory, never leased, apart from every leased one. Clients sharing a token share it.
func (l *Leases) Shared(principal string) string {
	if principal == "" {
		principal = LocalPrincipal
	}
	return l.principalBase(principal) + "-stateless"
}

// principalBase names principal's conversations: the base itself for the local principal (as
// before leases), else the base and a hash of the principal's name (names may hold any
// character; ids may not).
func (l *Leases) principalBase(principal string) string {
	if principal == LocalPrincipal {
		return l.o.Base
	}
	sum := sha256.Sum256([]byte(principal))
	return l.o.Base + "-p" + hex.EncodeToString(sum[:4])
}

// Lease is one conversation's lease as List shows it.
type Lease struct {
	Conversation string    `json:"conversation"`
	Principal    string    `json:"principal"`
	Workdir      string    `json:"workdir"`
	Held         bool      `json:"held"`
	Holder       string    `json:"holder,omitempty"`
	Session      string    `json:"session,omitempty"`
	Leased       time.Time `json:"leased"`
	Released     time.Time `json:"released,omitzero"`
}

// List returns every lease in the store, held ones with their live holder, in id order.
func (l *Leases) List(ctx context.Context) ([]Lease, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Lease
	alive := map[owner.ID]bool{}
	err := l.st.View(ctx, func(tx *store.Tx) error {
		return tx.ForEach(leasesPath, func(id string, val []byte) error {
			var r record
			if json.Unmarshal(val, &r) != nil {
				return nil
			}
			le := Lease{Conversation: id, Principal: r.Principal, Workdir: r.Workdir, Leased: r.Leased, Released: r.Released}
			if !l.free(id, r, alive) {
				le.Held, le.Holder, le.Session = true, r.Holder, r.Session
			}
			out = append(out, le)
			return nil
		})
	})
	return out, err
}

// validID reports whether s can name a conversation (the alphabet of store keys and resource
// URIs toolhost uses) with room for suffixes.
func validID(s string, max int) bool {
	if s == "" || len(s) > max || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '.' || r == '_' || r == ':' || r == '@' || r == '-':
		default:
			return false
		}
	}
	return true
}
