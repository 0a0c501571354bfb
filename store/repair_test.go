package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// damage overwrites the page type of the page of file path holding marker, as a torn write or
// a bad sector would: bbolt panics when a cursor reaches that page.
func damage(t *testing.T, path, marker string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(b, []byte(marker))
	if i < 0 {
		t.Fatalf("marker %q not in %s", marker, path)
	}
	const pageSize = 4096 // bbolt's default on this platform: os.Getpagesize()
	if os.Getpagesize() != pageSize {
		t.Skipf("page size %d", os.Getpagesize())
	}
	page := i / pageSize * pageSize
	b[page+8], b[page+9] = 0xee, 0xee // flags: no such page type
	if err := os.WriteFile(path, b, fileMode); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedPage drives a damaged file through the whole path: transactions that reach the damage
// fail with ErrDamaged instead of panicking, leave no lock held, Check reports it, and Repair keeps
// a copy and carries over everything readable.
func TestDamagedPage(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	const n = 400
	mustUpdate(t, s, func(tx *Tx) error {
		for i := range n {
			if err := tx.Put(Path{BucketMemories}, SeqKey(uint64(i)), []byte(fmt.Sprintf("memory-%04d %s", i, strings.Repeat("x", 100)))); err != nil {
				return err
			}
		}
		return tx.Put(Path{BucketConversations, "c"}, "todos", []byte("keep me"))
	})
	s.Close()
	damage(t, s.Path(), "memory-0300")

	s, err = Open(ctx, dir, Options{NoSync: true, LockTimeout: shortLock})
	if err != nil {
		t.Fatalf("Open of a file with a damaged data page = %v; the damage is found when read", err)
	}
	defer s.Close()
	readAll := func(tx *Tx) error {
		return tx.ForEach(Path{BucketMemories}, func(string, []byte) error { return nil })
	}
	for range 2 {
		if err := s.View(ctx, readAll); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), s.Path()) {
			t.Fatalf("View over the damaged page = %v, want ErrDamaged naming %s", err, s.Path())
		}
	}
	// Nothing stays locked: writes and reads elsewhere go on.
	mustUpdate(t, s, func(tx *Tx) error { return tx.Put(Path{"other"}, "k", []byte("v")) })
	mustView(t, s, func(tx *Tx) error {
		if v, ok := tx.Get(Path{BucketConversations, "c"}, "todos"); !ok || string(v) != "keep me" {
			t.Errorf("undamaged bucket reads %q, %v", v, ok)
		}
		return nil
	})
	if err := s.Check(ctx); !errors.Is(err, ErrDamaged) {
		t.Errorf("Check() = %v, want ErrDamaged", err)
	}
	s.Close()

	rep, err := Repair(ctx, dir)
	if err != nil {
		t.Fatalf("Repair() = %v", err)
	}
	if _, err := os.Stat(rep.Backup); err != nil {
		t.Errorf("Repair kept no copy: %v", err)
	}
	if len(rep.Lost) != 1 || !strings.HasPrefix(rep.Lost[0], BucketMemories) {
		t.Errorf("Repair lost %q, want only the memories bucket", rep.Lost)
	}
	s, err = Open(ctx, dir, Options{NoSync: true})
	if err != nil {
		t.Fatalf("Open after Repair = %v", err)
	}
	defer s.Close()
	if err := s.Check(ctx); err != nil {
		t.Errorf("Check after Repair = %v", err)
	}
	mustView(t, s, func(tx *Tx) error {
		if v, ok := tx.Get(Path{BucketConversations, "c"}, "todos"); !ok || string(v) != "keep me" {
			t.Errorf("after Repair the conversation reads %q, %v", v, ok)
		}
		if v, ok := tx.Get(Path{"other"}, "k"); !ok || string(v) != "v" {
			t.Errorf("after Repair the write made after the damage reads %q, %v", v, ok)
		}
		kept := 0
		tx.ForEach(Path{BucketMemories}, func(string, []byte) error { kept++; return nil })
		if kept == 0 || kept >= n {
			t.Errorf("after Repair %d of %d memories, want those before the damaged page", kept, n)
		}
		t.Logf("Repair kept %d of %d memories (copied %d values)", kept, n, rep.Copied)
		return nil
	})
}

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
