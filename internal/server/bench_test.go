package server

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallThink measures the per-call overhead of the seam and the SDK for a trivial call over
// the in-memory transport, reporting p50 and p99 besides the mean.
func BenchmarkCallThink(b *testing.B) {
	t := &testing.T{}
	h := newHarness(t, nil, nil)
	args := map[string]any{"thoughts": "benchmark"}
	params := &mcp.CallToolParams{Name: "think", Arguments: args}
	durations := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, err := h.client.CallTool(context.Background(), params)
		durations = append(durations, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("think: %v %v", err, res)
		}
	}
	b.StopTimer()
	reportPercentiles(b, durations)
}

func reportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-µs")
}
