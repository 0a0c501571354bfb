package terminal

import (
	"context"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/hinshun/vt10x"

	"toolhost/internal/gate"
	"toolhost/internal/sandbox"
	"toolhost/internal/sandbox/sandboxtest"
)

func p50(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	sort.Slice(ds, func(a, b int) bool { return ds[a] < ds[b] })
	return float64(ds[len(ds)/2].Microseconds()) / 1000
}

// BenchmarkRoundTrip measures send_input of `echo x` until get_output has seen x.
func BenchmarkRoundTrip(b *testing.B) {
	m, err := NewManager(Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	ctx := context.Background()
	if _, err := m.Create(ctx, "b", SessionSpec{Name: "rt", Cwd: b.TempDir()}); err != nil {
		b.Fatal(err)
	}
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		out, err := m.Send(ctx, "b", "rt", Input{Text: "echo x", Wait: OutputQuery{WaitMS: 10000, WaitFor: `(?m)^x\r?$`}})
		if err != nil || !out.Matched {
			b.Fatalf("Send() = %+v, %v", out, err)
		}
		ds = append(ds, time.Since(start))
		// Let the prompt come back before the next round.
		for !out.Finished {
			out, _ = m.Output(ctx, "b", "rt", OutputQuery{WaitMS: 10000})
		}
	}
	b.ReportMetric(p50(ds), "p50-ms")
}

// BenchmarkSeqThroughput measures how fast the session reader drains `seq 1000000`.
func BenchmarkSeqThroughput(b *testing.B) {
	m, err := NewManager(Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	ctx := context.Background()
	if _, err := m.Create(ctx, "b", SessionSpec{Name: "seq", Cwd: b.TempDir()}); err != nil {
		b.Fatal(err)
	}
	const seqBytes = 7888896 // bytes of `seq 1000000` through a PTY (ONLCR adds \r)
	b.SetBytes(seqBytes)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := m.Send(ctx, "b", "seq", Input{Text: "seq 1000000", Wait: OutputQuery{WaitMS: 60000, MaxBytes: 1}})
		for err == nil && !out.Finished {
			out, err = m.Output(ctx, "b", "seq", OutputQuery{WaitMS: 60000, MaxBytes: 1})
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunTrue measures run_command of `true` end to end, in process.
func BenchmarkRunTrue(b *testing.B) {
	m, err := NewManager(Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	dir := b.TempDir()
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		r, err := m.Run(context.Background(), "b", RunSpec{Command: "true", Cwd: dir})
		if err != nil || r.Running || r.ExitCode != 0 {
			b.Fatalf("Run(true) = %+v, %v", r, err)
		}
		ds = append(ds, time.Since(start))
	}
	b.ReportMetric(p50(ds), "p50-ms")
}

// BenchmarkRunTrueSandboxed measures what the sandbox adds to run_command true: the same
// manager runs the command unconfined and confined (workspace-write, toolhost's state under
// the home directory as by default, so rules are cut around it) in alternation, and the
// ratio of the medians is reported (target: at most 1.2).
func BenchmarkRunTrueSandboxed(b *testing.B) {
	sandboxtest.Require(b)
	policy := sandboxtest.HomePolicy(b)
	dir := policy.Writable[0]
	confined := false
	m, err := NewManager(Config{Gate: switchGate{policy: policy, on: &confined}})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	run := func() time.Duration {
		start := time.Now()
		r, err := m.Run(context.Background(), "b", RunSpec{Command: "true", Cwd: dir})
		if err != nil || r.Running || r.ExitCode != 0 {
			b.Fatalf("Run(true) = %+v, %v", r, err)
		}
		return time.Since(start)
	}
	var plain, boxed []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		confined = false
		plain = append(plain, run())
		confined = true
		boxed = append(boxed, run())
	}
	b.ReportMetric(p50(plain), "plain-p50-ms")
	b.ReportMetric(p50(boxed), "sandboxed-p50-ms")
	b.ReportMetric(p50(boxed)/p50(plain), "ratio")
}

func rssKB() int {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

// BenchmarkYesRSS runs `yes` in 10 sessions for 10 s and reports the peak RSS of this
// process and the latency of a get_output round trip in an eleventh session meanwhile.
func BenchmarkYesRSS(b *testing.B) {
	for i := 0; i < b.N; i++ {
		m, err := NewManager(Config{MaxSessionsPerConversation: 16})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		dir := b.TempDir()
		before := rssKB()
		for s := 0; s < 10; s++ {
			id := "yes" + strconv.Itoa(s)
			if _, err := m.Create(ctx, "b", SessionSpec{Name: id, Cwd: dir}); err != nil {
				b.Fatal(err)
			}
			if _, err := m.Send(ctx, "b", id, Input{Text: "yes"}); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := m.Create(ctx, "b", SessionSpec{Name: "probe", Cwd: dir}); err != nil {
			b.Fatal(err)
		}
		peak := 0
		var rts []time.Duration
		end := time.Now().Add(10 * time.Second)
		for time.Now().Before(end) {
			start := time.Now()
			out, err := m.Send(ctx, "b", "probe", Input{Text: "echo x", Wait: OutputQuery{WaitMS: 10000}})
			if err != nil || !out.Finished {
				b.Fatalf("probe Send() = %+v, %v", out, err)
			}
			rts = append(rts, time.Since(start))
			for s := 0; s < 10; s++ {
				if _, err := m.Output(ctx, "b", "yes"+strconv.Itoa(s), OutputQuery{MaxBytes: 4096}); err != nil {
					b.Fatal(err)
				}
				if _, err := m.Screen("b", "yes"+strconv.Itoa(s)); err != nil {
					b.Fatal(err)
				}
			}
			peak = max(peak, rssKB())
			time.Sleep(100 * time.Millisecond)
		}
		var total int64
		for s := 0; s < 10; s++ {
			p, _ := m.History("b", "yes"+strconv.Itoa(s), 0, 1)
			total += p.End
		}
		m.Shutdown(ctx)
		b.ReportMetric(float64(peak)/1024, "peak-rss-MB")
		b.ReportMetric(float64(before)/1024, "start-rss-MB")
		b.ReportMetric(p50(rts), "probe-p50-ms")
		b.ReportMetric(float64(total)/10/(1<<20), "MB-per-session")
	}
}

// BenchmarkIngest measures the session reader's own processing (log cleaning, ring, screen
// queue, waking waiters) on the bytes `seq 1000000` produces in a PTY, without the kernel.
func BenchmarkIngest(b *testing.B) { benchIngest(b, false) }

// BenchmarkIngestRecorded is BenchmarkIngest with the session recorded (record.go): the
// recording's share of the reader's work is the ratio of the two.
//
//	go test ./internal/terminal -run '^$' -bench 'Ingest' -benchtime 2s
func BenchmarkIngestRecorded(b *testing.B) { benchIngest(b, true) }

func benchIngest(b *testing.B, recorded bool) {
	var sb strings.Builder
	for i := 1; i <= 1000000; i++ {
		sb.WriteString(strconv.Itoa(i))
		sb.WriteString("\r\n")
	}
	data := []byte(sb.String())
	m, err := NewManager(Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := &session{stream: newStream(2 << 20), m: m, id: "x", updCh: make(chan struct{}, 1), cols: 120, rows: 40, bash: true, ready: make(chan struct{})}
		s.view = newLogView(s.log, s.onMarker)
		if recorded {
			s.rec = newRecorder(b.TempDir(), "c", "x", time.Now(), 120, 40, "bash", DefaultRecordSegmentBytes, DefaultRecordSegments)
		}
		for off := 0; off < len(data); off += 4095 {
			s.ingest(data[off:min(off+4095, len(data))])
		}
		s.rec.close()
	}
}

// BenchmarkScreenFeed measures the emulator catching up with a full screen queue (256 KiB of
// scrolling lines), the worst case a get_screen call pays.
func BenchmarkScreenFeed(b *testing.B) {
	line := []byte("0123456789 the quick brown fox jumps over the lazy dog\r\n")
	var data []byte
	for len(data) < vtPendingCap {
		data = append(data, line...)
	}
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		s := &session{cols: 120, rows: 40, vt: vt10x.New(vt10x.WithSize(120, 40))}
		s.vtPend = append(s.vtPend[:0], data...)
		s.feedVTLocked()
		_ = renderScreen(s.vt)
	}
}

// BenchmarkRawPTYSeq is the baseline for BenchmarkSeqThroughput: `seq 1000000` drained from a
// bare PTY with no processing at all. seq is line-buffered on a terminal (one write per
// line), so this measures the kernel's PTY path, the ceiling for any session reader.
func BenchmarkRawPTYSeq(b *testing.B) {
	b.SetBytes(7888896)
	buf := make([]byte, 64<<10)
	for i := 0; i < b.N; i++ {
		cmd := exec.Command("seq", "1000000")
		f, err := pty.Start(cmd)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := f.Read(buf); err != nil {
				break
			}
		}
		f.Close()
		_ = cmd.Wait()
	}
}

// switchGate confines every start under policy while *on, and nothing otherwise.
type switchGate struct {
	policy *sandbox.Policy
	on     *bool
}

func (g switchGate) Start(context.Context, gate.Request) (*gate.Start, error) {
	s := &gate.Start{Env: (*gate.Gate)(nil).Environ()}
	if *g.on {
		s.Policy = g.policy
	}
	return s, nil
}

func (switchGate) Check(context.Context, string, gate.Line) error { return nil }
func (switchGate) Withheld(name string) bool                      { return (*gate.Gate)(nil).Withheld(name) }
