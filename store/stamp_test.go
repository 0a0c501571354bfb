package store

import (
	"context"
	"errors"
	"testing"
)

// TestStamp runs changes against a Store and asks, after each, whether the stamp of bucket
// a/x says it may have changed. Another Store on the same directory stands for another process:
// its own file descriptions, so the same locks and the same file.
func TestStamp(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := Open(ctx, dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	watched := Path{"a", "x"}
	put := func(st *Store, p Path) func() error {
		return func() error { return st.Update(ctx, func(tx *Tx) error { return tx.Put(p, "k", []byte("v")) }) }
	}
	tests := []struct {
		name    string
		change  func() error
		changed bool
	}{
		{"nothing", func() error { return nil }, false},
		{"a read", func() error { return s.View(ctx, func(tx *Tx) error { tx.Get(watched, "k"); return nil }) }, false},
		{"a key of another bucket", put(s, Path{"b"}), false},
		{"a bucket nested in it", put(s, Path{"a", "x", "y"}), false},
		{"its parent's own key", put(s, Path{"a"}), true},
		{"a key", put(s, watched), true},
		{"a delete", func() error { return s.Update(ctx, func(tx *Tx) error { return tx.Delete(watched, "k") }) }, true},
		{"a delete of a missing key's bucket", func() error {
			return s.Update(ctx, func(tx *Tx) error { return tx.Delete(Path{"none"}, "k") })
		}, false},
		{"its sequence", func() error {
			return s.Update(ctx, func(tx *Tx) error { _, err := tx.NextSequence(watched); return err })
		}, true},
		{"a write rolled back", func() error {
			err := s.Update(ctx, func(tx *Tx) error {
				if err := tx.Put(watched, "k", []byte("w")); err != nil {
					return err
				}
				return errRollback
			})
			if errors.Is(err, errRollback) {
				return nil
			}
			return err
		}, false},
		{"its parent deleted", func() error { return s.Update(ctx, func(tx *Tx) error { return tx.DeleteBucket(Path{"a"}) }) }, true},
		{"another process writes another bucket", put(other, Path{"b"}), true},
		{"quiet after that", func() error { return nil }, false},
		{"another process reads", func() error { return other.View(ctx, func(*Tx) error { return nil }) }, false},
		{"another process writes, then this one reads (keeping the file again)", func() error {
			if err := put(other, Path{"b"})(); err != nil {
				return err
			}
			return s.View(ctx, func(*Tx) error { return nil })
		}, true},
		{"quiet while this process keeps the file", func() error { return s.View(ctx, func(*Tx) error { return nil }) }, false},
		{"this process writes again", put(s, Path{"b"}), false},
	}
	last := s.Stamp(watched)
	for _, tt := range tests {
		if err := tt.change(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		now := s.Stamp(watched)
		if got := last.Changed(now); got != tt.changed {
			t.Errorf("after %s: Changed = %v, want %v", tt.name, got, tt.changed)
		}
		last = now
	}
}

var errRollback = errors.New("roll back")

// TestReadTxIDMatchesBbolt checks the meta-page reader against bbolt's own transaction ids, so a
// change of bbolt's file format fails here instead of leaving every Stamp unchanged.
func TestReadTxIDMatchesBbolt(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	for i := range 3 {
		mustUpdate(t, s, func(tx *Tx) error { return tx.PutJSON(Path{"k"}, SeqKey(uint64(i)), i) })
		var want uint64
		mustView(t, s, func(tx *Tx) error { want = uint64(tx.tx.ID()); return nil })
		if got, ok := readTxID(s.Path()); !ok || got != want {
			t.Errorf("readTxID after commit %d = %d, %v; want %d, true", i, got, ok, want)
		}
	}
}

// TestStampUnavailable: a Store without a database gives stamps that always changed, so a
// cache keyed by them reads (and reports the store's error) every time.
func TestStampUnavailable(t *testing.T) {
	s := Unavailable(t.TempDir(), errors.New("no"))
	a, b := s.Stamp(Path{"a"}), s.Stamp(Path{"a"})
	if !a.Changed(b) {
		t.Error("Changed = false for an unavailable store's stamps, want true")
	}
	if !(Stamp{}).Changed(Stamp{}) {
		t.Error("zero Stamp: Changed = false, want true")
	}
}
