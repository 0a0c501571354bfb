//go:build windows

package authz

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/windows"

	"toolhost/internal/winpath"
)

// The file system calls the guard's path resolution makes on Windows. The guard decides on the
// guard form of a path (package winpath: C:\a\b is /C:/a/b); every call here turns it back into
// a native path first.

// statT is what lstat reports, with the fields the guard reads named as on Unix.
type statT struct {
	Mode  uint32
	Nlink uint64
	Dev   uint64 // volume serial number
	Ino   uint64 // file index
	Ctim  ctime
}

type ctime struct{ ns int64 }

// Nano is the change time in nanoseconds (the last write time: Windows keeps no ctime).
func (c ctime) Nano() int64 { return c.ns }

// File types in statT.Mode (the Unix values; only the guard reads them).
const (
	sIFMT   = 0o170000
	sIFDIR  = 0o040000
	sIFREG  = 0o100000
	sIFLNK  = 0o120000
	sIFIFO  = 0o010000
	sIFCHR  = 0o020000
	sIFBLK  = 0o060000
	sIFSOCK = 0o140000
)

// atCWD: no openat2 fast path on Windows.
const atCWD = -100

// openReadFlags: os.Root refuses to follow a final symlink out of the root itself; Windows has
// no FIFOs or terminals to block on through a path the guard accepts.
const openReadFlags = 0

func lstat(p string, st *statT) error {
	fi, err := os.Lstat(OSPath(p))
	if err != nil {
		return err
	}
	*st = statOf(fi)
	if st.Mode&sIFMT == sIFREG {
		// Link count and file index need a handle.
		if f, err := openAttr(OSPath(p)); err == nil {
			fillIndex(f, st)
			windows.CloseHandle(f)
		}
	}
	return nil
}

func fstat(f *os.File, st *statT) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	*st = statOf(fi)
	fillIndex(windows.Handle(f.Fd()), st)
	return nil
}

func statOf(fi fs.FileInfo) statT {
	var st statT
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		st.Mode = sIFLNK
	case m.IsDir():
		st.Mode = sIFDIR
	case m.IsRegular():
		st.Mode = sIFREG
	case m&fs.ModeNamedPipe != 0:
		st.Mode = sIFIFO
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		st.Mode = sIFCHR
	case m&fs.ModeSocket != 0:
		st.Mode = sIFSOCK
	case m&fs.ModeIrregular != 0:
		// A mount point (junction) or another reparse point: it leads elsewhere like a
		// symbolic link, and os.Readlink reads where.
		st.Mode = sIFLNK
	default:
		st.Mode = sIFCHR
	}
	st.Nlink = 1
	st.Ctim = ctime{fi.ModTime().UnixNano()}
	return st
}

// openAttr opens p for its attributes only, not following a final reparse point.
func openAttr(p string) (windows.Handle, error) {
	name, err := windows.UTF16PtrFromString(p)
	if err != nil {
		return 0, err
	}
	return windows.CreateFile(name, windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
}

func fillIndex(h windows.Handle, st *statT) {
	var info windows.ByHandleFileInformation
	if windows.GetFileInformationByHandle(h, &info) != nil {
		return
	}
	st.Nlink = uint64(info.NumberOfLinks)
	st.Dev = uint64(info.VolumeSerialNumber)
	st.Ino = uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)
}

func readlinkInto(p string, buf []byte) (int, error) {
	t, err := os.Readlink(OSPath(p))
	if err != nil {
		return 0, err
	}
	if filepath.IsAbs(t) || filepath.VolumeName(t) != "" {
		if t, err = winpath.ToGuard(t); err != nil {
			return 0, err
		}
	} else {
		t = filepath.ToSlash(t)
	}
	return copy(buf, t), nil
}

func closeFD(int) {}

func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) ||
		errors.Is(err, windows.ERROR_PATH_NOT_FOUND) || errors.Is(err, windows.ERROR_INVALID_NAME) ||
		errors.Is(err, windows.ERROR_BAD_NETPATH) || errors.Is(err, windows.ERROR_BAD_NET_NAME) ||
		errors.Is(err, windows.ERROR_DIRECTORY)
}
func isLoop(err error) bool    { return errors.Is(err, windows.ERROR_CANT_RESOLVE_FILENAME) }
func isTooLong(err error) bool { return errors.Is(err, windows.ERROR_FILENAME_EXCED_RANGE) }

func statKey(st *statT) fileKey { return fileKey{st.Dev, st.Ino} }

func ctimeOf(st *statT) int64 { return st.Ctim.Nano() }

// guardPath turns a native path into the guard form through the Windows path model, refusing
// what Windows would read differently from its spelling (winpath's package comment).
func guardPath(p string) (string, error) { return windowsGuardPath(p) }

// OSPath turns a canonical guard-form path into the native path Windows takes.
func OSPath(p string) string { return winpath.Native(p) }

// diskName is the name of the existing entry p as the volume stores it: its long name (not an
// 8.3 alias such as GIT~1 for .git) in its stored case, so the guard's rules see the name every
// other spelling of the entry leads to.
func diskName(p, base string) string {
	name, err := windows.UTF16PtrFromString(OSPath(p))
	if err != nil {
		return base
	}
	var fd windows.Win32finddata
	h, err := windows.FindFirstFile(name, &fd)
	if err != nil {
		return base
	}
	windows.FindClose(h)
	if n := syscall.UTF16ToString(fd.FileName[:]); n != "" {
		return n
	}
	return base
}
