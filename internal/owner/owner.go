// Package owner names processes in a way that survives pid reuse, so that files a toolhost
// process leaves behind (temporary files, edit journals, terminal directories) can be told apart
// from those of a process that is still running.
//
// An owner ID is "PID_START_BOOT": the process id, its start time and the first eight hex digits
// of the kernel's boot id. A pid reused by a later process has another start time, and after a
// reboot (or in a container that restarts on the same volume, where pids repeat) the boot id or
// the start time differs, so a dead owner is never mistaken for a live one. Where the start
// time comes from is per platform (start_*.go): clock ticks since boot from /proc/PID/stat on
// Linux, microseconds since the epoch from sysctl on macOS (boot id kern.bootsessionuuid), the
// creation time on Windows (no boot id; the time is absolute). Where none can be read the start
// time and boot id are 0 and liveness falls back to signal 0, which cannot see pid reuse.
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
func Alive(id ID) bool {
	if id == Self() {
		return true
	}
	if id.Boot != "" && id.Boot != Self().Boot {
		return false // written before the last reboot
	}
	if start, ok := startTime(id.PID); ok {
		// A zombie (killed, not yet reaped by its parent) has ended.
		return !zombie(id.PID) && (id.Start == 0 || start == id.Start)
	}
	if processTableReadable() {
		return false // the process table works and has no such pid
	}
	return signalZero(id.PID)
}

// Exited reports whether pid names a process that has ended but is still listed (a zombie),
// or none at all. Where the process table cannot be read it says false: nothing is known.
func Exited(pid int) bool {
	if _, ok := startTime(pid); ok {
		return zombie(pid)
	}
	return processTableReadable()
}

// shortBootID is the first eight hex digits of a boot id in UUID form.
func shortBootID(raw string) string {
	s := strings.ReplaceAll(strings.TrimSpace(raw), "-", "")
	if len(s) < 8 {
		return ""
	}
	return strings.ToLower(s[:8])
}
