package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/store"
)

// BenchmarkBeginFinish is the engine's share of one call: masking the arguments, two journal
// lines (running, finished) and the in-memory bookkeeping. The bbolt flush runs in the
// background, in batches.
func BenchmarkBeginFinish(b *testing.B) {
	e := openEngine(b, b.TempDir(), Options{})
	args := json.RawMessage(`{"operation":"read_file","path":"internal/engine/engine.go","start_line":1,"end_line":80}`)
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		_, x := e.Begin(context.Background(), Start{Tool: "file_operations", Operation: "read_file", Category: authz.CategorySafe, Principal: "stdio", Conversation: "c", Args: args})
		x.Finish(Outcome{Status: StatusSuccess, ResultBytes: 100})
		ds = append(ds, time.Since(start))
	}
	b.ReportMetric(p50us(ds), "p50-µs")
}

func p50us(ds []time.Duration) float64 {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return float64(ds[len(ds)/2].Nanoseconds()) / 1000
}

var (
	bigOnce sync.Once
	bigDir  string
	bigErr  error
)

// bigHistory fills one state directory with 100,000 executions (once per test binary): ten
// tools, three principals, every status, spread over the last 20 days.
func bigHistory(b *testing.B) string {
	bigOnce.Do(func() {
		bigDir, bigErr = mkdirTemp()
		if bigErr != nil {
			return
		}
		st, err := store.Open(context.Background(), bigDir, store.Options{NoSync: true})
		if err != nil {
			bigErr = err
			return
		}
		e, err := Open(context.Background(), Options{StateDir: bigDir, Store: st})
		if err != nil {
			bigErr = err
			return
		}
		defer e.Close()
		now := time.Now()
		tools := []string{"think", "file_operations", "terminal_operations", "memory_operations", "todo_operations",
			"build_and_version_control", "web_operations", "database_operations", "user_collaboration", "read_tool_result"}
		const n, batch = 100_000, 5_000
		for i := 0; i < n; i += batch {
			recs := make([]Record, 0, batch)
			for j := i; j < i+batch; j++ {
				start := now.Add(-20 * 24 * time.Hour).Add(time.Duration(j) * (20 * 24 * time.Hour / n))
				recs = append(recs, Record{ID: NewID(start), Tool: tools[j%len(tools)], Operation: "op" + fmt.Sprint(j%7),
					Category:  []authz.Category{authz.CategorySafe, authz.CategoryModerate, authz.CategoryDangerous}[j%3],
					Principal: []string{"stdio", "alice", "bob"}[j%3], Conversation: fmt.Sprintf("conv%d", j%50),
					Status: Statuses[1+j%(len(Statuses)-1)], Start: start, DurationMS: float64(j%1000) / 10})
			}
			if bigErr = e.store(context.Background(), recs); bigErr != nil {
				return
			}
		}
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigDir
}

func bigEngine(b *testing.B) *Engine {
	dir := bigHistory(b)
	st, err := store.Open(context.Background(), dir, store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	e, err := Open(context.Background(), Options{StateDir: dir, Store: st})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

// BenchmarkHistory100k measures the operator's queries on a history of 100,000 executions.
func BenchmarkHistory100k(b *testing.B) {
	e := bigEngine(b)
	ctx := context.Background()
	page, err := e.List(ctx, Filter{Viewer: admin, Limit: 1, Offset: 50_000})
	if err != nil || len(page.Executions) != 1 {
		b.Fatalf("List = %+v, %v", page, err)
	}
	id := page.Executions[0].ID
	b.Run("get", func(b *testing.B) {
		for b.Loop() {
			if _, err := e.Get(ctx, admin, id); err != nil {
				b.Fatal(err)
			}
		}
	})
	filters := map[string]Filter{
		"page50":                  {Viewer: admin},
		"page50-tool":             {Viewer: admin, Tool: "terminal_operations"},
		"page50-tool-status":      {Viewer: admin, Tool: "terminal_operations", Status: StatusDenied},
		"page50-principal-conv":   {Viewer: admin, Principal: "alice", Conversation: "conv7"},
		"page50-nonadmin-offset":  {Viewer: authz.Principal{Name: "bob", Tier: authz.TierExecuteBasic}, Offset: 500},
		"page50-since-until-tool": {Viewer: admin, Tool: "think", Since: time.Now().Add(-15 * 24 * time.Hour), Until: time.Now().Add(-10 * 24 * time.Hour)},
	}
	for name, f := range filters {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				p, err := e.List(ctx, f)
				if err != nil || len(p.Executions) == 0 {
					b.Fatalf("List = %d, %v", len(p.Executions), err)
				}
			}
		})
	}
	b.Run("stats", func(b *testing.B) {
		for b.Loop() {
			s, err := e.Stats(ctx, admin)
			if err != nil || s.Total != 100_000 {
				b.Fatalf("Stats = %d, %v", s.Total, err)
			}
		}
	})
	b.Run("stats-nonadmin", func(b *testing.B) {
		bob := authz.Principal{Name: "bob", Tier: authz.TierExecuteBasic}
		for b.Loop() {
			s, err := e.Stats(ctx, bob)
			if err != nil || s.Total != 33_333 {
				b.Fatalf("Stats(bob) = %d, %v", s.Total, err)
			}
		}
	})
}
