//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// The file locks the store takes, one file per platform: flock(2) here, the lock bbolt takes on
// the database file too.

// errLocked is what tryLock returns when another descriptor holds a conflicting lock.
var errLocked = unix.EWOULDBLOCK

// tryLock takes f's lock, shared or exclusive, without waiting.
func tryLock(f *os.File, exclusive bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return errLocked
	}
	return err
}

// unlock releases f's lock.
func unlock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }

// knock opens and closes path by a descriptor of its own, for watchers of open and close events.
func knock(path string) {
	if fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0); err == nil {
		unix.Close(fd)
	}
}

// fileIno is the inode number of the file info describes (0 when unknown).
func fileIno(info os.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
