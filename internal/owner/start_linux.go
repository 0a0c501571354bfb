package owner

import (
	"os"
	"strconv"
	"strings"
)

// startTime reads the start time of pid from /proc: clock ticks since boot.
func startTime(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name may hold spaces and parentheses; fields resume after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); the start time is field 22.
	if len(f) < 20 {
		return 0, false
	}
	v, err := strconv.ParseUint(f[19], 10, 64)
	return v, err == nil
}

// processTableReadable reports whether a pid startTime cannot read is gone: /proc is mounted.
func processTableReadable() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return shortBootID(string(b))
}

// zombie reports whether pid has exited and waits for its parent to reap it (state Z or X).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	return s[i+2] == 'Z' || s[i+2] == 'X'
}
