package app

import (
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/consolidated"
	"toolhost/internal/git"
	"toolhost/internal/terminal"
)

// buildTool builds build_and_version_control on the terminal engine (call terminalTool first):
// tasks, tests and checkers run there, with its yield, handles, tree kill and rules. git runs
// with the same secrets scrubbed from its environment as terminals, since hooks run in it. A
// machine without git still gets tasks, tests and diagnostics; the git operations say git is
// missing.
func (a *App) buildTool() *consolidated.Tool {
	scrub := a.scrubEnv()
	runner, err := git.NewRunner(git.Config{Scrub: func(name string) bool { return terminal.Scrubbed(name, scrub) }})
	if err != nil {
		a.Logger.Warn("git operations unavailable", "err", err)
	}
	a.git = runner
	return consolidated.BuildTool(consolidated.BuildConfig{
		Git: runner, Guard: a.Guard, Terminal: a.terminal.mgr, DefaultYield: a.Config.Terminal.Yield.Duration,
	})
}

// buildSetup serves the working directory's git context as a resource when the tool is enabled.
func (a *App) buildSetup(s *mcp.Server) {
	if a.git != nil && slices.Contains(a.Registry.Names(), "build_and_version_control") {
		consolidated.AddGitResource(s, a.git, a.Workdir)
	}
}
