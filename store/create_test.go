package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestCreateInBackground: on a first start Open returns before the state file is made; the
// first transactions (many at once) wait for it and succeed, the schema is current, and the
// file survives a reopen. An existing file still opens before Open returns.
func TestCreateInBackground(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(context.Background(), dir, Options{CreateInBackground: true})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Update(context.Background(), func(tx *Tx) error {
				return tx.Put(Path{"scratch"}, string(rune('a'+i)), []byte("v"))
			}); err != nil {
				t.Errorf("Update %d right after Open: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if err := s.Err(); err != nil {
		t.Fatalf("Err() = %v", err)
	}
	if err := s.Check(context.Background()); err != nil {
		t.Errorf("Check() = %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, dbFileName)); err != nil || fi.Mode().Perm() != fileMode {
		t.Errorf("state file after creation: %v, mode %v, want %v", err, fi.Mode().Perm(), fileMode)
	}
	s.Close()

	again, err := Open(context.Background(), dir, Options{CreateInBackground: true})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if again.created != nil {
		t.Error("an existing state file was opened in the background")
	}
	mustView(t, again, func(tx *Tx) error {
		n := 0
		for range 16 {
			if _, ok := tx.Get(Path{"scratch"}, string(rune('a'+n))); ok {
				n++
			}
		}
		if n != 16 {
			t.Errorf("after reopening: %d of 16 values, want all", n)
		}
		return nil
	})
}

// TestCreateInBackgroundFails: a state file that cannot be created leaves a Store that answers
// every transaction with ErrUnavailable and the cause, like one made by Unavailable; a caller
// whose context ends first is not kept waiting.
func TestCreateInBackgroundFails(t *testing.T) {
	dir := t.TempDir()
	// A dangling symlink: stat says no file, creating through it fails (even as root).
	if err := os.Symlink(filepath.Join(dir, "missing", "toolhost.db"), filepath.Join(dir, dbFileName)); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), dir, Options{CreateInBackground: true})
	if err != nil {
		t.Fatalf("Open() = %v, want the failure reported by the Store", err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.View(ctx, func(*Tx) error { return nil }); err == nil {
		// The creation may already have failed; then the error is ErrUnavailable.
		t.Error("View with an ended context = nil")
	}
	err = s.Update(context.Background(), func(tx *Tx) error { return tx.Put(Path{"scratch"}, "k", nil) })
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("Update() = %v, want ErrUnavailable", err)
	}
	if err := s.Err(); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Err() = %v, want ErrUnavailable", err)
	}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hung after a failed creation")
	}
}
