//go:build darwin

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// sandboxExec is macOS's Seatbelt front end: it applies a profile to itself and execs the
// command, which keeps the profile for its whole tree.
const sandboxExec = "/usr/bin/sandbox-exec"

// ABI reports 1 when sandbox-exec is there (Seatbelt has no versions that matter here).
func ABI() (int, error) {
	if fi, err := os.Stat(sandboxExec); err != nil || fi.IsDir() {
		return 0, errors.New("sandbox-exec is missing (" + sandboxExec + "): Seatbelt cannot confine commands")
	}
	return 1, nil
}

// Mechanism names what confines commands.
func Mechanism(int) string { return "Seatbelt (sandbox-exec)" }

// Seatbelt scopes signals and process inspection to the command's own sandbox.
func scoped(abi int) bool { return abi > 0 }

// Start starts cmd under p: sandbox-exec with p's profile (see SeatbeltProfile), then the
// command. Nil or off starts it as it is; a confined mode without sandbox-exec starts nothing.
func Start(cmd *exec.Cmd, p *Policy) error {
	if p == nil || p.Mode == ModeOff {
		return cmd.Start()
	}
	if _, err := ABI(); err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if cmd.Err != nil {
		return cmd.Err
	}
	profile := p.normalized().SeatbeltProfile()
	path, args := cmd.Path, cmd.Args
	if len(args) == 0 {
		args = []string{path}
	}
	cmd.Path = sandboxExec
	cmd.Args = append([]string{"sandbox-exec", "-p", profile, "--", path}, args[1:]...)
	return cmd.Start()
}

// selfTest runs /usr/bin/true under a minimal profile: sandbox-exec can refuse (inside another
// sandbox, or when Apple removes it) although it exists.
func selfTest() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, sandboxExec, "-p", "(version 1)(allow default)", "--", "/usr/bin/true").CombinedOutput()
	if err != nil {
		return fmt.Errorf("sandbox-exec does not run: %v %s", err, out)
	}
	return nil
}
