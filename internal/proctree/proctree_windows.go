//go:build windows

package proctree

import (
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Isolate starts cmd in a process group of its own (console control events for toolhost do
// not reach it). Windows has no parent-death signal: dieWithParent is not honoured.
func Isolate(cmd *exec.Cmd, dieWithParent bool) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

// Kill kills p and every process descended from it, children first found from a snapshot of
// the process table's parent links.
func Kill(p *os.Process) {
	if p == nil {
		return
	}
	for _, pid := range descendants(uint32(p.Pid)) {
		if h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, pid); err == nil {
			_ = windows.TerminateProcess(h, 1)
			windows.CloseHandle(h)
		}
	}
	_ = p.Kill()
}

// descendants lists root's descendants (not root).
func descendants(root uint32) []uint32 {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil
	}
	defer windows.CloseHandle(snap)
	children := map[uint32][]uint32{}
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if e.ProcessID != e.ParentProcessID {
			children[e.ParentProcessID] = append(children[e.ParentProcessID], e.ProcessID)
		}
	}
	var out []uint32
	seen := map[uint32]bool{root: true}
	for queue := children[root]; len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		if seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
		queue = append(queue, children[p]...)
	}
	return out
}
