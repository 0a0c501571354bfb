//go:build windows

package authz

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// SystemBootClock reads the milliseconds since boot (GetTickCount64, counting during sleep) and
// the boot time, to the minute, as a boot id.
func SystemBootClock() (time.Duration, string) {
	return bootTime(), bootID()
}

func bootTime() time.Duration { return windows.DurationSinceBoot() }

// bootID is the boot time to the minute: the tick count and the wall clock are read a few
// microseconds apart, so processes of one boot agree unless the wall clock is set meanwhile (a
// grant then ends early, the safe side).
func bootID() string {
	return fmt.Sprintf("%d", time.Now().Add(-bootTime()).Round(time.Minute).Unix())
}

// openDirFD: no fast path without openat2.
func openDirFD(string) (int, error) { return -1, nil }

// fastLookup: every path takes the component walk.
func fastLookup(int, string, bool, bool) (resolved, bool) { return resolved{}, false }

// openRootAt opens an os.Root at the canonical directory dir and checks that it is the directory
// an lstat of dir sees (no reparse point swapped in since the check).
func openRootAt(dir string) (*os.Root, error) {
	native := OSPath(dir)
	root, err := os.OpenRoot(native)
	if err != nil {
		return nil, err
	}
	a, err1 := root.Stat(".")
	b, err2 := os.Lstat(native)
	if err := errors.Join(err1, err2); err != nil {
		root.Close()
		return nil, err
	}
	if !os.SameFile(a, b) || b.Mode()&os.ModeSymlink != 0 {
		root.Close()
		return nil, fmt.Errorf("%s: a link appeared in the path after the check", dir)
	}
	return root, nil
}
