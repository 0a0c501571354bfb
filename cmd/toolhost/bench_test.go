package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The per-call benchmarks compare toolhost with a minimal go-sdk server (testdata/minimal) in the
// same run, interleaving the two so that machine noise hits both alike; the ratios are the result.
// Targets (issue 14): each ratio ≤ 1.5.
//
//	go test ./cmd/toolhost -run '^$' -bench 'PerCall|ColdStart' -benchtime 400x

var (
	minimalOnce sync.Once
	minimalBin  string
	minimalErr  error
)

// minimalServer builds the reference server once per test binary.
func minimalServer(b *testing.B) string {
	b.Helper()
	minimalOnce.Do(func() {
		minimalBin = filepath.Join(filepath.Dir(binary), "minimal")
		out, err := exec.Command("go", "build", "-o", minimalBin, "./testdata/minimal").CombinedOutput()
		if err != nil {
			minimalErr = err
			os.Stderr.Write(out)
		}
	})
	if minimalErr != nil {
		b.Fatalf("build minimal server: %v", minimalErr)
	}
	return minimalBin
}

func connect(b *testing.B, cmd *exec.Cmd) *mcp.ClientSession {
	b.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return cs
}

func p50(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkPerCall measures p50 round trips over stdio of think, file_operations.list_dir and
// todo_operations.read against the minimal server's trivial call, and reports each ratio.
func BenchmarkPerCall(b *testing.B) {
	t := &testing.T{}
	work := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt", "c.go"} {
		os.WriteFile(filepath.Join(work, name), []byte("x\n"), 0o600)
	}
	host := connect(b, commandIn(t, t.TempDir(), work, "stdio"))
	defer host.Close()
	ref := connect(b, exec.Command(minimalServer(b)))
	defer ref.Close()

	calls := []struct {
		name string
		cs   *mcp.ClientSession
		p    *mcp.CallToolParams
	}{
		{"minimal", ref, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}},
		{"think", host, &mcp.CallToolParams{Name: "think", Arguments: map[string]any{"thoughts": "hello"}}},
		{"list_dir", host, &mcp.CallToolParams{Name: "file_operations", Arguments: map[string]any{"operation": "list_dir", "path": "."}}},
		{"todo_read", host, &mcp.CallToolParams{Name: "todo_operations", Arguments: map[string]any{"operation": "read"}}},
	}
	ctx := context.Background()
	// A plan in the conversation makes every call run the reminder check for real.
	if res, err := host.CallTool(ctx, &mcp.CallToolParams{Name: "todo_operations", Arguments: map[string]any{
		"operation": "write", "todos": []map[string]any{{"id": 1, "title": "measure", "status": "in-progress"}}}}); err != nil || res.IsError {
		b.Fatalf("todo write: %v %v", err, res)
	}
	lat := make([][]time.Duration, len(calls))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, c := range calls {
			start := time.Now()
			res, err := c.cs.CallTool(ctx, c.p)
			lat[j] = append(lat[j], time.Since(start))
			if err != nil || res.IsError {
				b.Fatalf("%s: %v %v", c.name, err, res)
			}
		}
	}
	b.StopTimer()
	ref50 := p50(lat[0])
	b.ReportMetric(float64(ref50.Microseconds()), "minimal-p50-µs")
	for j, c := range calls[1:] {
		d := p50(lat[j+1])
		b.ReportMetric(float64(d.Microseconds()), c.name+"-p50-µs")
		b.ReportMetric(float64(d)/float64(ref50), c.name+"-ratio")
	}
}

// BenchmarkColdStart measures spawn → tools/list answered, for toolhost stdio and for the minimal
// server, alternating, and reports the ratio of the p50s: what an editor pays when it starts the
// server.
func BenchmarkColdStart(b *testing.B) {
	t := &testing.T{}
	ref := minimalServer(b)
	var host, min []time.Duration
	spawn := func(cmd *exec.Cmd) time.Duration {
		start := time.Now()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		b.StopTimer()
		cs.Close()
		b.StartTimer()
		return d
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cmd := command(t, "stdio")
		b.StartTimer()
		host = append(host, spawn(cmd))
		min = append(min, spawn(exec.Command(ref)))
	}
	h, m := p50(host), p50(min)
	b.ReportMetric(float64(h.Microseconds())/1000, "toolhost-p50-ms")
	b.ReportMetric(float64(m.Microseconds())/1000, "minimal-p50-ms")
	b.ReportMetric(float64(h)/float64(m), "ratio")
}
