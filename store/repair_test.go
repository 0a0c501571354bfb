package store

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestUnavailable checks the Store a server runs with when Open failed: every transaction names
// the cause.
func TestUnavailable(t *testing.T) {
	cause := errors.New("open state store /x/toolhost.db: no space left on device")
	s := Unavailable(t.TempDir(), cause)
	for name, run := range map[string]func(context.Context, func(*Tx) error) error{"Update": s.Update, "View": s.View} {
		err := run(context.Background(), func(*Tx) error { t.Error("fn ran"); return nil })
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no space left") {
			t.Errorf("%s on an unavailable Store = %v, want ErrUnavailable with the cause", name, err)
		}
	}
	if s.Err() == nil {
		t.Error("Err() = nil on an unavailable Store")
	}
}

// TestPanicInTransaction checks that a panic in fn becomes ErrDamaged and releases the writer slot.
func TestPanicInTransaction(t *testing.T) {
	s := newStore(t, Options{NoSync: true, LockTimeout: shortLock})
	for range 2 {
		err := s.Update(context.Background(), func(*Tx) error { panic("boom") })
		if !errors.Is(err, ErrDamaged) {
			t.Fatalf("Update(panicking fn) = %v, want ErrDamaged", err)
		}
	}
	mustUpdate(t, s, func(tx *Tx) error { return tx.Put(Path{"k"}, "a", []byte("1")) })
}
