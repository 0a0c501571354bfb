//go:build unix

package casttest

import (
	"bytes"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/creack/pty"
)

// Play plays the recording at path with asciinema's own parser (asciinema cat prints its whole
// output) and returns what it printed. asciinema opens /dev/tty, so it runs with a PTY as its
// controlling terminal and its output in a pipe. Missing asciinema skips, but fails under CI,
// whose .ci/run installs it.
func Play(t testing.TB, path string) string {
	t.Helper()
	bin, err := exec.LookPath("asciinema")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("asciinema is not installed; .ci/run installs it (apt-get install asciinema)")
		}
		t.Skip("asciinema is not installed (apt-get install asciinema)")
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	cmd := exec.Command(bin, "cat", path)
	var out, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &out, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Run(); err != nil {
		t.Fatalf("asciinema cat %s: %v\n%s", path, err, stderr.String())
	}
	return out.String()
}
