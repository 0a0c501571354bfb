package authz

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"toolhost/store"
)

// DefaultGrantTTL is how long a grant lasts when its creator gives no duration.
const DefaultGrantTTL = 5 * time.Minute

// MaxGrantTTL caps stored grants; longer-lived authority belongs in configuration.
const MaxGrantTTL = 30 * 24 * time.Hour

// Grant is a user's permission for one access on one path (or directory tree) for a limited time.
// Grants come only from a human: Approvals.Approve, an elicitation answer accepted in the MCP layer
// (which calls Grants.Create), or configuration. Nothing a model passes in tool arguments makes one.
//
// A network grant names a Host instead of a Path (see NetGuard): its access has the network class,
// and it never covers a path, as a path grant never covers a host.
type Grant struct {
	ID           string    `json:"id"`
	Conversation string    `json:"conversation"`   // "" or "*" = any conversation
	Access       string    `json:"access"`         // tool.operation, tool:class or *:class
	Path         string    `json:"path"`           // canonical absolute path; "" for a host grant
	Host         string    `json:"host,omitempty"` // canonical host name or IP (CanonicalHost) of a network grant
	Recursive    bool      `json:"recursive"`      // Path is a directory and everything inside it is covered; a Host's subdomains are
	Uses         int       `json:"uses"`           // remaining uses; 0 = unlimited until expiry
	Once         bool      `json:"once"`           // created as a one-time grant
	By           string    `json:"by"`             // who granted it ("cli", "elicitation", "config", a user name)
	Reason       string    `json:"reason,omitempty"`
	Created      time.Time `json:"created"`
	Expires      Deadline  `json:"expires"`
	RequestID    string    `json:"request_id,omitempty"` // the approval request it answers, if any
	// Command is the exact command line a command grant (class command) allows.
	Command string `json:"command,omitempty"`

	access Access
	static bool // from configuration: never expires, never consumed
}

// GrantSpec describes a grant to create.
type GrantSpec struct {
	Conversation string
	Access       string
	Path         string // absolute; canonicalise it with Guard.Canonical first
	Host         string // instead of Path, for a network grant; canonicalise it with CanonicalHost
	Recursive    bool
	TTL          time.Duration // 0 = DefaultGrantTTL (or the guard's configured default)
	Once         bool          // one-time grant; overrides Uses
	Uses         int           // 0 = unlimited until expiry
	By           string
	Reason       string
	RequestID    string
	Command      string // for class command: the exact command line
}

// covers reports whether the grant covers canonical path p: the path itself, or for a recursive
// grant anything inside the directory (never anything beside it).
func (g *Grant) covers(p string) bool {
	if g.Recursive {
		return within(p, g.Path)
	}
	return p == g.Path
}

// namesAnchor reports whether the grant explicitly names the protected anchor: its path is the
// anchor or inside it. A grant on a parent directory does not open protected paths below it.
func (g *Grant) namesAnchor(anchor string) bool {
	return anchor == "" || within(g.Path, anchor)
}

func (g *Grant) matches(r *Request, canonical, anchor string) bool {
	if g.Host != "" {
		return false
	}
	if g.Conversation != "" && g.Conversation != "*" && g.Conversation != r.Conversation {
		return false
	}
	// A command grant allows its one command line and nothing else; no other grant allows a
	// command a rule asks about (a grant to run commands in a directory is not one).
	if (g.Command != "" || r.Class == ClassCommand) && (r.Class != ClassCommand || g.Command != r.Command) {
		return false
	}
	return g.access.covers(r) && g.covers(canonical) && g.namesAnchor(anchor)
}

// Grants keeps time-limited grants in the store's grants bucket. Safe for concurrent use, and for
// use by several processes sharing the store.
type Grants struct {
	st     *store.Store
	clock  Clock
	ttl    time.Duration
	static []Grant

	mu  sync.Mutex
	idx *grantIndex // the stored grants, decoded; see grantindex.go
}

// NewGrants returns the grants kept in st. ttl 0 means DefaultGrantTTL. Static grants come from
// configuration: they live in memory only, never expire and are never consumed.
func NewGrants(st *store.Store, clock Clock, ttl time.Duration, static []GrantSpec) (*Grants, error) {
	if ttl <= 0 {
		ttl = DefaultGrantTTL
	}
	g := &Grants{st: st, clock: clock.withDefaults(), ttl: ttl}
	for i, s := range static {
		if s.By == "" {
			s.By = "config"
		}
		gr, err := g.build(s)
		if err != nil {
			return nil, fmt.Errorf("configured grant %d: %w", i, err)
		}
		gr.ID = fmt.Sprintf("config-%d", i)
		gr.Uses, gr.Once, gr.static = 0, false, true
		g.static = append(g.static, gr)
	}
	return g, nil
}

var idEncoding = base32.NewEncoding("abcdefghijkmnpqrstuvwxyz23456789").WithPadding(base32.NoPadding)

// newID returns a short unguessable id: 80 random bits.
func newID(prefix string) string {
	var b [10]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux
	return prefix + idEncoding.EncodeToString(b[:])
}

func (g *Grants) build(s GrantSpec) (Grant, error) {
	a, err := ParseAccess(s.Access)
	if err != nil {
		return Grant{}, err
	}
	if err := checkGrantTarget(a, s.Path, s.Host); err != nil {
		return Grant{}, err
	}
	if s.By == "" {
		return Grant{}, fmt.Errorf("%w: who granted it is required", ErrInvalidGrant)
	}
	if len(s.Conversation) > 256 {
		return Grant{}, fmt.Errorf("%w: conversation id too long", ErrInvalidGrant)
	}
	ttl := s.TTL
	if ttl <= 0 {
		ttl = g.ttl
	}
	if ttl > MaxGrantTTL {
		return Grant{}, fmt.Errorf("%w: longer than %s", ErrInvalidGrant, MaxGrantTTL)
	}
	uses := s.Uses
	if uses < 0 {
		return Grant{}, fmt.Errorf("%w: negative uses", ErrInvalidGrant)
	}
	if s.Once {
		uses = 1
	}
	return Grant{
		ID:           newID("g-"),
		Conversation: s.Conversation,
		Access:       a.String(),
		Path:         s.Path,
		Host:         s.Host,
		Recursive:    s.Recursive,
		Uses:         uses,
		Once:         s.Once,
		By:           s.By,
		Reason:       s.Reason,
		Created:      g.clock.Now().UTC(),
		Expires:      g.clock.after(ttl),
		RequestID:    s.RequestID,
		Command:      s.Command,
		access:       a,
	}, nil
}

var grantsBucket = store.Path{store.BucketGrants}

// Create stores a new grant. Call it only on a human's decision.
func (g *Grants) Create(ctx context.Context, s GrantSpec) (Grant, error) {
	gr, err := g.build(s)
	if err != nil {
		return Grant{}, err
	}
	if g.st == nil {
		return Grant{}, ErrNoStore
	}
	err = g.st.Update(ctx, func(tx *store.Tx) error {
		if _, err := g.prune(tx); err != nil {
			return err
		}
		return putGrant(tx, &gr)
	})
	if err != nil {
		return Grant{}, fmt.Errorf("create grant: %w", err)
	}
	return gr, nil
}

func decodeGrant(val []byte) (Grant, bool) {
	var gr Grant
	if json.Unmarshal(val, &gr) != nil {
		return gr, false
	}
	a, err := ParseAccess(gr.Access)
	if err != nil {
		return gr, false
	}
	gr.access = a
	return gr, true
}

// find returns the best grant matching among those indexed under keys, preferring grants that are
// not consumed by use (so a one-time grant is kept for when nothing else applies), plus whether any
// stored grant has expired (or is unreadable) and should be pruned.
func (g *Grants) find(tx *store.Tx, keys []string, match func(*Grant) bool) (best Grant, found, stale bool, err error) {
	idx, err := g.index(tx)
	if err != nil {
		return Grant{}, false, false, err
	}
	stale = idx.unreadable || (!idx.nextExpiry.IsZero() && !g.clock.Now().Before(idx.nextExpiry))
	for _, k := range keys {
		for i := range idx.byKey[k] {
			gr := idx.byKey[k][i]
			if g.clock.passed(gr.Expires) {
				stale = true
				continue
			}
			if !match(&gr) {
				continue
			}
			if !found || (best.Uses != 0 && (gr.Uses == 0 || gr.Uses > best.Uses)) {
				best, found = gr, true
			}
		}
	}
	return best, found, stale, nil
}

// useBatchKey marks a context in which limited grants are consumed at most once.
type useBatchKey struct{}

// useBatch remembers the limited grants consumed under one context.
type useBatch struct {
	mu   sync.Mutex
	used []Grant
}

// WithUseBatch returns a context in which each limited grant (one-time, or a few uses) is consumed
// at most once, however many paths are checked under it. The MCP layer wraps each tool call in
// one, so a call that touches several paths under a one-time grant — a rename, a patch of two
// files — uses the grant once, as the user meant when granting "once".
func WithUseBatch(ctx context.Context) context.Context {
	return context.WithValue(ctx, useBatchKey{}, &useBatch{})
}

func (b *useBatch) match(g *Grants, match func(*Grant) bool) (Grant, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range b.used {
		if !g.clock.passed(b.used[i].Expires) && match(&b.used[i]) {
			return b.used[i], true
		}
	}
	return Grant{}, false
}

func (b *useBatch) add(gr Grant) {
	b.mu.Lock()
	b.used = append(b.used, gr)
	b.mu.Unlock()
}

// use finds a grant covering r on canonical (naming anchor, when anchor is not empty) and consumes
// one use of it. A read-only transaction answers the common cases; consumption and pruning happen in
// one read-write transaction that re-checks everything, so a one-time grant used by many goroutines
// or processes at once is used exactly once.
func (g *Grants) use(ctx context.Context, r *Request, canonical, anchor string) (Grant, bool, error) {
	return g.useMatching(ctx, pathKeys(canonical), func(gr *Grant) bool { return gr.matches(r, canonical, anchor) })
}

// useMatching is use for any grant predicate (path grants, host grants), looking only at the
// grants indexed under keys (pathKeys, hostKeys).
func (g *Grants) useMatching(ctx context.Context, keys []string, match func(*Grant) bool) (Grant, bool, error) {
	for i := range g.static {
		if match(&g.static[i]) {
			return g.static[i], true, nil
		}
	}
	if g.st == nil {
		return Grant{}, false, nil
	}
	batch, _ := ctx.Value(useBatchKey{}).(*useBatch)
	if batch != nil {
		if gr, ok := batch.match(g, match); ok {
			return gr, true, nil
		}
	}
	var (
		best                   Grant
		found, stale, consumed bool
	)
	err := g.st.View(ctx, func(tx *store.Tx) error {
		var err error
		best, found, stale, err = g.find(tx, keys, match)
		return err
	})
	if err != nil {
		return Grant{}, false, fmt.Errorf("look up grants: %w", err)
	}
	if !stale && (!found || best.Uses == 0) {
		return best, found, nil
	}
	err = g.st.Update(ctx, func(tx *store.Tx) error {
		if _, err := g.prune(tx); err != nil {
			return err
		}
		var err error
		consumed = false
		best, found, _, err = g.find(tx, keys, match)
		if err != nil || !found || best.Uses == 0 {
			return err
		}
		consumed = true
		best.Uses--
		if best.Uses == 0 {
			// Used up: remove it. The returned copy keeps Uses 0 but found=true for this one use.
			return deleteGrant(tx, best.ID)
		}
		return putGrant(tx, &best)
	})
	if err != nil {
		return Grant{}, false, fmt.Errorf("use grant: %w", err)
	}
	if consumed && batch != nil {
		batch.add(best)
	}
	return best, found, nil
}

// prune deletes expired and unreadable grants in tx.
func (g *Grants) prune(tx *store.Tx) (int, error) {
	var dead []string
	err := tx.ForEach(grantsBucket, func(key string, val []byte) error {
		gr, ok := decodeGrant(val)
		if !ok || g.clock.passed(gr.Expires) {
			dead = append(dead, key)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, k := range dead {
		if err := deleteGrant(tx, k); err != nil {
			return 0, err
		}
	}
	return len(dead), nil
}

// Prune deletes expired grants and returns how many it removed. Lookups prune as they go; this is
// for a periodic sweep or the CLI.
func (g *Grants) Prune(ctx context.Context) (int, error) {
	if g.st == nil {
		return 0, nil
	}
	var n int
	err := g.st.Update(ctx, func(tx *store.Tx) error {
		var err error
		n, err = g.prune(tx)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("prune grants: %w", err)
	}
	return n, nil
}

// List returns the live grants (configured ones first, then stored ones by creation time).
// conversation "" lists all; otherwise grants of that conversation and of any conversation.
func (g *Grants) List(ctx context.Context, conversation string) ([]Grant, error) {
	var out []Grant
	for _, s := range g.static {
		if conversation == "" || s.Conversation == "" || s.Conversation == "*" || s.Conversation == conversation {
			out = append(out, s)
		}
	}
	if g.st == nil {
		return out, nil
	}
	var stored []Grant
	err := g.st.View(ctx, func(tx *store.Tx) error {
		return tx.ForEach(grantsBucket, func(_ string, val []byte) error {
			gr, ok := decodeGrant(val)
			if !ok || g.clock.passed(gr.Expires) {
				return nil
			}
			if conversation == "" || gr.Conversation == "" || gr.Conversation == "*" || gr.Conversation == conversation {
				stored = append(stored, gr)
			}
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	sort.SliceStable(stored, func(i, j int) bool { return stored[i].Created.Before(stored[j].Created) })
	return append(out, stored...), nil
}

// Get returns a live grant by id, or ErrNotFound.
func (g *Grants) Get(ctx context.Context, id string) (Grant, error) {
	for _, s := range g.static {
		if s.ID == id {
			return s, nil
		}
	}
	if g.st == nil {
		return Grant{}, ErrNotFound
	}
	var (
		gr    Grant
		found bool
	)
	err := g.st.View(ctx, func(tx *store.Tx) error {
		val, ok := tx.Get(grantsBucket, id)
		if ok {
			gr, found = decodeGrant(val)
		}
		return nil
	})
	if err != nil {
		return Grant{}, fmt.Errorf("get grant: %w", err)
	}
	if !found || g.clock.passed(gr.Expires) {
		return Grant{}, fmt.Errorf("grant %q: %w", shorten(id), ErrNotFound)
	}
	return gr, nil
}

// Revoke deletes a stored grant. Configured grants cannot be revoked at run time.
func (g *Grants) Revoke(ctx context.Context, id string) error {
	if g.st == nil {
		return ErrNoStore
	}
	var found bool
	err := g.st.Update(ctx, func(tx *store.Tx) error {
		_, found = tx.Get(grantsBucket, id)
		if !found {
			return nil
		}
		return deleteGrant(tx, id)
	})
	if err != nil {
		return fmt.Errorf("revoke grant: %w", err)
	}
	if !found {
		return fmt.Errorf("grant %q: %w", shorten(id), ErrNotFound)
	}
	return nil
}
