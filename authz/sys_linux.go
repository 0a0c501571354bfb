//go:build linux

package authz

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// SystemBootClock reads CLOCK_BOOTTIME (counts during suspend, never set) and the kernel's boot id.
func SystemBootClock() (time.Duration, string) {
	return bootTime(), bootID()
}

func bootTime() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	}
	return time.Duration(ts.Nano())
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

// openDirFD opens the O_PATH descriptor the fast path looks up from.
func openDirFD(dir string) (int, error) {
	return unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
}

// fastLookup opens path (relative to dirfd) with O_PATH in one kernel lookup that refuses every
// symlink (and with beneath, any escape from dirfd) and returns its
// stat. ok is false when the path does not exist, crosses a symlink or escapes: the component walk
// then decides. Without symlinks the lexical clean of a path is its canonical form, ".." included.
func fastLookup(dirfd int, path string, beneath, follow bool) (resolved, bool) {
	resolveFlags := uint64(unix.RESOLVE_NO_SYMLINKS)
	if beneath {
		resolveFlags |= unix.RESOLVE_BENEATH
	}
	flags := uint64(unix.O_PATH | unix.O_CLOEXEC)
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Openat2(dirfd, path, &unix.OpenHow{Flags: flags, Resolve: resolveFlags})
	if err != nil {
		return resolved{}, false
	}
	var r resolved
	err = unix.Fstat(fd, &r.st)
	unix.Close(fd)
	if err != nil {
		return resolved{}, false
	}
	r.exists = true
	return r, true
}

// openRootAt opens an os.Root at the canonical directory dir, refusing any symlink on the way
// (dir is symlink-free when checked; a symlink there now means it was swapped in since).
func openRootAt(dir string) (*os.Root, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	switch {
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
		return os.OpenRoot(dir) // kernel without openat2 (or seccomp): best effort
	case errors.Is(err, unix.ENOENT):
		return nil, fmt.Errorf("%s: %w", dir, os.ErrNotExist)
	case errors.Is(err, unix.ELOOP):
		return nil, fmt.Errorf("%s: a symbolic link appeared in the path after the check", dir)
	case err != nil:
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	// The root is opened by its path, not through /proc/self/fd: its Name must be the
	// directory's path, which the edit journal records for another process to recover
	// from (a /proc/self/fd name means another file there, or none), and that descriptor
	// closes here. It must be the directory found without following a link.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	var want unix.Stat_t
	got, serr := root.Stat(".")
	if err := errors.Join(unix.Fstat(fd, &want), serr); err != nil {
		root.Close()
		return nil, &os.PathError{Op: "stat", Path: dir, Err: err}
	}
	if st, ok := got.Sys().(*syscall.Stat_t); !ok || st.Dev != want.Dev || st.Ino != want.Ino {
		root.Close()
		return nil, fmt.Errorf("%s: a symbolic link appeared in the path after the check", dir)
	}
	return root, nil
}
