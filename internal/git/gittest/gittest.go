// Package gittest isolates git in tests from the machine's configuration, so that tests of
// toolhost's git operations build real repositories whose commit ids repeat on every run.
package gittest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Identity is the fixed author and committer, with fixed dates, as environment entries for
// commands given their own environment (the binary under test).
var Identity = []string{
	"GIT_AUTHOR_NAME=Dev", "GIT_AUTHOR_EMAIL=dev@example.com",
	"GIT_COMMITTER_NAME=Dev", "GIT_COMMITTER_EMAIL=dev@example.com",
	"GIT_AUTHOR_DATE=2024-05-01T10:00:00Z", "GIT_COMMITTER_DATE=2024-05-01T10:00:00Z",
}

// Isolate sets the test's environment for git: an empty HOME (no user configuration), no system
// configuration, and Identity. Go's build and module caches stay where they were, so Go projects
// made by a test do not rebuild the standard library.
func Isolate(t testing.TB) {
	t.Helper()
	if out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output(); err == nil {
		if f := strings.Fields(string(out)); len(f) == 2 {
			t.Setenv("GOCACHE", f[0])
			t.Setenv("GOMODCACHE", f[1])
		}
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, kv := range Identity {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// Run runs git in dir for building a fixture and fails the test when git fails.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
