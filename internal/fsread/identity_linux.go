//go:build linux

package fsread

import (
	"io/fs"
	"syscall"
)

// fileIdentity returns device and inode numbers so the line index survives
// renames and is not confused by two roots naming the same file, plus the
// ctime, which changes on any rewrite even when size and mtime are restored.
func fileIdentity(fi fs.FileInfo) (dev, ino uint64, ctimeNs int64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), st.Ctim.Sec*1e9 + st.Ctim.Nsec, true
}

// fileID returns the identity Screen.Opened vets.
func fileID(fi fs.FileInfo) (FileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return FileID{}, false
	}
	return FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Nlink: uint64(st.Nlink), Ctime: st.Ctim.Nano(), Mtime: st.Mtim.Nano()}, true
}
