package terminal

import (
	"context"
	"log/slog"
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
	// job, where the platform has one (Windows), holds every process started for it, however
	// it detached; nil elsewhere.
	job *jobObject
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
			_ = kill(p, sig)
		} else {
			_ = kill(p, sigHUP)
			_ = kill(p, sigTERM)
		}
		_ = kill(p, sigCONT)
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
			_ = kill(p, sigKILL)
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

// sweepOrphans ends the processes orphanPIDs finds, SIGTERM first and SIGKILL after grace,
// so commands and shells of a killed toolhost do not run on unobserved.
func sweepOrphans(ctx context.Context, self string, grace time.Duration) {
	pids := orphanPIDs(self)
	if len(pids) == 0 {
		return
	}
	slog.Info("terminal: ending processes left by a toolhost that did not shut down", "pids", pids)
	for _, p := range pids {
		_ = kill(p, sigHUP)
		_ = kill(p, sigTERM)
		_ = kill(p, sigCONT)
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-t.C:
	}
	for _, p := range orphanPIDs(self) {
		_ = kill(p, sigKILL)
	}
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
