//go:build windows

package terminal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/charmbracelet/x/conpty"
	"golang.org/x/sys/windows"

	"toolhost/internal/sandbox"
)

// The engine on Windows: sessions and one-shot commands run on pseudo consoles (ConPTY,
// conpty_windows.go), each in a job object; commands keep stdout and stderr apart on pipes.
// Lines run through a POSIX shell (Git for Windows' sh.exe and bash.exe), so that the command
// rules' shell parser reads what runs. Before Windows 10 1809 there are no pseudo consoles:
// commands then run on pipes alone and sessions are refused (errNoPTY).

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

// errNoPTY refuses interactive sessions on a Windows without pseudo consoles.
var errNoPTY = errors.New("interactive sessions need a pseudo console (ConPTY), which Windows has from Windows 10 version 1809 on; this one has none: use run_command")

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

// oneShotCols and oneShotRows size a one-shot command's hidden console, which programs that
// ask for the console's width read.
const (
	oneShotCols = 120
	oneShotRows = 40
)

// startJobProcess starts a one-shot command whose stdout and stderr the caller has set (pipes):
// on a hidden pseudo console of its own, stdin the NUL device, in a job object that sel then
// lists. The io.Closer returned holds the console and the job; it closes them itself once the
// command's last process has ended. Without pseudo consoles, it starts on the pipes alone, in
// a process group of its own.
func startJobProcess(cmd *exec.Cmd, p *sandbox.Policy, sel *procSelector) (io.Closer, error) {
	if !hasConPTY() {
		cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
		return nil, sandbox.Start(cmd, p)
	}
	if err := sandbox.Unconfined(p); err != nil {
		return nil, err
	}
	stdout, ok1 := cmd.Stdout.(*os.File)
	stderr, ok2 := cmd.Stderr.(*os.File)
	if !ok1 || !ok2 {
		return nil, errors.New("a command on a pseudo console needs files for stdout and stderr")
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	c, err := conpty.New(oneShotCols, oneShotRows, 0)
	if err != nil {
		return nil, fmt.Errorf("open pseudo console: %w", err)
	}
	// What a program writes to the console itself (CONOUT$) rather than to its stdout is not
	// kept; it is read so that the console host never blocks.
	go drain(c)
	job, err := spawnOnConsole(cmd, windows.Handle(c.Fd()),
		[]windows.Handle{windows.Handle(null.Fd()), windows.Handle(stdout.Fd()), windows.Handle(stderr.Fd())})
	if err != nil {
		c.Close()
		return nil, err
	}
	sel.job = job
	cc := &commandConsole{c: c, job: job}
	go cc.closeWhenEmpty()
	return cc, nil
}

// Local mode bits of a terminal (session.go names them; a console never reports them).
const (
	lflagECHO   = 0x8
	lflagICANON = 0x100
)

func signalledExit(*os.ProcessState) int { return 0 }
