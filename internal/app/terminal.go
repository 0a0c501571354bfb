package app

import (
	"strings"

	"toolhost/internal/terminal"
)

// terminalManager starts the terminal engine from the [terminal] configuration and the store
// (session metadata and history tails survive a restart), with toolhost's own secrets scrubbed
// from every child's environment, each command confined and checked by the terminal guard.
// terminal_operations serves it and shuts it down on Close.
func (a *App) terminalManager() (*terminal.Manager, error) {
	tc := a.Config.Terminal
	tg, err := a.openTerminalGuard()
	if err != nil {
		return nil, err
	}
	a.termGuard = tg
	return terminal.NewManager(terminal.Config{
		Shell:                      tc.Shell,
		MaxSessionsPerConversation: tc.MaxSessionsPerConversation,
		MaxSessions:                tc.MaxSessions,
		IdleTimeout:                tc.IdleTimeout.Duration,
		HistoryBytes:               tc.HistoryBytes,
		DefaultYield:               tc.Yield.Duration,
		DefaultTimeout:             tc.DefaultTimeout.Duration,
		MaxTimeout:                 tc.MaxTimeout.Duration,
		ScrubEnv:                   a.scrubEnv(),
		Store:                      a.Store,
		Sandbox:                    tg.policy,
		Check:                      tg.check,
		Env:                        tg.env,
		CleanupAfter:               a.Settled(),
	})
}

// scrubEnv names the variables kept out of terminals: the HTTP token and every TOOLHOST_*
// variable (the engine drops those anyway), and the API key variable a remote embedder reads.
func (a *App) scrubEnv() []string {
	vars := []string{"TOOLHOST_TOKEN", "TOOLHOST_*"}
	spec := a.Config.Memory.Embedder
	if strings.HasPrefix(spec, "openai:") || strings.HasPrefix(spec, "ollama:") {
		key := ""
		for _, opt := range strings.Split(spec, ",")[1:] {
			if k, v, ok := strings.Cut(opt, "="); ok && strings.TrimSpace(k) == "key_env" {
				key = strings.TrimSpace(v)
			}
		}
		if key == "" && strings.HasPrefix(spec, "openai:") {
			key = "OPENAI_API_KEY"
		}
		if key != "" {
			vars = append(vars, key)
		}
	}
	return vars
}
