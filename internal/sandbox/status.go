package sandbox

import (
	"errors"
	"fmt"
	"runtime"
)

// ErrUnavailable is returned by Start (wrapped, with the reason) when a confined mode is
// configured and the kernel cannot enforce it. Nothing is started.
var ErrUnavailable = errors.New("terminal sandbox unavailable")

// Status is what the sandbox enforces on this machine for a configured mode: the startup
// line and `toolhost doctor` print it.
type Status struct {
	// Mode is the configured mode.
	Mode Mode
	// Effective is what commands run under: Mode, or ModeOff when Landlock is missing and the
	// user accepted running unconfined.
	Effective Mode
	// ABI is the kernel's Landlock ABI version on Linux, 1 where Seatbelt is there on macOS
	// (0: no sandbox).
	ABI int
	// Problem says why the sandbox cannot be used, when it cannot.
	Problem string
	// Refusing is set when a confined mode is configured, Landlock is missing and running
	// unconfined was not accepted: every command and session is refused.
	Refusing bool
}

// Check works out what a configured mode means here. allowUnconfined is the user's
// acceptance of running commands unconfined where Landlock is missing.
func Check(mode Mode, allowUnconfined bool) Status {
	s := Status{Mode: mode, Effective: mode}
	if mode == ModeOff {
		s.ABI, _ = ABI()
		return s
	}
	abi, err := ABI()
	if err == nil {
		err = selfTest()
	}
	s.ABI = abi
	if err != nil {
		s.Problem = err.Error()
		if allowUnconfined {
			s.Effective = ModeOff
		} else {
			s.Refusing = true
		}
	}
	return s
}

// Policy returns the policy a command runs under for this status (nil when unconfined);
// base carries the paths, Status the mode.
func (s Status) Policy(base Policy) *Policy {
	if s.Effective == ModeOff || s.Refusing {
		return nil
	}
	base.Mode = s.Effective
	return &base
}

// Summary is the one-line startup message.
func (s Status) Summary() string {
	switch {
	case s.Refusing:
		return fmt.Sprintf("terminal sandbox %s configured but unavailable (%s): terminal commands are refused; set [terminal] sandbox = \"off\" or allow_unsandboxed = true to run them unconfined", s.Mode, s.Problem)
	case s.Mode != ModeOff && s.Effective == ModeOff:
		return fmt.Sprintf("terminal sandbox unavailable (%s): commands run UNCONFINED, as allow_unsandboxed = true accepts", s.Problem)
	case s.Effective == ModeOff:
		return "terminal sandbox off: commands run with your full authority"
	case s.Effective == ModeReadOnly:
		return fmt.Sprintf("terminal sandbox read-only (%s): commands write only in temp dirs; toolhost's state, tokens and your credential stores unreadable", Mechanism(s.ABI))
	}
	return fmt.Sprintf("terminal sandbox workspace-write (%s): commands write only in the working directory, granted paths, temp dirs and build caches; toolhost's own files read-only; its state, tokens and your credential stores unreadable", Mechanism(s.ABI))
}

// Details lists what is and is not enforced, for `toolhost doctor`.
func (s Status) Details() []string {
	var out []string
	landlock := runtime.GOOS == "linux"
	if s.ABI > 0 {
		out = append(out, Mechanism(s.ABI)+" available")
	} else {
		out = append(out, "sandbox unavailable: "+s.Problem)
	}
	if s.Refusing || s.Effective == ModeOff {
		out = append(out, "enforced: nothing on file access (commands are "+map[bool]string{true: "refused", false: "unconfined"}[s.Refusing]+")")
	} else {
		w := "the working directory, paths granted with terminal_operations:write, temp dirs, Go/npm/pip/cargo caches, [terminal] writable"
		if s.Effective == ModeReadOnly {
			w = "temp dirs only"
		}
		out = append(out,
			"enforced: writes only in "+w,
			"enforced: toolhost's state dir, config, token, prompts dir and log never writable",
			"enforced: unreadable: toolhost's state, config and every token file on this state dir; the credential stores the guard protects (~/.ssh, ~/.aws, ~/.netrc, ...); other projects' .env files; paths granted with terminal_operations:read excepted",
			"enforced: git run by build_and_version_control (and its hooks, fsmonitor, filters, textconv) gets the same policy, plus the repository for a commit the guard approved",
			"NOT enforced: hooks or git config a model planted run unconfined when you run git yourself",
		)
		if landlock {
			out = append(out, "enforced: no privilege gain (no_new_privs: sudo, su and setuid programs fail); no capability that reaches other processes (ptrace, admin, raw devices, kill), even as root")
		}
		switch {
		case scoped(s.ABI) && landlock:
			out = append(out, "enforced: no signal to, and no abstract unix socket of, a process outside the command's own tree (the server included)")
		case scoped(s.ABI):
			out = append(out, "enforced: no signal to, and no inspection of, a process outside the command's own sandbox (the server included)")
		default:
			out = append(out, fmt.Sprintf("NOT enforced: signals to other processes of yours, the server included (Landlock ABI 6 needed, this kernel has %d)", s.ABI))
		}
		if landlock && s.ABI < 2 {
			out = append(out, "limited: ABI 1 refuses every rename or link across directories")
		}
		if landlock && s.ABI < 3 {
			out = append(out, "NOT enforced: truncate(2) of read-only files (Landlock ABI 3 needed)")
		}
		if landlock {
			out = append(out, "NOT enforced: network, UNIX sockets on the file system (D-Bus, systemd-run --user, agents)")
		} else {
			out = append(out, "NOT enforced: network; Mach services (the keychain through securityd, launchd, the pasteboard) answer what your account may ask of them")
		}
	}
	return out
}

// Scoped says whether confined processes are kept from signalling, and from connecting to
// abstract unix sockets of, processes outside their own domain: Landlock ABI 6 and later.
func Scoped(abi int) bool { return abi >= 6 }
