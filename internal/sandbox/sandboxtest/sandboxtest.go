// Package sandboxtest holds test helpers for code that runs confined commands: requiring
// Landlock (a failure in CI, a skip elsewhere), scratch directories outside the temp dirs
// (which every confined command may write), and a realistic policy for benchmarks.
package sandboxtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// OutsideTemp is a scratch directory that no confined command may write: not under a temp
// directory (every confined mode writes those) nor a build cache (workspace-write writes
// those), so a check placed there sees an escape. It is made under the home directory when
// that lies outside all of them, else beside the module (a clone made under /tmp with HOME
// there too still finds one when the repository's parent is elsewhere), and removed when the
// test ends. Its path is canonical. Where no such place can be written, the test fails in CI
// and is skipped elsewhere, saying why.
func OutsideTemp(tb testing.TB) string {
	tb.Helper()
	var tried []string
	for _, base := range outsideCandidates() {
		if writableByCommands(base) {
			tried = append(tried, base+" (writable by confined commands)")
			continue
		}
		dir, err := os.MkdirTemp(base, ".toolhost-test-")
		if err != nil {
			tried = append(tried, base+" ("+err.Error()+")")
			continue
		}
		tb.Cleanup(func() { os.RemoveAll(dir) })
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			tb.Fatal(err)
		}
		return real
	}
	msg := fmt.Sprintf("no scratch directory outside the places confined commands may write; tried %s", strings.Join(tried, ", "))
	if os.Getenv("CI") != "" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return ""
}

// outsideCandidates are the places OutsideTemp tries, in order: the home directory, then the
// directories above the module's root (the test runs in its package's directory).
func outsideCandidates() []string {
	var out []string
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		out = append(out, sandbox.Canonical(home))
	}
	dir, err := os.Getwd()
	if err != nil {
		return out
	}
	dir = sandbox.Canonical(dir)
	for ; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			return out
		}
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		out = append(out, p)
		if filepath.Dir(p) == p {
			return out
		}
	}
}

// writableByCommands says whether a confined command may write below dir: it lies in a temp
// directory or a build cache (the policy's writable places that do not depend on the test).
func writableByCommands(dir string) bool {
	home, _ := os.UserHomeDir()
	p := sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Writable: sandbox.BuildCaches(home, os.Getenv), Temp: sandbox.TempDirs()}
	ok, _ := p.CanWrite(filepath.Join(dir, ".toolhost-test-probe"))
	return ok
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

// Home5000 lays out a user's home directory for the start benchmarks: 5,000 entries (half
// directories, half files) beside the credential stores the guard protects, so the sandbox
// grants reads on each entry one by one to keep those out, and a working directory in ~/src
// beside other projects that hold .env files. It is made outside the temp dirs, as a user's
// HOME is (a listed directory that changes all the time, as /tmp does, would rebuild the rules
// at every start), and removed when the benchmark ends. It returns HOME and the working
// directory.
func Home5000(tb testing.TB) (home, workdir string) {
	tb.Helper()
	home = OutsideTemp(tb)
	var err error
	for i := range 5000 {
		name := filepath.Join(home, fmt.Sprintf("entry-%04d", i))
		if i%2 == 0 {
			err = os.Mkdir(name, 0o755)
		} else {
			err = os.WriteFile(name, nil, 0o644)
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
	for _, d := range []string{".ssh", ".aws", ".config/gh", ".kube", "src/app", "src/other", "src/third"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for _, f := range []string{".ssh/id_ed25519", ".aws/credentials", ".netrc", "src/other/.env", "src/third/.env.local"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte("secret\n"), 0o600); err != nil {
			tb.Fatal(err)
		}
	}
	return home, filepath.Join(home, "src", "app")
}
