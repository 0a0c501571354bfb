package gate

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"toolhost/authz"
	"toolhost/internal/sandbox"
	"toolhost/internal/sandbox/sandboxtest"
	"toolhost/store/storetest"
)

// BenchmarkPolicy is the gate's own share of a start (the whole figure is
// internal/sandbox's BenchmarkStartTrueHome5000): the policy with the conversation's
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
func benchGate(b testing.TB, home, wd string) *Gate {
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
