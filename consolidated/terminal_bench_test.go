package consolidated

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// p50ms and p99ms report percentiles of call latencies in milliseconds.
func percentileMS(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	return float64(s[min(len(s)-1, int(float64(len(s))*p))].Microseconds()) / 1000
}

// rssMB reads this process's resident set size.
func rssMB(b *testing.B) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}

// BenchmarkTerminalRunTrue measures run_command of `true` end to end through the in-memory MCP
// transport: guard check, fork/exec of sh, wait, result shaping.
func BenchmarkTerminalRunTrue(b *testing.B) {
	h := newTermHarness(b, harnessOptions{})
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		h.mustOp("run_command", map[string]any{"command": "true"})
		ds = append(ds, time.Since(start))
	}
	b.ReportMetric(percentileMS(ds, 0.5), "p50-ms")
}

// BenchmarkTerminalRoundTrip measures send_input of `echo x` followed by get_output waiting
// until it has seen x, through the MCP transport.
func BenchmarkTerminalRoundTrip(b *testing.B) {
	h := newTermHarness(b, harnessOptions{})
	h.mustOp("create_session", map[string]any{"session_id": "rt"})
	seenX := regexp.MustCompile(`(?m)^x\r?$`)
	var ds []time.Duration
	for b.Loop() {
		start := time.Now()
		// send_input answers at once with what has arrived (often x already); get_output waits
		// for the rest.
		text, st := h.mustOp("send_input", map[string]any{"session_id": "rt", "text": "echo x"})
		if !seenX.MatchString(text) {
			text, st = h.mustOp("get_output", map[string]any{"session_id": "rt", "wait_ms": 10000, "wait_for": seenX.String()})
			if st["matched"] != true {
				b.Fatalf("get_output = %q, want x", text)
			}
		}
		ds = append(ds, time.Since(start))
		for st["finished"] != true {
			_, st = h.mustOp("get_output", map[string]any{"session_id": "rt", "wait_ms": 10000})
		}
	}
	b.ReportMetric(percentileMS(ds, 0.5), "p50-ms")
}

// BenchmarkTerminalResponsiveUnderLoad runs `yes` in 10 sessions and measures list_sessions and
// a bounded get_output meanwhile, then reports the process's RSS: history rings (2 MiB each)
// and emulator backlogs (256 KiB each) bound it whatever the output rate.
func BenchmarkTerminalResponsiveUnderLoad(b *testing.B) {
	h := newTermHarness(b, harnessOptions{})
	// Two conversations: one may hold at most 8 sessions.
	for i := range 10 {
		id, conv := fmt.Sprintf("y%d", i), fmt.Sprintf("load%d", i%2)
		h.mustOp("create_session", map[string]any{"session_id": id, "conversation_id": conv})
		h.mustOp("send_input", map[string]any{"session_id": id, "conversation_id": conv, "text": "yes"})
	}
	var list, out []time.Duration
	for b.Loop() {
		start := time.Now()
		h.mustOp("list_sessions", map[string]any{"conversation_id": "load0"})
		list = append(list, time.Since(start))
		start = time.Now()
		h.mustOp("get_output", map[string]any{"session_id": "y0", "conversation_id": "load0", "max_bytes": 4096})
		out = append(out, time.Since(start))
	}
	b.ReportMetric(percentileMS(list, 0.5), "list-p50-ms")
	b.ReportMetric(percentileMS(list, 0.99), "list-p99-ms")
	b.ReportMetric(percentileMS(out, 0.5), "output-p50-ms")
	b.ReportMetric(rssMB(b), "rss-MB")
}
