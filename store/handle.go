package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// How the database handle is shared between processes.
//
// bbolt holds its file lock for as long as a handle is open, so a process that kept the file open
// for its whole life would lock out every other toolhost sharing the state directory, and one that
// opens the file per transaction (as this package did first) pays an open, a lock, an mmap and a
// close for every read: three or four times per tool call. The middle way kept here is a handle
// cached while nobody else wants it:
//
//   - A transaction reuses the cached read-write handle when there is one. Several goroutines share
//     it (bbolt runs one writer and many readers on one handle).
//   - A process that finds the file locked announces that it waits by holding a shared flock on
//     toolhost.db.wait for as long as it retries. Before reusing its handle, the holder tries that
//     file's exclusive lock without blocking (two system calls): if it fails, someone waits, and the
//     holder closes its handle as soon as its running transactions end.
//   - While it keeps a handle, the holder also watches the waiters' file (inotify on Linux,
//     waiters_linux.go): a waiter opens it to announce, and opens and closes it once more when
//     its lock is held, and each event makes the holder look at the lock, so an idle holder
//     lets go at once too.
//   - A handle nobody uses closes after keepIdle (idleClose where the file cannot be watched), for
//     whatever does not announce: bbolt's own tools, a lost event.
//
// A waiter therefore waits at most for the holder's running transactions plus the time to notice
// it, while a process pays the open once per keepIdle of quiet instead of once per transaction:
// a model calls a tool every few seconds, far longer than a short idle close would keep the file.
// Handles obtained after contention are used once and closed, so two busy processes alternate
// rather than one keeping the file.

// waitFileName is the waiters' file next to toolhost.db.
const waitFileName = dbFileName + ".wait"

// keepIdle is how long a cached handle outlives its last transaction while the waiters' file is
// watched: longer than a model's pause between calls, so a conversation pays the open once.
const keepIdle = time.Minute

// idleClose is how long a cached handle outlives its last transaction when the waiters' file is
// not watched (so a waiter is noticed only at the holder's next transaction): long enough to cover
// the gap between the transactions of one tool call and between back-to-back calls, short enough
// that a process waiting for an idle holder does not notice.
const idleClose = 10 * time.Millisecond

// handle is one open bbolt file and the transactions running on it.
type handle struct {
	db    *bbolt.DB
	users int
	// readers counts read transactions on db. A writer starts only when it is zero: a writer that
	// grows the file remaps it and waits for every open read transaction, so an Update nested in a
	// View on the same handle would hang instead of failing with ErrBusy as the rule says.
	readers int
	// drained is closed when readers drops to zero, for a writer waiting for that.
	drained chan struct{}
	// retire closes the handle when its last user leaves: it was opened under contention, another
	// process waits for it, a write failed, or the Store closed.
	retire bool
	idle   *time.Timer
}

// openWaitFile opens the waiters' file. Without it (a read-only state directory) the Store never
// caches a handle, since it could not tell when another process waits.
func (s *Store) openWaitFile() {
	f, err := os.OpenFile(filepath.Join(s.dir, waitFileName), os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		slog.Debug("state store: no waiters' file, database handles are not kept", "err", err)
		return
	}
	s.wait = f
}

// yieldToWaiters lets go of the cached handle if another process waits for the database: at once
// when nobody uses it, else when its running transactions end.
func (s *Store) yieldToWaiters() {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.cur
	if h == nil || !s.othersWaiting() {
		return
	}
	s.dropLocked()
	h.retire = true
	if h.users == 0 {
		s.closeHandle(h)
	}
}

// keepLocked makes h the cached handle unless another process waits already, and reports whether
// it did. The watch of the waiters' file starts first, so a waiter that announces after the look
// at the lock here is seen by the watch (its knock may come before s.cur is set, when
// yieldToWaiters has nothing to let go of). Called with s.mu held.
func (s *Store) keepLocked(h *handle) bool {
	s.watchLocked()
	if s.othersWaiting() {
		s.unwatchLocked()
		return false
	}
	// No other process commits while this one keeps the file, so what it committed before is
	// noted now, and Stamp needs no look at the meta pages while s.cur is set.
	tx, err := h.db.Begin(false)
	if err != nil {
		s.unwatchLocked()
		return false
	}
	s.observe(uint64(tx.ID()))
	_ = tx.Rollback()
	s.cur = h
	return true
}

// dropLocked forgets the cached handle (its owner retires or closes it) and ends the watch, which
// only serves a kept handle. Called with s.mu held.
func (s *Store) dropLocked() {
	s.cur = nil
	s.unwatchLocked()
}

// unwatchLocked ends the watch of the waiters' file; its goroutine returns on the closed file.
func (s *Store) unwatchLocked() {
	if s.watch != nil {
		s.watch.Close()
		s.watch = nil
	}
}

// othersWaiting reports whether another process (or another handle of this one) announced that it
// waits for the database. Errors count as yes: the safe answer is to let go of the file.
func (s *Store) othersWaiting() bool {
	if s.wait == nil {
		return true
	}
	if err := tryLock(s.wait, true); err != nil {
		return true
	}
	_ = unlock(s.wait)
	return false
}

// waitNotice is this process's announcement that it waits for the database: a shared lock on the
// waiters' file through a descriptor of its own, so that a holder in this process sees it too.
type waitNotice struct {
	f *os.File
}

// announce takes the shared lock unless it is held already. It fails only while a holder checks
// (its exclusive lock lasts two system calls), so the retry loop calls it on every round.
func (w *waitNotice) announce(dir string) {
	if w.f != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(dir, waitFileName), os.O_RDONLY, 0)
	if err != nil {
		return
	}
	if err := tryLock(f, false); err != nil {
		f.Close()
		return
	}
	w.f = f
	// Knock: an open and a close after the lock is held, so a holder that watches the file
	// (watchWaiters) looks at the lock when it already shows this waiter.
	knock(f.Name())
}

// withdraw releases the announcement.
func (w *waitNotice) withdraw() {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
}

// acquire returns a handle for one transaction and its release, which is told whether the
// transaction left the handle healthy. Writers of this process queue first, so they do not poll
// the file lock against each other.
func (s *Store) acquire(ctx context.Context, writable bool) (*handle, func(healthy bool), error) {
	if s.unavailable != nil {
		return nil, nil, s.unavailable
	}
	if s.closed.Load() {
		return nil, nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	deadline := time.Now().Add(s.opts.LockTimeout)
	unqueue := func() {}
	if writable {
		if err := s.queue(ctx, deadline); err != nil {
			return nil, nil, err
		}
		unqueue = func() { <-s.writers }
	}
	h, err := s.handleFor(ctx, deadline, writable)
	if err != nil {
		unqueue()
		return nil, nil, err
	}
	if !writable {
		s.mu.Lock()
		h.readers++
		s.mu.Unlock()
		return h, func(healthy bool) { s.release(h, healthy, true) }, nil
	}
	if err := s.drainReaders(ctx, deadline, h); err != nil {
		s.release(h, true, false)
		unqueue()
		return nil, nil, err
	}
	return h, func(healthy bool) { s.release(h, healthy, false); unqueue() }, nil
}

// drainReaders waits until no read transaction runs on h, within the deadline and ctx. Readers
// that start after it returns run beside the writer, which is safe: they do not wait for it.
func (s *Store) drainReaders(ctx context.Context, deadline time.Time, h *handle) error {
	s.mu.Lock()
	if h.readers == 0 {
		s.mu.Unlock()
		return nil
	}
	if h.drained == nil {
		h.drained = make(chan struct{})
	}
	drained := h.drained
	s.mu.Unlock()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for state store readers: %w", ctx.Err())
	case <-timer.C:
		return s.busy()
	}
}

// cached returns the cached handle with one more user, or nil when there is none or another
// process waits for it (then it is retired).
func (s *Store) cached() *handle {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.cur
	if h == nil {
		return nil
	}
	if s.othersWaiting() {
		s.dropLocked()
		h.retire = true
		if h.users == 0 {
			s.closeHandle(h)
		}
		return nil
	}
	h.users++
	return h
}

// handleFor returns the cached handle or opens the file, one opener at a time.
func (s *Store) handleFor(ctx context.Context, deadline time.Time, writable bool) (*handle, error) {
	if h := s.cached(); h != nil {
		return h, nil
	}
	select {
	case s.opener <- struct{}{}:
	default:
		timer := time.NewTimer(time.Until(deadline))
		defer timer.Stop()
		select {
		case s.opener <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for state store: %w", ctx.Err())
		case <-timer.C:
			return nil, s.busy()
		}
	}
	defer func() { <-s.opener }()
	// Another goroutine may have opened the file while this one waited for its turn.
	if h := s.cached(); h != nil {
		return h, nil
	}
	db, keep, err := s.openDB(ctx, deadline, writable)
	if err != nil {
		return nil, err
	}
	h := &handle{db: db, users: 1, retire: !keep}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() || !keep || !s.keepLocked(h) {
		h.retire = true
	}
	return h, nil
}

// release ends one transaction on h. The last user closes a retired handle, or arms the idle timer
// of the cached one.
func (s *Store) release(h *handle, healthy, reader bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h.users--
	if reader {
		h.readers--
		if h.readers == 0 && h.drained != nil {
			close(h.drained)
			h.drained = nil
		}
	}
	if !healthy {
		h.retire = true
		if s.cur == h {
			s.dropLocked()
		}
	}
	if h.users > 0 {
		return
	}
	if h.retire || s.cur != h {
		s.closeHandle(h)
		return
	}
	idle := idleClose
	if s.watch != nil {
		idle = keepIdle
	}
	if h.idle == nil {
		h.idle = time.AfterFunc(idle, func() { s.closeIdle(h) })
	} else {
		h.idle.Reset(idle)
	}
}

// closeIdle closes h if it is still the cached handle and nobody used it since the timer was armed
// (a user arriving later re-arms the timer when it leaves).
func (s *Store) closeIdle(h *handle) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != h || h.users > 0 {
		return
	}
	s.dropLocked()
	s.closeHandle(h)
}

// closeHandle closes h's file, which releases its lock. Called with s.mu held and no users left.
func (s *Store) closeHandle(h *handle) {
	if h.idle != nil {
		h.idle.Stop()
	}
	if h.db == nil {
		return
	}
	if err := h.db.Close(); err != nil {
		// The transactions already committed or rolled back; a failed close only leaks a handle.
		slog.Warn("close state store", "path", s.path, "err", err)
	}
	h.db = nil
}

// queue waits for this process's writer slot.
func (s *Store) queue(ctx context.Context, deadline time.Time) error {
	select {
	case s.writers <- struct{}{}:
		return nil
	default:
	}
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case s.writers <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for state store: %w", ctx.Err())
	case <-timer.C:
		return s.busy()
	}
}

func (s *Store) busy() error {
	return fmt.Errorf("%w: %s stayed locked for %s", ErrBusy, s.path, s.opts.LockTimeout)
}

// readOnlyFS reports whether err says the file cannot be opened for writing at all, as on a
// read-only mount or a file the user may only read. Reads then still work on a read-only handle.
func readOnlyFS(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)
}

// openDB opens the bbolt file. It first tries a read-write handle once, which can serve every kind
// of transaction and be kept (keep) when nobody waits. If the file is locked it announces that it
// waits and retries with jittered exponential backoff: read-write for writers, read-only (a shared
// lock, so readers in several processes do not wait for each other) for readers.
func (s *Store) openDB(ctx context.Context, deadline time.Time, writable bool) (db *bbolt.DB, keep bool, err error) {
	rw := &bbolt.Options{Timeout: flockTimeout, NoSync: s.opts.NoSync}
	db, err = bbolt.Open(s.path, fileMode, rw)
	switch {
	case err == nil:
		return db, true, nil
	case !writable && readOnlyFS(err):
		// A read-only state directory: reads go on, writes fail naming the path and the cause.
	case !errors.Is(err, berrors.ErrTimeout):
		return nil, false, fmt.Errorf("open state store %s: %w", s.path, err)
	}
	var notice waitNotice
	defer notice.withdraw()
	bopts := rw
	if !writable {
		bopts = &bbolt.Options{Timeout: flockTimeout, ReadOnly: true}
	}
	backoff := minBackoff
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		notice.announce(s.dir)
		db, err := bbolt.Open(s.path, fileMode, bopts)
		if err == nil {
			return db, false, nil
		}
		if !errors.Is(err, berrors.ErrTimeout) {
			return nil, false, fmt.Errorf("open state store %s: %w", s.path, err)
		}
		now := time.Now()
		if !now.Before(deadline) {
			return nil, false, s.busy()
		}
		// Jitter in [backoff/2, backoff) so processes that collided do not retry in lockstep.
		d := backoff/2 + rand.N(backoff/2)
		d = min(d, deadline.Sub(now))
		if timer == nil {
			timer = time.NewTimer(d)
		} else {
			timer.Reset(d)
		}
		select {
		case <-ctx.Done():
			return nil, false, fmt.Errorf("wait for state store lock: %w", ctx.Err())
		case <-timer.C:
		}
		backoff = min(2*backoff, maxBackoff)
	}
}
