package consolidated

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/internal/engine"
)

// BenchmarkRecordingOverhead is the pair the issue asks for: the same think call through
// Dispatch with and without the execution engine. The difference of the p50s is what recording
// costs a call (masking, two journal lines, the client log check); the bbolt flush runs in the
// background.
func BenchmarkRecordingOverhead(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("engine=%v", on), func(b *testing.B) {
			h := newHarness(b, harnessOptions{tools: func(*harness) []*Tool { return []*Tool{ThinkTool()} }, executions: on})
			raw := json.RawMessage(`{"thoughts":"plan the next step"}`)
			ctx := context.Background()
			var ds []time.Duration
			for b.Loop() {
				start := time.Now()
				if res := h.reg.Dispatch(ctx, "think", raw, nil); res.IsError {
					b.Fatal("think failed")
				}
				ds = append(ds, time.Since(start))
			}
			b.ReportMetric(percentileMS(ds, 0.5)*1000, "p50-µs")
		})
	}
}

// BenchmarkCancelTree measures an operator's cancel of a running command with a background
// child: from engine.Cancel to the execution recorded cancelled with every process gone.
func BenchmarkCancelTree(b *testing.B) {
	h := newTermHarness(b, harnessOptions{executions: true})
	e := h.env.Executions
	var ds []time.Duration
	for i := 0; b.Loop(); i++ {
		num := "9" + strconv.Itoa(os.Getpid()%1000) + strconv.Itoa(i)
		done := make(chan struct{})
		go func() {
			raw, _ := json.Marshal(map[string]any{"operation": "run_command", "command": "sleep " + num + " & sleep " + num, "yield_seconds": 60})
			h.reg.Dispatch(context.Background(), "terminal_operations", raw, nil)
			close(done)
		}()
		var id string
		for id == "" {
			for _, r := range e.Active(context.Background(), authz.StdioPrincipal) {
				if r.Command != "" && len(procsWithArgs(b, "sleep", num)) >= 2 {
					id = r.ID
				}
			}
			time.Sleep(time.Millisecond)
		}
		start := time.Now()
		r, err := e.Cancel(context.Background(), authz.StdioPrincipal, id)
		if err != nil || r.Status != engine.StatusCancelled {
			b.Fatalf("Cancel = %+v, %v", r, err)
		}
		for len(procsWithArgs(b, "sleep", num)) > 0 {
			time.Sleep(100 * time.Microsecond)
		}
		ds = append(ds, time.Since(start))
		<-done
	}
	b.ReportMetric(percentileMS(ds, 0.5), "p50-ms")
	b.ReportMetric(percentileMS(ds, 0.99), "p99-ms")
}
