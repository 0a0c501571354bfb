//go:build unix

package codeindex

import (
	"os"
	"path/filepath"
	"syscall"
)

const (
	nofollow = syscall.O_NOFOLLOW
	nonblock = syscall.O_NONBLOCK
)

// lockDir takes the index directory's lock without waiting: one process at a time writes the
// index to disk (the others keep their changes in memory).
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
