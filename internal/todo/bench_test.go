package todo

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// benchList is a realistic list: ten todos, a few done, one in progress.
func benchList() []Todo {
	todos := make([]Todo, 10)
	for i := range todos {
		todos[i] = Todo{ID: i + 1, Title: fmt.Sprintf("Step %d of the task", i+1), Status: StatusNotStarted,
			Description: "Some details about what this step involves and how to check it."}
		if i < 3 {
			todos[i].Status = StatusCompleted
		}
		if i > 0 {
			todos[i].Dependencies = []int{i}
		}
	}
	todos[3].Status = StatusInProgress
	return todos
}

// reportP50 adds the median of the per-operation durations as a metric, since the targets are
// stated as p50 and ns/op is a mean.
func reportP50(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkUpdateOne is one todo_operations update of one todo, including the synced commit
// (target: p50 <= 2 ms).
func BenchmarkUpdateOne(b *testing.B) {
	ctx := b.Context()
	st := openStore(b, b.TempDir(), false)
	if _, err := Write(ctx, st, "bench", benchList()); err != nil {
		b.Fatal(err)
	}
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		p := float64(i%10) / 10
		start := time.Now()
		if _, err := Update(ctx, st, "bench", []Patch{{ID: 4, Progress: &p}}); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
	}
	reportP50(b, d)
}

// BenchmarkRead is one todo_operations read: load the list and render it (target: p50 <= 0.5 ms).
func BenchmarkRead(b *testing.B) {
	ctx := b.Context()
	st := openStore(b, b.TempDir(), false)
	if _, err := Write(ctx, st, "bench", benchList()); err != nil {
		b.Fatal(err)
	}
	d := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		l, err := Read(ctx, st, "bench")
		if err != nil {
			b.Fatal(err)
		}
		_ = Render(l)
		d = append(d, time.Since(start))
	}
	reportP50(b, d)
}

// BenchmarkApplyUpdate is the pure part of an update, without the store.
func BenchmarkApplyUpdate(b *testing.B) {
	l := List{Todos: benchList()}
	p := 0.5
	for b.Loop() {
		if _, err := ApplyUpdate(l, []Patch{{ID: 4, Progress: &p}}, time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
}
