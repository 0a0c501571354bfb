//go:build windows

package terminal

import (
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The process table on Windows. A command or session started on a pseudo console is in a job
// object, and its processes are the job's, however they detached. Without one (no ConPTY),
// they come from a Toolhelp snapshot: the process toolhost started (the selector's sid) and
// its descendants; other processes' environments are not read, so a process that outlived its
// parent is not found there (no marker search).

func (sel procSelector) members() []int {
	if sel.job != nil {
		ids, ok := sel.job.pids()
		if ok || sel.job.closed() {
			// Closing the job killed whatever it held.
			return ids
		}
	}
	if sel.sid <= 0 {
		return nil
	}
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil
	}
	defer windows.CloseHandle(snap)
	children := map[uint32][]uint32{}
	alive := map[uint32]bool{}
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		children[e.ParentProcessID] = append(children[e.ParentProcessID], e.ProcessID)
		alive[e.ProcessID] = true
	}
	self := uint32(os.Getpid())
	root := uint32(sel.sid)
	if !alive[root] {
		return nil
	}
	var out []int
	seen := map[uint32]bool{}
	for queue := []uint32{root}; len(queue) > 0; queue = queue[1:] {
		p := queue[0]
		if seen[p] || p == self || p == 0 {
			continue
		}
		seen[p] = true
		out = append(out, int(p))
		queue = append(queue, children[p]...)
	}
	return out
}

// orphanPIDs: without other processes' environments, leftovers of a dead toolhost cannot be
// told apart.
func orphanPIDs(string) []int { return nil }

// foregroundShellOnce: a console has no foreground process group to read; the answer that
// checks every line.
func foregroundShellOnce(int) (shell, forking bool) { return true, false }

// procCwd is the working directory of process pid; here it is not read, and fallback (the
// session's start directory) stands for it.
func procCwd(_ int, fallback string) string { return fallback }
