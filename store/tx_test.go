package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// newStore opens a Store in a fresh temporary directory.
func newStore(t testing.TB, opts Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), t.TempDir(), opts)
	if err != nil {
		t.Fatalf("Open() = %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustUpdate(t testing.TB, s *Store, fn func(tx *Tx) error) {
	t.Helper()
	if err := s.Update(context.Background(), fn); err != nil {
		t.Fatalf("Update() = %v", err)
	}
}

func mustView(t testing.TB, s *Store, fn func(tx *Tx) error) {
	t.Helper()
	if err := s.View(context.Background(), fn); err != nil {
		t.Fatalf("View() = %v", err)
	}
}

func TestSeqKey(t *testing.T) {
	tests := []struct {
		name string
		n    uint64
	}{
		{"zero", 0},
		{"one", 1},
		{"byte boundary", 256},
		{"max", ^uint64(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := SeqKey(tt.n)
			if len(k) != 8 {
				t.Errorf("len(SeqKey(%d)) = %d, want 8", tt.n, len(k))
			}
			if got, ok := ParseSeqKey(k); !ok || got != tt.n {
				t.Errorf("ParseSeqKey(SeqKey(%d)) = %d, %v, want %d, true", tt.n, got, ok, tt.n)
			}
		})
	}
	for _, bad := range []string{"", "1234567", "123456789", "abc"} {
		if _, ok := ParseSeqKey(bad); ok {
			t.Errorf("ParseSeqKey(%q) ok = true, want false", bad)
		}
	}
	// Keys must sort like the numbers they encode.
	for _, pair := range [][2]uint64{{9, 10}, {255, 256}, {1 << 32, 1<<32 + 1}, {0, ^uint64(0)}} {
		if !(SeqKey(pair[0]) < SeqKey(pair[1])) {
			t.Errorf("SeqKey(%d) >= SeqKey(%d), want <", pair[0], pair[1])
		}
	}
}

func TestGetPutRoundTrip(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	tests := []struct {
		name string
		path Path
		key  string
		val  []byte
	}{
		{"top level", Path{BucketGrants}, "g1", []byte("grant")},
		{"nested new buckets", Path{BucketConversations, "conv-1", "todos"}, "list", []byte(`[1,2]`)},
		{"brand new top level", Path{"scratch", "a", "b", "c"}, "deep", []byte("x")},
		{"empty value", Path{"scratch"}, "empty", []byte{}},
		{"nil value stored as empty", Path{"scratch"}, "nil", nil},
		{"binary key", Path{"scratch"}, SeqKey(7), []byte{0, 1, 2, 0xff}},
		{"unicode names", Path{"scratch", "ünï"}, "ключ", []byte("значение")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustUpdate(t, s, func(tx *Tx) error { return tx.Put(tt.path, tt.key, tt.val) })
			mustView(t, s, func(tx *Tx) error {
				got, ok := tx.Get(tt.path, tt.key)
				if !ok || got == nil || !bytes.Equal(got, tt.val) {
					t.Errorf("Get(%v, %q) = %q, %v, want %q, true", tt.path, tt.key, got, ok, tt.val)
				}
				return nil
			})
		})
	}
}

func TestGetMissing(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	mustUpdate(t, s, func(tx *Tx) error { return tx.Put(Path{"a", "b"}, "k", []byte("v")) })
	tests := []struct {
		name string
		path Path
		key  string
	}{
		{"missing key", Path{"a", "b"}, "nope"},
		{"missing bucket", Path{"a", "zzz"}, "k"},
		{"missing top level", Path{"nope"}, "k"},
		{"empty path", Path{}, "k"},
		{"key names a bucket", Path{"a"}, "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustView(t, s, func(tx *Tx) error {
				if got, ok := tx.Get(tt.path, tt.key); ok || got != nil {
					t.Errorf("Get(%v, %q) = %q, %v, want nil, false", tt.path, tt.key, got, ok)
				}
				var v any
				if found, err := tx.GetJSON(tt.path, tt.key, &v); found || err != nil {
					t.Errorf("GetJSON(%v, %q) = %v, %v, want false, nil", tt.path, tt.key, found, err)
				}
				return nil
			})
		})
	}
}

func TestJSON(t *testing.T) {
	type todo struct {
		ID    int    `json:"id"`
		Title string `json:"title"`
		Done  bool   `json:"done"`
	}
	s := newStore(t, Options{NoSync: true})
	p := Path{BucketConversations, "c", "todos"}
	want := []todo{{1, "line\nbreak", false}, {2, "two", true}}
	mustUpdate(t, s, func(tx *Tx) error { return tx.PutJSON(p, "list", want) })
	var got []todo
	mustView(t, s, func(tx *Tx) error {
		found, err := tx.GetJSON(p, "list", &got)
		if !found {
			t.Errorf("GetJSON(%v, list) found = false, want true", p)
		}
		return err
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GetJSON round trip (-want +got):\n%s", diff)
	}

	mustUpdate(t, s, func(tx *Tx) error { return tx.Put(p, "bad", []byte("{not json")) })
	mustView(t, s, func(tx *Tx) error {
		var v todo
		found, err := tx.GetJSON(p, "bad", &v)
		if !found || err == nil {
			t.Errorf("GetJSON(%v, bad) = %v, %v, want true, error", p, found, err)
		}
		return nil
	})
	err := s.Update(context.Background(), func(tx *Tx) error { return tx.PutJSON(p, "chan", make(chan int)) })
	if err == nil {
		t.Errorf("PutJSON(chan) = nil, want encode error")
	}
}

// TestCopySemantics checks that values outlive their transaction (the file is unmapped by then, so
// an uncopied slice would fault or read garbage) and that Put does not keep the caller's buffer.
func TestCopySemantics(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	p := Path{"copy"}
	buf := []byte("original")
	mustUpdate(t, s, func(tx *Tx) error {
		if err := tx.Put(p, "k", buf); err != nil {
			return err
		}
		copy(buf, "CLOBBERD") // before commit: must not reach the file
		for i := range 50 {
			if err := tx.Put(p, fmt.Sprintf("k%02d", i), bytes.Repeat([]byte{byte('a' + i%26)}, 100)); err != nil {
				return err
			}
		}
		return nil
	})

	var got []byte
	var all [][]byte
	mustView(t, s, func(tx *Tx) error {
		got, _ = tx.Get(p, "k")
		got2, _ := tx.Get(p, "k")
		got2[0] = 'X' // mutating a returned value must not affect the next read
		if again, _ := tx.Get(p, "k"); string(again) != "original" {
			t.Errorf("Get after mutating a previous result = %q, want %q", again, "original")
		}
		return tx.ForEach(p, func(_ string, v []byte) error {
			all = append(all, v)
			return nil
		})
	})
	// Write more so the file is remapped and old pages reused, then read the saved slices.
	mustUpdate(t, s, func(tx *Tx) error {
		if err := tx.DeleteBucket(p); err != nil {
			return err
		}
		return tx.Put(Path{"other"}, "big", bytes.Repeat([]byte("z"), 1<<20))
	})
	if string(got) != "original" {
		t.Errorf("Get() after the transaction = %q, want %q", got, "original")
	}
	if len(all) != 51 {
		t.Fatalf("ForEach() returned %d values, want 51", len(all))
	}
	for i, v := range all[1:] {
		if want := bytes.Repeat([]byte{byte('a' + i%26)}, 100); !bytes.Equal(v, want) {
			t.Errorf("ForEach value %d after the transaction = %q, want %q", i, v, want)
		}
	}
}

func TestForEachAndSeekOrder(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	p := Path{BucketExecutions}
	// Insert out of order, across byte boundaries where decimal strings would missort.
	nums := []uint64{300, 2, 10, 256, 9, 1, 255, 1000}
	mustUpdate(t, s, func(tx *Tx) error {
		for _, n := range nums {
			if err := tx.Put(p, SeqKey(n), []byte(fmt.Sprint(n))); err != nil {
				return err
			}
		}
		// A nested bucket shares the key space but must not be reported.
		return tx.Put(append(Path{}, BucketExecutions, "nested"), "x", []byte("y"))
	})
	collect := func(from string, limit int) []string {
		var got []string
		mustView(t, s, func(tx *Tx) error {
			return tx.Seek(p, from, func(k string, v []byte) (bool, error) {
				n, ok := ParseSeqKey(k)
				if !ok {
					t.Errorf("Seek yielded non-sequence key %q", k)
				}
				if fmt.Sprint(n) != string(v) {
					t.Errorf("Seek key %d has value %q", n, v)
				}
				got = append(got, string(v))
				return limit == 0 || len(got) < limit, nil
			})
		})
		return got
	}
	tests := []struct {
		name  string
		from  string
		limit int
		want  []string
	}{
		{"all", "", 0, []string{"1", "2", "9", "10", "255", "256", "300", "1000"}},
		{"from existing key", SeqKey(10), 0, []string{"10", "255", "256", "300", "1000"}},
		{"from gap", SeqKey(11), 0, []string{"255", "256", "300", "1000"}},
		{"stop early", SeqKey(2), 3, []string{"2", "9", "10"}},
		{"past end", SeqKey(5000), 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, collect(tt.from, tt.limit)); diff != "" {
				t.Errorf("Seek(%v, %q) (-want +got):\n%s", p, tt.from, diff)
			}
		})
	}

	var forEach []string
	mustView(t, s, func(tx *Tx) error {
		return tx.ForEach(p, func(_ string, v []byte) error {
			forEach = append(forEach, string(v))
			return nil
		})
	})
	if diff := cmp.Diff(tests[0].want, forEach); diff != "" {
		t.Errorf("ForEach(%v) (-want +got):\n%s", p, diff)
	}

	stop := errors.New("stop")
	calls := 0
	err := s.View(context.Background(), func(tx *Tx) error {
		return tx.ForEach(p, func(string, []byte) error { calls++; return stop })
	})
	if err != stop || calls != 1 {
		t.Errorf("ForEach with failing fn = %v after %d calls, want %v after 1", err, calls, stop)
	}
	err = s.View(context.Background(), func(tx *Tx) error {
		return tx.Seek(p, "", func(string, []byte) (bool, error) { return true, stop })
	})
	if err != stop {
		t.Errorf("Seek with failing fn = %v, want %v", err, stop)
	}
	mustView(t, s, func(tx *Tx) error {
		for _, missing := range []Path{{"nope"}, {BucketExecutions, "nope"}, {}} {
			if err := tx.ForEach(missing, func(string, []byte) error { t.Errorf("ForEach(%v) called fn", missing); return nil }); err != nil {
				t.Errorf("ForEach(%v) = %v, want nil", missing, err)
			}
			if err := tx.Seek(missing, "", func(string, []byte) (bool, error) { t.Errorf("Seek(%v) called fn", missing); return true, nil }); err != nil {
				t.Errorf("Seek(%v) = %v, want nil", missing, err)
			}
		}
		return nil
	})
}

func TestNextSequence(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	p := Path{BucketConversations, "c1", "terminals"}
	var got []uint64
	for range 3 {
		mustUpdate(t, s, func(tx *Tx) error {
			n, err := tx.NextSequence(p)
			got = append(got, n)
			return err
		})
	}
	// A rolled-back transaction must not consume a number.
	rollback := errors.New("rollback")
	if err := s.Update(context.Background(), func(tx *Tx) error {
		if _, err := tx.NextSequence(p); err != nil {
			return err
		}
		return rollback
	}); err != rollback {
		t.Fatalf("Update() = %v, want %v", err, rollback)
	}
	mustUpdate(t, s, func(tx *Tx) error {
		n, err := tx.NextSequence(p)
		got = append(got, n)
		return err
	})
	if diff := cmp.Diff([]uint64{1, 2, 3, 4}, got); diff != "" {
		t.Errorf("NextSequence(%v) sequence (-want +got):\n%s", p, diff)
	}
	// Sequences are per bucket.
	mustUpdate(t, s, func(tx *Tx) error {
		n, err := tx.NextSequence(Path{BucketConversations, "c2", "terminals"})
		if n != 1 {
			t.Errorf("NextSequence(fresh bucket) = %d, want 1", n)
		}
		return err
	})
}

func TestDeleteAndBuckets(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	conv := Path{BucketConversations}
	mustUpdate(t, s, func(tx *Tx) error {
		for _, id := range []string{"c3", "c1", "c2"} {
			for _, sub := range []string{"todos", "state"} {
				if err := tx.Put(append(Path{BucketConversations, id}, sub), "k", []byte("v")); err != nil {
					return err
				}
			}
		}
		return tx.Put(conv, "plain", []byte("not a bucket"))
	})
	buckets := func(p Path) []string {
		var names []string
		mustView(t, s, func(tx *Tx) error {
			var err error
			names, err = tx.Buckets(p)
			return err
		})
		return names
	}
	if diff := cmp.Diff([]string{"c1", "c2", "c3"}, buckets(conv)); diff != "" {
		t.Errorf("Buckets(%v) (-want +got):\n%s", conv, diff)
	}
	if diff := cmp.Diff([]string{"state", "todos"}, buckets(Path{BucketConversations, "c2"})); diff != "" {
		t.Errorf("Buckets(c2) (-want +got):\n%s", diff)
	}
	wantTop := []string{BucketApprovals, BucketConversations, BucketExecutions, BucketGrants, BucketMemories, BucketMeta}
	if diff := cmp.Diff(wantTop, buckets(Path{})); diff != "" {
		t.Errorf("Buckets(top level) (-want +got):\n%s", diff)
	}
	if got := buckets(Path{"nope"}); len(got) != 0 {
		t.Errorf("Buckets(missing) = %v, want none", got)
	}

	mustUpdate(t, s, func(tx *Tx) error {
		for _, err := range []error{
			tx.DeleteBucket(Path{BucketConversations, "c2"}),
			tx.DeleteBucket(Path{BucketConversations, "c2"}), // again: not an error
			tx.DeleteBucket(Path{"nope", "deeper"}),
			tx.DeleteBucket(Path{"nope"}),
			tx.Delete(Path{BucketConversations, "c1", "todos"}, "k"),
			tx.Delete(Path{BucketConversations, "c1", "todos"}, "k"),
			tx.Delete(Path{"nope"}, "k"),
		} {
			if err != nil {
				t.Errorf("idempotent delete = %v, want nil", err)
			}
		}
		if err := tx.Delete(conv, "c1"); err == nil {
			t.Errorf("Delete(%v, c1) of a bucket = nil, want error", conv)
		}
		if err := tx.DeleteBucket(append(Path{}, BucketConversations, "plain")); err == nil {
			t.Errorf("DeleteBucket of a plain key = nil, want error")
		}
		if err := tx.Put(append(Path{}, BucketConversations, "plain", "x"), "k", nil); err == nil {
			t.Errorf("Put under a plain key = nil, want error")
		}
		if err := tx.DeleteBucket(Path{}); err == nil {
			t.Errorf("DeleteBucket(empty path) = nil, want error")
		}
		if err := tx.Put(Path{}, "k", nil); err == nil {
			t.Errorf("Put(empty path) = nil, want error")
		}
		if err := tx.Put(Path{"x"}, "", nil); err == nil {
			t.Errorf("Put(empty key) = nil, want error")
		}
		return nil
	})
	if diff := cmp.Diff([]string{"c1", "c3"}, buckets(conv)); diff != "" {
		t.Errorf("Buckets after DeleteBucket (-want +got):\n%s", diff)
	}
	mustView(t, s, func(tx *Tx) error {
		if _, ok := tx.Get(Path{BucketConversations, "c1", "todos"}, "k"); ok {
			t.Errorf("Get after Delete found the key")
		}
		return nil
	})
}

func TestReadOnlyTx(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	p := Path{BucketGrants}
	mustUpdate(t, s, func(tx *Tx) error { return tx.Put(p, "k", []byte("v")) })
	mustView(t, s, func(tx *Tx) error {
		writes := map[string]error{
			"Put":          tx.Put(p, "k", []byte("w")),
			"PutJSON":      tx.PutJSON(p, "k", 1),
			"Delete":       tx.Delete(p, "k"),
			"NextSequence": func() error { _, err := tx.NextSequence(p); return err }(),
			"DeleteBucket": tx.DeleteBucket(p),
		}
		for name, err := range writes {
			if !errors.Is(err, ErrReadOnlyTx) {
				t.Errorf("%s in View = %v, want ErrReadOnlyTx", name, err)
			}
		}
		return nil
	})
	mustView(t, s, func(tx *Tx) error {
		if v, _ := tx.Get(p, "k"); string(v) != "v" {
			t.Errorf("Get after refused writes = %q, want %q", v, "v")
		}
		return nil
	})
}

func TestUpdateRollsBackOnError(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	fail := errors.New("handler failed")
	err := s.Update(context.Background(), func(tx *Tx) error {
		if err := tx.Put(Path{"r", "nested"}, "k", []byte("v")); err != nil {
			return err
		}
		return fail
	})
	if err != fail {
		t.Fatalf("Update() = %v, want the fn error unchanged", err)
	}
	mustView(t, s, func(tx *Tx) error {
		if b, _ := tx.Buckets(Path{}); cmp.Diff(b, []string{"approvals", "conversations", "executions", "grants", "memories", "meta"}) != "" {
			t.Errorf("Buckets after rollback = %v, want no bucket r", b)
		}
		return nil
	})
	if err := s.View(context.Background(), func(*Tx) error { return fail }); err != fail {
		t.Errorf("View() = %v, want the fn error unchanged", err)
	}

	// A panicking fn rolls back, releases the lock and fails with ErrDamaged (bbolt panics on
	// damaged pages), so the next transaction still runs.
	err = s.Update(context.Background(), func(tx *Tx) error {
		_ = tx.Put(Path{"p"}, "k", []byte("v"))
		panic("boom")
	})
	if !errors.Is(err, ErrDamaged) {
		t.Errorf("Update with panicking fn = %v, want ErrDamaged", err)
	}
	mustUpdate(t, s, func(tx *Tx) error {
		if _, ok := tx.Get(Path{"p"}, "k"); ok {
			t.Errorf("write of panicking Update was committed")
		}
		return nil
	})
}

func TestTxAfterEndPanics(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	var leaked *Tx
	mustView(t, s, func(tx *Tx) error { leaked = tx; return nil })
	defer func() {
		if recover() == nil {
			t.Errorf("Get on a finished Tx did not panic")
		}
	}()
	leaked.Get(Path{BucketMeta}, metaSchemaVersion)
}
