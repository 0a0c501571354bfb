//go:build unix

package main

import (
	"runtime"
	"syscall"
)

// peakRSS is the process's peak resident set in bytes: getrusage counts KiB on Linux, bytes
// on macOS.
func peakRSS() (uint64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	if runtime.GOOS == "darwin" {
		return uint64(ru.Maxrss), true
	}
	return uint64(ru.Maxrss) << 10, true
}
