//go:build linux

package fsread

import (
	"io"
	"syscall"
)

// rawFile is a read-only descriptor without the os.File machinery: grep
// opens tens of thousands of files, and os.File registers each with the
// netpoller (a failing epoll_ctl for regular files) and a finalizer.
type rawFile struct{ fd int }

func (f rawFile) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(f.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 && len(p) > 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f rawFile) Close() error { return syscall.Close(f.fd) }

// openEntry opens the entry name of directory d for reading. name is a
// single component from getdents, and O_NOFOLLOW refuses a symlink swapped
// in after the listing, so the open cannot leave d (the same guarantee
// os.Root gives, without following in-root links either). O_NONBLOCK keeps a
// FIFO swapped in from blocking. It reports the size and whether the entry
// is a regular file, and its identity.
func openEntry(d *dirHandle, name string) (io.ReadCloser, int64, bool, FileID, error) {
	if d.dir == nil {
		return openEntryRoot(d, name)
	}
	rc, err := d.dir.SyscallConn()
	if err != nil {
		return openEntryRoot(d, name)
	}
	var (
		fd      int
		errOpen error
	)
	if err := rc.Control(func(dirfd uintptr) {
		for {
			fd, errOpen = syscall.Openat(int(dirfd), name,
				syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
			if errOpen != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return nil, 0, false, FileID{}, err
	}
	if errOpen != nil {
		return nil, 0, false, FileID{}, errOpen
	}
	f := rawFile{fd}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, 0, false, FileID{}, err
	}
	return f, st.Size, st.Mode&syscall.S_IFMT == syscall.S_IFREG, FileID{Dev: uint64(st.Dev), Ino: st.Ino, Nlink: uint64(st.Nlink), Ctime: st.Ctim.Nano(), Mtime: st.Mtim.Nano()}, nil
}
