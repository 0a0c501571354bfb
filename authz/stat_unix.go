//go:build unix

package authz

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// The file system calls the guard's path resolution makes, one file per platform. On Unix the
// guard form of a path is the path itself.

// statT is what lstat reports: the kernel's stat.
type statT = unix.Stat_t

// File types in statT.Mode.
const (
	sIFMT   = unix.S_IFMT
	sIFDIR  = unix.S_IFDIR
	sIFREG  = unix.S_IFREG
	sIFLNK  = unix.S_IFLNK
	sIFIFO  = unix.S_IFIFO
	sIFCHR  = unix.S_IFCHR
	sIFBLK  = unix.S_IFBLK
	sIFSOCK = unix.S_IFSOCK
)

// atCWD is the descriptor fastLookup resolves absolute paths from.
const atCWD = unix.AT_FDCWD

// openReadFlags open a target for reading: never block on a FIFO, never follow a final symlink,
// never make a terminal the controlling one.
const openReadFlags = unix.O_NONBLOCK | unix.O_NOFOLLOW | unix.O_NOCTTY

func lstat(p string, st *statT) error { return unix.Lstat(p, st) }

func fstat(f *os.File, st *statT) error { return unix.Fstat(int(f.Fd()), st) }

func readlinkInto(p string, buf []byte) (int, error) { return unix.Readlink(p, buf) }

func closeFD(fd int) { unix.Close(fd) }

// The errors resolve tells apart.
func isMissing(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EACCES)
}
func isLoop(err error) bool    { return errors.Is(err, unix.ELOOP) }
func isTooLong(err error) bool { return errors.Is(err, unix.ENAMETOOLONG) }

// statKey identifies the file st describes.
func statKey(st *statT) fileKey { return fileKey{uint64(st.Dev), uint64(st.Ino)} }

// ctimeOf is st's change time in nanoseconds.
func ctimeOf(st *statT) int64 { return st.Ctim.Nano() }

// guardPath turns a path from the outside (configuration, a model, the OS) into the guard form;
// relative paths stay relative. Unix paths are their own guard form.
func guardPath(p string) (string, error) { return p, nil }

// OSPath turns a canonical path the guard decided on into the path the operating system takes.
// On Unix they are the same.
func OSPath(p string) string { return p }

// diskName is the name of the existing entry p as the file system stores it (its case, its long
// name), or base when that is unknown: Unix names are exact.
func diskName(p, base string) string { return base }
