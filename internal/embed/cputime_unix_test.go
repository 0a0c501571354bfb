//go:build unix

package embed

import "syscall"

// processCPUSeconds is the user+system CPU time of this process, so benchmarks can report a
// per-sentence cost that does not depend on how busy the shared machine is.
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
