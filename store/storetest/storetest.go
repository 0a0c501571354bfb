// Package storetest opens real stores for tests: a bbolt file in a temporary directory, closed
// when the test ends. Tests never fake the store; this is the one place that says how they open
// it.
package storetest

import (
	"bytes"
	"context"
	"os"
	"testing"

	"toolhost/store"
)

// Open returns a store in a new temporary directory. It skips fsync (store.Options.NoSync): a
// test proves behaviour, not durability across a power cut; tests of durability use OpenWith.
func Open(t testing.TB) *store.Store {
	t.Helper()
	return OpenDir(t, t.TempDir())
}

// OpenDir opens the store in dir, for tests that reopen a state directory (a restart, a second
// process's view) or choose where it lives.
func OpenDir(t testing.TB, dir string) *store.Store {
	t.Helper()
	return OpenWith(t, dir, store.Options{NoSync: true})
}

// OpenWith opens the store in dir with opts.
func OpenWith(t testing.TB, dir string, opts store.Options) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("open store in %s: %v", dir, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Damage overwrites the type of every page of the database file at path that holds marker, as
// a torn write or a bad sector would: bbolt panics when a cursor reaches such a page. The file
// must be closed by every process while this runs.
func Damage(t testing.TB, path, marker string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// bbolt's page size is the OS page size when the file is created.
	size := os.Getpagesize()
	hits := 0
	for page := 0; page+size <= len(b); page += size {
		if bytes.Contains(b[page:page+size], []byte(marker)) {
			b[page+8], b[page+9] = 0xee, 0xee // the page's flags: no such page type
			hits++
		}
	}
	if hits == 0 {
		t.Fatalf("marker %q not in %s", marker, path)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
