package app

import (
	"os/exec"
	"path/filepath"

	"toolhost/internal/terminal"
)

// TerminalHostCommand returns the command that starts a terminal host on a state directory
// ([terminal] keep_sessions): the toolhost binary sets it (ServeTerminalHost is what that
// command runs). Unset, as in a test binary, sessions live in the server.
var TerminalHostCommand func(stateDir string) *exec.Cmd

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
	var host *terminal.HostOptions
	if tc.KeepSessionsOn() && TerminalHostCommand != nil {
		dir := a.StateDir
		host = &terminal.HostOptions{
			Dir:     dir,
			Command: func() *exec.Cmd { return TerminalHostCommand(dir) },
			Log:     filepath.Join(dir, terminalHostLog),
			Config:  terminal.HostConfig{Unattended: tc.KeepSessionsIdle.Duration},
			Logger:  a.Logger,
		}
	}
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
		Host:                       host,
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

// terminalHostLog is the terminal host's log in the state directory.
const terminalHostLog = "terminal-host.log"
