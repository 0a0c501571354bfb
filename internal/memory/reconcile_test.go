package memory

import (
	"context"
	"slices"
	"testing"

	"toolhost/store"
)

// TestReconcileAfterPartialSalvage damages what a repair of a half-readable state file can
// leave behind — derived entries lost, entries pointing at memories that are gone, a version
// chain cut, an ID sequence behind — and checks that Reconcile reports each, sets it right,
// and that search, exact duplicates, versions and new IDs work again.
func TestReconcileAfterPartialSalvage(t *testing.T) {
	ctx := context.Background()
	s, st := newLexical(t, Config{})
	const conv = "c1"
	a := mustStore(t, s, StoreRequest{Conversation: conv, Content: "the deploy script lives in tools/deploy.sh", Tags: []string{"ops"}})
	b := mustStore(t, s, StoreRequest{Conversation: conv, Content: "the database listens on port 5432"})
	b2 := mustStore(t, s, StoreRequest{Conversation: conv, Content: "the database listens on port 6543"})
	if b2.Superseded != b.ID {
		t.Fatalf("setup: %+v does not supersede %d", b2, b.ID)
	}
	gone := mustStore(t, s, StoreRequest{Conversation: conv, Content: "the cache is warmed by a cron job at night"})
	key := store.SeqKey

	err := st.Update(ctx, func(tx *store.Tx) error {
		for _, op := range []error{
			tx.Delete(vecsPath, key(a.ID)),                                  // a vector lost
			tx.DeleteBucket(hashPath),                                       // the duplicate index lost
			tx.Delete(append(slices.Clone(scopesPath), a.Scope), key(a.ID)), // a scope entry lost
			tx.Delete(itemsPath, key(b2.ID)),                                // the newest version lost: b must be searched again
			tx.Delete(itemsPath, key(gone.ID)),                              // a memory lost, its derived entries left
			tx.Put(itemsPath, key(999), []byte("{not json")),                // an unreadable record
			tx.SetSequence(itemsPath, 2),                                    // the ID counter behind
		} {
			if op != nil {
				return op
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	dry, err := s.Reconcile(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"unreadable record", dry.Unreadable == 1},
		{"missing vector re-embedded", dry.Reembedded == 1},
		{"orphan vectors", dry.Vectors == 2},
		{"duplicate index", dry.Hashes >= 2},
		{"scope index", dry.Scopes >= 3},
		{"recent notes of lost memories", dry.Recent >= 2},
		{"version link", dry.Versions == 1},
		{"sequence", dry.Sequence},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("dry run: %s not reported: %+v", c.name, dry)
		}
	}
	if again, _ := s.Reconcile(ctx, true); again != dry {
		t.Fatalf("a dry run changed something: %+v then %+v", dry, again)
	}
	fixed, err := s.Reconcile(ctx, false)
	if err != nil || fixed != dry {
		t.Fatalf("Reconcile = %+v, %v; want what the dry run found, %+v", fixed, err, dry)
	}
	if after, err := s.Reconcile(ctx, true); err != nil || !after.Clean() {
		t.Fatalf("after the repair: %+v (%s), %v; want clean", after, after, err)
	}

	hits := mustSearch(t, s, SearchRequest{Conversation: conv, Query: "where is the deploy script", Tags: []string{"ops"}})
	if len(hits) == 0 || hits[0].ID != a.ID {
		t.Errorf("search for the re-embedded memory = %v, want %d first", hitIDs(hits), a.ID)
	}
	hits = mustSearch(t, s, SearchRequest{Conversation: conv, Query: "which port does the database listen on"})
	if len(hits) == 0 || hits[0].ID != b.ID {
		t.Errorf("search after the newest version was lost = %v, want the older version %d", hitIDs(hits), b.ID)
	}
	if dup := mustStore(t, s, StoreRequest{Conversation: conv, Content: "the deploy script lives in tools/deploy.sh"}); dup.Duplicate != ExactDuplicate || dup.ID != a.ID {
		t.Errorf("storing the same text again = %+v, want an exact duplicate of %d", dup, a.ID)
	}
	if n := mustStore(t, s, StoreRequest{Conversation: conv, Content: "logs rotate every sunday"}); n.ID <= 999 {
		t.Errorf("a new memory got ID %d, which may have been given before (highest seen 999)", n.ID)
	}
	if _, err := s.Get(ctx, conv, gone.ID); err == nil {
		t.Errorf("the lost memory %d is still readable", gone.ID)
	}
}
