package console

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// showsKeys reports whether the terminal of process pid (a session's shell) shows what is
// typed into it now: false while a program reads a line without echo (a password prompt:
// ECHO off, ICANON on), and when the mode cannot be read. Programs that read keys one by one
// (an editor, a pager: ICANON off) show them themselves. The terminal is opened through the
// shell's standard input, which works for a session of another process of the same user too.
func showsKeys(pid int) bool {
	if pid <= 0 {
		return false
	}
	fd, err := unix.Open(fmt.Sprintf("/proc/%d/fd/0", pid), unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return false
	}
	return t.Lflag&unix.ECHO != 0 || t.Lflag&unix.ICANON == 0
}
