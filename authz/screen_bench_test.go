package authz

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"toolhost/internal/fsread"
	"toolhost/store/storetest"
)

// BenchmarkScreenedGrep is grep_search over the Go sources through the guard's Target (every
// entry screened, every file vetted) and reports its time as a ratio to the same grep unscreened
// in the same run ("ratio"; target <= 1.1).
func BenchmarkScreenedGrep(b *testing.B) {
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no Go sources: %v", err)
	}
	st := storetest.Open(b)
	g, err := New(context.Background(), Config{WorkDir: src, StateDir: st.Dir(), Store: st})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close() })
	ctx := context.Background()
	tg, err := g.Open(ctx, Request{Tool: "file_operations", Operation: "grep_search", Class: ClassRead, Path: "."})
	if err != nil {
		b.Fatal(err)
	}
	opts := fsread.GrepOptions{Pattern: `func \w+Context\(`, MaxMatches: 1 << 20}
	screened := opts
	screened.Screen = tg
	run := func(o fsread.GrepOptions) time.Duration {
		t := time.Now()
		if _, err := fsread.Grep(ctx, tg.Root, tg.Rel, o); err != nil {
			b.Fatal(err)
		}
		return time.Since(t)
	}
	run(opts) // warm the cache
	var plain, guarded time.Duration
	i := 0
	for b.Loop() {
		// Alternate which goes first, so neither always runs on the other's warm caches.
		if i%2 == 0 {
			guarded += run(screened)
			b.StopTimer()
			plain += run(opts)
			b.StartTimer()
		} else {
			b.StopTimer()
			plain += run(opts)
			b.StartTimer()
			guarded += run(screened)
		}
		i++
	}
	b.ReportMetric(float64(guarded)/float64(plain), "ratio")
}
