// Package sandboxtest holds test helpers for code that runs confined commands: requiring
// Landlock (a failure in CI, a skip elsewhere), scratch directories outside the temp dirs
// (which every confined command may write), and a realistic policy for benchmarks.
package sandboxtest

import (
	"os"
	"path/filepath"
	"testing"

	"toolhost/internal/sandbox"
)

// Require fails the test in CI (CI set) when the kernel cannot confine commands, and skips
// it elsewhere, saying why.
func Require(tb testing.TB) {
	tb.Helper()
	if _, err := sandbox.ABI(); err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("Landlock is required in CI: %v", err)
		}
		tb.Skipf("Landlock unavailable here: %v", err)
	}
}

// OutsideTemp is a scratch directory that is not under a temp directory: under the home
// directory, removed when the test ends. Its path is canonical.
func OutsideTemp(tb testing.TB) string {
	tb.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		tb.Skipf("no home directory for a scratch dir outside the temp dirs: %v", err)
	}
	dir, err := os.MkdirTemp(home, ".toolhost-test-")
	if err != nil {
		tb.Skipf("cannot make a scratch dir outside the temp dirs: %v", err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return real
}

// HomePolicy is a workspace-write policy laid out as on a user's machine: toolhost's state
// (with a token) and config under the home directory, so the exclusion walk runs through
// directories that rarely change; the working directory and a temp dir are fresh.
func HomePolicy(tb testing.TB) *sandbox.Policy {
	tb.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		tb.Skip(err)
	}
	state := filepath.Join(OutsideTemp(tb), "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "token"), []byte("t"), 0o600); err != nil {
		tb.Fatal(err)
	}
	return &sandbox.Policy{
		Mode:      sandbox.ModeWorkspaceWrite,
		Writable:  []string{tb.TempDir()},
		Temp:      []string{tb.TempDir()},
		Protected: []string{state, filepath.Join(home, ".config", "toolhost")},
		Hidden:    []string{state},
	}
}
