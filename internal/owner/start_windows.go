package owner

import "golang.org/x/sys/windows"

// stillActive is the exit code GetExitCodeProcess reports for a running process.
const stillActive = 259

// startTime reads the creation time of pid (100 ns since 1601) if it still runs: a handle
// another process holds keeps an exited process's entry, so the exit code is checked too.
func startTime(pid int) (uint64, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0, false
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil || code != stillActive {
		return 0, false
	}
	var c, e, k, u windows.Filetime
	if err := windows.GetProcessTimes(h, &c, &e, &k, &u); err != nil {
		return 0, false
	}
	return uint64(c.HighDateTime)<<32 | uint64(c.LowDateTime), true
}

// processTableReadable is false: a pid startTime cannot read may belong to a process that
// refuses the query (another user's, a protected one), which signalZero tells apart.
func processTableReadable() bool { return false }

// bootID: Windows has none to read without the registry; creation times are absolute, so a pid
// reused after a reboot has another one.
func bootID() string { return "" }

// zombie: no process state is read here; a killed process counts as running until it is reaped.
func zombie(int) bool { return false }
