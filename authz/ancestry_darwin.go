package authz

import (
	"os"

	"golang.org/x/sys/unix"
)

// parentOf reads pid's parent from kern.proc.pid.
func parentOf(pid int) (int, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(kp.Proc.P_pid) != pid {
		return 0, false
	}
	return int(kp.Eproc.Ppid), true
}

// processStart is pid's start time in microseconds since the epoch: with the pid it names one
// process (pids are reused).
func processStart(pid int) (uint64, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(kp.Proc.P_pid) != pid {
		return 0, false
	}
	tv := kp.Proc.P_starttime
	return uint64(tv.Sec)*1e6 + uint64(tv.Usec), true
}

// sandboxDenial reports whether a refused write in dir is Seatbelt's: the directory is this
// user's and writable by its mode, so only a sandbox can have said no.
func sandboxDenial(dir string) bool {
	var st unix.Stat_t
	if unix.Stat(dir, &st) != nil {
		return false
	}
	return int(st.Uid) == os.Getuid() && st.Mode&0o200 != 0
}
