package server

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// userHZ is the unit of the CPU times and the start time in /proc/PID/stat: USER_HZ, 100 on
// every Linux architecture Go supports.
const userHZ = 100

// writeProcessMetrics writes this process's CPU time, memory, file descriptors and start time
// from /proc, under the names the client library's process collector used. What /proc does not
// give is left out.
func writeProcessMetrics(w *bufio.Writer) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return
	}
	// The command name may hold spaces and parentheses; the fields follow the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 22 {
		return
	}
	num := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	// Fields counted from the state (field 3 of stat(5)): utime 14, stime 15, starttime 22,
	// vsize 23, rss 24.
	utime, stime, start, vsize, rss := num(f[11]), num(f[12]), num(f[19]), num(f[20]), num(f[21])
	family(w, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.")
	sample(w, "process_cpu_seconds_total", "", (utime+stime)/userHZ)
	family(w, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.")
	sample(w, "process_resident_memory_bytes", "", rss*float64(os.Getpagesize()))
	family(w, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.")
	sample(w, "process_virtual_memory_bytes", "", vsize)
	if boot := bootTime(); boot > 0 {
		family(w, "process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.")
		sample(w, "process_start_time_seconds", "", boot+start/userHZ)
	}
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		family(w, "process_open_fds", "gauge", "Number of open file descriptors.")
		sample(w, "process_open_fds", "", float64(len(fds)))
	}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) == nil {
		family(w, "process_max_fds", "gauge", "Maximum number of open file descriptors.")
		sample(w, "process_max_fds", "", float64(lim.Cur))
	}
}

// bootTime is the system's boot time (btime in /proc/stat), in seconds since the epoch; 0 when
// unknown.
func bootTime() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			t, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return t
		}
	}
	return 0
}
