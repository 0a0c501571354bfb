//go:build !linux && !darwin

package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
)

// ABI reports that toolhost has no sandbox here (Landlock is Linux's, Seatbelt macOS's).
func ABI() (int, error) {
	return 0, errors.New("toolhost has no sandbox on " + runtime.GOOS + " (Landlock on Linux and Seatbelt on macOS only)")
}

// Start starts cmd unconfined when p allows it (nil or off) and refuses otherwise.
func Start(cmd *exec.Cmd, p *Policy) error {
	if err := Unconfined(p); err != nil {
		return err
	}
	return cmd.Start()
}

// Unconfined is Start's decision alone, for a start that cannot go through exec.Cmd.Start (a
// process on a Windows pseudo console): nil when p lets a command run unconfined (nil or off),
// the refusal otherwise.
func Unconfined(p *Policy) error {
	if p == nil || p.Mode == ModeOff {
		return nil
	}
	_, err := ABI()
	return fmt.Errorf("%w: %v", ErrUnavailable, err)
}

func selfTest() error { _, err := ABI(); return err }

// Mechanism names what confines commands here: nothing.
func Mechanism(int) string { return "no sandbox on this platform" }

func scoped(int) bool { return false }
