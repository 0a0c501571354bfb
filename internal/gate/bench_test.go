package gate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/internal/sandbox"
	"toolhost/internal/sandbox/sandboxtest"
	"toolhost/store/storetest"
)

// BenchmarkStartTrueHome5000 measures what the gate and the sandbox add to starting sh -c true
// for a user whose HOME holds 5,000 entries beside the credential stores the guard protects
// (so the sandbox grants reads on each of them one by one) and whose working directory sits
// in ~/src beside other projects with .env files. Each iteration starts the command once
// unconfined and once through the gate (policy and environment worked out for the start,
// rules cached while nothing they depend on changed); the ratio of the two is the figure
// (target: at most 1.2).
func BenchmarkStartTrueHome5000(b *testing.B) {
	sandboxtest.Require(b)
	// Not under a temp dir, as a user's HOME is not: a listed directory that changes all
	// the time (/tmp) would rebuild the rules at every start.
	home := sandboxtest.OutsideTemp(b)
	var err error
	for i := range 5000 {
		name := filepath.Join(home, fmt.Sprintf("entry-%04d", i))
		if i%2 == 0 {
			err = os.Mkdir(name, 0o755)
		} else {
			err = os.WriteFile(name, nil, 0o644)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, d := range []string{".ssh", ".aws", ".config/gh", ".kube", "src/app", "src/other", "src/third"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range []string{".ssh/id_ed25519", ".aws/credentials", ".netrc", "src/other/.env", "src/third/.env.local"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte("secret\n"), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	wd := filepath.Join(home, "src", "app")
	g := benchGate(b, home, wd)
	ctx := context.Background()
	once := func(gated bool) time.Duration {
		t0 := time.Now()
		cmd := exec.Command("/bin/sh", "-c", "true")
		cmd.Dir = wd
		var p *sandbox.Policy
		if gated {
			s, err := g.Start(ctx, Request{Conversation: "c", Line: "true", Dir: wd})
			if err != nil {
				b.Fatal(err)
			}
			p, cmd.Env = s.Policy, s.Env
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
	var plain, gated time.Duration
	for b.Loop() {
		plain += once(false)
		gated += once(true)
	}
	b.ReportMetric(float64(gated)/float64(plain), "ratio")
	b.ReportMetric(float64(plain.Microseconds())/float64(b.N), "plain-us")
	b.ReportMetric(float64(gated.Microseconds())/float64(b.N), "gated-us")
}

// BenchmarkPolicy is the gate's own share of a start: the policy with the conversation's
// grants, the hidden set and the environment.
func BenchmarkPolicy(b *testing.B) {
	home := sandboxtest.OutsideTemp(b)
	wd := filepath.Join(home, "src", "app")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		b.Fatal(err)
	}
	g := benchGate(b, home, wd)
	for b.Loop() {
		if _, err := g.Start(context.Background(), Request{Conversation: "c", Line: "true", Dir: wd}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchGate is a gate for run_command in wd, with HOME home and the state directory where a
// user's is: one under the temp dir would make the sandbox list the temp dir, which other
// processes change all the time.
func benchGate(b *testing.B, home, wd string) *Gate {
	state := filepath.Join(home, ".local", "state", "toolhost")
	if err := os.MkdirAll(state, 0o700); err != nil {
		b.Fatal(err)
	}
	guard, err := authz.New(context.Background(), authz.Config{WorkDir: wd, HomeDir: home, Store: storetest.OpenDir(b, state)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { guard.Close() })
	g, err := New(Config{Mode: sandbox.ModeWorkspaceWrite, Workdir: wd, Home: home, Guard: guard,
		Runner: authz.Runner{Tool: "terminal_operations", Operations: []string{"run_command"}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close() })
	return g
}
