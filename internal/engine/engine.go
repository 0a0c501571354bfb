package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"toolhost/authz"
	"toolhost/internal/owner"
	"toolhost/internal/secret"
	"toolhost/store"
)

// Defaults for Options fields left zero.
const (
	DefaultMaxRecords    = 100_000
	DefaultMaxAge        = 30 * 24 * time.Hour
	DefaultFlushInterval = 100 * time.Millisecond
	// cancelPoll is how often an owner with running executions looks for cancel requests of
	// other processes; it bounds the cross-process cancel latency.
	cancelPoll = 20 * time.Millisecond
	// journalRotateBytes is the journal size past which a flushed journal starts over.
	journalRotateBytes = 1 << 20
)

// Options configure an Engine.
type Options struct {
	// StateDir is toolhost's state directory; journals and cancel requests live in its
	// executions/ subdirectory.
	StateDir string
	// Store holds the history. Nil keeps records only in the journal and memory (tests of the
	// journal alone).
	Store *store.Store
	// MaxRecords and MaxAge bound the history: older records are pruned.
	MaxRecords int
	MaxAge     time.Duration
	// FlushInterval is how long finished records wait in memory (and the journal) before they
	// are moved into bbolt as one batch.
	FlushInterval time.Duration
	// OnFinish, when set, sees every finished record (metrics, MCP log messages).
	OnFinish func(Record)
	Logger   *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Engine records executions. It is safe for concurrent use.
type Engine struct {
	opts     Options
	dir      string // executions/ under the state directory
	self     owner.ID
	instance string // random, names this engine's journals
	logger   *slog.Logger

	mu       sync.Mutex
	journal  *os.File
	jseq     int
	jsize    int64
	running  map[string]*Execution
	pending  []Record // finished, in the journal, not yet in bbolt
	closed   bool
	watching bool

	flushKick chan struct{}
	flushDone chan struct{}
	flushMu   sync.Mutex // one flush at a time

	// codes caches the values of the history's codes (codec.go), which never change meaning.
	codes sync.Map
}

// Open starts an engine on the state directory: it replays the journals that dead processes
// left (their running executions become failed) and opens this process's journal.
func Open(ctx context.Context, o Options) (*Engine, error) {
	if o.StateDir == "" {
		return nil, errors.New("open execution engine: empty state directory")
	}
	if o.MaxRecords <= 0 {
		o.MaxRecords = DefaultMaxRecords
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	e := &Engine{
		opts: o, dir: filepath.Join(o.StateDir, "executions"), self: owner.Self(), instance: randomHex(4), logger: o.Logger,
		running: map[string]*Execution{}, flushKick: make(chan struct{}, 1), flushDone: make(chan struct{}),
	}
	for _, d := range []string{e.journalDir(), e.cancelDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("open execution engine: %w", err)
		}
	}
	if err := e.recover(ctx); err != nil {
		// A journal that cannot be replayed now stays for the next process; recording goes on.
		e.logger.Warn("replay execution journals", "err", err)
	}
	if err := e.openJournal(); err != nil {
		return nil, err
	}
	go e.flushLoop()
	return e, nil
}

// maxName bounds the names a record keeps that a client may choose (tool, operation, client):
// every record is written twice and read by every query. Their number is the caller's to bound
// (consolidated records undeclared names as "unknown"); principals and conversations are the
// server's own names, kept whole because filters and visibility compare them.
const maxName = 128

// Start describes a call as it begins.
type Start struct {
	// ID is the execution's id (NewID); empty means Begin makes one.
	ID              string
	Tool, Operation string
	Category        authz.Category
	Risk            string
	Principal       string
	Conversation    string
	Client          string
	// Args are the arguments as secret.Args masks and bounds them (the caller decoded them
	// once); Begin keeps them as they are.
	Args json.RawMessage
}

// Outcome is how a call ended.
type Outcome struct {
	Status      Status
	ResultBytes int
	ErrorCode   string
	Error       string
}

// Execution is one running call. Its methods are safe for concurrent use.
type Execution struct {
	e       *Engine
	started time.Time // monotonic
	cancel  context.CancelCauseFunc
	done    chan struct{}

	// Guarded by e.mu.
	rec      Record
	hint     *Outcome // how the work ended, by the handler that knows (a command's exit)
	detached bool
	onCancel func()
	finished bool
}

// Begin records a call as running and returns its context, which Cancel cancels with cause
// ErrCancelled. The caller must call Finish (or Continue, then Finish later).
func (e *Engine) Begin(ctx context.Context, s Start) (context.Context, *Execution) {
	now := e.opts.Now()
	x := &Execution{e: e, started: time.Now(), done: make(chan struct{})}
	if s.ID == "" {
		s.ID = NewID(now)
	}
	x.rec = Record{
		ID: s.ID, Tool: cutString(s.Tool, maxName), Operation: cutString(s.Operation, maxName), Category: s.Category, Risk: s.Risk,
		Principal: s.Principal, Conversation: s.Conversation, Client: cutString(s.Client, maxName),
		Args:   s.Args,
		Status: StatusRunning, Start: now.UTC(), Owner: e.self.String(),
	}
	ctx, x.cancel = context.WithCancelCause(ctx)
	line := x.rec
	e.mu.Lock()
	if !e.closed {
		e.appendLocked(&line)
		e.running[x.rec.ID] = x
		e.watchLocked()
	}
	e.mu.Unlock()
	return ctx, x
}

// ID is the execution's id.
func (x *Execution) ID() string { return x.rec.ID }

// SetCommand records the command line of terminal work, its secrets masked.
// The running record is journalled again, so other processes (toolhost active) see it.
func (x *Execution) SetCommand(line string) {
	e := x.e
	e.mu.Lock()
	x.rec.Command = cutString(secret.Text(line), 1000)
	if !x.finished && !e.closed {
		r := x.rec
		e.appendLocked(&r)
	}
	e.mu.Unlock()
}

// SetExitCode records the exit code of terminal work.
func (x *Execution) SetExitCode(code int) {
	x.e.mu.Lock()
	x.rec.ExitCode = &code
	x.e.mu.Unlock()
}

// Report tells how the work ended when a successful call does not say it: a command that
// exited non-zero is a normal result for the model, but a failed execution for the operator;
// one killed by its timeout timed out. Finish uses it when its own outcome is a success.
func (x *Execution) Report(o Outcome) {
	x.e.mu.Lock()
	x.hint = &o
	x.e.mu.Unlock()
}

// Continue marks the execution as outliving its call: the work it started (a command past its
// yield) goes on, and whoever owns that work calls Finish when it ends. cancel, when set, is
// how Cancel stops that work once the call's context is gone.
func (x *Execution) Continue(cancel func()) {
	x.e.mu.Lock()
	x.detached = true
	x.onCancel = cancel
	x.e.mu.Unlock()
}

// Continued reports whether Continue was called.
func (x *Execution) Continued() bool {
	x.e.mu.Lock()
	defer x.e.mu.Unlock()
	return x.detached
}

// Done is closed when the execution has finished.
func (x *Execution) Done() <-chan struct{} { return x.done }

// Finish records how the execution ended and returns the final record. The record is in the
// journal when Finish returns. Later calls do nothing and return the same record.
func (x *Execution) Finish(o Outcome) Record {
	e := x.e
	e.mu.Lock()
	if x.finished {
		r := x.rec
		e.mu.Unlock()
		return r
	}
	x.finished = true
	if x.hint != nil && (o.Status == StatusSuccess || o.Status == "") {
		o.Status, o.ErrorCode, o.Error = x.hint.Status, x.hint.ErrorCode, x.hint.Error
	}
	x.rec.Status = o.Status
	if x.rec.Status == "" || x.rec.Status == StatusRunning {
		x.rec.Status = StatusSuccess
	}
	x.rec.ResultBytes = o.ResultBytes
	x.rec.ErrorCode = o.ErrorCode
	x.rec.Error = cutString(secret.Text(o.Error), 500)
	x.rec.DurationMS = float64(time.Since(x.started).Microseconds()) / 1000
	r := x.rec
	delete(e.running, r.ID)
	if !e.closed {
		e.appendLocked(&r)
		e.pending = append(e.pending, r)
		select {
		case e.flushKick <- struct{}{}:
		default:
		}
	}
	e.mu.Unlock()
	x.cancel(nil)
	close(x.done)
	if e.opts.OnFinish != nil {
		e.opts.OnFinish(r)
	}
	return r
}

// snapshot returns the running record.
func (x *Execution) snapshot() Record {
	x.e.mu.Lock()
	defer x.e.mu.Unlock()
	return x.rec
}

// requestCancel cancels the execution's context and the work it continues with.
func (x *Execution) requestCancel() {
	x.e.mu.Lock()
	f := x.onCancel
	x.e.mu.Unlock()
	x.cancel(ErrCancelled)
	if f != nil {
		go f()
	}
}

// CodeShutdown is the error code of an execution still running when the engine closed.
const CodeShutdown = "shutdown"

// Close flushes what is pending into bbolt and closes the journal. Executions still running are
// finished as failed ("server shut down") first, so none is left running.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	var left []*Execution
	for _, x := range e.running {
		left = append(left, x)
	}
	e.mu.Unlock()
	for _, x := range left {
		x.cancel(ErrClosed)
		x.Finish(Outcome{Status: StatusFailed, ErrorCode: CodeShutdown, Error: "toolhost shut down while this ran"})
	}
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	close(e.flushKick)
	<-e.flushDone
	err := e.flush(context.Background())
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.journal != nil {
		name := e.journal.Name()
		e.journal.Close()
		e.journal = nil
		if err == nil {
			// Everything is in bbolt: the journal has nothing left to replay.
			os.Remove(name)
		}
	}
	return err
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// cutString keeps the first max bytes of s on a rune boundary and says how much was cut.
func cutString(s string, max int) string { return secret.Cut(s, max) }
