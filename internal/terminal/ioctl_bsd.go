//go:build unix && !linux

package terminal

import "golang.org/x/sys/unix"

// macOS (and the BSDs) name the termios read TIOCGETA and the input queue query FIONREAD
// (_IOR('f', 127, int); golang.org/x/sys/unix does not export it for darwin).
const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlInputQueue = 0x4004667f
)
