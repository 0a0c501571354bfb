package app

import (
	"toolhost/internal/terminal"
)

// terminalManager starts the terminal engine from the [terminal] configuration and the store
// (session metadata and history tails survive a restart), every command and session passing
// the app's gate (rules, sandbox, environment). terminal_operations serves it and shuts it
// down on Close.
func (a *App) terminalManager() (*terminal.Manager, error) {
	tc := a.Config.Terminal
	g, err := a.openGate()
	if err != nil {
		return nil, err
	}
	a.Gate = g
	return terminal.NewManager(terminal.Config{
		Shell:                      tc.Shell,
		MaxSessionsPerConversation: tc.MaxSessionsPerConversation,
		MaxSessions:                tc.MaxSessions,
		IdleTimeout:                tc.IdleTimeout.Duration,
		HistoryBytes:               tc.HistoryBytes,
		DefaultYield:               tc.Yield.Duration,
		DefaultTimeout:             tc.DefaultTimeout.Duration,
		MaxTimeout:                 tc.MaxTimeout.Duration,
		Store:                      a.Store,
		Gate:                       g,
		CleanupAfter:               a.Settled(),
	})
}
