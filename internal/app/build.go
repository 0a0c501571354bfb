package app

import (
	"toolhost/consolidated"
	"toolhost/internal/git"
	"toolhost/internal/terminal"
)

// buildTool builds build_and_version_control on the terminal engine that terminal_operations
// serves: tasks, tests and checkers run there, with its yield, handles, tree kill and rules. git
// runs with the same secrets scrubbed from its environment as terminals, since hooks run in it. A
// machine without git still gets tasks, tests and diagnostics; the git operations say git is
// missing.
func (a *App) buildTool(terminals *terminal.Manager) *consolidated.Tool {
	scrub := a.scrubEnv()
	runner, err := git.NewRunner(git.Config{Scrub: func(name string) bool { return terminal.Scrubbed(name, scrub) }})
	if err != nil {
		a.Logger.Warn("git operations unavailable", "err", err)
	}
	return consolidated.BuildTool(consolidated.BuildConfig{
		Git: runner, Guard: a.Guard, Terminal: terminals, Workdir: a.Workdir, DefaultYield: a.Config.Terminal.Yield.Duration,
	})
}
