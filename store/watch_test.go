//go:build unix

package store

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// TestVersion: a settled, untouched database has not changed; a commit of this process or of
// another one changes it, and this process's commit also closes the Commits channel; a
// Version taken while the file's time was recent cannot rule out a change in the same tick.
func TestVersion(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, dir, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	settle := func() Version {
		t.Helper()
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(s.Path(), old, old); err != nil {
			t.Fatal(err)
		}
		return s.Version()
	}
	put := func(st *Store) func() {
		return func() {
			if err := st.Update(ctx, func(tx *Tx) error { return tx.PutJSON(Path{"x"}, "k", time.Now().UnixNano()) }); err != nil {
				t.Fatal(err)
			}
		}
	}
	otherProcess := func() {
		cmd, stdin, out := child(t, "writer", childDir+"="+dir, childName+"=other", childCount+"=1")
		if !out.Scan() || out.Text() != "ready" {
			t.Fatalf("writer child: %q", out.Text())
		}
		fmt.Fprintln(stdin, "go")
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer child: %v: %s", err, cmd.Stderr)
		}
	}
	cases := []struct {
		name   string
		before func() Version
		change func()
		want   bool
	}{
		{"settled and untouched", settle, func() {}, false},
		{"a commit of this process", settle, put(s), true},
		{"a commit of another process", settle, otherProcess, true},
		{"a read", settle, func() { s.View(ctx, func(tx *Tx) error { tx.Get(Path{"x"}, "k"); return nil }) }, false},
		{"taken right after a write: not settled", func() Version { put(s)(); return s.Version() }, func() {}, true},
		{"the zero Version", func() Version { return Version{} }, func() {}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.before()
			tc.change()
			if got := v.Changed(s.Version()); got != tc.want {
				t.Errorf("Changed after %s = %v, want %v", tc.name, got, tc.want)
			}
		})
	}

	woken := s.Commits()
	select {
	case <-woken:
		t.Fatal("Commits closed before any commit")
	default:
	}
	s.View(ctx, func(tx *Tx) error { return nil })
	select {
	case <-woken:
		t.Fatal("a read closed Commits")
	default:
	}
	put(s)()
	select {
	case <-woken:
	default:
		t.Fatal("a commit did not close Commits")
	}
	if s.Commits() == woken {
		t.Error("Commits after a commit returned the closed channel")
	}
}
