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
)

// BenchmarkConsoleIdleCPU measures what an idle console costs the server: the CPU time
// (schedstat of its threads) the real `serve` process spends over 10 s with nothing
// happening, without a browser and then with one open page's event stream (the approvals
// page, the one `serve` opens on), in the same run. It reports both in ms of CPU per 10 s.
//
//	go test ./cmd/toolhost -run '^$' -bench ConsoleIdleCPU -benchtime 1x -count 3
func BenchmarkConsoleIdleCPU(b *testing.B) {
	state, work := b.TempDir(), b.TempDir()
	cfg := filepath.Join(state, "config.toml")
	os.WriteFile(cfg, nil, 0o600)
	cmd := exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--state-dir", state, "--workdir", work, "--config", cfg)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+state)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	var signIn string
	sc := bufio.NewScanner(stdout)
	for signIn == "" && sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "console: open "); ok {
			signIn = strings.Fields(rest)[0]
		}
	}
	if signIn == "" {
		b.Fatal("serve printed no sign-in link")
	}
	go io.Copy(io.Discard, stdout)
	jar, _ := cookiejar.New(nil)
	cl := &http.Client{Jar: jar}
	resp, err := cl.Get(signIn)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	base := signIn[:strings.Index(signIn, "/signin")]

	const window = 10 * time.Second
	idle := func() time.Duration {
		before := cpuTime(b, cmd.Process.Pid)
		time.Sleep(window)
		return cpuTime(b, cmd.Process.Pid) - before
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
