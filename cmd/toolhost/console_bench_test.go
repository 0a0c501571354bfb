package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"toolhost/authz"
	"toolhost/internal/engine"
	"toolhost/store"
)

// BenchmarkConsoleIdleCPU measures what an idle console costs the server: the CPU time
// (schedstat of its threads) the real `serve` process spends over 10 s with nothing
// happening, without a browser and then with one open page's event stream (the approvals
// page, the one `serve` opens on), in the same run. It reports both in ms of CPU per 10 s.
//
//	go test ./cmd/toolhost -run '^$' -bench ConsoleIdleCPU -benchtime 1x -count 3
func BenchmarkConsoleIdleCPU(b *testing.B) {
	sv := startConsoleServe(b, 0)
	cl := signedInClient(b, sv.signIn)
	base := sv.base
	const window = 10 * time.Second
	idle := func() time.Duration {
		before := cpuTime(b, sv.pid)
		time.Sleep(window)
		return cpuTime(b, sv.pid) - before
	}
	time.Sleep(2 * time.Second) // the start's own work (state checks) settles
	for b.Loop() {
		alone := idle()
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/events?topic=approvals", nil)
		resp, err := cl.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("event stream: %v %v", resp, err)
		}
		go io.Copy(io.Discard, resp.Body)
		time.Sleep(500 * time.Millisecond) // the first render
		open := idle()
		cancel()
		resp.Body.Close()
		b.ReportMetric(float64(alone.Microseconds())/1000, "cpu-ms/10s-no-page")
		b.ReportMetric(float64(open.Microseconds())/1000, "cpu-ms/10s-one-page")
	}
}

// consoleServe is a `toolhost serve` a benchmark started.
type consoleServe struct {
	base, signIn string // http://HOST:PORT and the console's one-time sign-in link
	pid          int
}

// startConsoleServe starts the real binary's `serve` on a fresh state directory holding
// executions finished calls, and reads the console's sign-in link it prints.
func startConsoleServe(b *testing.B, executions int) consoleServe {
	b.Helper()
	state, work := b.TempDir(), b.TempDir()
	if executions > 0 {
		storeExecutions(b, state, executions)
	}
	cfg := filepath.Join(state, "config.toml")
	os.WriteFile(cfg, nil, 0o600)
	cmd := exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--state-dir", state, "--workdir", work, "--config", cfg)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+state)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	sv := consoleServe{pid: cmd.Process.Pid}
	sc := bufio.NewScanner(stdout)
	for sv.signIn == "" && sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "console: open "); ok {
			sv.signIn = strings.Fields(rest)[0]
		}
	}
	if sv.signIn == "" {
		b.Fatal("serve printed no sign-in link")
	}
	go io.Copy(io.Discard, stdout)
	sv.base = sv.signIn[:strings.Index(sv.signIn, "/signin")]
	return sv
}

// storeExecutions records n finished calls in the state directory's execution history, as
// a server that ran them would have.
func storeExecutions(b *testing.B, state string, n int) {
	b.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, state, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	e, err := engine.Open(ctx, engine.Options{StateDir: state, Store: st})
	if err != nil {
		b.Fatal(err)
	}
	tools := []string{"file_operations", "terminal_operations", "memory_operations", "web_operations"}
	for i := range n {
		_, x := e.Begin(ctx, engine.Start{Tool: tools[i%len(tools)], Operation: "op", Principal: "default",
			Conversation: fmt.Sprintf("conv-%d", i%5), Category: authz.CategorySafe, Args: []byte(`{"operation":"op"}`)})
		status := engine.StatusSuccess
		if i%9 == 0 {
			status = engine.StatusFailed
		}
		x.Finish(engine.Outcome{Status: status, ResultBytes: 100})
	}
	if err := e.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	if stats, err := e.Stats(ctx, authz.StdioPrincipal); err != nil || stats.Total != int64(n) {
		b.Fatalf("stored executions: %+v, %v; want %d", stats.Total, err, n)
	}
	if err := e.Close(); err != nil {
		b.Fatal(err)
	}
}

// signedInClient spends the sign-in link and returns a client with the session's cookie.
func signedInClient(b *testing.B, signIn string) *http.Client {
	b.Helper()
	jar, _ := cookiejar.New(nil)
	cl := &http.Client{Jar: jar}
	resp, err := cl.Get(signIn)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return cl
}

// BenchmarkConsolePageLoad loads console pages of the real binary, with 10,000 executions
// stored, in real Chromium, and reports the p50 of navigation start to the load event (performance.timing) for each, and
// its ratio to a trivial document the same server sends (the console's stylesheet opened
// as a page), measured in the same run with the loads interleaved.
//
//	go test ./cmd/toolhost -run '^$' -bench ConsolePageLoad -benchtime 20x -count 3
func BenchmarkConsolePageLoad(b *testing.B) {
	sv := startConsoleServe(b, 10_000)
	tab := newChromium(b)
	if err := chromedp.Do(tab, chromedp.Navigate(sv.signIn)); err != nil {
		b.Fatal(err)
	}
	pages := []struct{ name, path string }{
		{"trivial", "/static/console.css"},
		{"approvals", "/"},
		{"activity", "/activity"},
		{"tools", "/tools"},
		{"health", "/health"},
	}
	loads := make([][]time.Duration, len(pages))
	for b.Loop() {
		for i, p := range pages {
			ctx, cancel := context.WithTimeout(tab, 20*time.Second)
			err := chromedp.Do(ctx, chromedp.Navigate(sv.base+p.path))
			var ms float64
			// The document's script context may be replaced just after the navigation ends;
			// the figure is read from the new one.
			for try := 0; err == nil || try < 3 && strings.Contains(err.Error(), "context with specified id"); try++ {
				ms, err = chromedp.Run(ctx, chromedp.Poll[float64](`performance.timing.loadEventEnd > 0 && performance.timing.loadEventEnd - performance.timing.navigationStart`))
				if err == nil {
					break
				}
			}
			cancel()
			if err != nil {
				b.Fatalf("%s: %v", p.name, err)
			}
			loads[i] = append(loads[i], time.Duration(ms*float64(time.Millisecond)))
		}
	}
	ref := p50(loads[0])
	b.ReportMetric(float64(ref.Microseconds())/1000, "ms-p50-trivial")
	for i, p := range pages[1:] {
		d := p50(loads[i+1])
		b.ReportMetric(float64(d.Microseconds())/1000, "ms-p50-"+p.name)
		b.ReportMetric(float64(d)/float64(ref), "x-"+p.name)
	}
}

// cpuTime is the CPU time process pid has used: the sum over its threads of the first field
// of /proc/PID/task/TID/schedstat (nanoseconds on the CPU). utime+stime from /proc/PID/stat
// counts in 10 ms ticks, too coarse for an idle process; threads that ended are not counted
// (a Go server keeps its threads).
func cpuTime(b *testing.B, pid int) time.Duration {
	b.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		b.Fatalf("no threads of %d: %v", pid, err)
	}
	var total time.Duration
	for _, path := range tasks {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue // the thread ended
		}
		ns, _ := strconv.ParseInt(strings.Fields(string(raw))[0], 10, 64)
		total += time.Duration(ns)
	}
	return total
}
