package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"toolhost/store"
	"toolhost/store/storetest"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestDamagedPage drives a damaged file through the whole path: transactions that reach the damage
// fail with store.ErrDamaged instead of panicking, leave no lock held, Check reports it, and Repair keeps
// a copy and carries over everything readable.
func TestDamagedPage(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := store.Open(ctx, dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	const n = 400
	must(t, s.Update(ctx, func(tx *store.Tx) error {
		for i := range n {
			if err := tx.Put(store.Path{store.BucketMemories}, store.SeqKey(uint64(i)), []byte(fmt.Sprintf("memory-%04d %s", i, strings.Repeat("x", 100)))); err != nil {
				return err
			}
		}
		return tx.Put(store.Path{store.BucketConversations, "c"}, "todos", []byte("keep me"))
	}))
	s.Close()
	storetest.Damage(t, s.Path(), "memory-0300")

	s, err = store.Open(ctx, dir, store.Options{NoSync: true, LockTimeout: 150 * time.Millisecond})
	if err != nil {
		t.Fatalf("Open of a file with a damaged data page = %v; the damage is found when read", err)
	}
	defer s.Close()
	readAll := func(tx *store.Tx) error {
		return tx.ForEach(store.Path{store.BucketMemories}, func(string, []byte) error { return nil })
	}
	for range 2 {
		if err := s.View(ctx, readAll); !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), s.Path()) {
			t.Fatalf("View over the damaged page = %v, want store.ErrDamaged naming %s", err, s.Path())
		}
	}
	// Nothing stays locked: writes and reads elsewhere go on.
	must(t, s.Update(ctx, func(tx *store.Tx) error { return tx.Put(store.Path{"other"}, "k", []byte("v")) }))
	must(t, s.View(ctx, func(tx *store.Tx) error {
		if v, ok := tx.Get(store.Path{store.BucketConversations, "c"}, "todos"); !ok || string(v) != "keep me" {
			t.Errorf("undamaged bucket reads %q, %v", v, ok)
		}
		return nil
	}))
	if err := s.Check(ctx); !errors.Is(err, store.ErrDamaged) {
		t.Errorf("Check() = %v, want store.ErrDamaged", err)
	}
	s.Close()

	rep, err := store.Repair(ctx, dir)
	if err != nil {
		t.Fatalf("Repair() = %v", err)
	}
	if _, err := os.Stat(rep.Backup); err != nil {
		t.Errorf("Repair kept no copy: %v", err)
	}
	if len(rep.Lost) != 1 || !strings.HasPrefix(rep.Lost[0], store.BucketMemories) {
		t.Errorf("Repair lost %q, want only the memories bucket", rep.Lost)
	}
	s, err = store.Open(ctx, dir, store.Options{NoSync: true})
	if err != nil {
		t.Fatalf("Open after Repair = %v", err)
	}
	defer s.Close()
	if err := s.Check(ctx); err != nil {
		t.Errorf("Check after Repair = %v", err)
	}
	must(t, s.View(ctx, func(tx *store.Tx) error {
		if v, ok := tx.Get(store.Path{store.BucketConversations, "c"}, "todos"); !ok || string(v) != "keep me" {
			t.Errorf("after Repair the conversation reads %q, %v", v, ok)
		}
		if v, ok := tx.Get(store.Path{"other"}, "k"); !ok || string(v) != "v" {
			t.Errorf("after Repair the write made after the damage reads %q, %v", v, ok)
		}
		kept := 0
		tx.ForEach(store.Path{store.BucketMemories}, func(string, []byte) error { kept++; return nil })
		if kept == 0 || kept >= n {
			t.Errorf("after Repair %d of %d memories, want those before the damaged page", kept, n)
		}
		t.Logf("Repair kept %d of %d memories (copied %d values)", kept, n, rep.Copied)
		return nil
	}))
}
