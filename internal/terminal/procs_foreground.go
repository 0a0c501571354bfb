//go:build linux || darwin

package terminal

import (
	"bytes"
	"path/filepath"
)

// The walk of a terminal's foreground programs, over what each platform's process table gives
// (procs_linux.go, procs_darwin.go): foregroundTable, procExe and procCmdline.

// fgProc is one live process as the foreground walk sees it.
type fgProc struct {
	pid, ppid, pgrp int
	comm            string
}

// foregroundShellOnce is foregroundShell at one moment; forking says every shell it found
// may be a fork of the session's shell that has not exec'd its command yet.
func foregroundShellOnce(shellPID int) (shell, forking bool) {
	tpgid, procs := foregroundTable(shellPID)
	if tpgid <= 0 {
		return true, false
	}
	if tpgid == shellPID {
		return false, false
	}
	shellCmdline := procCmdline(shellPID)
	children := map[int][]fgProc{}
	var front []fgProc
	for _, p := range procs {
		if p.pgrp == tpgid {
			front = append(front, p)
		}
		children[p.ppid] = append(children[p.ppid], p)
	}
	if len(front) == 0 {
		return true, false // the group just ended or the table hides it
	}
	seen := map[int]bool{}
	forking = true
	for len(front) > 0 && len(seen) < maxForegroundProcs {
		p := front[0]
		front = front[1:]
		if seen[p.pid] {
			continue
		}
		seen[p.pid] = true
		exe := procExe(p.pid)
		if isLineReader(p.comm) || exe != "" && isLineReader(filepath.Base(exe)) {
			shell = true
			if p.ppid != shellPID || len(shellCmdline) == 0 || !bytes.Equal(procCmdline(p.pid), shellCmdline) {
				return true, false
			}
		}
		front = append(front, children[p.pid]...)
	}
	if len(front) > 0 {
		return true, false
	}
	return shell, shell && forking
}
