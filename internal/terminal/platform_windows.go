//go:build windows

package terminal

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// The engine on Windows: one-shot commands run through a POSIX shell (Git for Windows' sh.exe,
// so the command rules' shell parser reads what runs), with pipes and no terminal; interactive
// sessions need a PTY, which is not built here yet (ConPTY), and are refused with that reason.

// The signals the engine names: Windows has no signals, only termination; the numbers are the
// Linux ones, so names and exit codes read the same.
const (
	sigHUP  = syscall.Signal(1)
	sigINT  = syscall.Signal(2)
	sigQUIT = syscall.Signal(3)
	sigKILL = syscall.Signal(9)
	sigUSR1 = syscall.Signal(10)
	sigUSR2 = syscall.Signal(12)
	sigTERM = syscall.Signal(15)
	sigCONT = syscall.Signal(18)
)

var jobSignals = []os.Signal{os.Interrupt}

// errNoPTY refuses interactive sessions on Windows.
var errNoPTY = errors.New("interactive sessions need a pseudo-terminal, which toolhost does not provide on Windows yet (ConPTY); use run_command")

// kill ends pid for every terminating signal (Windows has no other kind); sig 0 checks that
// it exists; SIGCONT does nothing.
func kill(pid int, sig syscall.Signal) error {
	switch sig {
	case sigCONT:
		return nil
	case 0:
		h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
		if err != nil {
			return syscall.ESRCH
		}
		defer windows.CloseHandle(h)
		var code uint32
		if err := windows.GetExitCodeProcess(h, &code); err != nil || code != 259 /* STILL_ACTIVE */ {
			return syscall.ESRCH
		}
		return nil
	}
	h, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return syscall.ESRCH
	}
	defer windows.CloseHandle(h)
	return windows.TerminateProcess(h, 128+uint32(sig))
}

// oneShotShell is the POSIX sh on PATH: Git for Windows installs one. cmd.exe and PowerShell
// are not used: the command rules read lines with a POSIX shell parser, and a line must run as
// it was read.
func oneShotShell() (string, error) {
	p, err := exec.LookPath("sh")
	if err != nil {
		return "", fmt.Errorf("no POSIX shell (sh.exe) on PATH: install Git for Windows and put its usr\\bin on PATH; commands are not run through cmd.exe or PowerShell, whose lines the command rules cannot read")
	}
	return p, nil
}

// jobAttr starts a command in a process group of its own, so ctrl-break reaches it and not
// toolhost.
func jobAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

func sessionAttr() *syscall.SysProcAttr { return jobAttr() }

func openPTY(int, int) (*os.File, *os.File, error) { return nil, nil, errNoPTY }

func pollableMaster(*os.File) (*os.File, error) { return nil, errNoPTY }

const (
	lflagECHO   = 0x8
	lflagICANON = 0x100
)

func localModes(uintptr) (uint32, bool) { return 0, false }

func setWinsize(uintptr, int, int) error { return errNoPTY }

func ttyInputPending(string) bool { return false }

func signalledExit(*os.ProcessState) int { return 0 }
