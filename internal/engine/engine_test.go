package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/internal/owner"
	"toolhost/store"
	"toolhost/store/storetest"
)

var admin = authz.Principal{Name: "stdio", Tier: authz.TierAdmin}

func openEngine(t testing.TB, dir string, o Options) *Engine {
	t.Helper()
	o.StateDir = dir
	if o.Store == nil {
		o.Store = storetest.OpenWith(t, dir, store.Options{NoSync: true})
	}
	e, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func call(e *Engine, tool, op, principal string, st Status, dur time.Duration) Record {
	_, x := e.Begin(context.Background(), Start{Tool: tool, Operation: op, Category: authz.CategorySafe, Principal: principal, Conversation: "c1",
		Args: json.RawMessage(`{"operation":"` + op + `"}`)})
	if dur > 0 {
		time.Sleep(dur)
	}
	return x.Finish(Outcome{Status: st, ResultBytes: 10})
}

func TestRecordAndQuery(t *testing.T) {
	e := openEngine(t, t.TempDir(), Options{})
	ctx := context.Background()
	ok := call(e, "file_operations", "read_file", "stdio", StatusSuccess, 0)
	call(e, "file_operations", "create_file", "alice", StatusDenied, 0)
	call(e, "terminal_operations", "run_command", "alice", StatusFailed, 0)
	if err := e.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := e.Get(ctx, admin, ok.ID)
	if err != nil || got.Status != StatusSuccess || got.Tool != "file_operations" {
		t.Fatalf("Get(%s) = %+v, %v", ok.ID, got, err)
	}
	alice := authz.Principal{Name: "alice", Tier: authz.TierExecuteBasic}
	if _, err := e.Get(ctx, alice, ok.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("alice Get(stdio's record) err = %v, want ErrNotFound", err)
	}
	tests := []struct {
		name string
		f    Filter
		want int
	}{
		{"all", Filter{Viewer: admin}, 3},
		{"tool", Filter{Viewer: admin, Tool: "file_operations"}, 2},
		{"tool and status", Filter{Viewer: admin, Tool: "file_operations", Status: StatusDenied}, 1},
		{"principal", Filter{Viewer: admin, Principal: "alice"}, 2},
		{"non-admin sees own", Filter{Viewer: alice}, 2},
		{"non-admin asks for another", Filter{Viewer: alice, Principal: "stdio"}, 0},
		{"unknown tool", Filter{Viewer: admin, Tool: "nope"}, 0},
		{"limit", Filter{Viewer: admin, Limit: 1}, 1},
		{"offset", Filter{Viewer: admin, Offset: 2}, 1},
		{"until before all", Filter{Viewer: admin, Until: ok.Start}, 0},
		{"since after all", Filter{Viewer: admin, Since: time.Now().Add(time.Hour)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := e.List(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Executions) != tt.want {
				t.Errorf("List(%+v) = %d records, want %d", tt.f, len(p.Executions), tt.want)
			}
		})
	}
	p, _ := e.List(ctx, Filter{Viewer: admin})
	if p.Executions[0].Tool != "terminal_operations" {
		t.Errorf("List newest first: first = %s, want terminal_operations", p.Executions[0].Tool)
	}
	st, err := e.Stats(ctx, admin)
	if err != nil {
		t.Fatal(err)
	}
	if st.Total != 3 || st.ByStatus[StatusDenied] != 1 || len(st.Tools) != 2 || st.Tools[0].Name != "file_operations" || st.Tools[0].Count != 2 {
		t.Errorf("Stats = %+v", st)
	}
}

func TestFilterErrors(t *testing.T) {
	e := openEngine(t, t.TempDir(), Options{})
	tests := []struct {
		name  string
		f     Filter
		param string
	}{
		{"limit zero means default", Filter{Limit: 0}, ""},
		{"limit too big", Filter{Limit: 101}, "limit"},
		{"limit negative", Filter{Limit: -1}, "limit"},
		{"offset negative", Filter{Offset: -5}, "offset"},
		{"bad status", Filter{Status: "done"}, "status"},
		{"bad category", Filter{Category: "risky"}, "category"},
		{"since after until", Filter{Since: time.Now(), Until: time.Now().Add(-time.Hour)}, "since"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f.Viewer = admin
			_, err := e.List(context.Background(), tt.f)
			var fe *FilterError
			if tt.param == "" {
				if err != nil {
					t.Fatalf("List = %v, want nil", err)
				}
				return
			}
			if !errors.As(err, &fe) || fe.Param != tt.param {
				t.Errorf("List(%+v) err = %v, want a FilterError on %s", tt.f, err, tt.param)
			}
		})
	}
}

func TestPrune(t *testing.T) {
	e := openEngine(t, t.TempDir(), Options{MaxRecords: 5})
	var ids []string
	for i := range 12 {
		ids = append(ids, call(e, "think", "think", "stdio", StatusSuccess, 0).ID)
		if i%4 == 3 {
			e.Flush(context.Background())
		}
	}
	e.Flush(context.Background())
	st, _ := e.Stats(context.Background(), admin)
	if st.Total != 5 || st.Tools[0].Count != 5 {
		t.Errorf("after pruning to 5: Stats = %+v", st)
	}
	if _, err := e.Get(context.Background(), admin, ids[0]); !errors.Is(err, ErrNotFound) {
		t.Errorf("oldest record survived pruning: %v", err)
	}
	if _, err := e.Get(context.Background(), admin, ids[11]); err != nil {
		t.Errorf("newest record pruned: %v", err)
	}
	p, _ := e.List(context.Background(), Filter{Viewer: admin, Tool: "think", Limit: 100})
	if len(p.Executions) != 5 {
		t.Errorf("index after pruning has %d records, want 5", len(p.Executions))
	}
}

// TestStatsPerPrincipal: a non-admin viewer's stats count only its own executions, running
// ones included, however the others' are named; an admin's count everyone's. The per-principal
// aggregates follow pruning, and a history written before they were kept gets them built once.
func TestStatsPerPrincipal(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := storetest.OpenWith(t, dir, store.Options{NoSync: true})
	e := openEngine(t, dir, Options{Store: st, MaxRecords: 8})
	alice := authz.Principal{Name: "alice", Tier: authz.TierExecuteAdvanced}
	bob := authz.Principal{Name: "bob", Tier: authz.TierViewOnly}
	call(e, "file_operations", "read_file", "alice", StatusSuccess, 0)
	call(e, "file_operations", "read_file", "alice", StatusFailed, 0)
	call(e, "terminal_operations", "run_command", "bob", StatusSuccess, 0)
	call(e, "secret_tool", "leak", "stdio", StatusSuccess, 0)
	_, running := e.Begin(ctx, Start{Tool: "terminal_operations", Operation: "run_command", Principal: "stdio"})
	defer running.Finish(Outcome{})

	type counts struct {
		total  int64
		tools  string
		active int
	}
	of := func(viewer authz.Principal) counts {
		t.Helper()
		s, err := e.Stats(ctx, viewer)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, g := range s.Tools {
			names = append(names, fmt.Sprintf("%s:%d", g.Name, g.Count))
		}
		for _, op := range s.TopOperations {
			if viewer.Tier != authz.TierAdmin && viewer.Name != "stdio" && strings.HasPrefix(op.Operation, "secret_tool") {
				t.Errorf("%s sees operation %s of another principal", viewer.Name, op.Operation)
			}
		}
		return counts{s.Total, strings.Join(names, ","), s.Active}
	}
	tests := []struct {
		name   string
		viewer authz.Principal
		want   counts
	}{
		{"admin sees all", admin, counts{4, "file_operations:2,secret_tool:1,terminal_operations:1", 1}},
		{"the operator sees all", authz.OperatorPrincipal, counts{4, "file_operations:2,secret_tool:1,terminal_operations:1", 1}},
		{"alice sees her own", alice, counts{2, "file_operations:2", 0}},
		{"view_only bob sees his own", bob, counts{1, "terminal_operations:1", 0}},
		{"a principal named stdio without the admin tier", authz.Principal{Name: "stdio", Tier: authz.TierExecuteAdvanced}, counts{1, "secret_tool:1", 1}},
		{"a principal with no executions", authz.Principal{Name: "carol", Tier: authz.TierExecuteBasic}, counts{0, "", 0}},
		{"an empty name", authz.Principal{Tier: authz.TierExecuteBasic}, counts{0, "", 0}},
		{"a name shaped like a key", authz.Principal{Name: "principal=alice", Tier: authz.TierExecuteBasic}, counts{0, "", 0}},
	}
	check := func(stage string) {
		t.Helper()
		for _, tt := range tests {
			if got := of(tt.viewer); got != tt.want {
				t.Errorf("%s: %s: Stats = %+v, want %+v", stage, tt.name, got, tt.want)
			}
		}
	}
	check("recorded")

	// A history from before per-principal aggregates: only the total and the records.
	err := st.Update(ctx, func(tx *store.Tx) error {
		for _, k := range []string{principalsKey, principalKey("alice"), principalKey("bob"), principalKey("stdio")} {
			if err := tx.Delete(statsBucket, k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check("built from an older history")
	call(e, "file_operations", "read_file", "alice", StatusSuccess, 0) // a flush on a built history adds once
	e.Flush(ctx)
	tests[0].want, tests[1].want, tests[2].want = counts{5, "file_operations:3,secret_tool:1,terminal_operations:1", 1}, counts{5, "file_operations:3,secret_tool:1,terminal_operations:1", 1}, counts{3, "file_operations:3", 0}
	check("after one more")

	// Six more of stdio's: pruning to 8 takes the three oldest, alice's first two and bob's one.
	for range 6 {
		call(e, "think", "think", "stdio", StatusSuccess, 0)
	}
	e.Flush(ctx)
	if got, want := of(alice), (counts{1, "file_operations:1", 0}); got != want {
		t.Errorf("alice after pruning her two oldest: %+v, want %+v", got, want)
	}
	if got, want := of(bob), (counts{0, "", 0}); got != want {
		t.Errorf("bob after pruning his only one: %+v, want %+v", got, want)
	}
	err = st.View(ctx, func(tx *store.Tx) error {
		if _, ok := tx.Get(statsBucket, principalKey("bob")); ok {
			t.Error("bob's aggregate kept after his last record was pruned")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := of(admin); got.total != 8 {
		t.Errorf("admin total after pruning = %d, want 8", got.total)
	}
}

func TestPruneByAge(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	e := openEngine(t, t.TempDir(), Options{MaxAge: time.Hour, Now: clock})
	old := call(e, "think", "think", "stdio", StatusSuccess, 0)
	e.Flush(context.Background())
	now = now.Add(2 * time.Hour)
	call(e, "think", "think", "stdio", StatusSuccess, 0)
	e.Flush(context.Background())
	if _, err := e.Get(context.Background(), admin, old.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("record older than MaxAge survived: %v", err)
	}
}

func TestCancelInProcess(t *testing.T) {
	e := openEngine(t, t.TempDir(), Options{})
	ctx, x := e.Begin(context.Background(), Start{Tool: "terminal_operations", Operation: "run_command", Principal: "alice"})
	go func() {
		<-ctx.Done()
		st := StatusFailed
		if errors.Is(context.Cause(ctx), ErrCancelled) {
			st = StatusCancelled
		}
		x.Finish(Outcome{Status: st})
	}()
	bob := authz.Principal{Name: "bob", Tier: authz.TierExecuteAdvanced}
	if _, err := e.Cancel(context.Background(), bob, x.ID()); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob cancels alice's execution: err = %v, want ErrNotFound", err)
	}
	if got := e.Active(context.Background(), admin); len(got) != 1 {
		t.Fatalf("Active = %d, want 1", len(got))
	}
	r, err := e.Cancel(context.Background(), authz.Principal{Name: "alice", Tier: authz.TierExecuteBasic}, x.ID())
	if err != nil || r.Status != StatusCancelled {
		t.Fatalf("Cancel = %+v, %v; want cancelled", r, err)
	}
	if _, err := e.Cancel(context.Background(), admin, x.ID()); !errors.Is(err, ErrFinished) {
		t.Errorf("second Cancel err = %v, want ErrFinished", err)
	}
	if _, err := e.Cancel(context.Background(), admin, "exec_nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Cancel(malformed) err = %v, want ErrNotFound", err)
	}
	if _, err := e.Cancel(context.Background(), admin, NewID(time.Now())); !errors.Is(err, ErrNotFound) {
		t.Errorf("Cancel(unknown) err = %v, want ErrNotFound", err)
	}
}

func TestContinue(t *testing.T) {
	e := openEngine(t, t.TempDir(), Options{})
	_, x := e.Begin(context.Background(), Start{Tool: "terminal_operations", Operation: "run_command", Principal: "stdio"})
	stopped := make(chan struct{})
	x.Continue(func() { close(stopped) })
	if !x.Continued() {
		t.Fatal("Continued = false after Continue")
	}
	go func() {
		<-stopped
		x.SetExitCode(-9)
		x.Finish(Outcome{Status: StatusCancelled})
	}()
	r, err := e.Cancel(context.Background(), admin, x.ID())
	if err != nil || r.Status != StatusCancelled || r.ExitCode == nil || *r.ExitCode != -9 {
		t.Fatalf("Cancel(continued) = %+v, %v", r, err)
	}
}

// TestRecordsAreBounded: whatever a client sends (many keys, a long array, long names), a
// record keeps at most MaxArgs bytes of arguments and maxName bytes of each name it chooses.
func TestRecordsAreBounded(t *testing.T) {
	e := openEngine(t, t.TempDir(), Options{})
	long := strings.Repeat("n", 10_000)
	_, x := e.Begin(context.Background(), Start{Tool: long, Operation: long, Client: long, Principal: "stdio"})
	r := x.Finish(Outcome{})
	for field, v := range map[string]string{"tool": r.Tool, "operation": r.Operation, "client": r.Client} {
		if len(v) > maxName+32 || !strings.HasPrefix(v, "nnn") {
			t.Errorf("record %s = %d bytes, want it cut to about %d", field, len(v), maxName)
		}
	}
}

func TestCommandIsMasked(t *testing.T) {
	e := openEngine(t, t.TempDir(), Options{})
	_, x := e.Begin(context.Background(), Start{Tool: "terminal_operations", Principal: "stdio"})
	x.SetCommand("curl -H 'Authorization: Bearer abcdefghijklmnop' https://bob:pw@example.com/")
	r := x.Finish(Outcome{})
	if strings.Contains(r.Command, "abcdefghijklmnop") || strings.Contains(r.Command, "pw@") {
		t.Errorf("Command = %q, want the secrets masked", r.Command)
	}
}

func TestValidID(t *testing.T) {
	id := NewID(time.Now())
	for _, tt := range []struct {
		in   string
		want bool
	}{{id, true}, {"exec_", false}, {"../../etc/passwd", false}, {id + "x", false}, {strings.Replace(id, "exec_", "exe_", 1), false}} {
		if got := ValidID(tt.in); got != tt.want {
			t.Errorf("ValidID(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestReplayDeadJournal: a journal left by a process that no longer runs is replayed on start:
// finished records are stored, running ones become failed, and nothing is stored twice.
func TestReplayDeadJournal(t *testing.T) {
	dir := t.TempDir()
	st := storetest.OpenWith(t, dir, store.Options{NoSync: true})
	dead := owner.ID{PID: 1 << 22, Start: 1, Boot: "deadbeef"}
	jdir := filepath.Join(dir, "executions", "journal")
	os.MkdirAll(jdir, 0o700)
	now := time.Now()
	done := Record{ID: NewID(now), Tool: "think", Principal: "stdio", Status: StatusSuccess, Start: now}
	run := Record{ID: NewID(now.Add(time.Millisecond)), Tool: "terminal_operations", Principal: "stdio", Status: StatusRunning, Start: now}
	var lines []string
	for _, r := range []Record{done, {ID: run.ID, Tool: run.Tool, Principal: "stdio", Status: StatusRunning, Start: now}, run} {
		b, _ := json.Marshal(r)
		lines = append(lines, string(b))
	}
	lines = append(lines, `{"id":"torn`)
	os.WriteFile(filepath.Join(jdir, dead.String()+".1.jsonl"), []byte(strings.Join(lines, "\n")), 0o600)
	e := openEngine(t, dir, Options{Store: st})
	got, err := e.Get(context.Background(), admin, run.ID)
	if err != nil || got.Status != StatusFailed || got.ErrorCode != "orphaned" {
		t.Errorf("orphan after replay = %+v, %v; want failed/orphaned", got, err)
	}
	if got, err := e.Get(context.Background(), admin, done.ID); err != nil || got.Status != StatusSuccess {
		t.Errorf("finished record after replay = %+v, %v", got, err)
	}
	if ents, _ := os.ReadDir(jdir); len(ents) != 1 {
		t.Errorf("journal dir after replay has %d files, want only this process's", len(ents))
	}
	s, _ := e.Stats(context.Background(), admin)
	if s.Total != 2 {
		t.Errorf("Stats.Total = %d, want 2", s.Total)
	}
}

// helperEnv makes the test binary act as a second toolhost process (TestHelperProcess).
const helperEnv = "ENGINE_TEST_HELPER"

// TestHelperProcess is not a test: run by the tests below in a child process, it begins an
// execution that ends only when cancelled, prints its id, and either waits or finishes a stream
// of calls until it is killed.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper process")
	}
	dir := os.Getenv("ENGINE_TEST_DIR")
	st, err := store.Open(context.Background(), dir, store.Options{NoSync: true})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	e, err := Open(context.Background(), Options{StateDir: dir, Store: st, FlushInterval: time.Hour})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	switch mode {
	case "wait":
		ctx, x := e.Begin(context.Background(), Start{Tool: "terminal_operations", Operation: "run_command", Principal: "alice"})
		fmt.Println(x.ID())
		<-ctx.Done()
		x.Finish(Outcome{Status: StatusCancelled})
		time.Sleep(time.Hour) // stays alive unflushed: the parent reads the journal
	case "stream":
		for i := 0; ; i++ {
			_, x := e.Begin(context.Background(), Start{Tool: "think", Principal: "stdio"})
			if i%2 == 0 {
				x.Finish(Outcome{Status: StatusSuccess})
				fmt.Println("ack", x.ID()) // acknowledged: the caller would now see the result
			} else {
				fmt.Println("running", x.ID())
				time.Sleep(time.Millisecond)
			}
		}
	}
}

func startHelper(t *testing.T, dir, mode string) (*exec.Cmd, *lineReader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "ENGINE_TEST_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, newLineReader(out)
}

func TestCancelAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	_, lines := startHelper(t, dir, "wait")
	id := lines.next(t)
	if !ValidID(id) {
		t.Fatalf("helper printed %q", id)
	}
	e := openEngine(t, dir, Options{})
	active := e.Active(context.Background(), admin)
	if len(active) != 1 || active[0].ID != id || active[0].Status != StatusRunning {
		t.Fatalf("Active = %+v, want the helper's execution", active)
	}
	if got := e.Active(context.Background(), authz.Principal{Name: "bob", Tier: authz.TierExecuteBasic}); len(got) != 0 {
		t.Errorf("bob sees alice's active execution: %+v", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := e.Cancel(ctx, admin, id)
	if err != nil || r.Status != StatusCancelled {
		t.Fatalf("Cancel across processes = %+v, %v; want cancelled", r, err)
	}
	if _, err := e.Cancel(ctx, admin, id); !errors.Is(err, ErrFinished) {
		t.Errorf("second Cancel err = %v, want ErrFinished", err)
	}
}

// TestSIGKILLDuringStream: every call acknowledged before a SIGKILL is in the history after the
// next start, and no execution of the killed process stays running.
func TestSIGKILLDuringStream(t *testing.T) {
	dir := t.TempDir()
	cmd, lines := startHelper(t, dir, "stream")
	acked := map[string]bool{}
	for len(acked) < 200 {
		l := lines.next(t)
		if id, ok := strings.CutPrefix(l, "ack "); ok {
			acked[id] = true
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	for _, l := range lines.rest() {
		if id, ok := strings.CutPrefix(l, "ack "); ok {
			acked[id] = true
		}
	}
	e := openEngine(t, dir, Options{})
	for id := range acked {
		r, err := e.Get(context.Background(), admin, id)
		if err != nil || r.Status != StatusSuccess {
			t.Fatalf("acknowledged %s after SIGKILL: %+v, %v", id, r, err)
		}
	}
	if a := e.Active(context.Background(), admin); len(a) != 0 {
		t.Errorf("Active after restart = %d, want 0", len(a))
	}
	p, err := e.List(context.Background(), Filter{Viewer: admin, Status: StatusFailed, Limit: 100})
	if err != nil || len(p.Executions) == 0 || p.Executions[0].ErrorCode != "orphaned" {
		t.Errorf("orphans after restart: %+v, %v", p, err)
	}
}

func TestLimits(t *testing.T) {
	now := time.Unix(0, 0)
	l := &Limits{PerPrincipal: Rate{N: 3, Per: time.Minute}, PerCategory: map[authz.Category]Rate{authz.CategoryDangerous: {N: 1, Per: time.Minute}}, Now: func() time.Time { return now }}
	alice := authz.Principal{Name: "alice"}
	steps := []struct {
		name    string
		p       authz.Principal
		own     Rate
		c       authz.Category
		advance time.Duration
		limited string // part of the LimitError's limit, "" for allowed
	}{
		{"first safe", alice, Rate{}, authz.CategorySafe, 0, ""},
		{"first dangerous", alice, Rate{}, authz.CategoryDangerous, 0, ""},
		{"second dangerous refused by category", alice, Rate{}, authz.CategoryDangerous, 0, "dangerous calls of alice"},
		{"refused call took nothing: third call passes", alice, Rate{}, authz.CategorySafe, 0, ""},
		{"fourth refused by principal", alice, Rate{}, authz.CategorySafe, 0, "principal alice"},
		{"another principal has its own bucket", authz.Principal{Name: "bob"}, Rate{}, authz.CategorySafe, 0, ""},
		{"own rate replaces the default", authz.Principal{Name: "carol"}, Rate{N: 1, Per: time.Hour}, authz.CategorySafe, 0, ""},
		{"own rate refuses the second", authz.Principal{Name: "carol"}, Rate{N: 1, Per: time.Hour}, authz.CategorySafe, 0, "principal carol: 1/h"},
		{"after 20s one more call of alice", alice, Rate{}, authz.CategorySafe, 20 * time.Second, ""},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		err := l.Allow(s.p, s.own, s.c)
		var le *LimitError
		switch {
		case s.limited == "" && err != nil:
			t.Errorf("%s: Allow = %v, want allowed", s.name, err)
		case s.limited != "" && (!errors.As(err, &le) || !strings.Contains(le.Limit, s.limited) || le.Wait <= 0):
			t.Errorf("%s: Allow = %v, want a LimitError on %q with a wait", s.name, err, s.limited)
		}
	}
}

func TestParseRate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Rate
		bad  bool
	}{{"60/min", Rate{60, time.Minute}, false}, {"10/s", Rate{10, time.Second}, false}, {"5/h", Rate{5, time.Hour}, false},
		{"", Rate{}, false}, {"0", Rate{}, false}, {"60", Rate{}, true}, {"x/min", Rate{}, true}, {"-1/min", Rate{}, true}, {"3/day", Rate{}, true}} {
		got, err := ParseRate(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v, bad %v", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

func TestAllowRequestHasItsOwnBucket(t *testing.T) {
	l := &Limits{PerPrincipal: Rate{N: 1, Per: time.Hour}}
	p := authz.Principal{Name: "console"}
	if _, err := l.AllowRequest(p, Rate{}); err != nil {
		t.Fatalf("first request = %v", err)
	}
	if _, err := l.AllowRequest(p, Rate{}); err == nil {
		t.Error("second request within the hour allowed")
	}
	if err := l.Allow(p, Rate{}, authz.CategorySafe); err != nil {
		t.Errorf("a tool call after the API requests = %v, want its own bucket", err)
	}
}

// TestRequestQuota: where a principal stands after each API request: the policy, what is left
// and when the whole quota is back, refused requests included (they take nothing).
func TestRequestQuota(t *testing.T) {
	now := time.Unix(0, 0)
	l := &Limits{PerPrincipal: Rate{N: 2, Per: time.Minute}, Now: func() time.Time { return now }}
	p := authz.Principal{Name: "alice"}
	steps := []struct {
		name    string
		advance time.Duration
		own     Rate
		refused bool
		want    Quota
	}{
		{"first", 0, Rate{}, false, Quota{Limit: 2, Window: time.Minute, Remaining: 1, Reset: 30 * time.Second}},
		{"second", 0, Rate{}, false, Quota{Limit: 2, Window: time.Minute, Remaining: 0, Reset: time.Minute}},
		{"third refused", 0, Rate{}, true, Quota{Limit: 2, Window: time.Minute, Remaining: 0, Reset: time.Minute}},
		{"one back after 30s, taken", 30 * time.Second, Rate{}, false, Quota{Limit: 2, Window: time.Minute, Remaining: 0, Reset: time.Minute}},
		{"all back after a minute", time.Minute, Rate{}, false, Quota{Limit: 2, Window: time.Minute, Remaining: 1, Reset: 30 * time.Second}},
		{"no limit, no quota", 0, Rate{}, false, Quota{}},
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		if i == len(steps)-1 {
			l = &Limits{}
		}
		q, err := l.AllowRequest(p, s.own)
		if (err != nil) != s.refused || q != s.want {
			t.Errorf("%s: AllowRequest = %+v, %v; want %+v, refused %v", s.name, q, err, s.want, s.refused)
		}
	}
}

// TestTwoEnginesInOneProcess: engines of one process (workspaces) keep their own journals and
// see and cancel each other's running executions.
func TestTwoEnginesInOneProcess(t *testing.T) {
	dir := t.TempDir()
	st := storetest.OpenWith(t, dir, store.Options{NoSync: true})
	a := openEngine(t, dir, Options{Store: st})
	b := openEngine(t, dir, Options{Store: st})
	ctx, x := a.Begin(context.Background(), Start{Tool: "terminal_operations", Principal: "stdio"})
	go func() {
		<-ctx.Done()
		x.Finish(Outcome{Status: StatusCancelled})
	}()
	if got := b.Active(context.Background(), admin); len(got) != 1 || got[0].ID != x.ID() {
		t.Fatalf("b.Active = %+v, want a's execution", got)
	}
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if r, err := b.Cancel(cctx, admin, x.ID()); err != nil || r.Status != StatusCancelled {
		t.Errorf("b.Cancel(a's execution) = %+v, %v", r, err)
	}
	fin := call(b, "think", "think", "stdio", StatusSuccess, 0)
	if r, err := a.Get(context.Background(), admin, fin.ID); err != nil || r.Status != StatusSuccess {
		t.Errorf("a.Get(b's finished call) = %+v, %v", r, err)
	}
}
