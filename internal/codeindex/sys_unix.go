//go:build unix

package codeindex

import (
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// The calls the index makes that differ by platform, one file per platform: here flock(2),
// mmap(2) and an open that neither follows a final link nor blocks on a FIFO.

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

// openNoFollow opens rel under root for reading; a symbolic link or a FIFO is not read.
func openNoFollow(root *os.Root, rel string) (*os.File, error) {
	return root.OpenFile(rel, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// mapFile maps the first size bytes of f read-only.
func mapFile(f *os.File, size int) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
}

// unmapFile undoes mapFile.
func unmapFile(data []byte) { _ = unix.Munmap(data) }
