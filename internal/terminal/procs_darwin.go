//go:build darwin

package terminal

import (
	"bytes"
	"encoding/binary"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// The process table on macOS, from sysctl: kern.proc.all for the processes with their parent,
// group, controlling terminal and its foreground group; getsid(2) for the session;
// kern.procargs2 for a process's executable, arguments and environment (readable for the
// user's own processes).

// proc is one entry of the table.
type proc struct {
	pid, ppid, pgrp int
	tdev, tpgid     int
	zombie          bool
	comm            string
}

// procTable lists the processes now, without this one.
func procTable() []proc {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	out := make([]proc, 0, len(kps))
	for i := range kps {
		kp := &kps[i]
		pid := int(kp.Proc.P_pid)
		if pid <= 1 || pid == self {
			continue
		}
		comm := kp.Proc.P_comm[:]
		if i := bytes.IndexByte(comm, 0); i >= 0 {
			comm = comm[:i]
		}
		out = append(out, proc{pid: pid, ppid: int(kp.Eproc.Ppid), pgrp: int(kp.Eproc.Pgid),
			tdev: int(kp.Eproc.Tdev), tpgid: int(kp.Eproc.Tpgid), zombie: kp.Proc.P_stat == 5 /* SZOMB */, comm: string(comm)})
	}
	return out
}

// procArgs reads kern.procargs2: the executable path, the arguments and the environment.
func procArgs(pid int) (exe string, args, env [][]byte, ok bool) {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil || len(b) < 4 {
		return "", nil, nil, false
	}
	argc := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return "", nil, nil, false
	}
	exe, b = string(b[:i]), b[i:]
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	for len(b) > 0 {
		var s []byte
		s, b, _ = bytes.Cut(b, []byte{0})
		if len(args) < argc {
			args = append(args, s)
			continue
		}
		if len(s) == 0 {
			break
		}
		env = append(env, s)
	}
	return exe, args, env, true
}

func hasEnv(pid int, marker string) bool {
	_, _, env, ok := procArgs(pid)
	if !ok {
		return false
	}
	for _, kv := range env {
		if string(kv) == marker {
			return true
		}
	}
	return false
}

// ttyDev is the device number of the terminal named, as kinfo_proc's e_tdev reports it.
func ttyDev(name string) int {
	var st unix.Stat_t
	if name == "" || unix.Stat(name, &st) != nil {
		return -1
	}
	return int(st.Rdev)
}

// members lists the live processes selected by sel: in the session, with the PTY as their
// controlling terminal, or carrying the marker in their environment.
func (sel procSelector) members() []int {
	dev := ttyDev(sel.tty)
	var out []int
	for _, p := range procTable() {
		if p.zombie {
			continue
		}
		sid, _ := unix.Getsid(p.pid)
		if (sel.sid > 1 && sid == sel.sid) || (dev >= 0 && p.tdev == dev) ||
			(sel.marker != "" && hasEnv(p.pid, sel.marker)) {
			out = append(out, p.pid)
		}
	}
	return out
}

// orphanPIDs lists live processes whose marker names a toolhost instance other than self
// whose process is gone.
func orphanPIDs(self string) []int {
	prefix := []byte(markerEnv + "=")
	var out []int
	for _, p := range procTable() {
		if p.zombie {
			continue
		}
		_, _, env, ok := procArgs(p.pid)
		if !ok {
			continue
		}
		for _, kv := range env {
			val, ok := bytes.CutPrefix(kv, prefix)
			if !ok {
				continue
			}
			inst, _, _ := bytes.Cut(val, []byte{'/'})
			owner, _, _ := bytes.Cut(inst, []byte{'-'})
			opid, err := strconv.Atoi(string(owner))
			if string(inst) != self && err == nil && opid > 0 && kill(opid, 0) == unix.ESRCH {
				out = append(out, p.pid)
			}
			break
		}
	}
	return out
}

// foregroundTable reads, for the foreground walk, the foreground process group of the
// terminal of shellPID (0 when the table does not say) and the live processes.
func foregroundTable(shellPID int) (tpgid int, procs []fgProc) {
	table := procTable()
	for _, p := range table {
		if p.pid == shellPID {
			tpgid = p.tpgid
		}
	}
	if tpgid <= 0 || tpgid == shellPID {
		return tpgid, nil
	}
	for _, p := range table {
		if !p.zombie {
			procs = append(procs, fgProc{pid: p.pid, ppid: p.ppid, pgrp: p.pgrp, comm: p.comm})
		}
	}
	return tpgid, procs
}

// procExe is the executable of process pid, or "" when it cannot be read.
func procExe(pid int) string {
	exe, _, _, _ := procArgs(pid)
	return exe
}

// procCmdline is the command line of process pid, each argument ended by a NUL byte (as
// Linux's /proc/PID/cmdline has it); empty when it cannot be read.
func procCmdline(pid int) []byte {
	_, args, _, _ := procArgs(pid)
	var b []byte
	for _, a := range args {
		b = append(append(b, a...), 0)
	}
	return b
}

// procCwd is the working directory of process pid; here it is not read, and fallback (the
// session's start directory) stands for it.
func procCwd(_ int, fallback string) string { return fallback }
