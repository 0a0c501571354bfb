//go:build unix && !linux

package authz

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// SystemBootClock reads the system-wide monotonic clock and the boot time as a boot id.
func SystemBootClock() (time.Duration, string) {
	return bootTime(), bootID()
}

func bootTime() time.Duration {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return time.Duration(ts.Nano())
}

func bootID() string {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%d.%06d", tv.Sec, tv.Usec)
}

// openDirFD: no fast path without openat2.
func openDirFD(string) (int, error) { return -1, nil }

// fastLookup: without openat2 every path takes the component walk.
func fastLookup(int, string, bool, bool) (resolved, bool) { return resolved{}, false }

// openRootAt opens an os.Root at the canonical directory dir and checks that no symlink was swapped
// in since the check (the directory opened is the one an lstat of dir sees).
func openRootAt(dir string) (*os.Root, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	a, err1 := root.Stat(".")
	b, err2 := os.Lstat(dir)
	if err := errors.Join(err1, err2); err != nil {
		root.Close()
		return nil, err
	}
	if !os.SameFile(a, b) {
		root.Close()
		return nil, fmt.Errorf("%s: a symbolic link appeared in the path after the check", dir)
	}
	return root, nil
}
