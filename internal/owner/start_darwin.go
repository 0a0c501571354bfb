package owner

import (
	"os"

	"golang.org/x/sys/unix"
)

// startTime reads the start time of pid from kern.proc.pid: microseconds since the epoch.
func startTime(pid int) (uint64, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(kp.Proc.P_pid) != pid {
		return 0, false
	}
	tv := kp.Proc.P_starttime
	return uint64(tv.Sec)*1e6 + uint64(tv.Usec), true
}

// processTableReadable reports whether a pid startTime cannot read is gone: sysctl answers
// for this process.
func processTableReadable() bool {
	_, ok := startTime(os.Getpid())
	return ok
}

func bootID() string {
	s, err := unix.Sysctl("kern.bootsessionuuid")
	if err != nil {
		return ""
	}
	return shortBootID(s)
}

// zombie: no process state is read here; a killed process counts as running until it is reaped.
func zombie(int) bool { return false }
