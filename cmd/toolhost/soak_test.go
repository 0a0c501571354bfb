package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The soak test runs many small calls through one stdio server and checks that what it leaves
// on disk stays under a bound and that its memory stays flat once warm. CI runs the short
// variant (its history and audit bounds small, so they are reached within the run); the
// long one is the figure docs/operations.md states:
//
//	go test ./cmd/toolhost -run TestSoak -soak.calls 200000 -timeout 60m -v
var soakCalls = flag.Int("soak.calls", 0, "run TestSoak with this many calls and the default bounds (0: the short variant)")

// soakMix is one round of calls: what a coding agent sends most, commands included (each
// command call also writes an audit line).
func soakMix(i int) (string, map[string]any) {
	switch i % 10 {
	case 0, 1, 2:
		return "think", map[string]any{"thoughts": fmt.Sprintf("step %d: read, then change", i)}
	case 3, 4:
		return "file_operations", map[string]any{"operation": "read_file", "path": "notes.txt"}
	case 5:
		return "file_operations", map[string]any{"operation": "list_dir", "path": "."}
	case 6:
		return "todo_operations", map[string]any{"operation": "read"}
	case 7:
		return "todo_operations", map[string]any{"operation": "update", "updates": []map[string]any{{"id": 1, "progress": float64(i%100) / 100}}}
	default:
		return "terminal_operations", map[string]any{"operation": "run_command", "command": fmt.Sprintf("echo %d", i)}
	}
}

// memory is a process's resident set from /proc: Anon is its own memory (heap, stacks),
// File the pages of mapped files it touched, mostly the state file bbolt maps (file-backed:
// the kernel reclaims them under pressure, and they are at most the file's size).
type memory struct{ Anon, File int64 }

func rss(t *testing.T, pid int) memory {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	var m memory
	for _, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		switch name {
		case "RssAnon":
			m.Anon = kb << 10
		case "RssFile":
			m.File = kb << 10
		}
	}
	return m
}

func dirSize(t *testing.T, dir string) (total int64, parts map[string]int64) {
	t.Helper()
	parts = map[string]int64{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			top, _, _ := strings.Cut(rel, string(filepath.Separator))
			if strings.HasPrefix(top, "audit") {
				top = "audit"
			}
			parts[top] += info.Size()
			total += info.Size()
		}
		return nil
	})
	return total, parts
}

// TestSoak: n calls through one server. The state directory stays under the bound of its
// configuration: the history's records at their measured cost (with the free pages bbolt keeps
// as records are pruned, at most as much again), the audit log's current file and its kept
// compressed files, and a megabyte for journals and the rest. Its own memory (anonymous RSS)
// in the last fifth of the run is at most a fifth and a MiB more than in the second (after warm-up); the
// pages of the state file it maps are counted apart (file-backed RSS), bounded by the file.
func TestSoak(t *testing.T) {
	n, maxRecords, auditBytes, keep := 2000, 500, int64(64<<10), 3
	config := fmt.Sprintf("[executions]\nmax_records = %d\n[audit]\nmax_bytes = %d\nkeep = %d\n", maxRecords, auditBytes, keep)
	if *soakCalls > 0 {
		n, maxRecords, auditBytes, keep, config = *soakCalls, 100_000, 10<<20, 10, ""
	}
	state, work := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte(strings.Repeat("a line of notes\n", 40)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := commandIn(t, state, work, "stdio")
	// A tight GC target keeps the heap near what is live, so the samples measure what the
	// server holds rather than when its collector last ran (a loaded machine moved them by a
	// third with the default).
	cmd.Env = append(cmd.Env, "GOGC=25")
	if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "soak", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mustCall(t, cs, "todo_operations", map[string]any{"operation": "write", "todos": []map[string]any{{"title": "soak", "status": "in-progress"}}})
	pid := cmd.Process.Pid
	// Memory is sampled every 100 calls. The first fifth of the run warms up; the samples of
	// the second fifth and of the last are compared by their medians, which the collector's
	// cycles (a sample at a peak) do not move.
	var early, late []int64
	var maxAnon, maxFile int64
	start := time.Now()
	for i := range n {
		tool, args := soakMix(i)
		if text, isErr := toolCall(t, cs, tool, args); isErr {
			t.Fatalf("call %d %s %v = error %s", i, tool, args, text)
		}
		if i%100 == 99 {
			m := rss(t, pid)
			switch fifth := i * 5 / n; {
			case fifth == 1:
				early = append(early, m.Anon)
			case fifth == 4:
				late = append(late, m.Anon)
			}
			if i >= n/5 {
				maxAnon = max(maxAnon, m.Anon)
			}
			maxFile = max(maxFile, m.File)
			if *soakCalls > 0 && i%20000 == 19999 {
				total, parts := dirSize(t, state)
				t.Logf("%d calls, %v: state %d bytes %v, RSS anon %d MiB, file %d MiB", i+1, time.Since(start).Round(time.Second), total, parts, m.Anon>>20, m.File>>20)
			}
		}
	}
	elapsed := time.Since(start)
	cs.Close()
	cmd.Wait()
	total, parts := dirSize(t, state)
	bound := int64(maxRecords)*recordCost*2 + auditBytes + int64(keep)*auditBytes/4 + 1<<20
	warmAnon, lastAnon := median(early), median(late)
	t.Logf("%d calls in %v (%.0f/s); state directory %d bytes %v, bound %d; RSS anon median %.1f MiB in the second fifth, %.1f MiB in the last (at most %.1f MiB after warm-up); file-backed at most %d MiB",
		n, elapsed.Round(time.Second), float64(n)/elapsed.Seconds(), total, parts, bound, float64(warmAnon)/(1<<20), float64(lastAnon)/(1<<20), float64(maxAnon)/(1<<20), maxFile>>20)
	if total > bound {
		t.Errorf("state directory %d bytes after %d calls, over the bound %d: %v", total, n, bound, parts)
	}
	if lastAnon > warmAnon+warmAnon/5+1<<20 {
		t.Errorf("anonymous RSS grew from a median of %.1f MiB after warm-up to %.1f MiB at the end", float64(warmAnon)/(1<<20), float64(lastAnon)/(1<<20))
	}
}

func median(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// recordCost is the measured bytes on disk of one small call's execution record (engine's
// TestRecordCost), rounded up.
const recordCost = 600
