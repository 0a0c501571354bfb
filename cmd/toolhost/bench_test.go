package main

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkColdStartStdio measures spawning `toolhost stdio` until its tools/list answer arrives:
// what an editor pays when it starts the server.
func BenchmarkColdStartStdio(b *testing.B) {
	t := &testing.T{}
	var d []time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cmd := command(t, "stdio")
		os.WriteFile(cmd.Args[len(cmd.Args)-1], nil, 0o600)
		b.StartTimer()
		start := time.Now()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
		d = append(d, time.Since(start))
		b.StopTimer()
		cs.Close()
		b.StartTimer()
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
}
