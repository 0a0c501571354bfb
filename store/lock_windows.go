//go:build windows

package store

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// The file locks the store takes on Windows: LockFileEx on the byte range bbolt locks on the
// database file (offset 2^64-1, length 1), so the store's exclusive lock and bbolt's exclude
// each other as flock does on Unix.

// errLocked is what tryLock returns when another handle holds a conflicting lock.
var errLocked = windows.ERROR_LOCK_VIOLATION

const lockOffset = ^uint32(0)

// tryLock takes f's lock, shared or exclusive, without waiting.
func tryLock(f *os.File, exclusive bool) error {
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, &windows.Overlapped{Offset: lockOffset, OffsetHigh: lockOffset})
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errLocked
	}
	return err
}

// unlock releases f's lock.
func unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &windows.Overlapped{Offset: lockOffset, OffsetHigh: lockOffset})
}

// knock opens and closes path; nothing watches open events on Windows (see waiters_other.go),
// but the open is kept so the protocol is the same everywhere.
func knock(path string) {
	if f, err := os.Open(path); err == nil {
		f.Close()
	}
}

// fileIno is 0: os.FileInfo carries no file index on Windows without another open. A Version
// then tells a replaced database by its size and modification time alone.
func fileIno(os.FileInfo) uint64 { return 0 }
