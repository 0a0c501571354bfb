package app

import "toolhost/internal/terminal"

// checkTerminals says what terminal sessions and commands run on here: a PTY, a Windows
// pseudo console (ConPTY), or pipes alone on a Windows too old for pseudo consoles, where
// interactive sessions are refused.
func (a *App) checkTerminals() DoctorCheck {
	s := terminal.PlatformSupport()
	c := DoctorCheck{Name: "terminal", Detail: s.Summary(), OK: s.Problem == ""}
	if !c.OK {
		c.Fix = "update to Windows 10 version 1809 or later for pseudo consoles; until then use run_command"
	}
	return c
}

// logTerminals says at start what checkTerminals says, as a warning when something is missing.
func (a *App) logTerminals() {
	if c := a.checkTerminals(); c.OK {
		a.Logger.Info(c.Detail)
	} else {
		a.Logger.Warn(c.Detail)
	}
}
