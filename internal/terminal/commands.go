package terminal

import (
	"slices"
	"sync"
	"time"

	"toolhost/internal/secret"
)

// MaxCommandRecords is how many finished commands the log keeps per conversation (the oldest
// go first).
const MaxCommandRecords = 500

// A CommandRecord is one finished command: a run_command, or a line typed into a session
// whose shell reports statuses (bash with prompt markers).
type CommandRecord struct {
	// Session is the session or one-shot command id it ran in.
	Session string `json:"session"`
	Command string `json:"command"`
	// Cwd is where a run_command ran, or the directory of a session's shell when the
	// command started.
	Cwd string `json:"cwd,omitempty"`
	// ExitCode is the status (128+signal when killed by a signal); -1 when the shell did
	// not tell.
	ExitCode int           `json:"exit_code"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration"`
	// OutputFrom and OutputTo bound the command's output in its session's (or command's)
	// log, as History offsets: a run_command owns its whole log, a session's command the
	// bytes between its start and end markers.
	OutputFrom int64 `json:"output_from"`
	OutputTo   int64 `json:"output_to"`
}

// commandLog keeps recent CommandRecords per conversation. Its own lock, so that recording
// from a session's output loop never waits for the manager's.
type commandLog struct {
	mu   sync.Mutex
	byID map[string][]CommandRecord
}

func (l *commandLog) add(conv string, r CommandRecord) {
	// Shown in resources and the console: masked as every shown value is.
	r.Command = secret.Text(r.Command)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byID == nil {
		l.byID = map[string][]CommandRecord{}
	}
	recs := append(l.byID[conv], r)
	if len(recs) > MaxCommandRecords {
		recs = slices.Delete(recs, 0, len(recs)-MaxCommandRecords)
	}
	l.byID[conv] = recs
}

// Commands returns the conversation's finished commands, oldest first: every run_command of
// this server process and every command typed into its sessions that the shell reported.
func (m *Manager) Commands(conv string) []CommandRecord {
	if h := m.remoteNow(); h != nil {
		return h.commands(conv)
	}
	m.commands.mu.Lock()
	defer m.commands.mu.Unlock()
	return slices.Clone(m.commands.byID[conv])
}

// LastCommand returns the conversation's most recently finished command; ok is false when
// none has finished in this server process.
func (m *Manager) LastCommand(conv string) (rec CommandRecord, ok bool) {
	recs := m.Commands(conv) // from the terminal host when sessions live there
	if len(recs) == 0 {
		return CommandRecord{}, false
	}
	return recs[len(recs)-1], true
}
