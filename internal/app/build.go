package app

import (
	"context"

	"toolhost/consolidated"
	"toolhost/internal/git"
	"toolhost/internal/sandbox"
	"toolhost/internal/terminal"
)

// buildTool builds build_and_version_control on the terminal engine that terminal_operations
// serves: tasks, tests and checkers run there, with its yield, handles, tree kill and rules. git
// runs with the same secrets scrubbed from its environment as terminals, and under the same
// Landlock policy (and private TMPDIR) a terminal command of the calling conversation would get,
// since hooks, core.fsmonitor, filters and textconv run in it and a terminal can plant them. A
// machine without git still gets tasks, tests and diagnostics; the git operations say git is
// missing.
func (a *App) buildTool(terminals *terminal.Manager) *consolidated.Tool {
	scrub := a.scrubEnv()
	gcfg := git.Config{Scrub: func(name string) bool { return terminal.Scrubbed(name, scrub) }}
	var policy func(context.Context, string) (*sandbox.Policy, error)
	if tg := a.termGuard; tg != nil {
		gcfg.Env = tg.env
		policy = func(ctx context.Context, conv string) (*sandbox.Policy, error) { return tg.policy(ctx, conv, "") }
	}
	runner, err := git.NewRunner(gcfg)
	if err != nil {
		a.Logger.Warn("git operations unavailable", "err", err)
	}
	return consolidated.BuildTool(consolidated.BuildConfig{
		Git: runner, Guard: a.Guard, Terminal: terminals, Workdir: a.Workdir, DefaultYield: a.Config.Terminal.Yield.Duration,
		Sandbox: policy,
	})
}
