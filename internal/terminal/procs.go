package terminal

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// procSelector says which processes belong to a session or a command. A process belongs if
// its kernel session id is sid, if it holds the PTY slave tty open, or if its environment
// carries marker (a unique NAME=value every descendant inherits, which catches setsid
// escapees of one-shot commands that have no terminal).
type procSelector struct {
	sid    int
	tty    string // e.g. /dev/pts/3; empty for one-shot commands
	marker string // NAME=value; empty to skip the environment check
}

// procStat reads the state and session id from /proc/<pid>/stat.
func procStat(pid int) (state byte, sid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+2:]))
	// fields after comm: state ppid pgrp session ...
	if len(f) < 4 {
		return 0, 0, false
	}
	s, err := strconv.Atoi(f[3])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], s, true
}

func holdsTTY(pid int, tty string) bool {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	d, err := os.Open(dir)
	if err != nil {
		return false
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if l, err := os.Readlink(dir + "/" + n); err == nil && l == tty {
			return true
		}
	}
	return false
}

func hasEnv(pid int, marker string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for len(b) > 0 {
		var kv []byte
		kv, b, _ = bytes.Cut(b, []byte{0})
		if string(kv) == marker {
			return true
		}
	}
	return false
}

// members lists the live (not zombie) processes selected by sel, never this process.
func (sel procSelector) members() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self := os.Getpid()
	var out []int
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 1 || pid == self {
			continue
		}
		state, sid, ok := procStat(pid)
		if !ok || state == 'Z' || state == 'X' {
			continue
		}
		if (sel.sid > 1 && sid == sel.sid) ||
			(sel.tty != "" && holdsTTY(pid, sel.tty)) ||
			(sel.marker != "" && hasEnv(pid, sel.marker)) {
			out = append(out, pid)
		}
	}
	return out
}

// killAll signals every member with SIGHUP and SIGTERM (and SIGCONT so stopped jobs can
// act on them), waits up to grace for them to go, then SIGKILLs whatever is left, rescanning
// so that processes forked meanwhile are caught too. It returns the pids still alive at the
// end (normally none).
func (sel procSelector) killAll(ctx context.Context, grace time.Duration) []int {
	return sel.killWith(ctx, 0, grace)
}

// killWith is killAll with the first signal chosen by the caller (close_session's signal);
// zero means SIGHUP and SIGTERM. Whatever is left after grace is killed.
func (sel procSelector) killWith(ctx context.Context, sig syscall.Signal, grace time.Duration) []int {
	pids := sel.members()
	if len(pids) == 0 {
		return nil
	}
	for _, p := range pids {
		if sig != 0 {
			_ = syscall.Kill(p, sig)
		} else {
			_ = syscall.Kill(p, syscall.SIGHUP)
			_ = syscall.Kill(p, syscall.SIGTERM)
		}
		_ = syscall.Kill(p, syscall.SIGCONT)
	}
	if waitGone(ctx, sel, grace) {
		return nil
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		pids = sel.members()
		if len(pids) == 0 {
			return nil
		}
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		if waitGone(context.Background(), sel, 200*time.Millisecond) {
			return nil
		}
	}
	return sel.members()
}

// waitGone polls until no member is left or the time is up.
func waitGone(ctx context.Context, sel procSelector, d time.Duration) bool {
	deadline := time.Now().Add(d)
	delay := 2 * time.Millisecond
	for {
		if len(sel.members()) == 0 {
			return true
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(delay)
		if delay < 25*time.Millisecond {
			delay *= 2
		}
	}
}

// orphanPIDs lists live processes left behind by toolhost instances that died without
// shutting down (SIGKILL, a crash): their marker names an instance other than self whose
// process is gone. A reused pid only makes a leftover survive, never kills a stranger.
func orphanPIDs(self string) []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	prefix := []byte(markerEnv + "=")
	var out []int
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 1 || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/environ")
		if err != nil {
			continue
		}
		for len(b) > 0 {
			var kv []byte
			kv, b, _ = bytes.Cut(b, []byte{0})
			val, ok := bytes.CutPrefix(kv, prefix)
			if !ok {
				continue
			}
			inst, _, _ := bytes.Cut(val, []byte{'/'})
			if string(inst) == self || len(inst) == 0 {
				break
			}
			if !instanceAlive(string(inst)) {
				if state, _, ok := procStat(pid); ok && state != 'Z' && state != 'X' {
					out = append(out, pid)
				}
			}
			break
		}
	}
	return out
}

// sweepOrphans ends the processes orphanPIDs finds, SIGTERM first and SIGKILL after grace,
// so commands and shells of a killed toolhost do not run on unobserved.
func sweepOrphans(ctx context.Context, self string, grace time.Duration) {
	pids := orphanPIDs(self)
	if len(pids) == 0 {
		return
	}
	slog.Info("terminal: ending processes left by a toolhost that did not shut down", "pids", pids)
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGHUP)
		_ = syscall.Kill(p, syscall.SIGTERM)
		_ = syscall.Kill(p, syscall.SIGCONT)
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-t.C:
	}
	for _, p := range orphanPIDs(self) {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// statFields reads the fields of /proc/<pid>/stat: the command name (comm) and the fields
// after it (state ppid pgrp session tty_nr tpgid ...).
func statFields(pid int) (comm string, f []string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", nil, false
	}
	i, j := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if i < 0 || j < i || j+2 >= len(b) {
		return "", nil, false
	}
	f = strings.Fields(string(b[j+2:]))
	return string(b[i+1 : j]), f, len(f) >= 6
}

// lineReaders are programs that read typed lines as shell commands: shells, and programs that
// pass what is typed to a shell this host cannot see (remote, in a container, in another
// terminal). A script run by a shell counts too: its interpreter is the shell.
var lineReaders = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "yash": true,
	"posh": true, "rbash": true, "fish": true, "tcsh": true, "csh": true, "busybox": true,
	"ssh": true, "mosh-client": true, "telnet": true, "tmux": true, "screen": true, "docker": true,
	"podman": true, "kubectl": true, "lxc": true, "lxc-attach": true, "machinectl": true,
}

// isLineReader reports whether a program name (a comm or an executable's base name) is one
// of lineReaders, allowing a version suffix (bash5, ksh93).
func isLineReader(name string) bool {
	name = strings.TrimSuffix(name, " (deleted)")
	return lineReaders[name] || lineReaders[strings.TrimRight(name, "0123456789.-")]
}

// maxForegroundProcs bounds the processes looked at for the foreground program.
const maxForegroundProcs = 256

// foregroundShell reports whether the foreground program of a session's terminal reads typed
// lines as commands: a line then is a command line and gets checked like one at the prompt.
// The program counts if a process of the terminal's foreground process group, or one it
// started, is a shell or relays to one (lineReaders). A copy of a shell under another name
// is not recognised. When /proc cannot say, the answer is yes; when the session's shell is
// itself in the foreground (a builtin such as read), no.
//
// Right after the shell forks a command, the child is still a copy of the shell until it
// execs the program: a child with the shell's own command line is waited for (a little) and
// counts as a shell if it stays one.
func foregroundShell(shellPID int) bool {
	for wait := time.Millisecond; ; wait *= 2 {
		shell, forking := foregroundShellOnce(shellPID)
		if !shell || !forking || wait > 128*time.Millisecond {
			return shell
		}
		time.Sleep(wait)
	}
}

// foregroundShellOnce is foregroundShell at one moment; forking says every shell it found
// may be a fork of the session's shell that has not exec'd its command yet.
func foregroundShellOnce(shellPID int) (shell, forking bool) {
	_, sf, ok := statFields(shellPID)
	if !ok {
		return true, false
	}
	tpgid, err := strconv.Atoi(sf[5])
	if err != nil || tpgid <= 0 {
		return true, false
	}
	if tpgid == shellPID {
		return false, false
	}
	d, err := os.Open("/proc")
	if err != nil {
		return true, false
	}
	shellCmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(shellPID) + "/cmdline")
	names, _ := d.Readdirnames(-1)
	d.Close()
	type proc struct {
		pid, ppid int
		comm      string
	}
	children := map[int][]proc{}
	var front []proc
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		comm, f, ok := statFields(pid)
		if !ok || f[0] == "Z" || f[0] == "X" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		p := proc{pid, ppid, comm}
		if pgrp == tpgid {
			front = append(front, p)
		}
		children[ppid] = append(children[ppid], p)
	}
	if len(front) == 0 {
		return true, false // the group just ended or /proc hides it
	}
	seen := map[int]bool{}
	forking = true
	for len(front) > 0 && len(seen) < maxForegroundProcs {
		p := front[0]
		front = front[1:]
		if seen[p.pid] {
			continue
		}
		seen[p.pid] = true
		exe, _ := os.Readlink("/proc/" + strconv.Itoa(p.pid) + "/exe")
		if isLineReader(p.comm) || exe != "" && isLineReader(filepath.Base(exe)) {
			shell = true
			if p.ppid != shellPID || len(shellCmdline) == 0 || !bytes.Equal(readCmdline(p.pid), shellCmdline) {
				return true, false
			}
		}
		front = append(front, children[p.pid]...)
	}
	if len(front) > 0 {
		return true, false
	}
	return shell, shell && forking
}

func readCmdline(pid int) []byte {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return b
}
