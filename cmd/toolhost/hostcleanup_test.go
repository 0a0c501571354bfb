package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || len(b) == 0 {
			continue // gone, or a zombie (its cmdline is empty)
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) == 3 && args[0] == binary && args[1] == "__terminal-host" && (state == "" || args[2] == state) {
			out = append(out, pid)
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
