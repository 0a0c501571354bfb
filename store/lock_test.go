package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"
)

// shortLock keeps ErrBusy tests fast; it bounds how long they wait, it is not asserted on.
const shortLock = 150 * time.Millisecond

// holdLock opens the database with a raw bbolt handle, which holds the file lock (exclusive, or
// shared if readOnly) until the returned func is called. It announces that it waits while it
// opens, as every toolhost process does, so a Store that keeps the file lets go.
func holdLock(t *testing.T, path string, readOnly bool) (release func()) {
	t.Helper()
	var notice waitNotice
	notice.announce(filepath.Dir(path))
	db, err := bbolt.Open(path, fileMode, &bbolt.Options{Timeout: time.Second, ReadOnly: readOnly})
	notice.withdraw()
	if err != nil {
		t.Fatalf("bbolt.Open(%s, ReadOnly=%v) = %v", path, readOnly, err)
	}
	var once sync.Once
	release = func() { once.Do(func() { db.Close() }) }
	t.Cleanup(release)
	return release
}

func TestErrBusy(t *testing.T) {
	tests := []struct {
		name        string
		holdShared  bool
		update      bool
		wantBusy    bool
		description string
	}{
		{"update vs writer", false, true, true, "a writer blocks writers"},
		{"view vs writer", false, false, true, "a writer blocks readers"},
		{"update vs reader", true, true, true, "a reader blocks writers"},
		{"view vs reader", true, false, false, "readers share the lock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, Options{NoSync: true, LockTimeout: shortLock})
			release := holdLock(t, s.Path(), tt.holdShared)
			defer release()
			run := s.View
			if tt.update {
				run = s.Update
			}
			ran := false
			err := run(context.Background(), func(*Tx) error { ran = true; return nil })
			if got := errors.Is(err, ErrBusy); got != tt.wantBusy {
				t.Fatalf("%s: err = %v, want ErrBusy %v (%s)", tt.name, err, tt.wantBusy, tt.description)
			}
			if ran == tt.wantBusy {
				t.Errorf("fn ran = %v with err %v", ran, err)
			}
		})
	}
}

// TestWaitsForLock checks the retry loop: a transaction started while another handle holds the
// lock completes once it is released, well within LockTimeout.
func TestWaitsForLock(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	release := holdLock(t, s.Path(), false)
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		close(started)
		done <- s.Update(context.Background(), func(tx *Tx) error { return tx.Put(Path{"w"}, "k", []byte("v")) })
	}()
	<-started
	select {
	case err := <-done:
		t.Fatalf("Update() = %v while the lock was held, want it to wait", err)
	case <-time.After(20 * time.Millisecond):
	}
	release()
	if err := <-done; err != nil {
		t.Fatalf("Update() after release = %v, want nil", err)
	}
}

func TestContextEndsWait(t *testing.T) {
	s := newStore(t, Options{NoSync: true, LockTimeout: time.Minute})
	release := holdLock(t, s.Path(), false)
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := s.Update(ctx, func(*Tx) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrBusy) {
		t.Errorf("Update(ctx ending while locked) = %v, want context.DeadlineExceeded", err)
	}

	// A writer queued behind another writer of the same process also honours ctx.
	release()
	inFn := make(chan struct{})
	unblock := make(chan struct{})
	go s.Update(context.Background(), func(*Tx) error { close(inFn); <-unblock; return nil })
	<-inFn
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := s.Update(ctx2, func(*Tx) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("Update(cancelled ctx) = %v, want context.Canceled", err)
	}
	ctx3, cancel3 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel3()
	if err := s.Update(ctx3, func(*Tx) error { return nil }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Update(queued, ctx times out) = %v, want context.DeadlineExceeded", err)
	}
	close(unblock)
}

// TestConcurrentViews checks that a View does not wait for another View: the inner one runs while
// the outer one still holds its shared lock. A writer, in contrast, has to wait.
func TestConcurrentViews(t *testing.T) {
	s := newStore(t, Options{NoSync: true, LockTimeout: shortLock})
	mustUpdate(t, s, func(tx *Tx) error { return tx.Put(Path{"r"}, "k", []byte("v")) })
	mustView(t, s, func(outer *Tx) error {
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() {
				errs[i] = s.View(context.Background(), func(inner *Tx) error {
					if v, ok := inner.Get(Path{"r"}, "k"); !ok || string(v) != "v" {
						return fmt.Errorf("Get = %q, %v", v, ok)
					}
					return nil
				})
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("View %d inside another View = %v, want nil", i, err)
			}
		}
		if err := s.Update(context.Background(), func(*Tx) error { return nil }); !errors.Is(err, ErrBusy) {
			t.Errorf("Update inside a View = %v, want ErrBusy", err)
		}
		return nil
	})
}

// TestConcurrentWritersOneProcess hammers one Store from many goroutines; none may fail or lose a
// write.
func TestConcurrentWritersOneProcess(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	other, err := Open(context.Background(), s.Dir(), Options{NoSync: true}) // a second handle contends via the file lock
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, 2*goroutines*each)
	for g := range goroutines {
		st := s
		if g%2 == 1 {
			st = other
		}
		wg.Go(func() {
			for i := range each {
				errs <- st.Update(context.Background(), func(tx *Tx) error {
					n, err := tx.NextSequence(Path{"seq"})
					if err != nil {
						return err
					}
					return tx.PutJSON(Path{"seq"}, SeqKey(n), [2]int{g, i})
				})
				var v [2]int
				errs <- st.View(context.Background(), func(tx *Tx) error {
					_, err := tx.GetJSON(Path{"seq"}, SeqKey(1), &v)
					return err
				})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent transaction = %v", err)
		}
	}
	seen := map[[2]int]bool{}
	var keys []uint64
	mustView(t, s, func(tx *Tx) error {
		return tx.ForEach(Path{"seq"}, func(k string, v []byte) error {
			n, _ := ParseSeqKey(k)
			keys = append(keys, n)
			var rec [2]int
			_, err := tx.GetJSON(Path{"seq"}, k, &rec)
			seen[rec] = true
			return err
		})
	})
	if len(keys) != goroutines*each || len(seen) != goroutines*each {
		t.Errorf("records = %d keys, %d distinct, want %d", len(keys), len(seen), goroutines*each)
	}
	for i, n := range keys {
		if n != uint64(i+1) {
			t.Fatalf("key %d = %d, want %d (sequence has gaps)", i, n, i+1)
		}
	}
}

func TestClosed(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	if err := s.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	fn := func(*Tx) error { t.Error("fn ran on a closed Store"); return nil }
	for name, err := range map[string]error{
		"Update":      s.Update(context.Background(), fn),
		"View":        s.View(context.Background(), fn),
		"AppendAudit": s.AppendAudit(context.Background(), "x"),
	} {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", name, err)
		}
	}
}

func TestCancelledContext(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fn := func(*Tx) error { t.Error("fn ran with a cancelled context"); return nil }
	for name, err := range map[string]error{
		"Update":      s.Update(ctx, fn),
		"View":        s.View(ctx, fn),
		"AppendAudit": s.AppendAudit(ctx, "x"),
	} {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s(cancelled) = %v, want context.Canceled", name, err)
		}
	}
	if _, err := Open(ctx, t.TempDir(), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Open(cancelled) = %v, want context.Canceled", err)
	}
}

func errorsIsBusy(err error) bool { return errors.Is(err, ErrBusy) }

// TestNestedUpdateIsBusy pins the documented failure of nesting: a clear ErrBusy, not a hang, also
// for an Update inside a View on the kept handle, which would deadlock in bbolt's remap if the
// writer did not wait for the handle's readers.
func TestNestedUpdateIsBusy(t *testing.T) {
	s := newStore(t, Options{NoSync: true, LockTimeout: shortLock})
	mustUpdate(t, s, func(*Tx) error {
		if err := s.Update(context.Background(), func(*Tx) error { return nil }); !errors.Is(err, ErrBusy) {
			t.Errorf("Update inside Update = %v, want ErrBusy", err)
		}
		return nil
	})
	mustView(t, s, func(*Tx) error {
		// Big enough to grow the file, which makes bbolt remap it.
		err := s.Update(context.Background(), func(tx *Tx) error { return tx.Put(Path{"big"}, "k", make([]byte, 1<<20)) })
		if !errors.Is(err, ErrBusy) {
			t.Errorf("Update inside View = %v, want ErrBusy", err)
		}
		return nil
	})
}

// TestHandleKeptThenReleased checks both halves of the handle policy: transactions share one
// open handle, which stays open while the process is quiet, and an idle handle is let go as soon
// as another process waits for the file, although the holder runs no transaction to notice.
func TestHandleKeptThenReleased(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	mustUpdate(t, s, func(tx *Tx) error { return tx.Put(Path{"k"}, "a", []byte("1")) })
	s.mu.Lock()
	first := s.cur
	s.mu.Unlock()
	if first == nil {
		t.Fatal("no handle kept after a transaction")
	}
	for range 10 {
		if err := s.View(ctx, func(*Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(5 * idleClose) // a pause between two tool calls, far shorter than keepIdle
	s.mu.Lock()
	same, watched := s.cur == first, s.watch != nil
	s.mu.Unlock()
	if !same {
		t.Error("transactions after a pause reopened the file")
	}
	if !watched && runtime.GOOS == "linux" {
		t.Error("a kept handle without a watch of the waiters' file")
	}
	// Another process writes while this one stays idle. Its lock timeout is far shorter than
	// keepIdle: it gets in only if the holder noticed the wait.
	other, err := Open(ctx, dir, Options{NoSync: true, LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Update(ctx, func(tx *Tx) error { return tx.Put(Path{"k"}, "b", []byte("2")) }); err != nil {
		t.Fatalf("Update of another process beside an idle holder = %v", err)
	}
	s.mu.Lock()
	cur, watch := s.cur, s.watch
	s.mu.Unlock()
	if cur != nil || watch != nil {
		t.Errorf("after another process waited: handle kept %v, waiters' file watched %v; want neither", cur != nil, watch != nil)
	}
	mustView(t, s, func(tx *Tx) error {
		if v, ok := tx.Get(Path{"k"}, "b"); !ok || string(v) != "2" {
			t.Errorf("the other process's write reads %q, %v", v, ok)
		}
		return nil
	})
}

// TestKeptHandleYieldsToWaiter runs a busy reader on one Store while a second Store on the same
// directory (its own file descriptions, so the same locks another process would take) writes: the
// writer must get in well within its timeout, and the busy Store carries on afterwards.
func TestKeptHandleYieldsToWaiter(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	busy, err := Open(ctx, dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	other, err := Open(ctx, dir, Options{NoSync: true, LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	stop := make(chan struct{})
	loopErr := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				loopErr <- nil
				return
			default:
			}
			if err := busy.View(ctx, func(*Tx) error { return nil }); err != nil {
				loopErr <- err
				return
			}
		}
	}()
	for i := range 20 {
		if err := other.Update(ctx, func(tx *Tx) error { return tx.PutJSON(Path{"other"}, SeqKey(uint64(i)), i) }); err != nil {
			t.Fatalf("Update %d beside a busy Store = %v", i, err)
		}
	}
	close(stop)
	if err := <-loopErr; err != nil {
		t.Fatalf("busy Store's View = %v", err)
	}
	n := 0
	mustView(t, busy, func(tx *Tx) error {
		return tx.ForEach(Path{"other"}, func(string, []byte) error { n++; return nil })
	})
	if n != 20 {
		t.Errorf("busy Store sees %d of the other's 20 writes", n)
	}
}
