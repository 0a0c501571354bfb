package terminal

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"toolhost/internal/secret"
	"toolhost/store"
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
	// st, when set (a terminal host: persistCommands), keeps the log in the store too, so
	// that a host that crashed leaves it to the next; loaded holds the conversations read
	// back from it, toSave and toDrop what the persister's next write adds and removes.
	st             *store.Store
	loaded         map[string]bool
	toSave, toDrop map[string][]CommandRecord
}

func commandsPath(conv string) store.Path {
	return store.Path{store.BucketConversations, conv, "commands"}
}

// commandKey orders a conversation's stored records by start.
func commandKey(r CommandRecord) string {
	return fmt.Sprintf("%020d-%s", r.Started.UnixNano(), r.Session)
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
	var dropped []CommandRecord
	if len(recs) > MaxCommandRecords {
		dropped = slices.Clone(recs[:len(recs)-MaxCommandRecords])
		recs = slices.Delete(recs, 0, len(recs)-MaxCommandRecords)
	}
	l.byID[conv] = recs
	if l.st != nil {
		if l.toSave == nil {
			l.toSave, l.toDrop = map[string][]CommandRecord{}, map[string][]CommandRecord{}
		}
		l.toSave[conv] = append(l.toSave[conv], r)
		l.toDrop[conv] = append(l.toDrop[conv], dropped...)
	}
}

// unsaved hands the persister what the store does not hold yet, and what it should lose.
func (l *commandLog) unsaved() (save, drop map[string][]CommandRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	save, drop = l.toSave, l.toDrop
	l.toSave, l.toDrop = nil, nil
	return save, drop
}

// putCommands writes finished commands to the store and deletes the dropped ones.
func putCommands(tx *store.Tx, save, drop map[string][]CommandRecord) error {
	for conv, recs := range drop {
		for _, r := range recs {
			if err := tx.Delete(commandsPath(conv), commandKey(r)); err != nil {
				return err
			}
		}
	}
	for conv, recs := range save {
		for _, r := range recs {
			if err := tx.PutJSON(commandsPath(conv), commandKey(r), r); err != nil {
				return err
			}
		}
	}
	return nil
}

// load reads conv's stored log back once, under what this process has logged since.
func (l *commandLog) load(conv string) {
	l.mu.Lock()
	if l.st == nil || l.loaded[conv] {
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	var stored []CommandRecord
	ctx, cancel := context.WithTimeout(context.Background(), storeReadTimeout)
	defer cancel()
	err := l.st.View(ctx, func(tx *store.Tx) error {
		return tx.ForEach(commandsPath(conv), func(_ string, val []byte) error {
			var r CommandRecord
			if json.Unmarshal(val, &r) == nil {
				stored = append(stored, r)
			}
			return nil
		})
	})
	if err != nil {
		return // tried again by the next reader
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.loaded == nil {
		l.loaded = map[string]bool{}
	}
	if l.loaded[conv] {
		return
	}
	l.loaded[conv] = true
	if l.byID == nil {
		l.byID = map[string][]CommandRecord{}
	}
	seen := map[string]bool{}
	for _, r := range stored {
		seen[commandKey(r)] = true
	}
	for _, r := range l.byID[conv] {
		if !seen[commandKey(r)] {
			stored = append(stored, r)
		}
	}
	if len(stored) > MaxCommandRecords {
		stored = stored[len(stored)-MaxCommandRecords:]
	}
	l.byID[conv] = stored
}

// Commands returns the conversation's finished commands, oldest first: every run_command of
// this server process and every command typed into its sessions that the shell reported (in a
// terminal host, those of the hosts before it on the state directory too).
func (m *Manager) Commands(conv string) []CommandRecord {
	if h := m.remoteNow(); h != nil {
		return h.commands(conv)
	}
	m.commands.load(conv)
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
