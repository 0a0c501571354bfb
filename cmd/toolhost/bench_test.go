package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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

// referenceServers builds the reference servers once per test binary: testdata/minimal (the
// go-sdk alone); with -tags toolhostdeps, the same server linked with all of toolhost's
// packages ("minimaldeps"); and with -tags toolhostfull, the same server keeping all of
// toolhost's code ("minimalfull", a binary of toolhost's size).
var referenceServers = sync.OnceValues(func() (map[string]string, error) {
	bins := map[string]string{}
	for name, tags := range map[string]string{"minimal": "", "minimaldeps": "toolhostdeps", "minimalfull": "toolhostfull"} {
		bin := filepath.Join(filepath.Dir(binary), name)
		if out, err := exec.Command("go", "build", "-tags", tags, "-o", bin, "./testdata/minimal").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build %s: %v\n%s", name, err, out)
		}
		bins[name] = bin
	}
	return bins, nil
})

// reference returns the path of a reference server built by referenceServers.
func reference(b *testing.B, name string) string {
	b.Helper()
	bins, err := referenceServers()
	if err != nil {
		b.Fatal(err)
	}
	return bins[name]
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

// perCallSetup starts toolhost on a fresh state directory and the minimal server, and returns
// the calls the per-call benchmarks time: the minimal server's trivial call first, then think,
// file_operations.list_dir and todo_operations.read. A plan in the conversation makes every
// call run the reminder check for real.
func perCallSetup(b *testing.B) []perCallCase {
	work := b.TempDir()
	for _, name := range []string{"a.txt", "b.txt", "c.go"} {
		os.WriteFile(filepath.Join(work, name), []byte("x\n"), 0o600)
	}
	host := connect(b, commandIn(b, b.TempDir(), work, "stdio"))
	b.Cleanup(func() { host.Close() })
	ref := connect(b, exec.Command(reference(b, "minimal")))
	b.Cleanup(func() { ref.Close() })
	if res, err := host.CallTool(context.Background(), &mcp.CallToolParams{Name: "todo_operations", Arguments: map[string]any{
		"operation": "write", "todos": []map[string]any{{"id": 1, "title": "measure", "status": "in-progress"}}}}); err != nil || res.IsError {
		b.Fatalf("todo write: %v %v", err, res)
	}
	return []perCallCase{
		{"minimal", ref, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}},
		{"think", host, &mcp.CallToolParams{Name: "think", Arguments: map[string]any{"thoughts": "hello"}}},
		{"list_dir", host, &mcp.CallToolParams{Name: "file_operations", Arguments: map[string]any{"operation": "list_dir", "path": "."}}},
		{"todo_read", host, &mcp.CallToolParams{Name: "todo_operations", Arguments: map[string]any{"operation": "read"}}},
	}
}

type perCallCase struct {
	name string
	cs   *mcp.ClientSession
	p    *mcp.CallToolParams
}

// call times one call of c.
func (c perCallCase) call(b *testing.B) time.Duration {
	start := time.Now()
	res, err := c.cs.CallTool(context.Background(), c.p)
	d := time.Since(start)
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %v", c.name, err, res)
	}
	return d
}

// reportPerCall reports each case's p50 and its ratio to the minimal server's (lat[0]).
func reportPerCall(b *testing.B, calls []perCallCase, lat [][]time.Duration) {
	ref50 := p50(lat[0])
	b.ReportMetric(float64(ref50.Microseconds()), "minimal-p50-µs")
	for j, c := range calls[1:] {
		d := p50(lat[j+1])
		b.ReportMetric(float64(d.Microseconds()), c.name+"-p50-µs")
		b.ReportMetric(float64(d)/float64(ref50), c.name+"-ratio")
	}
}

// BenchmarkPerCall measures p50 round trips over stdio of think, file_operations.list_dir and
// todo_operations.read against the minimal server's trivial call, back to back, and reports
// each ratio.
func BenchmarkPerCall(b *testing.B) {
	calls := perCallSetup(b)
	reportPerCall(b, calls, timeRounds(b, calls))
}

// timeRounds makes b.N rounds of calls, each call once a round, back to back, and returns each
// call's latencies; only the rounds are timed.
func timeRounds(b *testing.B, calls []perCallCase) [][]time.Duration {
	lat := make([][]time.Duration, len(calls))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, c := range calls {
			lat[j] = append(lat[j], c.call(b))
		}
	}
	b.StopTimer()
	return lat
}

// BenchmarkPerCallGap is BenchmarkPerCall at a model's pace: every call comes after the server
// that answers it sat idle for the gap, so whatever a quiet process lets go of (a database
// handle, warm caches) is paid again, as it is between the calls of a model that thinks for
// seconds. Each iteration is one call, the four kinds in turn, so -benchtime 400x times 100 of
// each; the 1s gap therefore takes about 400 s.
func BenchmarkPerCallGap(b *testing.B) {
	for _, gap := range []time.Duration{50 * time.Millisecond, time.Second} {
		b.Run(gap.String(), func(b *testing.B) {
			calls := perCallSetup(b)
			lat := make([][]time.Duration, len(calls))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				time.Sleep(gap)
				b.StartTimer()
				j := i % len(calls)
				lat[j] = append(lat[j], calls[j].call(b))
			}
			b.StopTimer()
			if b.N < len(calls) {
				return // too few iterations for every kind (the first round of -benchtime)
			}
			reportPerCall(b, calls, lat)
		})
	}
}

// BenchmarkColdStart measures spawn → tools/list answered: what an editor pays when it starts
// the server. It alternates toolhost on a fresh state directory (a first start: the state file,
// journals and directories are created), toolhost on the state directory of its earlier
// starts (every later start), the minimal server, minimaldeps (the minimal server with all of
// toolhost's packages linked, testdata/minimal/deps.go) and minimalfull (the minimal server
// keeping all of toolhost's code, testdata/minimal/full.go). It reports each p50 and the
// ratios to the minimal server's. deps-ratio is what the dependencies' package initialisation
// costs; full-ratio is the floor of toolhost's own binary: its start with the minimal server's
// work and none of toolhost's, so ratio minus full-ratio is what toolhost's own start-up adds.
func BenchmarkColdStart(b *testing.B) {
	minimal, deps, full := reference(b, "minimal"), reference(b, "minimaldeps"), reference(b, "minimalfull")
	state, work := b.TempDir(), b.TempDir()
	var fresh, again, min, depsFloor, fullFloor []time.Duration
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
		first := commandIn(b, b.TempDir(), b.TempDir(), "stdio")
		b.StartTimer()
		fresh = append(fresh, spawn(first))
		again = append(again, spawn(commandIn(b, state, work, "stdio")))
		min = append(min, spawn(exec.Command(minimal)))
		depsFloor = append(depsFloor, spawn(exec.Command(deps)))
		fullFloor = append(fullFloor, spawn(exec.Command(full)))
	}
	m := p50(min)
	for _, r := range []struct {
		name string
		d    []time.Duration
	}{{"toolhost", fresh}, {"toolhost-again", again}, {"minimal", min}, {"deps", depsFloor}, {"full", fullFloor}} {
		b.ReportMetric(float64(p50(r.d).Microseconds())/1000, r.name+"-p50-ms")
		if r.name != "minimal" {
			name := strings.TrimPrefix(r.name+"-ratio", "toolhost-")
			b.ReportMetric(float64(p50(r.d))/float64(m), name)
		}
	}
}

// BenchmarkRunCommand measures run_command of `true` as a ratio to think in the same server,
// interleaved, with the sessions in the server ("local", as before [terminal] keep_sessions)
// and in the terminal host ("host"): the host's cost is the difference of the two ratios.
//
//	go test ./cmd/toolhost -run '^$' -bench RunCommand -benchtime 200x -count 5
func BenchmarkRunCommand(b *testing.B) {
	for _, mode := range []struct{ name, config string }{
		{"local", "[terminal]\nkeep_sessions = false\n"},
		{"host", ""},
	} {
		b.Run(mode.name, func(b *testing.B) {
			state, work := b.TempDir(), b.TempDir()
			if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte(mode.config), 0o600); err != nil {
				b.Fatal(err)
			}
			cs := connect(b, commandIn(b, state, work, "stdio"))
			b.Cleanup(func() { cs.Close() })
			calls := []perCallCase{
				{"think", cs, &mcp.CallToolParams{Name: "think", Arguments: map[string]any{"thoughts": "hello"}}},
				{"run_true", cs, &mcp.CallToolParams{Name: "terminal_operations", Arguments: map[string]any{"operation": "run_command", "command": "true"}}},
			}
			calls[1].call(b) // starts the host (or the engine) outside the timing
			lat := timeRounds(b, calls)
			think, run := p50(lat[0]), p50(lat[1])
			b.ReportMetric(float64(think.Microseconds()), "think-p50-µs")
			b.ReportMetric(float64(run.Microseconds()), "run_true-p50-µs")
			b.ReportMetric(float64(run)/float64(think), "run_true/think")
			if os.Getenv("BENCH_DEBUG") != "" {
				s := slices.Clone(lat[1])
				slices.Sort(s)
				b.Logf("run_true p90 %s max %s; all %v", s[len(s)*9/10], s[len(s)-1], lat[1])
			}
		})
	}
}
