package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"toolhost/authz"
	"toolhost/store"
	"toolhost/store/storetest"
)

func intp(n int) *int { return &n }

// TestRecordRoundTrip stores records of every shape and reads each back whole: the compact
// encoding leaves out only what it can restore.
func TestRecordRoundTrip(t *testing.T) {
	dir := t.TempDir()
	e := openEngine(t, dir, Options{})
	ctx := context.Background()
	base := time.Now().UTC().Truncate(time.Microsecond)
	recs := []Record{
		{ID: NewID(base), Tool: "terminal_operations", Operation: "run_command", Category: authz.CategoryDangerous, Risk: "execute",
			Principal: "stdio", Conversation: "wd-1", Client: "claude-code", Args: json.RawMessage(`{"command":"echo 1","operation":"run_command"}`),
			Status: StatusSuccess, Start: base, DurationMS: 1.7, ResultBytes: 30, Command: "echo 1", ExitCode: intp(0), Owner: "1_2_ab"},
		{ID: NewID(base.Add(time.Second)), Tool: "terminal_operations", Operation: "run_command", Category: authz.CategoryDangerous, Risk: "execute",
			Principal: "alice", Conversation: "wd-1", Args: json.RawMessage(`{"command":"make \u003e log","operation":"run_command","timeout":5}`),
			Status: StatusFailed, Start: base.Add(time.Second + 1500*time.Microsecond), DurationMS: 12.345, ResultBytes: 3, Command: "make -j4 > log",
			ExitCode: intp(2), ErrorCode: "exit", Error: "exit status 2", Owner: "1_2_ab"},
		{ID: NewID(base.Add(2 * time.Second)), Tool: "think", Principal: "stdio", Conversation: "wd-2",
			Args: json.RawMessage(`{"thoughts":"plan"}`), Status: StatusSuccess, Start: base.Add(2 * time.Second), DurationMS: 0.05},
		{ID: NewID(base.Add(3 * time.Second)), Tool: "unknown", Principal: "stdio", Args: json.RawMessage(`"(12 bytes, not JSON)"`),
			Status: StatusFailed, Start: base.Add(3 * time.Second), ErrorCode: "unknown_tool"},
		{ID: NewID(base.Add(4 * time.Second)), Tool: "file_operations", Operation: "read_file", Category: authz.CategorySafe, Risk: "read",
			Principal: "stdio", Conversation: "wd-1", Args: json.RawMessage(`{"operation":"list_dir","path":"."}`),
			Status: StatusSuccess, Start: base.Add(4 * time.Second)},
	}
	if err := e.store(ctx, recs); err != nil {
		t.Fatal(err)
	}
	for _, want := range recs {
		got, err := e.Get(ctx, admin, want.ID)
		if err != nil {
			t.Fatalf("Get(%s) = %v", want.ID, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("record %s/%s read back (-want +got):\n%s", want.Tool, want.Operation, diff)
		}
	}
	// A second engine (another process) decodes the codes from the store, not a cache.
	other, err := Open(ctx, Options{StateDir: dir, Store: e.opts.Store})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	page, err := other.List(ctx, Filter{Viewer: admin, Conversation: "wd-1", Tool: "terminal_operations"})
	if err != nil || len(page.Executions) != 2 || page.Executions[0].Principal != "alice" || page.Executions[1].Command != "echo 1" {
		t.Errorf("List from another engine = %+v, %v", page.Executions, err)
	}
}

// TestOlderRecordsStillRead: records and index entries written before the compact encoding
// are listed, read, counted and pruned next to new ones.
func TestOlderRecordsStillRead(t *testing.T) {
	dir := t.TempDir()
	st := storetest.OpenWith(t, dir, store.Options{NoSync: true})
	ctx := context.Background()
	old := Record{ID: NewID(time.Now().Add(-time.Minute)), Tool: "file_operations", Operation: "read_file", Category: authz.CategorySafe,
		Principal: "stdio", Conversation: "c1", Args: json.RawMessage(`{"operation":"read_file","path":"a"}`), Status: StatusSuccess,
		Start: time.Now().Add(-time.Minute).UTC().Truncate(time.Microsecond), DurationMS: 2}
	if err := st.Update(ctx, func(tx *store.Tx) error {
		b, _ := json.Marshal(old)
		if err := tx.Put(recordsBucket, old.ID, b); err != nil {
			return err
		}
		v := strings.Join([]string{old.Tool, string(old.Status), string(old.Category), old.Principal, old.Conversation}, "\x1f")
		for _, f := range indexed {
			if err := tx.Put(indexBucket(f, fieldOf(&old, f)), old.ID, []byte(v)); err != nil {
				return err
			}
			// Counts as an older toolhost kept them: eight bytes, no code.
			if err := tx.Put(countsBucket, f+"="+fieldOf(&old, f), []byte{0, 0, 0, 0, 0, 0, 0, 1}); err != nil {
				return err
			}
		}
		agg, err := loadAggregates(tx)
		if err != nil {
			return err
		}
		agg.add(&old, 1)
		return agg.save()
	}); err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, dir, Options{Store: st, MaxRecords: 3})
	call(e, "file_operations", "read_file", "stdio", StatusSuccess, 0)
	if err := e.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	page, err := e.List(ctx, Filter{Viewer: admin, Tool: "file_operations", Conversation: "c1"})
	if err != nil || len(page.Executions) != 2 || page.Executions[1].ID != old.ID {
		t.Fatalf("List = %+v, %v; want the new record and the old one", page.Executions, err)
	}
	if got, err := e.Get(ctx, admin, old.ID); err != nil || !cmp.Equal(old, got) {
		t.Errorf("Get(old) = %+v, %v; want %+v", got, err, old)
	}
	// Three more records push the old one out: its index entries and counts go with it.
	for range 3 {
		call(e, "file_operations", "read_file", "stdio", StatusSuccess, 0)
	}
	if err := e.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Get(ctx, admin, old.ID); err == nil {
		t.Errorf("the old record outlived the bound")
	}
	s, err := e.Stats(ctx, admin)
	if err != nil || s.Total != 3 {
		t.Errorf("Stats total = %d, %v; want 3", s.Total, err)
	}
	st.View(ctx, func(tx *store.Tx) error {
		if n := count(tx, "tool=file_operations"); n != 3 {
			t.Errorf("count tool=file_operations = %d, want 3", n)
		}
		return nil
	})
}

// TestCodesFollowTheirValues: a value whose last record is pruned loses its code; when it
// comes back it gets a new one, and no cache reads the old one's meaning into it.
func TestCodesFollowTheirValues(t *testing.T) {
	dir := t.TempDir()
	e := openEngine(t, dir, Options{MaxRecords: 2})
	ctx := context.Background()
	conv := func(c string) {
		_, x := e.Begin(ctx, Start{Tool: "think", Principal: "stdio", Conversation: c})
		x.Finish(Outcome{Status: StatusSuccess})
		if err := e.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	codeOf := func(c string) (code uint64) {
		e.opts.Store.View(ctx, func(tx *store.Tx) error { code = e.dict(tx).code("conversation", c); return nil })
		return code
	}
	conv("first")
	first := codeOf("first")
	conv("second")
	conv("third") // prunes "first"
	if c := codeOf("first"); c != 0 || first == 0 {
		t.Fatalf("code of a value with no records left = %d (was %d), want none", c, first)
	}
	conv("fourth")
	for _, c := range []string{"third", "fourth"} {
		page, err := e.List(ctx, Filter{Viewer: admin, Conversation: c})
		if err != nil || len(page.Executions) != 1 || page.Executions[0].Conversation != c {
			t.Errorf("List(conversation %s) = %+v, %v", c, page.Executions, err)
		}
	}
	if c := codeOf("fourth"); c <= first {
		t.Errorf("a new value's code %d reuses an old one (<= %d)", c, first)
	}
}

// TestRecordCost holds a small call's record to its budget on disk: the executions bucket's
// pages per record, over 5,000 terminal calls like the ones issue 33 measured (about 3 KB
// each before the compact encoding).
func TestRecordCost(t *testing.T) {
	per := recordBytes(t, 5000)
	t.Logf("%.0f bytes per execution record on disk", per)
	if per > 1024 {
		t.Errorf("an execution record costs %.0f bytes on disk, over 1 KB", per)
	}
}

// recordBytes stores n run_command records and returns the executions bucket's bytes per
// record, as the store's usage counts pages.
func recordBytes(t testing.TB, n int) float64 {
	dir := t.TempDir()
	e := openEngine(t, dir, Options{})
	ctx := context.Background()
	usage := func() int64 {
		u, err := e.opts.Store.Usage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range u.Buckets {
			if b.Name == store.BucketExecutions {
				return b.Bytes
			}
		}
		return 0
	}
	before := usage()
	for i := range n {
		cmd := fmt.Sprintf("echo %d", i)
		_, x := e.Begin(ctx, Start{Tool: "terminal_operations", Operation: "run_command", Category: authz.CategoryDangerous, Risk: "execute",
			Principal: "stdio", Conversation: "wd-123b55c41055", Client: "claude-code",
			Args: json.RawMessage(`{"operation":"run_command","command":"` + cmd + `"}`)})
		x.SetCommand(cmd)
		x.SetExitCode(0)
		x.Finish(Outcome{Status: StatusSuccess, ResultBytes: 30})
		if i%100 == 99 {
			if err := e.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := e.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return float64(usage()-before) / float64(n)
}

// BenchmarkRecordBytes reports the bytes on disk of one small call's execution record.
//
//	go test ./internal/engine -run '^$' -bench RecordBytes -benchtime 1x
func BenchmarkRecordBytes(b *testing.B) {
	for b.Loop() {
		b.ReportMetric(recordBytes(b, 20_000), "bytes/record")
	}
}

// TestBeforePaging pages the history by the last id of each page: no record twice or missed,
// whatever is added meanwhile.
func TestBeforePaging(t *testing.T) {
	e := openEngine(t, t.TempDir(), Options{})
	ctx := context.Background()
	var ids []string
	for range 7 {
		ids = append(ids, call(e, "think", "", "stdio", StatusSuccess, 0).ID)
	}
	var got []string
	before := ""
	for {
		page, err := e.List(ctx, Filter{Viewer: admin, Conversation: "c1", Limit: 3, Before: before})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Executions {
			got = append(got, r.ID)
		}
		if before == "" {
			call(e, "think", "", "stdio", StatusSuccess, 0) // a newer call does not shift the pages
		}
		if !page.More {
			break
		}
		before = page.Executions[len(page.Executions)-1].ID
	}
	for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
	}
	if diff := cmp.Diff(ids, got); diff != "" {
		t.Errorf("pages by before (-want +got):\n%s", diff)
	}
	if _, err := e.List(ctx, Filter{Viewer: admin, Before: "exec_nope"}); err == nil || !strings.Contains(err.Error(), "before") {
		t.Errorf("List(before=exec_nope) = %v, want a filter error naming before", err)
	}
}

// TestOlderProcessBeside: an older toolhost sharing the state directory while it runs (an
// editor window not restarted since the upgrade) stores records in its format and counts as it
// did; the newer one lists, reads and prunes both, and the codes stay right.
func TestOlderProcessBeside(t *testing.T) {
	dir := t.TempDir()
	e := openEngine(t, dir, Options{MaxRecords: 3})
	ctx := context.Background()
	newer := call(e, "file_operations", "read_file", "stdio", StatusSuccess, 0)
	if err := e.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// The older process's flush: its record, its index entries, its counts (eight bytes).
	old := Record{ID: NewID(time.Now()), Tool: "file_operations", Operation: "list_dir", Category: authz.CategorySafe,
		Principal: "stdio", Conversation: "c1", Status: StatusSuccess, Start: time.Now().UTC().Truncate(time.Microsecond)}
	err := e.opts.Store.Update(ctx, func(tx *store.Tx) error {
		b, _ := json.Marshal(old)
		if err := tx.Put(recordsBucket, old.ID, b); err != nil {
			return err
		}
		v := strings.Join([]string{old.Tool, string(old.Status), string(old.Category), old.Principal, old.Conversation}, "\x1f")
		for _, f := range indexed {
			key := f + "=" + fieldOf(&old, f)
			if err := tx.Put(indexBucket(f, fieldOf(&old, f)), old.ID, []byte(v)); err != nil {
				return err
			}
			n := count(tx, key) + 1
			if err := tx.Put(countsBucket, key, []byte{0, 0, 0, 0, 0, 0, 0, byte(n)}); err != nil {
				return err
			}
		}
		agg, err := loadAggregates(tx)
		if err != nil {
			return err
		}
		agg.add(&old, 1)
		return agg.save()
	})
	if err != nil {
		t.Fatal(err)
	}
	third := call(e, "file_operations", "read_file", "stdio", StatusSuccess, 0)
	if err := e.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	page, err := e.List(ctx, Filter{Viewer: admin, Tool: "file_operations", Conversation: "c1"})
	if err != nil || len(page.Executions) != 3 {
		t.Fatalf("List beside an older process = %d records, %v; want 3", len(page.Executions), err)
	}
	for i, want := range []string{third.ID, old.ID, newer.ID} {
		if page.Executions[i].ID != want || page.Executions[i].Tool != "file_operations" {
			t.Errorf("record %d = %s %s, want %s", i, page.Executions[i].ID, page.Executions[i].Tool, want)
		}
	}
	// Pruning them all (three newer records past the bound) deletes their codes with them.
	for range 3 {
		call(e, "think", "", "stdio", StatusSuccess, 0)
	}
	if err := e.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	e.opts.Store.View(ctx, func(tx *store.Tx) error {
		if c := e.dict(tx).code("tool", "file_operations"); c != 0 || count(tx, "tool=file_operations") != 0 {
			t.Errorf("tool=file_operations after its records were pruned: code %d, count %d", c, count(tx, "tool=file_operations"))
		}
		return nil
	})
}
