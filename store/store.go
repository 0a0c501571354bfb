package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// File and directory names inside the state directory.
const (
	dbFileName    = "toolhost.db"
	auditFileName = "audit.jsonl"
)

// Permissions: the state holds grants and approvals, so only the owner may read it.
const (
	dirMode  fs.FileMode = 0o700
	fileMode fs.FileMode = 0o600
)

// DefaultLockTimeout is Options.LockTimeout left zero.
const DefaultLockTimeout = 10 * time.Second

// Lock retry tuning. bbolt's own flock loop sleeps 50 ms between attempts and gives up after the
// first failed attempt once its timeout is no longer than those 50 ms (zero would block forever).
// A 1 ns timeout therefore makes each bbolt.Open a single non-blocking try, even with a coarse
// clock, and leaves the waiting (shorter, jittered, ctx-aware) to openDB.
const (
	flockTimeout = time.Nanosecond
	minBackoff   = 200 * time.Microsecond
	maxBackoff   = 4 * time.Millisecond
)

// ErrBusy reports that another process (or another handle in this one) held the database lock for the
// whole Options.LockTimeout. It is the only way lock contention surfaces; callers may retry later or
// report the state directory as busy.
var ErrBusy = errors.New("state store busy")

// ErrClosed is returned by operations on a Store after Close, so a shutdown race fails loudly instead
// of silently reopening the file.
var ErrClosed = errors.New("state store closed")

// ErrNewerSchema is returned by Open when the database was written by a newer toolhost. Opening it
// anyway could corrupt data this version does not understand, so the user must upgrade instead.
var ErrNewerSchema = errors.New("state store written by a newer toolhost")

// ErrDamaged is returned by a transaction that panicked. bbolt panics when it meets a damaged page,
// so the transaction is abandoned, its handle closed, and the caller gets this error naming the
// file instead of a crashed call or a lock that is never released. `toolhost doctor --repair`
// keeps a copy of the file and rebuilds what can be read (see Repair).
var ErrDamaged = errors.New("state store damaged")

// ErrUnavailable is wrapped by every transaction of a Store made by Unavailable: the process runs
// without its state (file and terminal operations still work) and says why on each state operation.
var ErrUnavailable = errors.New("state store unavailable")

// ErrReadOnlyTx is returned by Tx writes inside View, which runs on a read-only file handle.
var ErrReadOnlyTx = errors.New("write in a read-only transaction")

// Options tunes a Store. The zero value is the production configuration.
type Options struct {
	// LockTimeout is the total time one transaction may wait for the file lock before failing with
	// ErrBusy. Zero means DefaultLockTimeout.
	LockTimeout time.Duration
	// NoSync skips fsync on commit. Only for tests and benchmarks: a crash may lose or corrupt data.
	NoSync bool
	// AuditMaxBytes is the size past which audit.jsonl is rotated (audit.go). Zero means
	// DefaultAuditMaxBytes.
	AuditMaxBytes int64
	// AuditMaxAge rotates audit.jsonl once it is this old (since the rotation that began it, or its creation). Zero means
	// DefaultAuditMaxAge.
	AuditMaxAge time.Duration
	// AuditKeep is how many rotated audit files are kept, the newest. Zero means
	// DefaultAuditKeep.
	AuditKeep int
	// CreateInBackground lets Open return at once when toolhost.db does not exist yet (a first
	// start): creating the file and its buckets costs several fsyncs that a server need not make
	// its client wait for. Update, View, Check, Err and Close wait until it is done; a failure
	// makes the Store behave as one made by Unavailable. An existing file is opened, and checked
	// for a newer schema, before Open returns, as without it.
	CreateInBackground bool
}

// Store is a handle on the state directory, safe for concurrent use by multiple goroutines. It
// keeps the database open between transactions only while no other process waits for it (see
// handle.go), so it is cheap to keep for the life of the process.
type Store struct {
	dir    string
	path   string
	opts   Options
	closed atomic.Bool
	// writers serialises this process's writers in memory, so goroutines queue on a channel instead of
	// polling the file lock against each other.
	writers chan struct{}
	// opener lets one goroutine at a time open the file; the others then share what it opened.
	opener chan struct{}
	// wait is this process's handle on the waiters' file, used to ask whether another process is
	// waiting for the database; nil when it cannot be opened (a read-only state directory).
	wait *os.File

	mu  sync.Mutex
	cur *handle // the cached read-write handle, nil when none is kept
	// watch delivers events of the waiters' file (waiters_linux.go) while a handle is kept; nil
	// when none is, or nothing can watch the file. Set and closed under mu.
	watch *os.File

	// unavailable, when set, is the error every transaction returns (see Unavailable).
	unavailable error
	// created closes when a background creation (Options.CreateInBackground) has finished;
	// nil when Open did all its work itself.
	created chan struct{}

	// commits counts this process's committed writes; commitCh is closed at the next one
	// (watch.go).
	commits  atomic.Uint64
	commitMu sync.Mutex
	commitCh chan struct{}

	// What Stamp compares (stamp.go): seenTx is the newest bbolt transaction id this process
	// accounted for, foreign counts the commits of other processes it noticed, and wrote maps
	// each bucket path this process wrote to the number of its last commit that wrote it.
	stampMu sync.Mutex
	seenTx  uint64
	foreign uint64
	wrote   map[string]uint64

	// The audit file whose age auditStart is (audit.go), and the compressions under way.
	auditMu    sync.Mutex
	compressMu sync.Mutex // serialises this process's audit compression jobs
	auditFile  fs.FileInfo
	auditStart time.Time
	auditJobs  sync.WaitGroup
}

// Unavailable returns a Store for state directory dir whose every transaction fails with an error
// wrapping ErrUnavailable and cause (which should name the path and the reason, as Open's errors
// do). A server uses it when Open fails, so that operations that do not need the state keep working.
func Unavailable(dir string, cause error) *Store {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return &Store{
		dir:         abs,
		path:        filepath.Join(abs, dbFileName),
		writers:     make(chan struct{}, 1),
		opener:      make(chan struct{}, 1),
		unavailable: fmt.Errorf("%w: %w", ErrUnavailable, cause),
	}
}

// Err returns nil for a working Store and the cause for one made by Unavailable (or whose
// creation in the background failed, which it waits for).
func (s *Store) Err() error {
	if s.created != nil {
		<-s.created
	}
	return s.unavailable
}

// awaitCreated waits for a background creation to finish.
func (s *Store) awaitCreated(ctx context.Context) error {
	if s.created == nil {
		return nil
	}
	select {
	case <-s.created:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Open prepares the state directory dir (created with mode 0700 if missing) and its toolhost.db
// (mode 0600), running any pending schema migrations. The file is closed again before Open returns.
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	return open(ctx, dir, opts, migrations())
}

func open(ctx context.Context, dir string, opts Options, ms []migration) (*Store, error) {
	if dir == "" {
		return nil, errors.New("open state store: empty directory")
	}
	if err := checkMigrations(ms); err != nil {
		return nil, fmt.Errorf("open state store: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open state store %s: %w", dir, err)
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.AuditMaxBytes <= 0 {
		opts.AuditMaxBytes = DefaultAuditMaxBytes
	}
	if opts.AuditMaxAge <= 0 {
		opts.AuditMaxAge = DefaultAuditMaxAge
	}
	if opts.AuditKeep <= 0 {
		opts.AuditKeep = DefaultAuditKeep
	}
	if err := os.MkdirAll(abs, dirMode); err != nil {
		return nil, fmt.Errorf("open state store: %w", err)
	}
	s := &Store{
		dir:     abs,
		path:    filepath.Join(abs, dbFileName),
		opts:    opts,
		writers: make(chan struct{}, 1),
		opener:  make(chan struct{}, 1),
	}
	s.openWaitFile()
	_, statErr := os.Stat(s.path)
	created := errors.Is(statErr, fs.ErrNotExist)
	if created && opts.CreateInBackground {
		// No file, so no newer schema to refuse: nothing here needs the caller to wait.
		s.created = make(chan struct{})
		go func() {
			defer close(s.created)
			if err := s.prepare(context.WithoutCancel(ctx), ms, true); err != nil {
				s.unavailable = fmt.Errorf("%w: %w", ErrUnavailable, err)
			}
		}()
		return s, nil
	}
	if err := s.prepare(ctx, ms, created); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// prepare migrates the file to the latest schema (creating it when missing) and restricts its
// mode; created says the file did not exist.
func (s *Store) prepare(ctx context.Context, ms []migration, created bool) error {
	if err := s.migrate(ctx, ms); err != nil {
		return err
	}
	if created {
		// bbolt fsyncs the file but not the directory entry that names it.
		syncDir(s.dir)
	}
	if info, err := os.Stat(s.path); err == nil && info.Mode().Perm()&^fileMode != 0 {
		if err := os.Chmod(s.path, fileMode); err != nil {
			return fmt.Errorf("open state store: restrict %s: %w", s.path, err)
		}
	}
	return nil
}

// syncDir makes a newly created file's name durable. Best effort: some platforms cannot fsync a
// directory, and the database itself is already synced.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// Dir returns the absolute state directory, for siblings such as the audit log or spilled results.
func (s *Store) Dir() string { return s.dir }

// Path returns the absolute path of toolhost.db, for diagnostics and offline tools.
func (s *Store) Path() string { return s.path }

// Close marks the Store closed; later calls fail with ErrClosed. Transactions already running finish
// normally, and the last of them closes the database file.
func (s *Store) Close() error {
	if s.created != nil {
		<-s.created
	}
	if s.closed.Swap(true) {
		return nil
	}
	s.auditJobs.Wait()
	s.mu.Lock()
	if h := s.cur; h != nil {
		s.dropLocked()
		h.retire = true
		if h.users == 0 {
			s.closeHandle(h)
		}
	}
	s.mu.Unlock()
	if s.wait != nil {
		return s.wait.Close()
	}
	return nil
}

// Update runs fn in one read-write transaction and commits it (with fsync unless Options.NoSync)
// before returning, so a nil error means the change is durable. If fn returns an error the
// transaction is rolled back and that error is returned unchanged. fn must not retain the Tx, and
// must not call Update or View itself: the outer transaction holds what the inner one waits for
// (this process's writer slot, or the file lock), so the inner call may fail with ErrBusy after
// LockTimeout.
func (s *Store) Update(ctx context.Context, fn func(tx *Tx) error) error {
	if err := s.awaitCreated(ctx); err != nil {
		return err
	}
	return s.run(ctx, true, fn)
}

// View runs fn in one read-only transaction. Concurrent Views do not wait for each other: in this
// process they share the kept handle; across processes a waiting reader takes a shared lock. fn's
// error is returned unchanged. fn must not call Update on this Store: the writer waits for the
// handle's readers, so it fails with ErrBusy after LockTimeout.
func (s *Store) View(ctx context.Context, fn func(tx *Tx) error) error {
	if err := s.awaitCreated(ctx); err != nil {
		return err
	}
	return s.run(ctx, false, fn)
}

func (s *Store) run(ctx context.Context, writable bool, fn func(tx *Tx) error) (err error) {
	if fn == nil {
		return errors.New("state store: nil transaction function")
	}
	h, release, err := s.acquire(ctx, writable)
	if err != nil {
		return err
	}
	healthy := true
	defer func() { release(healthy) }()
	defer func() {
		if p := recover(); p != nil {
			healthy = false
			slog.Error("state store transaction panicked", "path", s.path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = fmt.Errorf("%w: %s: %v; run toolhost doctor --repair", ErrDamaged, s.path, p)
		}
	}()
	btx, err := h.db.Begin(writable)
	if err != nil {
		healthy = false
		return fmt.Errorf("begin state store transaction: %w", err)
	}
	if id := uint64(btx.ID()); writable {
		s.observe(id - 1)
	} else {
		s.observe(id)
	}
	tx := &Tx{tx: btx}
	done := false
	defer func() {
		tx.tx = nil
		if !done {
			_ = btx.Rollback()
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	if writable {
		txid := uint64(btx.ID())
		if err := btx.Commit(); err != nil {
			// A failed write (ENOSPC, EIO) may leave bbolt's in-memory view ahead of the file: let
			// the next transaction start from a fresh handle.
			healthy = false
			return fmt.Errorf("commit state store transaction %s: %w", s.path, err)
		}
		done = true
		s.committedPaths(txid, s.committed(), tx.wrote)
	}
	return nil
}
