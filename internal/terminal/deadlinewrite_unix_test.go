//go:build unix

package terminal

import "syscall"

func writeFD(fd int, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := syscall.Write(fd, p[n:])
		if err != nil {
			return n, err
		}
		n += m
	}
	return n, nil
}
