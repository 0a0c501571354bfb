package reminders

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"toolhost/internal/golden"
	"toolhost/internal/todo"
	"toolhost/store"
	"toolhost/store/storetest"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// tenSteps is the ten-step task the done-criterion talks about, part way through.
func tenSteps(done int, inProgress bool) todo.List {
	titles := []string{"Read the config loader", "Write a failing test for nested tables", "Fix nested table parsing",
		"Handle inline arrays", "Add error positions", "Update the parser docs", "Run the full test suite",
		"Benchmark the parser", "Update the changelog", "Open the pull request"}
	l := todo.List{Version: uint64(done + 1)}
	for i, title := range titles {
		t := todo.Todo{ID: i + 1, Title: title, Status: todo.StatusNotStarted}
		if i > 0 {
			t.Dependencies = []int{i}
		}
		switch {
		case i < done:
			t.Status = todo.StatusCompleted
		case i == done && inProgress:
			t.Status, t.Progress = todo.StatusInProgress, 0.4
		}
		l.Todos = append(l.Todos, t)
	}
	return l
}

func notes(n int) []MemoryNote {
	var out []MemoryNote
	for i := range n {
		out = append(out, MemoryNote{ID: fmt.Sprint(i), Collection: "project", StoredAt: t0.Add(time.Duration(i) * time.Second),
			Text: fmt.Sprintf("Fact %d: the build uses go test -race and the parser lives in internal/parse.", i+1)})
	}
	return out
}

type variant struct {
	name  string
	list  todo.List
	notes []MemoryNote
	cfg   Config
}

func variants() []variant {
	blocked := tenSteps(2, false)
	blocked.Todos[2].Status, blocked.Todos[2].BlockedReason = todo.StatusBlocked, "waiting for the user to grant access to ../vendor"
	long := todo.List{}
	for i := range 40 {
		long.Todos = append(long.Todos, todo.Todo{ID: i + 1, Status: todo.StatusNotStarted,
			Title: fmt.Sprintf("Migrate handler number %d to the new routing table and update its tests", i+1)})
	}
	long.Todos[0].Status = todo.StatusInProgress
	capped := DefaultConfig()
	capped.MaxTokens = 120
	return []variant{
		{"empty", todo.List{}, nil, DefaultConfig()},
		{"in_progress", tenSteps(3, true), nil, DefaultConfig()},
		{"none_in_progress", tenSteps(3, false), nil, DefaultConfig()},
		{"all_done", tenSteps(10, false), nil, DefaultConfig()},
		{"blocked", blocked, nil, DefaultConfig()},
		{"capped", long, nil, capped},
		{"with_memory", tenSteps(3, true), notes(2), DefaultConfig()},
		{"memory_only", todo.List{}, notes(7), DefaultConfig()},
		{"subtasks", subtaskPlan(), nil, DefaultConfig()},
	}
}

// subtaskPlan is a plan of 8 todos with 4 subtasks each, the first subtask of each with 2 of
// its own (56 todos, three levels), worked on in the third todo's first subtask's second
// subtask: the reminder names that, its open siblings first, and the rest collapsed.
func subtaskPlan() todo.List {
	l := todo.List{Version: 9}
	id := 0
	add := func(parent int, title string, st todo.Status) int {
		id++
		l.Todos = append(l.Todos, todo.Todo{ID: id, Parent: parent, Title: title, Status: st})
		return id
	}
	for i := range 8 {
		top := add(0, fmt.Sprintf("Port service %d to the new storage layer", i+1), todo.StatusNotStarted)
		for j := range 4 {
			st := todo.StatusNotStarted
			if i < 2 {
				st = todo.StatusCompleted
			}
			mid := add(top, fmt.Sprintf("Move table %d of service %d and its migrations", j+1, i+1), st)
			if j == 0 {
				for k := range 2 {
					leaf := st
					if i == 2 && k == 0 {
						leaf = todo.StatusCompleted
					}
					if i == 2 && k == 1 {
						leaf = todo.StatusInProgress
					}
					add(mid, fmt.Sprintf("Rewrite query %d of table %d", k+1, j+1), leaf)
				}
			}
		}
	}
	l, err := todo.ApplyWrite(todo.List{Version: 8}, l.Todos, t0)
	if err != nil {
		panic(err)
	}
	return l
}

// TestSubtasksWithinBudget: a three-level plan of 56 todos stays within the default cap.
func TestSubtasksWithinBudget(t *testing.T) {
	got := Build(subtaskPlan(), notes(2), DefaultConfig())
	if est := EstimateTokens(got); est > DefaultMaxTokens {
		t.Errorf("Build(subtasks) = %d estimated tokens, over %d:\n%s", est, DefaultMaxTokens, got)
	}
	for _, want := range []string{"In progress: 18. Rewrite query 2 of table 1 in 16. Move table 1 of service 3", "Next: 19. Move table 2 of service 3", "(+5 more)"} {
		if !strings.Contains(got, want) {
			t.Errorf("Build(subtasks) lacks %q:\n%s", want, got)
		}
	}
}

// Every reminder variant is pinned, and sizes.golden records what each costs: bytes, the
// estimate used for capping, and real o200k_base and cl100k_base token counts.
func TestGolden(t *testing.T) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	o200k, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	cl100k, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	var sizes strings.Builder
	fmt.Fprintf(&sizes, "%-18s %6s %9s %6s %7s\n", "variant", "bytes", "estimate", "o200k", "cl100k")
	for _, v := range variants() {
		got := Build(v.list, v.notes, v.cfg)
		golden.CheckString(t, "testdata/"+v.name+".golden", got+"\n")
		est := EstimateTokens(got)
		o, c := len(o200k.Encode(got, nil, nil)), len(cl100k.Encode(got, nil, nil))
		fmt.Fprintf(&sizes, "%-18s %6d %9d %6d %7d\n", v.name, len(got), est, o, c)
		if est < o || est < c {
			t.Errorf("%s: estimate %d below real count (o200k %d, cl100k %d); the cap would not hold", v.name, est, o, c)
		}
	}
	golden.CheckString(t, "testdata/sizes.golden", sizes.String())
}

func TestTokenCap(t *testing.T) {
	long := variants()[5].list
	for _, max := range []int{60, 100, 150, 200, 300, 1000} {
		t.Run(fmt.Sprint(max), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.MaxTokens = max
			got := Build(long, notes(3), cfg)
			if !strings.Contains(got, rulesLine) {
				t.Errorf("Build(cap %d) lost the rules:\n%s", max, got)
			}
			// The floor is the rules plus one short line per part; above it the cap holds.
			if est := EstimateTokens(got); est > max && max >= 150 {
				t.Errorf("Build(cap %d) = %d estimated tokens:\n%s", max, est, got)
			}
			if !strings.Contains(got, "more)") && !strings.Contains(got, "not-started (see") {
				t.Errorf("Build(cap %d) hides items without saying so:\n%s", max, got)
			}
		})
	}
	uncapped := DefaultConfig()
	uncapped.MaxTokens = -1
	if got := Build(long, nil, uncapped); !strings.Contains(got, "(+36 more)") {
		t.Errorf("Build(no cap) should show the configured 3 next items and count the rest:\n%s", got)
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{{"", 0}, {"abc", 1}, {"abcd", 2}, {"abcdefg", 2}, {"héllo", 3}, {"日本語", 3}}
	for _, tt := range tests {
		if got := EstimateTokens(tt.in); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// staticMemories is a MemorySource over a fixed slice, standing in for the memory feature.
type staticMemories struct{ notes []MemoryNote }

// RecentBucket is nil: the notes are not in the store, so the Builder asks for them every time.
func (s *staticMemories) RecentBucket(string) store.Path { return nil }

func (s *staticMemories) RecentMemories(_ context.Context, _ string, since time.Time) ([]MemoryNote, error) {
	var out []MemoryNote
	for _, n := range s.notes {
		if !n.StoredAt.Before(since) {
			out = append(out, n)
		}
	}
	return out, nil
}

// step is one call in a cadence script: an optional change, then Next (on the second builder if
// other), and whether it delivers.
type step struct {
	name  string
	do    func(t *testing.T)
	want  bool
	other bool
}

func TestCadence(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	const conv = "c"
	mem := &staticMemories{}
	cfg := DefaultConfig()
	cfg.EveryNCalls = 3
	// Two builders on two store handles: what one delivered, the other does not repeat, as with two
	// toolhost processes taking turns on a conversation. The count of quiet calls is each builder's
	// own (a conversation is leased by one session at a time).
	b1, b2 := New(storetest.OpenDir(t, dir), cfg, mem), New(storetest.OpenDir(t, dir), cfg, mem)
	b1.now = func() time.Time { return t0 }
	b2.now = b1.now
	st := storetest.OpenDir(t, dir)
	change := func(fn func() error) func(t *testing.T) {
		return func(t *testing.T) {
			if err := fn(); err != nil {
				t.Fatal(err)
			}
		}
	}
	steps := []step{
		{"empty list says nothing", nil, false, false},
		{"new list", change(func() error { _, err := todo.Write(ctx, st, conv, tenSteps(0, true).Todos); return err }), true, false},
		{"unchanged 1", nil, false, false},
		{"unchanged 2", nil, false, false},
		{"unchanged 3", nil, false, false},
		{"after 3 calls without one", nil, true, false},
		{"unchanged again", nil, false, true},
		{"progress changed", change(func() error {
			_, err := todo.Update(ctx, st, conv, []todo.Patch{{ID: 1, Progress: new(0.5)}})
			return err
		}), true, true},
		{"description edit is not shown, so not a change", change(func() error {
			_, err := todo.Update(ctx, st, conv, []todo.Patch{{ID: 5, Description: new("more detail")}})
			return err
		}), false, false},
		{"memory stored", change(func() error { mem.notes = notes(1); return nil }), true, false},
		{"same memory again", nil, false, true},
		{"todo_operations result marks it seen", change(func() error {
			if _, err := todo.Update(ctx, st, conv, []todo.Patch{{ID: 1, Status: new(todo.StatusCompleted)}}); err != nil {
				return err
			}
			return b1.MarkDelivered(ctx, conv)
		}), false, true},
	}
	for _, s := range steps {
		if s.do != nil {
			s.do(t)
		}
		b := b1
		if s.other {
			b = b2
		}
		block, ok, err := b.Next(ctx, conv)
		if err != nil {
			t.Fatalf("step %q: Next() error: %v", s.name, err)
		}
		if ok != s.want || (block != "") != ok {
			t.Errorf("step %q: Next() = %v, %q; want delivered %v", s.name, ok, block, s.want)
		}
	}
}

func TestDisabledAndNeverPeriodic(t *testing.T) {
	ctx := t.Context()
	st := storetest.OpenDir(t, t.TempDir())
	if _, err := todo.Write(ctx, st, "c", tenSteps(1, true).Todos); err != nil {
		t.Fatal(err)
	}
	off := New(st, Config{}, nil)
	if block, ok, err := off.Next(ctx, "c"); ok || err != nil || block != "" {
		t.Errorf("Next() with reminders off = %q, %v, %v; want nothing", block, ok, err)
	}
	if block, err := off.For(ctx, "c"); err != nil || !strings.HasPrefix(block, "<system-reminder>") {
		t.Errorf("For() with reminders off = %q, %v; want the block (an explicit request)", block, err)
	}
	cfg := DefaultConfig()
	cfg.EveryNCalls = -1
	onChange := New(st, cfg, nil)
	delivered := 0
	for range 25 {
		if _, ok, err := onChange.Next(ctx, "c"); err != nil {
			t.Fatal(err)
		} else if ok {
			delivered++
		}
	}
	if delivered != 1 {
		t.Errorf("EveryNCalls -1: %d deliveries in 25 unchanged calls, want 1", delivered)
	}
}

func TestFor(t *testing.T) {
	ctx := t.Context()
	st := storetest.OpenDir(t, t.TempDir())
	l, err := todo.Write(ctx, st, "c", tenSteps(3, true).Todos)
	if err != nil {
		t.Fatal(err)
	}
	got, err := For(ctx, st, "c")
	if err != nil {
		t.Fatal(err)
	}
	if want := Build(l, nil, DefaultConfig()); got != want {
		t.Errorf("For() = %q, want %q", got, want)
	}
	// For does not consume the cadence.
	b := New(st, DefaultConfig(), nil)
	if _, ok, _ := b.Next(ctx, "c"); !ok {
		t.Errorf("Next() after For() did not deliver the first reminder")
	}
	if _, err := For(ctx, st, ""); err == nil {
		t.Errorf("For(empty conversation) succeeded")
	}
}

// BenchmarkNext is the per-tool-result cost of the cadence with a synced store: one bookkeeping
// transaction for a conversation that has a todo list.
func BenchmarkNext(b *testing.B) {
	ctx := b.Context()
	st := storetest.OpenWith(b, b.TempDir(), store.Options{})
	if _, err := todo.Write(ctx, st, "c", tenSteps(3, true).Todos); err != nil {
		b.Fatal(err)
	}
	bl := New(st, DefaultConfig(), nil)
	for b.Loop() {
		if _, _, err := bl.Next(ctx, "c"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNextNoTodos is the cost for a conversation without todos: a read-only transaction.
func BenchmarkNextNoTodos(b *testing.B) {
	ctx := b.Context()
	st := storetest.OpenWith(b, b.TempDir(), store.Options{})
	bl := New(st, DefaultConfig(), nil)
	for b.Loop() {
		if _, _, err := bl.Next(ctx, "c"); err != nil {
			b.Fatal(err)
		}
	}
}

// storedMemories is a MemorySource that keeps its notes in the store, one bucket per
// conversation, as the memory feature does: the Builder may keep them while the bucket's stamp
// holds.
type storedMemories struct{ st *store.Store }

func (s *storedMemories) RecentBucket(conv string) store.Path { return store.Path{"notes", conv} }

func (s *storedMemories) RecentMemories(ctx context.Context, conv string, since time.Time) ([]MemoryNote, error) {
	var out []MemoryNote
	err := s.st.View(ctx, func(tx *store.Tx) error {
		return tx.ForEach(s.RecentBucket(conv), func(_ string, v []byte) error {
			var n MemoryNote
			if err := json.Unmarshal(v, &n); err != nil {
				return err
			}
			if !n.StoredAt.Before(since) {
				out = append(out, n)
			}
			return nil
		})
	})
	return out, err
}

func storeNote(ctx context.Context, st *store.Store, conv string, n MemoryNote) error {
	return st.Update(ctx, func(tx *store.Tx) error {
		return tx.PutJSON(store.Path{"notes", conv}, n.ID, n)
	})
}

// TestQuietCheckReadsNothing: once the reminder check has read a conversation's list, state and
// notes, a quiet call answers from memory. It is asked while another process (a second Store on
// the directory) holds the file lock in a write transaction, under a lock timeout far shorter
// than that transaction: a check that read would fail with ErrBusy.
func TestQuietCheckReadsNothing(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	st := storetest.OpenWith(t, dir, store.Options{NoSync: true, LockTimeout: 50 * time.Millisecond})
	other := storetest.OpenDir(t, dir)
	if _, err := todo.Write(ctx, st, "c", tenSteps(2, true).Todos); err != nil {
		t.Fatal(err)
	}
	b := New(st, DefaultConfig(), &storedMemories{st})
	b.now = func() time.Time { return t0 }
	if _, ok, err := b.Next(ctx, "c"); err != nil || !ok {
		t.Fatalf("first Next() = %v, %v; want a reminder", ok, err)
	}
	if _, ok, err := b.Next(ctx, "c"); err != nil || ok {
		t.Fatalf("second Next() = %v, %v; want a quiet call", ok, err)
	}
	held := errors.New("held")
	err := other.Update(ctx, func(tx *store.Tx) error {
		if err := tx.Put(store.Path{"elsewhere"}, "k", []byte("v")); err != nil {
			return err
		}
		for i := range 3 {
			if _, ok, err := b.Next(ctx, "c"); err != nil || ok {
				return fmt.Errorf("quiet Next() %d while the file is locked = %v, %w", i, ok, err)
			}
		}
		if err := b.MarkDelivered(ctx, "c"); err != nil {
			return fmt.Errorf("MarkDelivered() of a seen list while the file is locked = %w", err)
		}
		return held // roll back: nothing changed, so the stamp must hold afterwards too
	})
	if !errors.Is(err, held) {
		t.Fatal(err)
	}
}

// TestCheckSeesChanges: whatever changes the list, the delivery state or the notes — this
// process or another, or only the clock moving notes out of the window — the next check sees it.
func TestCheckSeesChanges(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	st, other := storetest.OpenDir(t, dir), storetest.OpenDir(t, dir)
	now := t0
	b := New(st, DefaultConfig(), &storedMemories{st})
	b.now = func() time.Time { return now }
	// A second builder in another process, which shares the delivery state.
	b2 := New(other, DefaultConfig(), &storedMemories{other})
	b2.now = b.now
	steps := []struct {
		name string
		do   func() error
		want bool // Next delivers
	}{
		{"no list", nil, false},
		{"list written here", func() error { _, err := todo.Write(ctx, st, "c", tenSteps(1, true).Todos); return err }, true},
		{"quiet", nil, false},
		{"list changed by another process", func() error {
			_, err := todo.Update(ctx, other, "c", []todo.Patch{{ID: 2, Progress: new(0.5)}})
			return err
		}, true},
		{"quiet again", nil, false},
		{"note stored here", func() error { return storeNote(ctx, st, "c", MemoryNote{ID: "1", Text: "a fact", StoredAt: now}) }, true},
		{"note stored by another process", func() error {
			return storeNote(ctx, other, "c", MemoryNote{ID: "2", Text: "another fact", StoredAt: now.Add(time.Second)})
		}, true},
		{"another process delivered the same", func() error {
			_, _, err := b2.Next(ctx, "c")
			return err
		}, false},
		{"note of another conversation", func() error {
			return storeNote(ctx, st, "d", MemoryNote{ID: "3", Text: "elsewhere", StoredAt: now.Add(2 * time.Second)})
		}, false},
	}
	for _, s := range steps {
		if s.do != nil {
			if err := s.do(); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
		}
		block, ok, err := b.Next(ctx, "c")
		if err != nil {
			t.Fatalf("%s: Next() = %v", s.name, err)
		}
		if ok != s.want {
			t.Errorf("%s: Next() delivered %v, want %v:\n%s", s.name, ok, s.want, block)
		}
	}
	// The clock alone moves notes out of the window, with nothing read again.
	if _, notes, err := b.check(ctx, "c"); err != nil || len(notes) != 2 {
		t.Fatalf("check() = %d notes, %v; want the 2 stored", len(notes), err)
	}
	now = now.Add(DefaultMemoryWindow + time.Second/2)
	if _, notes, err := b.check(ctx, "c"); err != nil || len(notes) != 1 || notes[0].ID != "2" {
		t.Errorf("check() half a second after the first note left the window = %v, %v; want note 2 only", notes, err)
	}
	now = now.Add(time.Minute)
	if _, notes, err := b.check(ctx, "c"); err != nil || len(notes) != 0 {
		t.Errorf("check() after the window passed = %v, %v; want no notes", notes, err)
	}
}
