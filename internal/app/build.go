package app

import (
	"toolhost/consolidated"
	"toolhost/internal/git"
	"toolhost/internal/terminal"
)

// buildTool builds build_and_version_control on the terminal engine that terminal_operations
// serves: tasks, tests and checkers run there, with its yield, handles, tree kill and rules. git
// starts from the gate's environment and runs under the policy the gate gives a terminal
// command of the calling conversation, since hooks, core.fsmonitor, filters and textconv run
// in it and a terminal can plant them. A machine without git still gets tasks, tests and
// diagnostics; the git operations say git is missing.
func (a *App) buildTool(terminals *terminal.Manager) *consolidated.Tool {
	runner, err := git.NewRunner(git.Config{Env: a.Gate.Environ()})
	if err != nil {
		a.Logger.Warn("git operations unavailable", "err", err)
	}
	return consolidated.BuildTool(consolidated.BuildConfig{
		Git: runner, Guard: a.Guard, Terminal: terminals, Workdir: a.Workdir, DefaultYield: a.Config.Terminal.Yield.Duration,
		Gate: a.Gate,
	})
}
