package sandbox_test

import (
	"os/exec"
	"testing"
	"time"

	"toolhost/internal/sandbox"
	"toolhost/internal/sandbox/sandboxtest"
)

// BenchmarkStartTrue compares starting and waiting for sh -c true confined against
// unconfined, alternating in the same run, and reports the ratio (target: at most 1.2).
func BenchmarkStartTrue(b *testing.B) {
	sandboxtest.Require(b)
	p := sandboxtest.HomePolicy(b)
	once := func(p *sandbox.Policy) time.Duration {
		t0 := time.Now()
		cmd := exec.Command("/bin/sh", "-c", "true")
		if err := sandbox.Start(cmd, p); err != nil {
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
