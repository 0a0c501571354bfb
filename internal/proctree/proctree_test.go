//go:build unix

package proctree

import (
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A tree started with Isolate dies whole with Kill: the shell and the sleep it started in the
// background.
func TestKillTree(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "sleep 30 & echo $!; wait")
	Isolate(cmd, true)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 32)
	n, _ := out.Read(buf)
	child, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		t.Fatalf("child pid %q: %v", buf[:n], err)
	}
	Kill(cmd.Process)
	_ = cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(child, 0) == nil {
		// A zombie until its reaper (init, or a subreaper) collects it counts as gone.
		if b, _ := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(child)).Output(); strings.HasPrefix(strings.TrimSpace(string(b)), "Z") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("background child %d survived Kill", child)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
