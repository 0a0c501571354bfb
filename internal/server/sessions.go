package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
)

// Sessions on protocol versions before 2026-07-28 live in the server's memory, and the go-sdk's
// handler answers "404 session not found" for an id it does not hold. The spec tells a client to
// initialise again on that 404, but Gemini CLI and the hosts on TS SDK 1.x do not: after a
// `serve` restart or an idle expiry they fail every call until the user reconnects by hand. The
// session keeper below makes both recoverable: it records what a session's initialize said (in
// a file per session under the state directory), and a request that names a session id this
// process does not hold, but a record does, gets that session back under the same id, with the
// client's name and capabilities as they were. It also owns idleness, which the go-sdk counts
// only in POSTs: a session with an open GET stream is in use, however long the stream is quiet.

const (
	sessionIDHeader = "Mcp-Session-Id"
	// sessionRecordTTL is how long a session nobody used stays resumable.
	sessionRecordTTL = 7 * 24 * time.Hour
	// maxDeleted bounds the ids remembered as ended by the client.
	maxDeleted = 1024
)

// sessionKeeper tracks the stateful sessions of one HTTP handler.
type sessionKeeper struct {
	server  *mcp.Server
	sdk     http.Handler // the go-sdk's stateful handler, which creates sessions
	timeout time.Duration
	limits  SessionLimits
	evicted func(id string) // HTTPOptions.Evicted
	records *sessionRecords // nil: sessions resume only within this process
	events  mcp.EventStore  // given to resumed sessions, as the go-sdk gives it to new ones
	logger  *slog.Logger

	mu sync.Mutex
	// live are the sessions this process holds, by id.
	live map[string]*keptSession
	// gone are sessions that closed in this process, kept only when there are no records on
	// disk; they resume from here.
	gone map[string]sessionRecord
	// deleted are the ids a client ended with DELETE: they stay ended.
	deleted map[string]bool
	// reserved counts sessions admitted but not yet live (an initialize or a resume in
	// flight), in all and by principal, so that concurrent ones cannot pass a bound together.
	reserved   int
	reservedBy map[string]int
}

// keptSession is a live session. own is set when the keeper resumed it and serves its transport
// itself; sessions the go-sdk's handler created are served by that handler.
type keptSession struct {
	ss     *mcp.ServerSession
	own    *mcp.StreamableServerTransport
	record sessionRecord
	active int         // requests in flight, open GET streams included
	idle   *time.Timer // runs while active is 0
	// principal opened the session (the token's name); used is when a request last ended,
	// for choosing the least recently used idle session when a limit is reached.
	principal string
	used      time.Time
}

// SessionLimits bound the stateful sessions one handler holds: Max in all (default 64),
// PerPrincipal for one token's principal (default 16). A new session past a bound closes the
// least recently used idle session in its way (resumable, as after the idle timeout); with
// none idle it is refused with 503 and Retry-After.
type SessionLimits struct {
	Max, PerPrincipal int
}

// Default session limits.
const (
	DefaultMaxSessions             = 64
	DefaultMaxSessionsPerPrincipal = 16
	// sessionRetryAfter is what a refused client is told to wait.
	sessionRetryAfter = 5 * time.Second
	// sessionAdmitWait is how long a new session waits for one in its way to go idle.
	sessionAdmitWait = time.Second
)

// SessionCounts are the live sessions of a handler, in all and by principal.
type SessionCounts struct {
	Live        int
	ByPrincipal map[string]int
	Limits      SessionLimits
}

// sessionRecord is what a session needs to come back: what its initialize said. The
// capabilities are kept as the client sent them: the go-sdk's ClientCapabilities does not
// marshal back what it read (roots is RootsV2, which JSON skips).
type sessionRecord struct {
	ID              string              `json:"id"`
	ProtocolVersion string              `json:"protocol_version"`
	ClientInfo      *mcp.Implementation `json:"client_info,omitempty"`
	Capabilities    json.RawMessage     `json:"capabilities,omitempty"`
	// requestID is the initialize request's id, for an error answer; not recorded.
	requestID json.RawMessage
}

// initializeParams rebuilds the session's initialize parameters from the record.
func (rec sessionRecord) initializeParams() *mcp.InitializeParams {
	ip := &mcp.InitializeParams{ProtocolVersion: rec.ProtocolVersion, ClientInfo: rec.ClientInfo}
	if len(rec.Capabilities) == 0 {
		return ip
	}
	var caps mcp.ClientCapabilities
	var v2 struct {
		Roots *mcp.RootCapabilities `json:"roots"`
	}
	if json.Unmarshal(rec.Capabilities, &caps) != nil || json.Unmarshal(rec.Capabilities, &v2) != nil {
		return ip
	}
	caps.RootsV2 = v2.Roots // what the go-sdk's own decoding of initialize does
	ip.Capabilities = &caps
	return ip
}

func newSessionKeeper(s *mcp.Server, sdk http.Handler, timeout time.Duration, limits SessionLimits, records *sessionRecords, events mcp.EventStore, logger *slog.Logger) *sessionKeeper {
	if limits.Max <= 0 {
		limits.Max = DefaultMaxSessions
	}
	if limits.PerPrincipal <= 0 {
		limits.PerPrincipal = DefaultMaxSessionsPerPrincipal
	}
	limits.PerPrincipal = min(limits.PerPrincipal, limits.Max)
	return &sessionKeeper{server: s, sdk: sdk, timeout: timeout, limits: limits, records: records, events: events, logger: logger,
		live: map[string]*keptSession{}, gone: map[string]sessionRecord{}, deleted: map[string]bool{}, reservedBy: map[string]int{}}
}

// principalOf names the principal of a request ("" without a token: --no-auth).
func principalOf(r *http.Request) string {
	if p, ok := authz.PrincipalFrom(r.Context()); ok {
		return p.Name
	}
	return ""
}

// errTooManySessions is admit's answer when no idle session can make room.
var errTooManySessions = errors.New("too many sessions")

// admit makes room for one more session of principal, closing the least recently used idle
// session in the way of a bound, and reserves its place; release with unreserve. It fails
// with errTooManySessions, saying which bound, when every session in the way is in use.
func (k *sessionKeeper) admit(principal string) error {
	var victims []*keptSession
	var victimIDs []string
	deadline := time.Now().Add(sessionAdmitWait)
	k.mu.Lock()
	for {
		total, mine := len(k.live)+k.reserved, k.reservedBy[principal]
		for _, ks := range k.live {
			if ks.principal == principal {
				mine++
			}
		}
		var in func(*keptSession) bool
		var bound string
		switch {
		case mine >= k.limits.PerPrincipal:
			in, bound = func(ks *keptSession) bool { return ks.principal == principal }, fmt.Sprintf("%d sessions of principal %q, max_sessions_per_principal %d", mine, principal, k.limits.PerPrincipal)
		case total >= k.limits.Max:
			in, bound = func(*keptSession) bool { return true }, fmt.Sprintf("%d sessions, max_sessions %d", total, k.limits.Max)
		}
		if in == nil {
			break
		}
		var lru *keptSession
		var lruID string
		for id, ks := range k.live {
			if ks.active == 0 && in(ks) && (lru == nil || ks.used.Before(lru.used)) {
				lru, lruID = ks, id
			}
		}
		if lru == nil && time.Now().Before(deadline) {
			// A request that just answered its client has not quite ended yet: wait a
			// moment for a session to go idle before refusing.
			k.mu.Unlock()
			time.Sleep(sessionAdmitWait / 20)
			k.mu.Lock()
			continue
		}
		if lru == nil {
			k.mu.Unlock()
			return fmt.Errorf("%w: %s, none idle", errTooManySessions, bound)
		}
		k.forget(lruID, lru)
		victims = append(victims, lru)
		victimIDs = append(victimIDs, lruID)
		k.logger.Info("http session closed for the session limit; the client's next request resumes it", "session", lruID, "limit", bound)
	}
	k.reserved++
	k.reservedBy[principal]++
	k.mu.Unlock()
	for i, ks := range victims {
		if k.evicted != nil {
			k.evicted(victimIDs[i])
		}
		ks.ss.Close()
	}
	return nil
}

// unreserve gives back a place admit reserved.
func (k *sessionKeeper) unreserve(principal string) {
	k.mu.Lock()
	k.reserved--
	if k.reservedBy[principal]--; k.reservedBy[principal] <= 0 {
		delete(k.reservedBy, principal)
	}
	k.mu.Unlock()
}

// Counts returns the live sessions, in all and by principal, with the limits.
func (k *sessionKeeper) Counts() SessionCounts {
	k.mu.Lock()
	defer k.mu.Unlock()
	c := SessionCounts{Live: len(k.live), ByPrincipal: map[string]int{}, Limits: k.limits}
	for _, ks := range k.live {
		c.ByPrincipal[ks.principal]++
	}
	return c
}

// refuse answers a new session that no idle session could make room for: 503 with
// Retry-After, and a JSON-RPC error that says which bound and what to do.
func refuse(w http.ResponseWriter, id json.RawMessage, err error) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	msg := fmt.Sprintf("toolhost serve holds %s: retry in %ds, end sessions you no longer use, or raise [http] max_sessions / max_sessions_per_principal",
		strings.TrimPrefix(err.Error(), errTooManySessions.Error()+": "), int(sessionRetryAfter.Seconds()))
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32000, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", strconv.Itoa(int(sessionRetryAfter.Seconds())))
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write(body)
}

// ServeHTTP serves a stateful request: a new session through the go-sdk, a live one through
// whoever serves it, a lost one after resuming it.
func (k *sessionKeeper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(sessionIDHeader)
	if id == "" {
		k.serveNew(w, r)
		return
	}
	if r.Method == http.MethodDelete && k.endLost(id) {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	ks, err := k.acquire(r, id)
	if errors.Is(err, errTooManySessions) {
		k.logger.Warn("http session not resumed", "session", id, "err", err)
		refuse(w, nil, err)
		return
	}
	if err != nil {
		k.logger.Warn("http session not resumed", "session", id, "err", err)
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	if ks == nil {
		// Not ours to resume (ended by the client, or never seen): the go-sdk answers 404,
		// which tells a client to initialise again.
		k.sdk.ServeHTTP(w, r)
		return
	}
	defer k.release(id, ks)
	if r.Method == http.MethodDelete {
		k.end(id)
		// Forget it before it closes, so that no request reaches the closing session.
		k.mu.Lock()
		k.forget(id, ks)
		k.mu.Unlock()
		if ks.own == nil {
			k.sdk.ServeHTTP(w, r)
			return
		}
		ks.ss.Close()
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if ks.own == nil {
		k.sdk.ServeHTTP(w, r)
		return
	}
	if r.Method == http.MethodPost {
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			http.Error(w, "Content-Type must be 'application/json'", http.StatusUnsupportedMediaType)
			return
		}
	}
	if r.Method != http.MethodPost && r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	if r.Method == http.MethodGet {
		r = k.withoutLostEvents(r, id)
	}
	ks.own.ServeHTTP(w, r)
}

// withoutLostEvents drops a Last-Event-ID that names events from before the session was
// resumed: they ended with the old process (or the closed session), and the go-sdk would
// refuse the reconnecting GET instead of opening the stream again.
func (k *sessionKeeper) withoutLostEvents(r *http.Request, id string) *http.Request {
	eid := r.Header.Get("Last-Event-ID")
	stream, idx, ok := strings.Cut(eid, "_")
	n, err := strconv.Atoi(idx)
	if eid == "" || k.events == nil || !ok || err != nil || n < 0 {
		return r // none, or malformed: the go-sdk answers that itself
	}
	known := true
	for _, err := range k.events.After(r.Context(), id, stream, n) {
		known = err == nil || errors.Is(err, mcp.ErrEventsPurged)
		break
	}
	if known {
		return r
	}
	k.logger.Info("http session resumed: events before the resume are lost", "session", id, "last_event_id", eid)
	r = r.Clone(r.Context())
	r.Header.Del("Last-Event-ID")
	return r
}

// serveNew lets the go-sdk create a session and takes it over as soon as the answer to the
// initialize request names it, before the client can send its next request.
func (k *sessionKeeper) serveNew(w http.ResponseWriter, r *http.Request) {
	var rec sessionRecord
	if r.Method == http.MethodPost && r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "failed to read body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec = initializeRecord(body)
	}
	principal := principalOf(r)
	if rec.ProtocolVersion != "" {
		if err := k.admit(principal); err != nil {
			k.logger.Warn("http session refused", "principal", principal, "err", err)
			refuse(w, rec.requestID, err)
			return
		}
		defer k.unreserve(principal)
	}
	cw := &claimWriter{ResponseWriter: w, claim: func(id string) *keptSession {
		if rec.ProtocolVersion == "" {
			return nil // not an initialize: the go-sdk serves it without a session
		}
		rec.ID = id
		return k.adopt(rec, principal)
	}}
	k.sdk.ServeHTTP(cw, r)
	if cw.kept != nil {
		k.release(rec.ID, cw.kept)
	}
}

// initializeRecord reads the initialize request in body, if that is what it holds.
func initializeRecord(body []byte) sessionRecord {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params *struct {
			ProtocolVersion string              `json:"protocolVersion"`
			ClientInfo      *mcp.Implementation `json:"clientInfo"`
			Capabilities    json.RawMessage     `json:"capabilities"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil || req.Method != "initialize" || req.Params == nil || req.Params.ProtocolVersion == "" {
		return sessionRecord{}
	}
	return sessionRecord{ProtocolVersion: req.Params.ProtocolVersion, ClientInfo: req.Params.ClientInfo, Capabilities: req.Params.Capabilities, requestID: req.ID}
}

// claimWriter calls claim with the session id the go-sdk put in the response headers, just
// before the response goes out.
type claimWriter struct {
	http.ResponseWriter
	claim   func(id string) *keptSession
	claimed bool
	kept    *keptSession
}

func (c *claimWriter) WriteHeader(code int) {
	if !c.claimed {
		c.claimed = true
		if id := c.Header().Get(sessionIDHeader); id != "" && code < 300 {
			c.kept = c.claim(id)
		}
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *claimWriter) Write(b []byte) (int, error) {
	if !c.claimed {
		c.WriteHeader(http.StatusOK)
	}
	return c.ResponseWriter.Write(b)
}

func (c *claimWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *claimWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// adopt starts tracking a session the go-sdk just created; the request creating it is in flight.
func (k *sessionKeeper) adopt(rec sessionRecord, principal string) *keptSession {
	var ss *mcp.ServerSession
	for s := range k.server.Sessions() {
		if s.ID() == rec.ID {
			ss = s
		}
	}
	if ss == nil {
		return nil
	}
	ks := &keptSession{ss: ss, record: rec, active: 1, principal: principal, used: time.Now()}
	k.mu.Lock()
	k.live[rec.ID] = ks
	k.mu.Unlock()
	if k.records != nil {
		if err := k.records.save(rec); err != nil {
			k.logger.Warn("http session not recorded; it will not survive a restart", "session", rec.ID, "err", err)
		}
	}
	go k.watch(rec.ID, ks)
	return ks
}

// watch forgets a session once it has closed, keeping its record for a later resume.
func (k *sessionKeeper) watch(id string, ks *keptSession) {
	ks.ss.Wait()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.forget(id, ks)
}

// forget moves a closing session from live to gone; k.mu is held. Without records on disk,
// gone is the only memory of closed sessions, bounded like deleted.
func (k *sessionKeeper) forget(id string, ks *keptSession) {
	if k.live[id] != ks {
		return
	}
	delete(k.live, id)
	if ks.idle != nil {
		ks.idle.Stop()
	}
	if k.deleted[id] || k.records != nil {
		return
	}
	if len(k.gone) >= maxDeleted {
		clear(k.gone)
	}
	k.gone[id] = ks.record
}

// acquire returns the live session id names, resuming it when it is known but not live, and
// counts the request as activity. It returns nil, nil for an id that is not to be resumed.
func (k *sessionKeeper) acquire(r *http.Request, id string) (*keptSession, error) {
	k.mu.Lock()
	if ks := k.live[id]; ks != nil {
		k.busy(ks)
		k.mu.Unlock()
		return ks, nil
	}
	if k.deleted[id] {
		k.mu.Unlock()
		return nil, nil
	}
	rec, ok := k.gone[id]
	k.mu.Unlock()
	if !ok && k.records != nil {
		var err error
		if rec, ok, err = k.records.load(id); err != nil {
			return nil, err
		}
	}
	if !ok {
		return nil, nil
	}
	principal := principalOf(r)
	if err := k.admit(principal); err != nil {
		return nil, err
	}
	defer k.unreserve(principal)
	return k.resume(r, rec, principal)
}

// endLost ends a session that is resumable but not live, for a client's DELETE; it reports
// whether there was one.
func (k *sessionKeeper) endLost(id string) bool {
	k.mu.Lock()
	_, live := k.live[id]
	_, gone := k.gone[id]
	k.mu.Unlock()
	if live {
		return false
	}
	if !gone && k.records != nil {
		if _, ok, _ := k.records.load(id); ok {
			gone = true
		}
	}
	if gone {
		k.end(id)
	}
	return gone
}

// resume connects a new server session under the old id, initialised as the client left it.
func (k *sessionKeeper) resume(r *http.Request, rec sessionRecord, principal string) (*keptSession, error) {
	negotiated := r.Header.Get("Mcp-Protocol-Version")
	if negotiated == "" {
		negotiated = rec.ProtocolVersion
	}
	t := &mcp.StreamableServerTransport{SessionID: rec.ID, EventStore: k.events}
	state := &mcp.ServerSessionState{
		InitializeParams:          rec.initializeParams(),
		NegotiatedProtocolVersion: negotiated,
	}
	// The session outlives this request: its context must not end with it.
	ctx := context.WithoutCancel(r.Context())
	ss, err := k.server.Connect(ctx, t, &mcp.ServerSessionOptions{State: state})
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	// Replay the client's notifications/initialized, so that what the server does on it runs
	// for this session too: asking for the client's roots, which choose the session's
	// workspace. Without it a resumed session would fall back to the default workspace.
	replay, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL.String(), strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil {
		ss.Close()
		return nil, fmt.Errorf("replay initialized: %w", err)
	}
	replay.Header.Set("Content-Type", "application/json")
	replay.Header.Set("Accept", "application/json, text/event-stream")
	rw := &discardWriter{header: http.Header{}}
	t.ServeHTTP(rw, replay)
	if rw.code >= 300 {
		ss.Close()
		return nil, fmt.Errorf("replay initialized: status %d", rw.code)
	}
	ks := &keptSession{ss: ss, own: t, record: rec, principal: principal, used: time.Now()}
	k.mu.Lock()
	if other := k.live[rec.ID]; other != nil {
		// A concurrent request resumed it first.
		k.busy(other)
		k.mu.Unlock()
		ss.Close()
		return other, nil
	}
	k.live[rec.ID] = ks
	delete(k.gone, rec.ID)
	k.busy(ks)
	k.mu.Unlock()
	k.logger.Info("http session resumed", "session", rec.ID, "client", clientName(rec.ClientInfo))
	if k.records != nil {
		k.records.touch(rec.ID)
	}
	go k.watch(rec.ID, ks)
	return ks, nil
}

// busy counts a request on ks and stops its idle timer; k.mu is held.
func (k *sessionKeeper) busy(ks *keptSession) {
	ks.active++
	if ks.idle != nil {
		ks.idle.Stop()
	}
}

// release ends a request on ks; the last one starts the idle timer.
func (k *sessionKeeper) release(id string, ks *keptSession) {
	k.mu.Lock()
	defer k.mu.Unlock()
	ks.active--
	ks.used = time.Now()
	if ks.active > 0 || k.timeout <= 0 || k.live[id] != ks {
		return
	}
	if ks.idle == nil {
		ks.idle = time.AfterFunc(k.timeout, func() { k.expire(id, ks) })
		return
	}
	ks.idle.Reset(k.timeout)
}

// expire closes an idle session. Its record stays: the client's next request resumes it.
func (k *sessionKeeper) expire(id string, ks *keptSession) {
	k.mu.Lock()
	idle := ks.active == 0 && k.live[id] == ks
	if idle {
		// Forget it now, not when the close is done: a request arriving meanwhile resumes it
		// instead of reaching a session that is closing.
		k.forget(id, ks)
	}
	k.mu.Unlock()
	if idle {
		k.logger.Info("http session idle; closed until the client comes back", "session", id, "timeout", k.timeout)
		ks.ss.Close()
	}
}

// end marks id as ended by the client: it is not resumed again.
func (k *sessionKeeper) end(id string) {
	k.mu.Lock()
	if len(k.deleted) >= maxDeleted {
		clear(k.deleted)
	}
	k.deleted[id] = true
	delete(k.gone, id)
	k.mu.Unlock()
	if k.records != nil {
		k.records.remove(id)
	}
}

// discardWriter takes the answer to a request the keeper makes itself.
type discardWriter struct {
	header http.Header
	code   int
}

func (d *discardWriter) Header() http.Header { return d.header }

func (d *discardWriter) Write(b []byte) (int, error) {
	if d.code == 0 {
		d.code = http.StatusOK
	}
	return len(b), nil
}

func (d *discardWriter) WriteHeader(code int) {
	if d.code == 0 {
		d.code = code
	}
}

func clientName(ci *mcp.Implementation) string {
	if ci == nil {
		return ""
	}
	return ci.Name + " " + ci.Version
}

// sessionRecords keeps one small JSON file per session in a directory, so that several serve
// processes on one state directory never rewrite each other's records. A file's name is a hash
// of the session id: ids come from clients and never become paths.
type sessionRecords struct {
	dir string
}

// openSessionRecords creates dir if needed and removes records unused for sessionRecordTTL.
func openSessionRecords(dir string) (*sessionRecords, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session records: %w", err)
	}
	sr := &sessionRecords{dir: dir}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("session records: %w", err)
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return nil, fmt.Errorf("session records: %w", err)
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > sessionRecordTTL {
			root.Remove(e.Name())
		}
	}
	return sr, nil
}

func recordName(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:16]) + ".json"
}

func (sr *sessionRecords) save(rec sessionRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(sr.dir)
	if err != nil {
		return err
	}
	defer root.Close()
	name := recordName(rec.ID)
	tmp := name + ".tmp"
	if err := root.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	if err := root.Rename(tmp, name); err != nil {
		root.Remove(tmp)
		return err
	}
	return nil
}

// load returns the record of id; ok is false when there is none (or it belongs to another id).
func (sr *sessionRecords) load(id string) (rec sessionRecord, ok bool, err error) {
	root, err := os.OpenRoot(sr.dir)
	if err != nil {
		return rec, false, err
	}
	defer root.Close()
	data, err := root.ReadFile(recordName(id))
	if errors.Is(err, fs.ErrNotExist) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, err
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, false, fmt.Errorf("session record %s: %w", recordName(id), err)
	}
	if rec.ID != id || !strings.HasPrefix(rec.ProtocolVersion, "20") {
		return rec, false, nil
	}
	return rec, true, nil
}

// touch marks a record used, restarting its time to live.
func (sr *sessionRecords) touch(id string) {
	if root, err := os.OpenRoot(sr.dir); err == nil {
		now := time.Now()
		root.Chtimes(recordName(id), now, now)
		root.Close()
	}
}

func (sr *sessionRecords) remove(id string) {
	if root, err := os.OpenRoot(sr.dir); err == nil {
		root.Remove(recordName(id))
		root.Close()
	}
}
