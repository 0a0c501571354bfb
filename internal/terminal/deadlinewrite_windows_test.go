//go:build windows

package terminal

import "golang.org/x/sys/windows"

func writeFD(fd int, p []byte) (int, error) {
	var n uint32
	err := windows.WriteFile(windows.Handle(fd), p, &n, nil)
	return int(n), err
}
