package authz

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// parentOf reads pid's parent from a Toolhelp snapshot. A parent that has exited may have had
// its pid reused: processStart tells them apart where it matters (a recorded server).
func parentOf(pid int) (int, bool) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return 0, false
	}
	defer windows.CloseHandle(snap)
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if int(e.ProcessID) == pid {
			if e.ParentProcessID == e.ProcessID {
				return 0, true
			}
			return int(e.ParentProcessID), true
		}
	}
	return 0, false
}

// processStart is pid's creation time (100 ns since 1601).
func processStart(pid int) (uint64, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0, false
	}
	defer windows.CloseHandle(h)
	var c, e, k, u windows.Filetime
	if err := windows.GetProcessTimes(h, &c, &e, &k, &u); err != nil {
		return 0, false
	}
	return uint64(c.HighDateTime)<<32 | uint64(c.LowDateTime), true
}

// sandboxDenial: there is no sandbox on Windows.
func sandboxDenial(string) bool { return false }
