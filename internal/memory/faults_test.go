package memory

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"toolhost/internal/embed"
	"toolhost/store"
	"toolhost/store/storetest"
)

// Faults across processes: real toolhost-like processes (this test binary in a child mode, see
// TestMain) on one state directory.

const (
	faultWorkers = 4
	faultNotes   = 60 // unique notes per worker
	faultEvery   = 5  // a worker updates its own counter and the shared train every faultEvery notes
)

func workerNote(w, i int) string {
	return fmt.Sprintf("Shard w%dn%d drains the billing queue at %02d:%02d UTC.", w, i, i%24, (7*w)%60)
}
func workerCounter(w, v int) string {
	return fmt.Sprintf("The build counter of pipeline-w%d is %d.", w, v)
}
func sharedTrain(v int) string { return fmt.Sprintf("The shared release train is at version %d.", v) }

// runWorker is one concurrent writer: unique notes, its own counter updated as newer versions,
// and the shared release train that every worker updates.
func runWorker(spec string) error {
	parts := strings.Split(spec, ",")
	if len(parts) != 3 {
		return fmt.Errorf("bad spec %q", spec)
	}
	w, _ := strconv.Atoi(parts[1])
	n, _ := strconv.Atoi(parts[2])
	ctx := context.Background()
	st, err := store.Open(ctx, parts[0], store.Options{NoSync: true})
	if err != nil {
		return err
	}
	defer st.Close()
	s := New(st, Config{Embedder: embed.NewLexical(embed.DefaultLexicalDim)})
	for i := range n {
		if _, err := s.Store(ctx, StoreRequest{Conversation: fmt.Sprintf("w%d", w), Scope: "topic:faults", Content: workerNote(w, i)}); err != nil {
			return err
		}
		if i%faultEvery == faultEvery-1 {
			v := i / faultEvery
			if _, err := s.Store(ctx, StoreRequest{Conversation: fmt.Sprintf("w%d", w), Scope: "topic:faults", Content: workerCounter(w, v)}); err != nil {
				return err
			}
			if _, err := s.Store(ctx, StoreRequest{Conversation: fmt.Sprintf("w%d", w), Scope: "topic:faults", Content: sharedTrain(1000*w + v)}); err != nil {
				return err
			}
		}
	}
	return nil
}

// TestConcurrentWriters: four processes store and update memories at once. Nothing is lost,
// every fact has exactly one current version (the shared one is never forked), and a search
// never answers with a superseded version.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	var cmds []*exec.Cmd
	for w := range faultWorkers {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%d", workerEnv, st.Dir(), w, faultNotes))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	// Meanwhile this process searches: every answer must be a current version.
	s := New(st, Config{Embedder: embed.NewLexical(embed.DefaultLexicalDim)})
	done := make(chan error, faultWorkers)
	for _, c := range cmds {
		go func() { done <- c.Wait() }()
	}
	searches := 0
	for running := faultWorkers; running > 0; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("worker: %v", err)
			}
			running--
		default:
			hits := mustSearch(t, s, SearchRequest{Conversation: "p", Query: "shared release train version", Scopes: []string{"faults"}, Limit: 5, Threshold: f32(-1)})
			for _, h := range hits {
				if h.SupersededBy != 0 {
					t.Errorf("search answered with superseded memory %d", h.ID)
				}
			}
			searches++
		}
	}
	t.Logf("%d searches while the writers ran", searches)

	// Nothing lost: every note is there, current, and found by its shard.
	var all []record
	if err := st.View(ctx, func(tx *store.Tx) error {
		return tx.ForEach(itemsPath, func(_ string, v []byte) error {
			var r record
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			all = append(all, r)
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	byText := map[string][]record{}
	for _, r := range all {
		byText[r.Content] = append(byText[r.Content], r)
	}
	for w := range faultWorkers {
		for i := range faultNotes {
			rs := byText[workerNote(w, i)]
			if len(rs) != 1 || rs[0].SupersededBy != 0 {
				t.Fatalf("note w%d/%d: %d records %+v, want one current", w, i, len(rs), rs)
			}
			hits := mustSearch(t, s, SearchRequest{Conversation: "p", Query: fmt.Sprintf("shard w%dn%d", w, i), Scopes: []string{"faults"}, Limit: 1})
			if len(hits) == 0 || hits[0].ID != rs[0].ID {
				t.Errorf("Search(shard w%dn%d) = %v, want %d", w, i, hitIDs(hits), rs[0].ID)
			}
		}
		// Each counter: one chain, its current version the last value written.
		last := faultNotes/faultEvery - 1
		head := byText[workerCounter(w, last)]
		if len(head) != 1 || head[0].SupersededBy != 0 {
			t.Fatalf("counter of w%d: current %+v, want the last value %d", w, head, last)
		}
		m, err := s.Get(ctx, "p", head[0].ID)
		if err != nil || len(m.Versions) != last+1 {
			t.Errorf("counter of w%d: versions %v (%v), want %d", w, m.Versions, err, last+1)
		}
	}
	// The shared train: every version written by anyone, in one chain, one current.
	var current []record
	trains := 0
	for _, r := range all {
		if strings.HasPrefix(r.Content, "The shared release train") {
			trains++
			if r.SupersededBy == 0 {
				current = append(current, r)
			}
		}
	}
	if want := faultWorkers * faultNotes / faultEvery; trains != want || len(current) != 1 {
		t.Fatalf("shared train: %d versions (want %d), %d current (want 1): forked", trains, want, len(current))
	}
	if m, _ := s.Get(ctx, "p", current[0].ID); len(m.Versions) != trains {
		t.Errorf("shared train chain has %d versions, want all %d", len(m.Versions), trains)
	}
	hits := mustSearch(t, s, SearchRequest{Conversation: "p", Query: "shared release train version", Scopes: []string{"faults"}, Limit: 5})
	if len(hits) == 0 || hits[0].ID != current[0].ID {
		t.Errorf("Search(shared train) = %v, want the current %d first", hitIDs(hits), current[0].ID)
	}
	for _, h := range hits {
		if strings.HasPrefix(h.Content, "The shared release train") && h.ID != current[0].ID {
			t.Errorf("Search returned superseded train %d", h.ID)
		}
	}
}

// slowEmbedder is an embedder of another space that takes its time, so that a re-embedding can
// be killed part way.
type slowEmbedder struct{ *embed.Lexical }

func (e slowEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	time.Sleep(40 * time.Millisecond)
	return e.Lexical.Embed(ctx, texts)
}

func runReembedChild(dir string) error {
	ctx := context.Background()
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()
	s := New(st, Config{Embedder: slowEmbedder{embed.NewLexical(256)}})
	return s.Reembed(ctx, func(done, total int) {
		fmt.Printf("progress %d %d\n", done, total)
		os.Stdout.Sync()
	})
}

// TestReembedKilled: a re-embedding into a new embedder's space is killed with SIGKILL part way;
// the next run resumes where it stopped, and every memory is searchable in the new space.
func TestReembedKilled(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const n = 500
	func() {
		st, err := store.Open(ctx, dir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		old := New(st, Config{Embedder: embed.NewLexical(embed.DefaultLexicalDim)})
		for i := range n {
			mustStore(t, old, StoreRequest{Conversation: "c", Scope: "topic:kb", Content: fmt.Sprintf("Runbook entry rb%04d: restart the worker pool of queue q%d.", i, i)})
		}
	}()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), reembedEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	lines := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "progress ") {
			lines++
		}
		if lines == 3 {
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child ended with %v, want killed by SIGKILL part way (after %d progress lines)", err, lines)
	}

	st := storetest.OpenDir(t, dir)
	s := New(st, Config{Embedder: embed.NewLexical(256)})
	_, err = s.Search(ctx, SearchRequest{Conversation: "c", Query: "restart", Scopes: []string{"kb"}})
	var ec *EmbedderChangedError
	if !errors.As(err, &ec) || ec.Stale <= 0 || ec.Stale >= n {
		t.Fatalf("after the kill, Search error = %v, want a partial re-embedding (0 < stale < %d)", err, n)
	}
	t.Logf("killed with %d of %d memories left to re-embed", ec.Stale, n)
	var total int
	if err := s.Reembed(ctx, func(_, t int) { total = t }); err != nil {
		t.Fatal(err)
	}
	if total != ec.Stale {
		t.Errorf("the resumed run re-embedded %d memories, want the %d left", total, ec.Stale)
	}
	cols, err := s.Collections(ctx, "c")
	if err != nil || len(cols) != 1 || cols[0].Count != n || cols[0].Stale != 0 {
		t.Fatalf("Collections = %+v, %v; want %d memories, none stale", cols, err, n)
	}
	for i := range n {
		hits := mustSearch(t, s, SearchRequest{Conversation: "c", Query: fmt.Sprintf("runbook entry rb%04d", i), Scopes: []string{"kb"}, Limit: 1})
		if len(hits) == 0 || !strings.Contains(hits[0].Content, fmt.Sprintf("rb%04d:", i)) {
			t.Fatalf("Search(rb%04d) = %+v, want that entry first", i, hits)
		}
	}
}

// TestFirstVersionsRace: another process stores a fact's first version after this process's
// index caught up but before its own write; the second version chains to it instead of
// forking the fact (the window TestConcurrentWriters hits only under load).
func TestFirstVersionsRace(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	cfg := Config{Embedder: embed.NewLexical(embed.DefaultLexicalDim)}
	a, b := New(st, cfg), New(st, cfg)
	// Both indexes are built before either writes.
	mustSearch(t, a, SearchRequest{Conversation: "p", Query: "release train", Scopes: []string{"faults"}})
	mustSearch(t, b, SearchRequest{Conversation: "p", Query: "release train", Scopes: []string{"faults"}})
	var first StoreResult
	a.beforeWrite = func() {
		a.beforeWrite = nil
		var err error
		if first, err = b.Store(ctx, StoreRequest{Conversation: "b", Scope: "topic:faults", Content: sharedTrain(1)}); err != nil {
			t.Fatal(err)
		}
	}
	second, err := a.Store(ctx, StoreRequest{Conversation: "a", Scope: "topic:faults", Content: sharedTrain(2)})
	if err != nil {
		t.Fatal(err)
	}
	m, err := a.Get(ctx, "p", second.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Versions) != 2 || first.ID == 0 || second.ID == first.ID {
		t.Fatalf("second version %d of %d: versions %v, want a chain of two", second.ID, first.ID, m.Versions)
	}
	hits := mustSearch(t, b, SearchRequest{Conversation: "p", Query: "shared release train version", Scopes: []string{"faults"}, Limit: 5})
	if len(hits) != 1 || hits[0].ID != second.ID {
		t.Errorf("search after the race = %v, want only the current %d", hitIDs(hits), second.ID)
	}
}
