//go:build unix

package fsread

import (
	"io/fs"
	"syscall"
)

// nonblockFlag makes opening a FIFO return at once instead of waiting for a
// writer; it has no effect on regular files.
const nonblockFlag = syscall.O_NONBLOCK

// fileIdentity returns device and inode numbers so the line index survives
// renames and is not confused by two roots naming the same file.
func fileIdentity(fi fs.FileInfo) (dev, ino uint64, ctimeNs int64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), st.Ctim.Sec*1e9 + st.Ctim.Nsec, true
}
