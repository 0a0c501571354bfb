package terminal

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"toolhost/internal/owner"
	"toolhost/store"
)

// record is what the store keeps about a session: enough for list_sessions and the last
// output after the server that ran it is gone.
type record struct {
	ID           string    `json:"id"`
	Conversation string    `json:"conversation"`
	Cwd          string    `json:"cwd"`
	Shell        string    `json:"shell"`
	PID          int       `json:"pid"`
	Instance     string    `json:"instance"` // "<server pid>-<random>" of the owning manager
	State        string    `json:"state"`
	Started      time.Time `json:"started"`
	Ended        time.Time `json:"ended,omitzero"`
	LastCommand  string    `json:"last_command,omitempty"`
	ExitCode     *int      `json:"exit_code,omitempty"`
	Cols         int       `json:"cols"`
	Rows         int       `json:"rows"`
	TailStart    int64     `json:"tail_start"` // log offset of Tail's first byte
	Tail         string    `json:"tail"`
	// Recovered: the owner died with the session running, and Tail was taken from the
	// recording (recover.go).
	Recovered bool `json:"recovered,omitempty"`
	// Kind is "command" for a run_command of a terminal host ("" is a session).
	Kind string `json:"kind,omitempty"`
	// OutputFile is where a terminal host's command writes its output as it comes (read
	// when the host died with it running).
	OutputFile string `json:"output_file,omitempty"`
}

func (r record) info(instance string) Info {
	kind := r.Kind
	if kind == "" {
		kind = "session"
	}
	inf := Info{ID: r.ID, Conversation: r.Conversation, Kind: kind, Cwd: r.Cwd, Shell: r.Shell,
		PID: r.PID, State: StateEnded, Started: r.Started, Ended: r.Ended, LastCommand: r.LastCommand,
		ExitCode: r.ExitCode, Cols: r.Cols, Rows: r.Rows, ExitCodes: strings.HasSuffix(r.Shell, "bash")}
	if (r.State == StateRunning || r.State == StateStarting) && r.Instance != instance && instanceAlive(r.Instance) {
		inf.State = StateRunning + " (another toolhost process)"
	}
	if !r.Ended.IsZero() {
		inf.IdleSeconds = int64(time.Since(r.Ended).Seconds())
	}
	return inf
}

// instanceAlive says whether the manager instance ("OWNER-RANDOM", see NewManager) still runs:
// a killed server that its parent has not reaped yet (a zombie) does not. Records of older
// versions name the pid alone.
func instanceAlive(instance string) bool {
	o, _, _ := strings.Cut(instance, "-")
	id, ok := owner.Parse(o)
	if !ok {
		pid, err := strconv.Atoi(o)
		if err != nil || pid <= 0 {
			return false
		}
		id = owner.ID{PID: pid}
	}
	return owner.Alive(id)
}

// storeReadTimeout bounds store reads on the path of a tool call (the store retries a busy
// lock for up to its LockTimeout otherwise).
const storeReadTimeout = 3 * time.Second

func terminalsPath(conv string) store.Path {
	return store.Path{store.BucketConversations, conv, "terminals"}
}

// persister writes session records off the output path: command completions only mark a
// session dirty, and a background loop writes dirty sessions at most once a second. A terminal
// host also writes, in the same transaction, its commands (run_command) still running at that
// moment (their output goes to a file of their own as it comes: job.openOutput) and its log of
// finished commands, so that a crash of the host loses none of them: the next reader sees the
// owner dead and reports them ended with what they printed (recovered). The host writes that
// little because every write it makes costs the servers sharing the store a reopen of the
// file (store/handle.go).
type persister struct {
	m     *Manager
	st    *store.Store
	mu    sync.Mutex
	dirty map[persisted]bool
	// saving holds the records of the write in flight: until it commits they are in neither
	// dirty nor the store, and load must still find them (a session closed a moment ago).
	saving map[persisted]bool
	// gone holds commands forgotten since the last write, whose records go with them.
	gone map[key]bool
}

// persisted is what the persister writes: a session, or a command of a terminal host.
type persisted interface {
	record() record
	where() key
}

func (s *session) where() key { return key{s.conv, s.id} }
func (j *job) where() key     { return key{j.conv, j.id} }

func newPersister(m *Manager) *persister {
	return &persister{m: m, st: m.cfg.Store, dirty: map[persisted]bool{}, saving: map[persisted]bool{}, gone: map[key]bool{}}
}

// pending returns the record of a session that is waiting to be written, if any.
func (p *persister) pending(conv, id string) (record, bool) {
	p.mu.Lock()
	var found persisted
	for _, set := range []map[persisted]bool{p.dirty, p.saving} {
		for s := range set {
			if s.where() == (key{conv, id}) {
				found = s
			}
		}
	}
	p.mu.Unlock()
	if found == nil {
		return record{}, false
	}
	return found.record(), true
}

// persistLater marks s for the next background write; safe to call with s.mu held.
func (m *Manager) persistLater(s persisted) {
	if m.persist == nil || m.persist.st == nil {
		return
	}
	if _, ok := s.(*job); ok && !m.cfg.persistCommands {
		return
	}
	m.persist.mu.Lock()
	m.persist.dirty[s] = true
	m.persist.mu.Unlock()
}

// forgetCommand drops the record of command j, which the manager forgot (by count or idle
// time), at the next write.
func (m *Manager) forgetCommand(j *job) {
	if m.persist == nil || m.persist.st == nil || !m.cfg.persistCommands {
		return
	}
	m.persist.mu.Lock()
	delete(m.persist.dirty, j)
	if j.written.Load() {
		m.persist.gone[j.where()] = true
	}
	m.persist.mu.Unlock()
	go j.removeOutput() // the caller may hold j.mu
}

func (p *persister) loop() {
	defer p.m.bg.Done()
	if p.st == nil {
		<-p.m.stop
		return
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.m.stop:
			return
		case <-t.C:
		}
		p.flush()
	}
}

// flush writes what changed since the last write in one transaction: dirty sessions, a host's
// commands still running (or ended since they were written) and finished ones, and drops the
// records of forgotten commands.
func (p *persister) flush() {
	p.mu.Lock()
	var ss []persisted
	for s := range p.dirty {
		if j, ok := s.(*job); ok && !j.written.Load() && !j.isRunning() {
			continue // ended before any write: its caller had its whole result
		}
		ss = append(ss, s)
		p.saving[s] = true
	}
	clear(p.dirty)
	gone := p.gone
	p.gone = map[key]bool{}
	p.mu.Unlock()
	cmds, dropped := p.m.commands.unsaved()
	defer func() {
		p.mu.Lock()
		clear(p.saving)
		p.mu.Unlock()
	}()
	if len(ss)+len(gone)+len(cmds)+len(dropped) == 0 {
		return
	}
	recs := make([]record, 0, len(ss))
	for _, s := range ss {
		recs = append(recs, s.record())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	err := p.st.Update(ctx, func(tx *store.Tx) error {
		for k := range gone {
			if err := tx.Delete(terminalsPath(k.conv), k.id); err != nil {
				return err
			}
		}
		for _, r := range recs {
			if err := tx.PutJSON(terminalsPath(r.Conversation), r.ID, r); err != nil {
				return err
			}
		}
		return putCommands(tx, cmds, dropped)
	})
	if err != nil {
		slog.Warn("terminal: persisting session records failed", "err", err)
		return
	}
	for _, s := range ss {
		if j, ok := s.(*job); ok {
			j.written.Store(true)
		}
	}
}

func (s *session) record() record {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := record{ID: s.id, Conversation: s.conv, Cwd: s.cwd, Shell: s.shell, PID: s.pid,
		Instance: s.m.instance, State: s.state, Started: s.started, Ended: s.ended,
		LastCommand: s.lastCommand, ExitCode: s.exitLocked(), Cols: s.cols, Rows: s.rows}
	from := max(s.log.start(), s.log.end()-tailBytes)
	data, from := s.log.read(from, tailBytes)
	r.TailStart, r.Tail = from, strings.ToValidUTF8(string(data), "")
	return r
}

func (p *persister) saveAll(ctx context.Context, ss []persisted) error {
	if p.st == nil || len(ss) == 0 {
		return nil
	}
	recs := make([]record, 0, len(ss))
	for _, s := range ss {
		recs = append(recs, s.record())
	}
	return p.st.Update(ctx, func(tx *store.Tx) error {
		for _, r := range recs {
			if err := tx.PutJSON(terminalsPath(r.Conversation), r.ID, r); err != nil {
				return err
			}
		}
		return nil
	})
}

func (p *persister) load(ctx context.Context, conv, id string) (record, bool) {
	if p.st == nil {
		return record{}, false
	}
	if r, ok := p.pending(conv, id); ok {
		return r, true
	}
	var r record
	var ok bool
	ctx, cancel := context.WithTimeout(ctx, storeReadTimeout)
	defer cancel()
	err := p.st.View(ctx, func(tx *store.Tx) error {
		var err error
		ok, err = tx.GetJSON(terminalsPath(conv), id, &r)
		return err
	})
	if err != nil {
		slog.Warn("terminal: reading session record failed", "session", id, "err", err)
		return record{}, false
	}
	if ok {
		if rr, changed := p.recovered(r); changed {
			r = rr
			p.saveRecovered([]record{r})
		}
	}
	return r, ok
}

func (p *persister) list(ctx context.Context, conv string) ([]record, error) {
	if p.st == nil {
		return nil, nil
	}
	var out []record
	ctx, cancel := context.WithTimeout(ctx, storeReadTimeout)
	defer cancel()
	err := p.st.View(ctx, func(tx *store.Tx) error {
		return tx.ForEach(terminalsPath(conv), func(_ string, val []byte) error {
			var r record
			if err := jsonUnmarshal(val, &r); err != nil {
				return nil // skip a record this version cannot read
			}
			out = append(out, r)
			return nil
		})
	})
	var changed []record
	for i := range out {
		if r, ok := p.recovered(out[i]); ok {
			out[i] = r
			changed = append(changed, r)
		}
	}
	p.saveRecovered(changed)
	// Sessions waiting to be written are newer than what the store holds.
	p.mu.Lock()
	var waiting []persisted
	for _, set := range []map[persisted]bool{p.dirty, p.saving} {
		for s := range set {
			if s.where().conv == conv {
				waiting = append(waiting, s)
			}
		}
	}
	p.mu.Unlock()
	for _, s := range waiting {
		r := s.record()
		replaced := false
		for i := range out {
			if out[i].ID == r.ID {
				out[i], replaced = r, true
			}
		}
		if !replaced {
			out = append(out, r)
		}
	}
	return out, err
}

func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
