//go:build unix

package sysfile

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// OpenReadFlags open a file for reading without blocking on a FIFO, following a final symbolic
// link or making a terminal the controlling one. Add them to os.O_RDONLY.
const OpenReadFlags = unix.O_NONBLOCK | unix.O_NOFOLLOW | unix.O_NOCTTY

// NoFollow refuses a final symbolic link on open.
const NoFollow = unix.O_NOFOLLOW

// Ino is the inode number of the file fi describes, 0 when unknown.
func Ino(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// OwnedByOther reports whether fi's file belongs to a user other than this process's.
func OwnedByOther(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) != os.Getuid()
}

// DirStamp is a directory's inode and modification time (ns): a change of either means its
// entries may have changed.
func DirStamp(dir string) (ino uint64, mtime int64, ok bool) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return 0, 0, false
	}
	return uint64(st.Ino), unix.TimespecToNsec(st.Mtim), true
}

// FreeSpace is the space an unprivileged user may still write on the disk holding path.
func FreeSpace(path string) (uint64, error) {
	var fs unix.Statfs_t
	if err := unix.Statfs(path, &fs); err != nil {
		return 0, err
	}
	return uint64(fs.Bavail) * uint64(fs.Bsize), nil
}
