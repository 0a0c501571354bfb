package owner

import (
	"errors"

	"golang.org/x/sys/windows"
)

// signalZero reports whether pid may still run: a process that cannot be opened for lack of
// rights exists (and counts as alive, so nothing it may use is removed); one that cannot be
// opened at all, or has exited, does not.
func signalZero(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		return true
	}
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) != nil || code == stillActive
}
