// Package storetest opens real stores for tests: a bbolt file in a temporary directory, closed
// when the test ends. Tests never fake the store; this is the one place that says how they open
// it.
package storetest

import (
	"context"
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
