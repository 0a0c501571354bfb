package sandbox_test

import (
	"cmp"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/internal/gate"
	"toolhost/internal/sandbox"
	"toolhost/internal/sandbox/sandboxtest"
	"toolhost/store/storetest"
)

// BenchmarkStartTrueHome5000 is the figure the sandbox is held to: starting and waiting for
// sh -c true as a terminal command does — the gate's rules, policy and environment worked out
// for the start, then the confined start — against starting it unconfined, for a user whose
// HOME holds 5,000 entries beside the credential stores the guard protects (see
// sandboxtest.Home5000) and whose working directory sits in ~/src beside projects with .env
// files. Each iteration starts the command once each way, in alternating order, so both see
// the same load; "ratio" is the median of confined time over unconfined time (target: at most
// 1.2). "gate-us" is the median of the gate's share of a confined start, from the request to
// the policy and environment in hand.
func BenchmarkStartTrueHome5000(b *testing.B) {
	sandboxtest.Require(b)
	home, wd := sandboxtest.Home5000(b)
	g := homeGate(b, home, wd)
	ctx := context.Background()
	var gated []time.Duration // the gate's share of each confined start
	once := func(gate bool) time.Duration {
		t0 := time.Now()
		cmd := exec.Command("/bin/sh", "-c", "true")
		cmd.Dir = wd
		var p *sandbox.Policy
		if gate {
			tg := time.Now()
			s, err := g.Start(ctx, gateRequest(wd))
			if err != nil {
				b.Fatal(err)
			}
			p, cmd.Env = s.Policy, s.Env
			gated = append(gated, time.Since(tg))
		}
		if err := sandbox.Start(cmd, p); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	once(true) // the first start builds the ruleset
	gated = gated[:0]
	pairs(b, func() time.Duration { return once(false) }, func() time.Duration { return once(true) })
	b.ReportMetric(float64(median(gated))/1e3, "gate-us")
}

// gateRequest is the terminal command of the benchmarks.
func gateRequest(wd string) gate.Request {
	return gate.Request{Conversation: "c", Line: "true", Dir: wd}
}

// BenchmarkStartTrue is the sandbox's own share of that figure: the same HOME and a policy
// like the gate's, without the gate's work.
func BenchmarkStartTrue(b *testing.B) {
	sandboxtest.Require(b)
	home, wd := sandboxtest.Home5000(b)
	s, err := homeGate(b, home, wd).Start(context.Background(), gate.Request{Conversation: "c", Dir: wd})
	if err != nil {
		b.Fatal(err)
	}
	once := func(p *sandbox.Policy) time.Duration {
		t0 := time.Now()
		cmd := exec.Command("/bin/sh", "-c", "true")
		cmd.Dir = wd
		if err := sandbox.Start(cmd, p); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	once(s.Policy)
	pairs(b, func() time.Duration { return once(nil) }, func() time.Duration { return once(s.Policy) })
}

// pairs runs plain and confined once per iteration, alternating which goes first, and
// reports the median of confined/plain over the pairs as "ratio", with each one's median in
// microseconds. Medians, because the machines this runs on are shared: a start that waited
// for a CPU would weigh on a sum however rare it is, and the pairs see the same load.
func pairs(b *testing.B, plain, confined func() time.Duration) {
	var ratios []float64
	var tp, tc []time.Duration
	odd := false
	for b.Loop() {
		var p, c time.Duration
		if odd {
			c = confined()
			p = plain()
		} else {
			p = plain()
			c = confined()
		}
		odd = !odd
		tp, tc = append(tp, p), append(tc, c)
		ratios = append(ratios, float64(c)/float64(p))
	}
	b.ReportMetric(median(ratios), "ratio")
	b.ReportMetric(float64(median(tp))/1e3, "plain-us")
	b.ReportMetric(float64(median(tc))/1e3, "confined-us")
}

func median[T cmp.Ordered](s []T) T {
	s = slices.Clone(s)
	slices.Sort(s)
	return s[len(s)/2]
}

// homeGate is a gate for run_command in wd, with HOME home and the state directory where a
// user's is (under HOME, not a temp dir other processes change all the time).
func homeGate(b *testing.B, home, wd string) *gate.Gate {
	state := filepath.Join(home, ".local", "state", "toolhost")
	if err := os.MkdirAll(state, 0o700); err != nil {
		b.Fatal(err)
	}
	guard, err := authz.New(context.Background(), authz.Config{WorkDir: wd, HomeDir: home, Store: storetest.OpenDir(b, state)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { guard.Close() })
	g, err := gate.New(gate.Config{Mode: sandbox.ModeWorkspaceWrite, Workdir: wd, Home: home, Guard: guard,
		Protected: []string{state}, Hidden: []string{state},
		Runner: authz.Runner{Tool: "terminal_operations", Operations: []string{"run_command"}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close() })
	return g
}
