package conversation

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"toolhost/internal/owner"
	"toolhost/store"
	"toolhost/store/storetest"
)

// world is several simulated processes sharing one store, with a clock and a set of dead pids.
type world struct {
	t    *testing.T
	st   *store.Store
	now  time.Time
	dead map[int]bool
	proc map[string]*Leases // "p1@/w" -> that process's leases for workdir /w
}

func newWorld(t *testing.T) *world {
	return &world{t: t, st: storetest.Open(t), now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		dead: map[int]bool{}, proc: map[string]*Leases{}}
}

// leases returns process pid's Leases for workdir, creating it.
func (w *world) leases(pid int, workdir string) *Leases {
	key := fmt.Sprintf("p%d@%s", pid, workdir)
	if l, ok := w.proc[key]; ok {
		return l
	}
	l, err := New(w.st, Options{Workdir: workdir, Base: "wd-base",
		Self:  owner.ID{PID: pid, Start: uint64(pid) * 10, Boot: "abcdef01"},
		Alive: func(id owner.ID) bool { return !w.dead[id.PID] },
		Now:   func() time.Time { w.now = w.now.Add(time.Second); return w.now },
	})
	if err != nil {
		w.t.Fatal(err)
	}
	w.proc[key] = l
	return l
}

// step is one action of a scenario: "acquire P WORKDIR PRINCIPAL" and "next P WORKDIR
// PRINCIPAL" (the result is checked against want), "release P WORKDIR CONV", "kill P", "close P WORKDIR".
type step struct {
	do, want string
}

func TestLeases(t *testing.T) {
	pAlice := "wd-base-p" + hashOf("alice")
	tests := []struct {
		name  string
		steps []step
	}{
		{"first session takes the base", []step{
			{"acquire 1 /w stdio", "wd-base"},
		}},
		{"concurrent sessions stay apart", []step{
			{"acquire 1 /w stdio", "wd-base"},
			{"acquire 2 /w stdio", "wd-base-2"},
			{"acquire 1 /w stdio", "wd-base-3"}, // a second session of the same process
		}},
		{"a restart resumes the released conversation", []step{
			{"next 1 /w stdio", "wd-base"},
			{"acquire 1 /w stdio", "wd-base"},
			{"next 1 /w stdio", "wd-base-2"},
			{"release 1 /w wd-base", ""},
			{"next 3 /w stdio", "wd-base"},
			{"next 3 /w stdio", "wd-base"}, // Next takes nothing
			{"acquire 2 /w stdio", "wd-base"},
		}},
		{"the most recently released is taken first", []step{
			{"acquire 1 /w stdio", "wd-base"},
			{"acquire 2 /w stdio", "wd-base-2"},
			{"release 1 /w wd-base", ""},
			{"release 2 /w wd-base-2", ""},
			{"acquire 3 /w stdio", "wd-base-2"},
			{"acquire 4 /w stdio", "wd-base"},
			{"acquire 5 /w stdio", "wd-base-3"},
		}},
		{"a dead holder's lease is free", []step{
			{"acquire 1 /w stdio", "wd-base"},
			{"kill 1", ""},
			{"acquire 2 /w stdio", "wd-base"},
		}},
		{"a live holder in another process keeps its lease", []step{
			{"acquire 1 /w stdio", "wd-base"},
			{"acquire 2 /w stdio", "wd-base-2"},
		}},
		{"a release by a holder that was taken over changes nothing", []step{
			{"acquire 1 /w stdio", "wd-base"},
			{"kill 1", ""},
			{"acquire 2 /w stdio", "wd-base"},
			{"release 1 /w wd-base", ""},
			{"acquire 3 /w stdio", "wd-base-2"},
		}},
		{"releasing a conversation never held does nothing", []step{
			{"acquire 1 /w stdio", "wd-base"},
			{"release 2 /w wd-base", ""},
			{"acquire 3 /w stdio", "wd-base-2"},
		}},
		{"principals never share", []step{
			{"acquire 1 /w stdio", "wd-base"},
			{"release 1 /w wd-base", ""},
			{"acquire 2 /w alice", pAlice},
			{"release 2 /w " + pAlice, ""},
			{"acquire 3 /w bob", "wd-base-p" + hashOf("bob")},
			{"acquire 4 /w stdio", "wd-base"},
			{"acquire 5 /w alice", pAlice},
		}},
		{"working directories never share", []step{
			{"acquire 1 /w stdio", "wd-base"},
			{"release 1 /w wd-base", ""},
			{"acquire 2 /other stdio", "wd-base-2"},
		}},
		{"close releases everything the process holds", []step{
			{"acquire 1 /w stdio", "wd-base"},
			{"acquire 1 /w stdio", "wd-base-2"},
			{"close 1 /w", ""},
			{"acquire 2 /w stdio", "wd-base-2"},
			{"acquire 2 /w stdio", "wd-base"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			ctx := context.Background()
			for i, s := range tt.steps {
				f := strings.Fields(s.do)
				var pid int
				fmt.Sscan(f[1], &pid)
				switch f[0] {
				case "acquire":
					got, err := w.leases(pid, f[2]).Acquire(ctx, f[3], "")
					if err != nil || got != s.want {
						t.Fatalf("step %d %q: Acquire = %q, %v; want %q", i, s.do, got, err, s.want)
					}
				case "next":
					got, err := w.leases(pid, f[2]).Next(ctx, f[3])
					if err != nil || got != s.want {
						t.Fatalf("step %d %q: Next = %q, %v; want %q", i, s.do, got, err, s.want)
					}
				case "release":
					if err := w.leases(pid, f[2]).Release(ctx, f[3]); err != nil {
						t.Fatalf("step %d %q: %v", i, s.do, err)
					}
				case "close":
					if err := w.leases(pid, f[2]).Close(ctx); err != nil {
						t.Fatalf("step %d %q: %v", i, s.do, err)
					}
				case "kill":
					w.dead[pid] = true
				}
			}
		})
	}
}

func hashOf(principal string) string {
	l := &Leases{o: Options{Base: "x"}}
	return strings.TrimPrefix(l.principalBase(principal), "x-p")
}

// TestLeasesConcurrent: sessions opened at the same time by several processes each get their
// own conversation.
func TestLeasesConcurrent(t *testing.T) {
	w := newWorld(t)
	const n = 8
	ls := make([]*Leases, n)
	for i := range ls {
		ls[i] = w.leases(i+1, "/w")
		ls[i].o.Now = time.Now // the shared test clock is not safe for concurrent use
	}
	var wg sync.WaitGroup
	got := make([]string, n)
	for i := range n {
		wg.Go(func() {
			c, err := ls[i].Acquire(context.Background(), "", "")
			if err != nil {
				t.Error(err)
			}
			got[i] = c
		})
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, c := range got {
		if seen[c] {
			t.Errorf("conversation %s leased twice: %v", c, got)
		}
		seen[c] = true
	}
}

func TestSharedIsApartFromLeased(t *testing.T) {
	w := newWorld(t)
	l := w.leases(1, "/w")
	for _, p := range []string{"", "stdio", "alice"} {
		shared := l.Shared(p)
		for range 3 {
			c, err := l.Acquire(context.Background(), p, "")
			if err != nil || c == shared {
				t.Errorf("Acquire(%q) = %q, %v; want a conversation other than the stateless %q", p, c, err, shared)
			}
		}
	}
	if l.Shared("alice") == l.Shared("bob") || l.Shared("") != l.Shared(LocalPrincipal) {
		t.Errorf("Shared: alice %q bob %q local %q", l.Shared("alice"), l.Shared("bob"), l.Shared(""))
	}
}

func TestNewRefusesBadBase(t *testing.T) {
	st := storetest.Open(t)
	for _, base := range []string{"", "..", "a/b", "a b", strings.Repeat("x", 101)} {
		if _, err := New(st, Options{Workdir: "/w", Base: base}); err == nil {
			t.Errorf("New(base %q) = nil error, want ErrBadBase", base)
		}
	}
}

func TestList(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	l1, l2 := w.leases(1, "/w"), w.leases(2, "/w")
	a, _ := l1.Acquire(ctx, "", "sess-a")
	b, _ := l2.Acquire(ctx, "", "")
	l2.Release(ctx, b)
	list, err := l1.List(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("List = %v, %v", list, err)
	}
	if list[0].Conversation != a || !list[0].Held || list[0].Session != "sess-a" {
		t.Errorf("held lease = %+v", list[0])
	}
	if list[1].Conversation != b || list[1].Held || list[1].Released.IsZero() {
		t.Errorf("released lease = %+v", list[1])
	}
}

// TestLeasesKeptForTheirSession: an HTTP session resumed under its id takes back the
// conversation it released; one closed for the session limit (Keep) keeps it from new
// sessions until its client returns, or for keepFor, then it goes to the next session as any.
func TestLeasesKeptForTheirSession(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	l := w.leases(1, "/w")
	acquire := func(session string) string {
		t.Helper()
		conv, err := l.Acquire(ctx, "tok", session)
		if err != nil {
			t.Fatal(err)
		}
		return conv
	}
	release := func(conv string) {
		t.Helper()
		if err := l.Release(ctx, conv); err != nil {
			t.Fatal(err)
		}
	}
	a := acquire("A")
	b := acquire("B")
	release(a)
	release(b) // b is the most recently released
	if got := acquire("A"); got != a {
		t.Errorf("session A resumed takes %s, want its own %s", got, a)
	}
	// Closed for the limit: a new session C does not take A's conversation.
	l.Keep("A")
	release(a)
	c := acquire("C")
	if c == a {
		t.Errorf("a new session took %s, kept for session A", a)
	}
	if got := acquire("A"); got != a {
		t.Errorf("session A back takes %s, want its kept %s", got, a)
	}
	// Kept, and A never comes back: after keepFor it is free for anyone.
	l.Keep("A")
	release(a)
	if got := acquire("D"); got == a {
		t.Errorf("session D took %s within keepFor", a)
	}
	w.now = w.now.Add(keepFor)
	if got := acquire("E"); got != a {
		t.Errorf("after keepFor session E takes %s, want the kept %s", got, a)
	}
}
