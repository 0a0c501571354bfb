// Package owner names processes in a way that survives pid reuse, so that files a toolhost
// process leaves behind (temporary files, edit journals, terminal directories) can be told apart
// from those of a process that is still running.
//
// An owner ID is "PID_START_BOOT": the process id, its start time in clock ticks since boot (the
// 22nd field of /proc/PID/stat) and the first eight hex digits of the kernel's boot id. A pid
// reused by a later process has another start time, and after a reboot (or in a container that
// restarts on the same volume, where pids repeat) the boot id or the start time differs, so a
// dead owner is never mistaken for a live one. Where /proc is missing the start time and boot
// id are 0 and liveness falls back to signal 0, which cannot see pid reuse.
package owner

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

// ID identifies one process.
type ID struct {
	PID   int
	Start uint64 // start time in clock ticks since boot; 0 when unknown
	Boot  string // first 8 hex digits of the boot id; "" when unknown
}

// String renders the ID with '_' separators only, so it can sit inside file names next to '-'
// and '.' separators.
func (id ID) String() string {
	b := id.Boot
	if b == "" {
		b = "0"
	}
	return strconv.Itoa(id.PID) + "_" + strconv.FormatUint(id.Start, 10) + "_" + b
}

// Parse reads an ID written by String.
func Parse(s string) (ID, bool) {
	parts := strings.Split(s, "_")
	if len(parts) != 3 {
		return ID{}, false
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil || pid <= 0 {
		return ID{}, false
	}
	start, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil {
		return ID{}, false
	}
	boot := parts[2]
	if boot == "0" {
		boot = ""
	}
	for _, r := range boot {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return ID{}, false
		}
	}
	return ID{PID: pid, Start: start, Boot: boot}, true
}

var (
	selfOnce sync.Once
	self     ID
)

// Self is this process's ID.
func Self() ID {
	selfOnce.Do(func() {
		self = ID{PID: os.Getpid(), Boot: bootID()}
		self.Start, _ = startTime(self.PID)
	})
	return self
}

// Alive reports whether the process id names is still running. An ID of this process is alive.
// A process that has exited but whose parent has not reaped it yet (a zombie: a server killed
// with SIGKILL under a parent that has not waited) is dead: it runs nothing and holds nothing,
// and what it left (leases, journals, temporary files) is free to take.
func Alive(id ID) bool {
	if id == Self() {
		return true
	}
	if id.Boot != "" && id.Boot != Self().Boot {
		return false // written before the last reboot
	}
	if st, ok := stat(id.PID); ok {
		return !st.exited() && (id.Start == 0 || st.start == id.Start)
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		return false // /proc works and has no such pid
	}
	return signalZero(id.PID)
}

// startTime reads the start time of pid from /proc.
func startTime(pid int) (uint64, bool) {
	st, ok := stat(pid)
	return st.start, ok
}

// procState is what Alive reads from /proc/PID/stat.
type procState struct {
	state byte   // R, S, D, Z (zombie), X (dead), ...
	start uint64 // clock ticks since boot
}

// exited says the process has ended: a zombie waiting for its parent, or already dead.
func (p procState) exited() bool { return p.state == 'Z' || p.state == 'X' }

// Exited reports whether pid names a process that has ended but is still listed (a zombie),
// or none at all. Where /proc is missing it says false: nothing is known.
func Exited(pid int) bool {
	st, ok := stat(pid)
	if ok {
		return st.exited()
	}
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// stat reads the state and start time of pid from /proc.
func stat(pid int) (procState, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procState{}, false
	}
	// The command name may hold spaces and parentheses; fields resume after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procState{}, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); the start time is field 22.
	if len(f) < 20 || len(f[0]) == 0 {
		return procState{}, false
	}
	v, err := strconv.ParseUint(f[19], 10, 64)
	return procState{state: f[0][0], start: v}, err == nil
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	s := strings.ReplaceAll(strings.TrimSpace(string(b)), "-", "")
	if len(s) < 8 {
		return ""
	}
	return strings.ToLower(s[:8])
}
