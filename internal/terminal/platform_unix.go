//go:build unix

package terminal

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"toolhost/internal/sandbox"
)

// What the engine asks of the operating system, one file per platform: PTYs and their modes,
// process attributes and signals. Process tables live in procs_*.go.

// The signals the engine sends and names.
const (
	sigHUP  = syscall.SIGHUP
	sigINT  = syscall.SIGINT
	sigQUIT = syscall.SIGQUIT
	sigTERM = syscall.SIGTERM
	sigKILL = syscall.SIGKILL
	sigCONT = syscall.SIGCONT
	sigUSR1 = syscall.SIGUSR1
	sigUSR2 = syscall.SIGUSR2
)

// jobSignals are the signals whose ignored disposition a child would inherit (see
// defaultSignalPrefix).
var jobSignals = []os.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP, syscall.SIGTERM,
	syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGPIPE}

// kill sends sig to pid (0 checks that it exists).
func kill(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// oneShotShell runs run_command's lines.
func oneShotShell() (string, error) { return "/bin/sh", nil }

// jobAttr starts a command in a new kernel session: no controlling terminal (nothing can
// prompt on /dev/tty) and one id that covers every process group the command creates.
func jobAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// startJobProcess starts a one-shot command whose stdio the caller has set (pipes), confined by
// p, in a kernel session of its own. Nothing needs holding beyond its pipes: the io.Closer is nil.
func startJobProcess(cmd *exec.Cmd, p *sandbox.Policy, _ *procSelector) (io.Closer, error) {
	cmd.SysProcAttr = jobAttr()
	return nil, sandbox.Start(cmd, p)
}

// hasConPTY: pseudo consoles are Windows'.
func hasConPTY() bool { return false }

// jobObject: Unix has none; a command's processes are found by session id, terminal and
// marker (procSelector).
type jobObject struct{}

// startInPTY starts cmd, confined by p, as the session leader of a new PTY of the given size.
func startInPTY(cmd *exec.Cmd, cols, rows int, p *sandbox.Policy) (ptyStart, error) {
	ptmx, tty, err := openPTY(cols, rows)
	if err != nil {
		return ptyStart{}, fmt.Errorf("open pty: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = sessionAttr()
	if err := sandbox.Start(cmd, p); err != nil {
		ptmx.Close()
		tty.Close()
		return ptyStart{}, err
	}
	name := tty.Name()
	tty.Close()
	master, err := pollableMaster(ptmx)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return ptyStart{}, fmt.Errorf("prepare pty: %w", err)
	}
	return ptyStart{conn: &filePTY{File: master, tty: name}, tty: name}, nil
}

// filePTY is a PTY master: reads, writes, deadlines and Close are the pollable file's.
type filePTY struct {
	*os.File
	tty string // the slave's name
}

func (f *filePTY) Resize(cols, rows int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ierr error
	if err := rc.Control(func(fd uintptr) { ierr = setWinsize(fd, cols, rows) }); err != nil {
		return err
	}
	return ierr
}

func (f *filePTY) LocalModes() (lflag uint32, ok bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, false
	}
	_ = rc.Control(func(fd uintptr) { lflag, ok = localModes(fd) })
	return lflag, ok
}

func (f *filePTY) InputPending() bool { return ttyInputPending(f.tty) }

// sessionAttr starts a session's shell as the leader of a new session whose controlling
// terminal is its PTY (stdin).
func sessionAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
}

// openPTY opens a PTY pair of the given size.
func openPTY(cols, rows int) (ptmx, tty *os.File, err error) {
	ptmx, tty, err = pty.Open()
	if err != nil {
		return nil, nil, err
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		ptmx.Close()
		tty.Close()
		return nil, nil, err
	}
	return ptmx, tty, nil
}

// pollableMaster returns a close-on-exec, non-blocking duplicate of the PTY master and closes
// the original. The master from pty.Open is blocking: a read on it cannot be interrupted. A
// non-blocking duplicate goes through the runtime poller, so Close ends a pending Read. It must
// be close-on-exec: a child started later (a run_command, another conversation's shell) that
// inherited the master could type into this session and would keep the PTY from hanging up its
// shell when toolhost dies.
func pollableMaster(ptmx *os.File) (*os.File, error) {
	nfd, err := unix.FcntlInt(ptmx.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	ptmx.Close()
	if err == nil {
		err = unix.SetNonblock(nfd, true)
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(nfd), "/dev/ptmx"), nil
}

// Local mode bits of a terminal.
const (
	lflagECHO   = unix.ECHO
	lflagICANON = unix.ICANON
)

// localModes reads the terminal's local mode flags (c_lflag).
func localModes(fd uintptr) (uint32, bool) {
	t, err := unix.IoctlGetTermios(int(fd), ioctlGetTermios)
	if err != nil {
		return 0, false
	}
	return uint32(t.Lflag), true
}

// setWinsize sets the terminal's window size.
func setWinsize(fd uintptr, cols, rows int) error {
	return unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)})
}

// ttyInputPending says whether the terminal named has typed input that no program has read
// yet. It opens the terminal for the query only: a descriptor kept open would stop the PTY
// from hanging up when the shell exits.
func ttyInputPending(name string) bool {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	n, err := unix.IoctlGetInt(fd, ioctlInputQueue)
	return err == nil && n > 0
}

// signalledExit is 128 plus the signal that ended the process, or 0.
func signalledExit(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return 0
}
