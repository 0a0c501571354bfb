package terminal

import "runtime"

// Support says how terminals work on this machine, for the start message and doctor.
type Support struct {
	// Mechanism is what sessions and commands run on: "PTY", "ConPTY" or "pipes".
	Mechanism string
	// Sessions says whether interactive sessions can start.
	Sessions bool
	// Problem says what is missing, when something is; empty otherwise.
	Problem string
}

// PlatformSupport is this machine's Support.
func PlatformSupport() Support { return supportFor(runtime.GOOS, hasConPTY()) }

// supportFor decides Support from the platform and, on Windows, whether it has pseudo consoles
// (CreatePseudoConsole came with Windows 10 1809). Pure, so that every branch is tested
// everywhere.
func supportFor(goos string, conPTY bool) Support {
	switch {
	case goos != "windows":
		return Support{Mechanism: "PTY", Sessions: true}
	case conPTY:
		return Support{Mechanism: "ConPTY", Sessions: true}
	}
	return Support{Mechanism: "pipes", Problem: "this Windows has no pseudo consoles (ConPTY, Windows 10 1809 and later): run_command runs with pipes and no console, interactive sessions are refused"}
}

// Summary is one line for the start message and doctor.
func (s Support) Summary() string {
	if s.Problem != "" {
		return "terminals: " + s.Mechanism + " only; " + s.Problem
	}
	switch s.Mechanism {
	case "ConPTY":
		return "terminals: ConPTY pseudo consoles for sessions and commands (commands keep stdout and stderr apart on pipes); each command's processes in one job object"
	}
	return "terminals: " + s.Mechanism + " for sessions; commands on pipes"
}
