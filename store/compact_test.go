//go:build unix

package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fillAndPrune writes n values of about 300 bytes under "big", a sequence and a nested bucket,
// then deletes all but every tenth: the file keeps its size, most of it free.
func fillAndPrune(t *testing.T, s *Store, n int) (kept map[string]string) {
	t.Helper()
	ctx := context.Background()
	kept = map[string]string{}
	for start := 0; start < n; start += 1000 {
		mustUpdate(t, s, func(tx *Tx) error {
			for i := start; i < min(n, start+1000); i++ {
				v := fmt.Sprintf("%06d:%s", i, strings.Repeat("v", 290))
				if err := tx.Put(Path{"big", "nested"}, SeqKey(uint64(i)), []byte(v)); err != nil {
					return err
				}
				if i%10 == 0 {
					kept[SeqKey(uint64(i))] = v
				}
			}
			_, err := tx.NextSequence(Path{"big"})
			return err
		})
	}
	ok(t, s.Update(ctx, func(tx *Tx) error {
		for i := range n {
			if i%10 != 0 {
				if err := tx.Delete(Path{"big", "nested"}, SeqKey(uint64(i))); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	return kept
}

func TestCompactShrinksAndKeepsEverything(t *testing.T) {
	dir := t.TempDir()
	s := newStoreIn(t, dir, Options{NoSync: true})
	kept := fillAndPrune(t, s, 20_000)
	ctx := context.Background()
	before, err := s.Usage(ctx)
	ok(t, err)
	if before.FreeBytes < before.FileBytes/2 {
		t.Fatalf("Usage before = %+v, want most of the file free after deleting 90%%", before)
	}
	free, file, err := s.FreeBytes(ctx)
	ok(t, err)
	if file != before.FileBytes || free < before.FreeBytes*9/10 || free > before.FreeBytes*11/10 {
		t.Errorf("FreeBytes = %d of %d, want about Usage's %d of %d", free, file, before.FreeBytes, before.FileBytes)
	}
	rep, err := s.Compact(ctx)
	ok(t, err)
	after, err := s.Usage(ctx)
	ok(t, err)
	t.Logf("compact: %d -> %d bytes in %v; data %d -> %d", rep.Before, rep.After, rep.Took, before.DataBytes, after.DataBytes)
	if rep.After >= rep.Before/2 || after.FileBytes != rep.After {
		t.Errorf("Compact = %+v (usage after %+v), want the file at most half its size", rep, after)
	}
	if after.FreeBytes > after.DataBytes {
		t.Errorf("Usage after compact = %+v, want no more free than the room bbolt grows the file by", after)
	}
	mustView(t, s, func(tx *Tx) error {
		if got := tx.Sequence(Path{"big"}); got != 20 {
			t.Errorf("sequence of big = %d, want 20", got)
		}
		n := 0
		err := tx.ForEach(Path{"big", "nested"}, func(k string, v []byte) error {
			n++
			if kept[k] != string(v) {
				t.Errorf("key %s = %.20q, want %.20q", k, v, kept[k])
			}
			return nil
		})
		if n != len(kept) {
			t.Errorf("%d keys after compact, want %d", n, len(kept))
		}
		return err
	})
	for _, left := range []string{compactTempSuffix, compactBackupSuffix} {
		if _, err := os.Stat(filepath.Join(dir, dbFileName+left)); err == nil {
			t.Errorf("%s left behind", dbFileName+left)
		}
	}
	// The store goes on writing to the new file.
	mustUpdate(t, s, func(tx *Tx) error { return tx.Put(Path{"after"}, "k", []byte("v")) })
	s.Close()
	checkIntegrity(t, filepath.Join(dir, dbFileName))
}

// TestCompactWhileAnotherProcessWrites compacts, three times, while another process commits in
// a loop: every write it acknowledged is in the final file, none went to the old one after
// the new one took its name.
func TestCompactWhileAnotherProcessWrites(t *testing.T) {
	dir := t.TempDir()
	s := newStoreIn(t, dir, Options{})
	fillAndPrune(t, s, 5000)
	cmd, stdin, out := child(t, "acker", childDir+"="+dir)
	defer stdin.Close()
	var acked []uint64
	acks := make(chan uint64, 1<<16)
	go func() {
		for out.Scan() {
			acks <- parseAck(t, out.Text())
		}
		close(acks)
	}()
	drain := func() {
		for {
			select {
			case n, ok := <-acks:
				if !ok {
					return
				}
				acked = append(acked, n)
			default:
				return
			}
		}
	}
	for round := range 3 {
		time.Sleep(50 * time.Millisecond)
		if _, err := s.Compact(context.Background()); err != nil {
			t.Fatalf("round %d: Compact = %v", round, err)
		}
		drain()
	}
	time.Sleep(50 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	for n := range acks {
		acked = append(acked, n)
	}
	if len(acked) < 10 {
		t.Fatalf("the other process acknowledged only %d writes: %s", len(acked), cmd.Stderr)
	}
	mustView(t, s, func(tx *Tx) error {
		for _, i := range acked {
			var v string
			if found, err := tx.GetJSON(Path{"acks"}, SeqKey(i), &v); !found || err != nil {
				t.Errorf("acknowledged write %d lost (found %v, %v)", i, found, err)
			}
		}
		return nil
	})
	s.Close()
	checkIntegrity(t, filepath.Join(dir, dbFileName))
	t.Logf("%d writes acknowledged across 3 compactions", len(acked))
}

// TestCompactKilled kills a process that compacts in a loop at random moments: each time the
// file opens whole with everything in it, and the next compaction clears what was left.
func TestCompactKilled(t *testing.T) {
	dir := t.TempDir()
	s := newStoreIn(t, dir, Options{})
	kept := fillAndPrune(t, s, 20_000)
	s.Close()
	interrupted := 0
	for round := range 6 {
		cmd, _, out := child(t, "compacter", childDir+"="+dir)
		if round%2 == 0 {
			out.Scan() // at least one whole compaction
		}
		time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		if _, err := os.Stat(filepath.Join(dir, dbFileName+compactBackupSuffix)); err == nil {
			interrupted++
		}
		checkIntegrity(t, filepath.Join(dir, dbFileName))
		s := newStoreIn(t, dir, Options{})
		mustView(t, s, func(tx *Tx) error {
			n := 0
			tx.ForEach(Path{"big", "nested"}, func(k string, v []byte) error {
				n++
				if kept[k] != string(v) {
					t.Errorf("round %d: key %s changed", round, k)
				}
				return nil
			})
			if n != len(kept) {
				t.Errorf("round %d: %d keys, want %d", round, n, len(kept))
			}
			return nil
		})
		s.Close()
	}
	t.Logf("%d of 6 kills interrupted a compaction", interrupted)
	s = newStoreIn(t, dir, Options{})
	if _, err := s.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, left := range []string{compactTempSuffix, compactBackupSuffix} {
		if _, err := os.Stat(filepath.Join(dir, dbFileName+left)); err == nil {
			t.Errorf("%s left behind after a whole compaction", dbFileName+left)
		}
	}
}

// newStoreIn opens a Store on dir, closed with the test.
func newStoreIn(t testing.TB, dir string, opts Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), dir, opts)
	if err != nil {
		t.Fatalf("Open(%s) = %v", dir, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ok(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
