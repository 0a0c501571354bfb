//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Probe on this kernel: under workspace-write every attempt is refused (the signal only with
// Landlock ABI 6); with nothing hidden and the outside dir writable, the write and the read
// go through and Probe says so.
func TestProbe(t *testing.T) {
	abi, err := ABI()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Landlock: %v", err)
		}
		t.Skip(err)
	}
	work, outside, secret := t.TempDir(), t.TempDir(), t.TempDir()
	hidden := filepath.Join(secret, "token")
	if err := os.WriteFile(hidden, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The test's temp dirs live below the system temp dir, which every policy may write: the
	// outside dir must be somewhere else.
	outside = filepath.Join(os.Getenv("HOME"), ".cache", "toolhost-probe-test")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(outside)
	p := &Policy{Mode: ModeWorkspaceWrite, Writable: []string{work}, Hidden: []string{secret}}
	got := Probe(context.Background(), p, outside, hidden)
	if len(got) != 3 {
		t.Fatalf("Probe = %+v", got)
	}
	for i, r := range got {
		want := true
		if i == 2 && !Scoped(abi) {
			want = false
		}
		if r.Enforced != want {
			t.Errorf("%s: enforced %v (%s), want %v", r.Name, r.Enforced, r.Detail, want)
		}
	}
	open := &Policy{Mode: ModeWorkspaceWrite, Writable: []string{work, outside}}
	got = Probe(context.Background(), open, outside, hidden)
	if got[0].Enforced || got[1].Enforced {
		t.Errorf("an open policy reported as enforcing: %+v", got[:2])
	}
	if Probe(context.Background(), nil, outside, hidden) != nil {
		t.Error("Probe of no policy ran commands")
	}
}
