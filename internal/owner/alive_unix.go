//go:build unix

package owner

import (
	"errors"
	"syscall"
)

// signalZero asks the kernel whether pid exists without signalling it.
func signalZero(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
