//go:build !linux && !darwin

package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
)

// ABI reports that Landlock exists only on Linux.
func ABI() (int, error) { return 0, errors.New("Landlock exists only on Linux") }

// Start starts cmd unconfined when p allows it (nil or off) and refuses otherwise.
func Start(cmd *exec.Cmd, p *Policy) error {
	if p == nil || p.Mode == ModeOff {
		return cmd.Start()
	}
	_, err := ABI()
	return fmt.Errorf("%w: %v", ErrUnavailable, err)
}

func selfTest() error { _, err := ABI(); return err }

// Mechanism names what confines commands here: nothing.
func Mechanism(int) string { return "no sandbox on this platform" }

func scoped(int) bool { return false }
