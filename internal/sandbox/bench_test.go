package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// benchPolicy is a realistic workspace-write policy: a working directory, toolhost's state
// and config under the home directory (as by default), so the exclusion walk runs through
// directories that rarely change, as on a user's machine.
func benchPolicy(b *testing.B) *Policy {
	home, err := os.UserHomeDir()
	if err != nil {
		b.Skip(err)
	}
	state, err := os.MkdirTemp(home, ".toolhost-bench-state-")
	if err != nil {
		b.Skip(err)
	}
	b.Cleanup(func() { os.RemoveAll(state) })
	if err := os.WriteFile(filepath.Join(state, "token"), []byte("t"), 0o600); err != nil {
		b.Fatal(err)
	}
	return &Policy{
		Mode:      ModeWorkspaceWrite,
		Writable:  []string{b.TempDir()},
		Temp:      []string{b.TempDir()},
		Protected: []string{state, filepath.Join(home, ".config", "toolhost")},
		Hidden:    []string{state},
	}
}

// BenchmarkStartTrue compares starting and waiting for sh -c true confined against
// unconfined, alternating in the same run, and reports the ratio (target: at most 1.2).
func BenchmarkStartTrue(b *testing.B) {
	if _, err := ABI(); err != nil {
		b.Skip(err)
	}
	p := benchPolicy(b)
	once := func(p *Policy) time.Duration {
		t0 := time.Now()
		cmd := exec.Command("/bin/sh", "-c", "true")
		if err := Start(cmd, p); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	var plain, confined time.Duration
	for b.Loop() {
		plain += once(nil)
		confined += once(p)
	}
	b.ReportMetric(float64(confined)/float64(plain), "ratio")
	b.ReportMetric(float64(plain.Microseconds())/float64(b.N), "plain-us")
	b.ReportMetric(float64(confined.Microseconds())/float64(b.N), "confined-us")
}
