//go:build unix

package store

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/bbolt"
)

// The multi-process tests re-run this test binary as a child; childMode selects what it does.
const (
	childMode  = "TOOLHOST_STORE_TEST_CHILD"
	childDir   = "TOOLHOST_STORE_TEST_DIR"
	childName  = "TOOLHOST_STORE_TEST_NAME"
	childCount = "TOOLHOST_STORE_TEST_COUNT"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childMode); mode != "" {
		if err := runChild(mode); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// writerRecord is what the writer children store; the parent checks every one arrived.
type writerRecord struct {
	Writer string `json:"writer"`
	I      int    `json:"i"`
}

func runChild(mode string) error {
	ctx := context.Background()
	dir := os.Getenv(childDir)
	stdin := bufio.NewReader(os.Stdin)
	switch mode {
	case "writer":
		// Writes COUNT records from 4 goroutines, each record in its own synced Update that also
		// takes a number from a sequence shared with the other process, plus one audit line.
		name := os.Getenv(childName)
		count, _ := strconv.Atoi(os.Getenv(childCount))
		s, err := Open(ctx, dir, Options{})
		if err != nil {
			return err
		}
		fmt.Println("ready")
		if _, err := stdin.ReadString('\n'); err != nil { // wait for "go" so both children overlap
			return err
		}
		const workers = 4
		var wg sync.WaitGroup
		errs := make(chan error, count)
		for w := range workers {
			wg.Go(func() {
				for i := w; i < count; i += workers {
					rec := writerRecord{Writer: name, I: i}
					errs <- s.Update(ctx, func(tx *Tx) error {
						n, err := tx.NextSequence(Path{"shared"})
						if err != nil {
							return err
						}
						if err := tx.PutJSON(Path{"shared"}, SeqKey(n), rec); err != nil {
							return err
						}
						return tx.PutJSON(Path{"writers", name}, SeqKey(uint64(i)), rec)
					})
					errs <- s.AppendAudit(ctx, rec)
				}
			})
		}
		go func() { wg.Wait(); close(errs) }()
		for err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	case "acker":
		// Acknowledges each committed Update on stdout until killed. Keys come from a sequence so a
		// restarted acker continues where the killed one stopped.
		s, err := Open(ctx, dir, Options{})
		if err != nil {
			return err
		}
		out := bufio.NewWriter(os.Stdout)
		for {
			var n uint64
			err := s.Update(ctx, func(tx *Tx) error {
				var err error
				if n, err = tx.NextSequence(Path{"acks"}); err != nil {
					return err
				}
				return tx.PutJSON(Path{"acks"}, SeqKey(n), strings.Repeat("x", int(n%300)))
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "ack %d\n", n)
			if err := out.Flush(); err != nil {
				return err
			}
		}
	case "spinner":
		// Commits small synced writes back to back until stdin closes, as a competing process.
		s, err := Open(ctx, dir, Options{})
		if err != nil {
			return err
		}
		stop := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, stdin); close(stop) }()
		fmt.Println("spinning")
		for i := uint64(0); ; i++ {
			select {
			case <-stop:
				return nil
			default:
			}
			if err := s.Update(ctx, func(tx *Tx) error {
				return tx.PutJSON(Path{"spinner"}, SeqKey(i%1000), i)
			}); err != nil {
				return err
			}
		}
	case "reader":
		// Runs read-only transactions back to back on its kept handle until stdin closes, then
		// reports how many it ran: a process that never lets go would starve the parent.
		s, err := Open(ctx, dir, Options{})
		if err != nil {
			return err
		}
		stop := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, stdin); close(stop) }()
		fmt.Println("reading")
		for n := 0; ; n++ {
			select {
			case <-stop:
				fmt.Println("views", n)
				return nil
			default:
			}
			if err := s.View(ctx, func(tx *Tx) error { _, _ = tx.Get(Path{"x"}, "k"); return nil }); err != nil {
				return err
			}
		}
	case "compacter":
		// Compacts the file over and over, saying so after each, until killed.
		s, err := Open(ctx, dir, Options{})
		if err != nil {
			return err
		}
		for n := 1; ; n++ {
			if _, err := s.Compact(ctx); err != nil {
				return err
			}
			fmt.Println("compacted", n)
		}
	case "holder":
		// Holds the write lock with a raw bbolt handle until stdin closes.
		db, err := bbolt.Open(os.Getenv(childDir), fileMode, &bbolt.Options{Timeout: 10 * time.Second})
		if err != nil {
			return err
		}
		defer db.Close()
		fmt.Println("locked")
		_, _ = io.Copy(io.Discard, stdin)
		return nil
	}
	return fmt.Errorf("unknown child mode %q", mode)
}

// child starts this test binary in the given mode.
func child(t testing.TB, mode string, env ...string) (cmd *exec.Cmd, stdin io.WriteCloser, stdout *bufio.Scanner) {
	t.Helper()
	cmd = exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{childMode + "=" + mode}, env...)...)
	cmd.Stderr = &strings.Builder{}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start child %s: %v", mode, err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, stdin, bufio.NewScanner(out)
}

func expectLine(t testing.TB, sc *bufio.Scanner, want string) {
	t.Helper()
	if !sc.Scan() || sc.Text() != want {
		t.Fatalf("child said %q (err %v), want %q", sc.Text(), sc.Err(), want)
	}
}

// TestTwoProcesses runs two real processes writing into one state directory at once: every write
// must succeed and survive, the shared sequence must have no gaps or duplicates, and audit lines
// must not interleave.
func TestTwoProcesses(t *testing.T) {
	const count = 200
	dir := t.TempDir()
	names := []string{"alpha", "beta"}
	type proc struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		out   *bufio.Scanner
	}
	var procs []proc
	for _, name := range names {
		cmd, in, out := child(t, "writer", childDir+"="+dir, childName+"="+name, childCount+"="+strconv.Itoa(count))
		procs = append(procs, proc{cmd, in, out})
	}
	for _, p := range procs {
		expectLine(t, p.out, "ready")
	}
	for _, p := range procs {
		if _, err := io.WriteString(p.stdin, "go\n"); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range procs {
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("writer %s: %v\n%s", names[i], err, p.cmd.Stderr)
		}
	}

	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[writerRecord]bool{}
	mustView(t, s, func(tx *Tx) error {
		for _, name := range names {
			n := 0
			err := tx.ForEach(Path{"writers", name}, func(k string, v []byte) error {
				var rec writerRecord
				if err := json.Unmarshal(v, &rec); err != nil {
					return err
				}
				if i, _ := ParseSeqKey(k); rec.Writer != name || uint64(rec.I) != i {
					t.Errorf("writers/%s/%d = %+v", name, i, rec)
				}
				n++
				return nil
			})
			if err != nil {
				return err
			}
			if n != count {
				t.Errorf("writer %s stored %d records, want %d", name, n, count)
			}
		}
		want := uint64(1)
		return tx.ForEach(Path{"shared"}, func(k string, v []byte) error {
			if n, _ := ParseSeqKey(k); n != want {
				t.Errorf("shared sequence key = %d, want %d", n, want)
			}
			want++
			var rec writerRecord
			if err := json.Unmarshal(v, &rec); err != nil {
				return err
			}
			if seen[rec] {
				t.Errorf("record %+v stored twice", rec)
			}
			seen[rec] = true
			return nil
		})
	})
	if len(seen) != len(names)*count {
		t.Errorf("shared bucket has %d distinct records, want %d", len(seen), len(names)*count)
	}
	lines := readAuditLines(t, s.Dir()+"/"+auditFileName)
	if len(lines) != len(names)*count {
		t.Errorf("audit has %d lines, want %d", len(lines), len(names)*count)
	}
}

// TestKillMidStream SIGKILLs a process that is committing in a loop, several times over, and checks
// that every write it acknowledged survived and the file is intact.
func TestKillMidStream(t *testing.T) {
	dir := t.TempDir()
	// Create the store first so the kill cannot land in the middle of the child's Open.
	if _, err := Open(context.Background(), dir, Options{}); err != nil {
		t.Fatal(err)
	}
	const rounds, killAfter = 3, 30
	var acked []uint64
	for round := range rounds {
		cmd, _, out := child(t, "acker", childDir+"="+dir)
		n := 0
		for n < killAfter && out.Scan() {
			acked = append(acked, parseAck(t, out.Text()))
			n++
		}
		if n < killAfter {
			t.Fatalf("round %d: child stopped after %d acks: %v\n%s", round, n, out.Err(), cmd.Stderr)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		// Lines already in the pipe were acknowledged before the kill.
		for out.Scan() {
			acked = append(acked, parseAck(t, out.Text()))
		}
		_ = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child exit = %v, want killed by SIGKILL\n%s", round, cmd.ProcessState, cmd.Stderr)
		}
		checkIntegrity(t, dir+"/"+dbFileName)
	}

	s, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatalf("Open after kill = %v", err)
	}
	mustView(t, s, func(tx *Tx) error {
		for _, i := range acked {
			var v string
			if found, err := tx.GetJSON(Path{"acks"}, SeqKey(i), &v); !found || err != nil || len(v) != int(i%300) {
				t.Errorf("acknowledged record %d: found %v, err %v, len %d", i, found, err, len(v))
			}
		}
		return nil
	})
	t.Logf("%d acknowledged records survived %d SIGKILLs", len(acked), rounds)
}

func parseAck(t *testing.T, line string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(strings.TrimPrefix(line, "ack "), 10, 64)
	if err != nil {
		t.Fatalf("child printed %q, want an ack", line)
	}
	return n
}

// checkIntegrity runs bbolt's consistency check over the whole file.
func checkIntegrity(t *testing.T, path string) {
	t.Helper()
	db, err := bbolt.Open(path, fileMode, &bbolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		t.Fatalf("bbolt.Open(%s) = %v", path, err)
	}
	defer db.Close()
	err = db.View(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			t.Errorf("bbolt Check: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestErrBusyAcrossProcesses holds the lock in another process: transactions fail with ErrBusy
// after LockTimeout, and succeed once that process lets go.
func TestErrBusyAcrossProcesses(t *testing.T) {
	s := newStore(t, Options{NoSync: true, LockTimeout: shortLock})
	patient, err := Open(context.Background(), s.Dir(), Options{NoSync: true}) // default 10 s budget
	if err != nil {
		t.Fatal(err)
	}
	cmd, stdin, out := child(t, "holder", childDir+"="+s.Path())
	expectLine(t, out, "locked")
	for name, run := range map[string]func(context.Context, func(*Tx) error) error{"Update": s.Update, "View": s.View} {
		if err := run(context.Background(), func(*Tx) error { return nil }); !errorsIsBusy(err) {
			t.Errorf("%s while another process holds the lock = %v, want ErrBusy", name, err)
		}
	}
	done := make(chan error, 1)
	go func() {
		done <- patient.Update(context.Background(), func(tx *Tx) error { return tx.Put(Path{"x"}, "k", []byte("v")) })
	}()
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("holder: %v\n%s", err, cmd.Stderr)
	}
	if err := <-done; err != nil {
		t.Errorf("Update after the other process released the lock = %v, want nil", err)
	}
}

// TestBusyReaderYieldsAcrossProcesses runs another process that keeps its database handle busy
// with back-to-back reads: it must hand the file over whenever this process waits, so every write
// here succeeds, and it must keep reading in between.
func TestBusyReaderYieldsAcrossProcesses(t *testing.T) {
	s := newStore(t, Options{})
	cmd, stdin, out := child(t, "reader", childDir+"="+s.Dir())
	expectLine(t, out, "reading")
	ctx := context.Background()
	for i := range 100 {
		if err := s.Update(ctx, func(tx *Tx) error { return tx.PutJSON(Path{"x"}, SeqKey(uint64(i)), i) }); err != nil {
			t.Fatalf("Update %d beside a busy reader process = %v", i, err)
		}
		if err := s.View(ctx, func(*Tx) error { return nil }); err != nil {
			t.Fatalf("View %d beside a busy reader process = %v", i, err)
		}
	}
	stdin.Close()
	if !out.Scan() {
		t.Fatalf("reader ended without a count: %s", cmd.Stderr)
	}
	var views int
	if _, err := fmt.Sscanf(out.Text(), "views %d", &views); err != nil || views == 0 {
		t.Errorf("reader reported %q, want a positive view count", out.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("reader: %v\n%s", err, cmd.Stderr)
	}
}

// BenchmarkUpdateSyncContended is BenchmarkUpdateSync while another process commits synced writes
// to the same file back to back: the latency a tool call sees when two editor windows are busy.
func BenchmarkUpdateSyncContended(b *testing.B) {
	s := newStore(b, Options{})
	cmd, stdin, out := child(b, "spinner", childDir+"="+s.Dir())
	expectLine(b, out, "spinning")
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	i := uint64(0)
	for b.Loop() {
		i++
		start := time.Now()
		err := s.Update(ctx, func(tx *Tx) error {
			return tx.PutJSON(Path{"bench"}, SeqKey(i%1000), i)
		})
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		b.Fatalf("spinner: %v\n%s", err, cmd.Stderr)
	}
	reportLatency(b, lat)
}
