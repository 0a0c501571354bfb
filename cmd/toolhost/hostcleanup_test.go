package main

import (
	"os"
	"syscall"
	"testing"
	"time"

	"toolhost/internal/proctest"
)

// Sessions and commands live in a terminal host of the state directory ([terminal]
// keep_sessions, on by default), a process of its own that outlives the servers a test starts.
// A test's state directory has its hosts stopped when the test ends (commandIn registers
// stopHosts), before the directory is removed; TestMain stops whatever host of this test
// binary is left after the run. Neither leaves a process behind: SIGTERM makes a host end its
// sessions and commands with their process trees.

// hostProcs lists the running terminal hosts (not zombies) started from the test's binary
// whose state directory is state, or of every state directory when state is "".
func hostProcs(state string) []int {
	var out []int
	for _, p := range proctest.Live() {
		if len(p.Args) == 3 && p.Args[0] == binary && p.Args[1] == "__terminal-host" && (state == "" || p.Args[2] == state) {
			out = append(out, p.PID)
		}
	}
	return out
}

// hostPIDs lists the terminal hosts of state.
func hostPIDs(state string) []int { return hostProcs(state) }

// stopHosts ends the terminal hosts of state (every host of the test binary when state is
// ""): SIGTERM, which ends their sessions and commands; SIGKILL for one still there after 10 s.
// It returns once they are gone.
func stopHosts(state string) {
	pids := hostProcs(state)
	for _, pid := range pids {
		signalPID(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(pids) > 0 {
		time.Sleep(10 * time.Millisecond)
		pids = hostProcs(state)
		if time.Now().After(deadline) {
			for _, pid := range pids {
				signalPID(pid, os.Kill)
			}
			deadline = time.Now().Add(time.Hour)
		}
	}
}

// signalPID sends sig to pid, if it is still there. Terminal hosts run on Linux only; on other
// systems hostProcs finds none.
func signalPID(pid int, sig os.Signal) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Signal(sig)
	}
}

// stopHostsAtCleanup stops the hosts of state when t ends, before its temporary directories
// are removed (cleanups run last registered first).
func stopHostsAtCleanup(t testing.TB, state string) {
	t.Cleanup(func() { stopHosts(state) })
}
