package app

import (
	"path/filepath"

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
	// A session's recording is terminal.DefaultRecordSegments segments.
	segBytes := tc.RecordingBytes / terminal.DefaultRecordSegments
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
		RecordDir:                  a.recordDir(),
		RecordSegmentBytes:         segBytes,
		RecordingsMaxBytes:         tc.RecordingsMaxBytes,
	})
}

// recordDir is where terminal sessions are recorded: recordings/ in the state directory, ""
// when [terminal] recording is off.
func (a *App) recordDir() string {
	if a.Config.Terminal.Recording == "off" {
		return ""
	}
	return filepath.Join(a.StateDir, recordingsDir)
}
