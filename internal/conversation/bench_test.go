package conversation

import (
	"context"
	"os"
	"testing"

	"toolhost/internal/owner"

	"toolhost/store"
	"toolhost/store/storetest"
)

// BenchmarkLease measures what a new session pays for its conversation (one Acquire, one
// Release, each one store transaction) against a reference of two plain store writes, in the
// same run: go test -bench Lease ./internal/conversation. Fifty conversations of the working
// directory are held by another live process (each one's liveness is read from /proc), as
// with many chats open on one project.
func BenchmarkLease(b *testing.B) {
	ctx := context.Background()
	st := storetest.Open(b)
	parent := owner.ID{PID: os.Getppid(), Boot: owner.Self().Boot} // alive for the whole run
	others, err := New(st, Options{Workdir: "/w", Base: "wd-bench", Self: parent})
	if err != nil {
		b.Fatal(err)
	}
	for range 50 {
		if _, err := others.Acquire(ctx, "", ""); err != nil {
			b.Fatal(err)
		}
	}
	l, err := New(st, Options{Workdir: "/w", Base: "wd-bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("acquire+release", func(b *testing.B) {
		for b.Loop() {
			conv, err := l.Acquire(ctx, "", "")
			if err != nil {
				b.Fatal(err)
			}
			if err := l.Release(ctx, conv); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reference: two store writes", func(b *testing.B) {
		for b.Loop() {
			for range 2 {
				if err := st.Update(ctx, func(tx *store.Tx) error { return tx.Put(store.Path{"bench"}, "k", []byte("v")) }); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
