//go:build compat

package compat

import (
	"syscall"
	"testing"
	"time"

	"toolhost/internal/proctest"
)

// toolhost keeps terminals in a terminal host of the state directory ([terminal]
// keep_sessions, on by default), which outlives the servers the clients start. A fixture's
// hosts are stopped when its test ends, before its directory is removed: SIGTERM ends their
// sessions and commands; SIGKILL follows after 10 s.
func stopHostsAtCleanup(t *testing.T, toolhost, state string) {
	t.Cleanup(func() {
		for _, pid := range terminalHosts(toolhost, state) {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
		deadline := time.Now().Add(10 * time.Second)
		for pids := terminalHosts(toolhost, state); len(pids) > 0; pids = terminalHosts(toolhost, state) {
			if time.Now().After(deadline) {
				for _, pid := range pids {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// terminalHosts lists the running terminal hosts of binary toolhost on state (Linux: /proc).
func terminalHosts(toolhost, state string) []int {
	var out []int
	for _, p := range proctest.Exactly(toolhost, "__terminal-host", state) {
		out = append(out, p.PID)
	}
	return out
}
