//go:build unix

package proctree

import (
	"os"
	"os/exec"
	"syscall"
)

// Isolate makes cmd the leader of a process group of its own when it starts. dieWithParent
// also asks the kernel to kill it if toolhost dies, where the kernel can (Linux).
func Isolate(cmd *exec.Cmd, dieWithParent bool) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if dieWithParent {
		setDeathSignal(cmd.SysProcAttr)
	}
}

// Kill kills p's process group (p was started by Isolate) and p.
func Kill(p *os.Process) {
	if p == nil {
		return
	}
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	_ = p.Kill()
}
