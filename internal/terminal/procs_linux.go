//go:build linux

package terminal

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// The process table from /proc: which processes belong to a session or command, what runs in
// a terminal's foreground, what a dead toolhost left behind.

// procStat reads the state and session id from /proc/<pid>/stat.
func procStat(pid int) (state byte, sid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+2:]))
	// fields after comm: state ppid pgrp session ...
	if len(f) < 4 {
		return 0, 0, false
	}
	s, err := strconv.Atoi(f[3])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], s, true
}

func holdsTTY(pid int, tty string) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	d, err := os.Open(dir)
	if err != nil {
		return false
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if l, err := os.Readlink(dir + "/" + n); err == nil && l == tty {
			return true
		}
	}
	return false
}

func hasEnv(pid int, marker string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for len(b) > 0 {
		var kv []byte
		kv, b, _ = bytes.Cut(b, []byte{0})
		if string(kv) == marker {
			return true
		}
	}
	return false
}

// members lists the live (not zombie) processes selected by sel, never this process.
func (sel procSelector) members() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self := os.Getpid()
	var out []int
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 1 || pid == self {
			continue
		}
		state, sid, ok := procStat(pid)
		if !ok || state == 'Z' || state == 'X' {
			continue
		}
		if (sel.sid > 1 && sid == sel.sid) ||
			(sel.tty != "" && holdsTTY(pid, sel.tty)) ||
			(sel.marker != "" && hasEnv(pid, sel.marker)) {
			out = append(out, pid)
		}
	}
	return out
}

// orphanPIDs lists live processes left behind by toolhost instances that died without
// shutting down (SIGKILL, a crash): their marker names an instance other than self whose
// process is gone. A reused pid only makes a leftover survive, never kills a stranger.
func orphanPIDs(self string) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	prefix := []byte(markerEnv + "=")
	var out []int
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 1 || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/environ")
		if err != nil {
			continue
		}
		for len(b) > 0 {
			var kv []byte
			kv, b, _ = bytes.Cut(b, []byte{0})
			val, ok := bytes.CutPrefix(kv, prefix)
			if !ok {
				continue
			}
			inst, _, _ := bytes.Cut(val, []byte{'/'})
			if string(inst) == self || len(inst) == 0 {
				break
			}
			if !instanceAlive(string(inst)) {
				if state, _, ok := procStat(pid); ok && state != 'Z' && state != 'X' {
					out = append(out, pid)
				}
			}
			break
		}
	}
	return out
}

// statFields reads the fields of /proc/<pid>/stat: the command name (comm) and the fields
// after it (state ppid pgrp session tty_nr tpgid ...).
func statFields(pid int) (comm string, f []string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", nil, false
	}
	i, j := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if i < 0 || j < i || j+2 >= len(b) {
		return "", nil, false
	}
	f = strings.Fields(string(b[j+2:]))
	return string(b[i+1 : j]), f, len(f) >= 6
}

// foregroundTable reads, for the foreground walk, the foreground process group of the
// terminal of shellPID (0 when /proc cannot say) and, unless that is 0 or the shell's own, the
// live processes.
func foregroundTable(shellPID int) (tpgid int, procs []fgProc) {
	_, sf, ok := statFields(shellPID)
	if !ok {
		return 0, nil
	}
	tpgid, err := strconv.Atoi(sf[5])
	if err != nil || tpgid <= 0 {
		return 0, nil
	}
	if tpgid == shellPID {
		return tpgid, nil
	}
	d, err := os.Open("/proc")
	if err != nil {
		return tpgid, nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		comm, f, ok := statFields(pid)
		if !ok || f[0] == "Z" || f[0] == "X" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		procs = append(procs, fgProc{pid: pid, ppid: ppid, pgrp: pgrp, comm: comm})
	}
	return tpgid, procs
}

// procExe is the executable of process pid, or "" when it cannot be read.
func procExe(pid int) string {
	exe, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	return exe
}

// procCmdline is the command line of process pid, each argument ended by a NUL byte; empty
// when it cannot be read.
func procCmdline(pid int) []byte {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return b
}

// sleeping reports whether process pid sleeps (waits for something, such as input), and
// whether that could be told.
func sleeping(pid int) (asleep, known bool) {
	state, _, ok := procStat(pid)
	return state == 'S', ok
}

// procCwd is the working directory of process pid, or fallback when it cannot be read.
func procCwd(pid int, fallback string) string {
	if pid <= 0 {
		return fallback
	}
	d, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	if err != nil {
		return fallback
	}
	return d
}
