package terminal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hinshun/vt10x"

	"toolhost/authz/cmdrules"
	"toolhost/internal/gate"
	"toolhost/internal/lazyregexp"
	"toolhost/internal/owner"
)

// Manager owns every session and one-shot command of a toolhost process.
type Manager struct {
	cfg      Config
	instance string

	// setupMu guards what setup prepares for the first session or command: the shell, the
	// signal prefix and the directory of the shell rc file ("" until setup succeeded).
	setupMu sync.Mutex
	shell   string
	bash    bool
	// sigPrefix restores default signal dispositions in children (see defaultSignalPrefix).
	sigPrefix []string
	rcDir     string

	mu       sync.Mutex
	sessions map[key]*session
	jobs     map[key]*job
	seq      int
	closed   bool
	// seeded holds the conversations whose recorded commands seq has been moved past
	// (persistCommands: a new terminal host must not reuse the ids of a crashed one's).
	seeded map[string]bool

	persist *persister
	stop    chan struct{}
	bg      sync.WaitGroup

	// onUpdate is Config.OnUpdate, replaceable by SetOnUpdate once the manager runs.
	onUpdate atomic.Pointer[func(conv, id string)]
	// commands is the log of finished commands (Commands).
	commands commandLog
	// host, when set, is the terminal host that keeps the sessions and commands (Config.Host).
	host *hostClient
}

// remoteNow is remote for the methods that take no context.
func (m *Manager) remoteNow() *hostClient {
	if m.host == nil {
		return nil
	}
	ctx, cancel := bg()
	defer cancel()
	return m.remote(ctx)
}

type key struct{ conv, id string }

var (
	idPattern    = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	jobIDPattern = lazyregexp.New(`^cmd[0-9]+$`)
)

// SetOnUpdate replaces Config.OnUpdate: f is called, on the same terms, for changes from now on
// (nil stops the calls). It lets the layer that serves the sessions as resources subscribe to a
// manager that was built, and may be shared, before that layer existed.
func (m *Manager) SetOnUpdate(f func(conv, id string)) {
	if f == nil {
		m.onUpdate.Store(nil)
		return
	}
	m.onUpdate.Store(&f)
}

// NewManager starts the idle reaper and the persister. The shell and its rc file are prepared
// by the first session or command (setup): a server that runs none does not pay for them.
func NewManager(cfg Config) (*Manager, error) {
	cfg = cfg.withDefaults()
	m := &Manager{cfg: cfg, sessions: map[key]*session{}, jobs: map[key]*job{}, stop: make(chan struct{})}
	if cfg.OnUpdate != nil {
		m.onUpdate.Store(&cfg.OnUpdate)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	// The owner ID (pid, start time, boot) names this process beyond pid reuse; the random part
	// tells two managers of one process apart.
	m.instance = owner.Self().String() + "-" + hex.EncodeToString(rnd[:])
	if cfg.Host != nil {
		m.host = newHostClient(m, *cfg.Host)
	}
	if cfg.persistCommands {
		m.commands.st = cfg.Store
	}
	m.persist = newPersister(m)
	m.bg.Add(3)
	go m.idleLoop()
	go m.persist.loop()
	go func() {
		defer m.bg.Done()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-m.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		// Cleanup of what dead toolhost processes left runs here, off the start: listing a
		// busy temp directory and /proc costs more than everything else NewManager does.
		if cfg.CleanupAfter != nil {
			select {
			case <-cfg.CleanupAfter:
			case <-ctx.Done():
				return
			}
		}
		if n := sweepTermDirs(""); n > 0 {
			slog.Info("terminal: removed temporary directories of toolhost processes that are gone", "count", n)
		}
		sweepOrphans(ctx, m.instance, cfg.CloseGrace)
	}()
	return m, nil
}

// setup finds the shell and the signal prefix and writes the shell rc file, once; a failure
// (a full temp dir) is returned and tried again by the next session or command.
func (m *Manager) setup() error {
	m.setupMu.Lock()
	defer m.setupMu.Unlock()
	if m.rcDir != "" {
		return nil
	}
	m.shell, m.bash = resolveShell(m.cfg.Shell)
	m.sigPrefix = defaultSignalPrefix()
	dir, err := makeTermDir("")
	if err != nil {
		return fmt.Errorf("terminal rc dir: %w", err)
	}
	if err := os.WriteFile(dir+"/bashrc", []byte(bashRC), 0o600); err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("terminal rc file: %w", err)
	}
	m.rcDir = dir
	return nil
}

// command builds an exec.Cmd for name and args behind the signal-reset prefix.
func (m *Manager) command(name string, args ...string) *exec.Cmd {
	if len(m.sigPrefix) == 0 {
		return exec.Command(name, args...)
	}
	all := append(append(append([]string{}, m.sigPrefix[1:]...), name), args...)
	return exec.Command(m.sigPrefix[0], all...)
}

func (m *Manager) sessionEnv(s *session) []string {
	return childEnv(m.cfg.Gate, s.gated.Env, "xterm-256color", s.envExtra(), s.sel.marker)
}

func (m *Manager) idleLoop() {
	defer m.bg.Done()
	every := min(m.cfg.IdleTimeout/4, time.Minute)
	t := time.NewTicker(max(every, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		var idle []key
		m.mu.Lock()
		for k, s := range m.sessions {
			s.mu.Lock()
			if time.Since(s.lastUse) > m.cfg.IdleTimeout {
				idle = append(idle, k)
			}
			s.mu.Unlock()
		}
		for k, j := range m.jobs {
			j.mu.Lock()
			if !j.running && time.Since(j.lastUse) > m.cfg.IdleTimeout {
				delete(m.jobs, k)
				m.forgetCommand(j)
				go j.closePipes()
			}
			j.mu.Unlock()
		}
		m.mu.Unlock()
		for _, k := range idle {
			_ = m.Close(context.Background(), k.conv, k.id)
		}
	}
}

// Create starts a named PTY shell, or returns the existing one when it runs in the same cwd.
func (m *Manager) Create(ctx context.Context, conv string, spec SessionSpec) (Info, error) {
	if h := m.remote(ctx); h != nil {
		return h.create(ctx, conv, spec)
	}
	if err := checkSessionSpec(&spec); err != nil {
		return Info{}, err
	}
	start, err := m.cfg.Gate.Start(ctx, gate.Request{Conversation: conv, Dir: spec.Cwd})
	if err != nil {
		return Info{}, fmt.Errorf("create session: %w", err)
	}
	if err := m.setup(); err != nil {
		return Info{}, fmt.Errorf("create session: %w", err)
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return Info{}, ErrShutdown
	}
	inf, reused, restarted, err := m.reuseLocked(ctx, conv, spec)
	if reused || err != nil {
		return inf, err
	}
	if err := m.sessionLimitsLocked(conv); err != nil {
		m.mu.Unlock()
		return Info{}, err
	}
	s := m.newSessionLocked(conv, spec, start)
	m.mu.Unlock()

	if err := s.start(); err != nil {
		m.mu.Lock()
		delete(m.sessions, key{conv, s.id})
		m.mu.Unlock()
		s.rec.close()
		return Info{}, fmt.Errorf("create session %q: %w", s.id, err)
	}
	// Wait for the first prompt so input sent right away is not mistaken for startup noise.
	limit := 10 * time.Second
	if !m.bash {
		limit = time.Second
	}
	t := time.NewTimer(limit)
	select {
	case <-s.ready:
	case <-t.C:
	case <-ctx.Done():
	}
	t.Stop()
	m.persistLater(s)
	inf = s.info()
	inf.Restarted = restarted
	return inf, nil
}

// checkSessionSpec checks a session's name, size and directory, and fills in the default size.
func checkSessionSpec(spec *SessionSpec) error {
	if spec.Name != "" && !idPattern.MatchString(spec.Name) {
		return fmt.Errorf("%w: session name %q must be 1-64 letters, digits, '.', '_' or '-'", ErrInvalid, spec.Name)
	}
	if jobIDPattern.MatchString(spec.Name) {
		return fmt.Errorf("%w: session name %q is reserved for run_command ids; pick another", ErrInvalid, spec.Name)
	}
	if spec.Cols == 0 {
		spec.Cols = defaultCols
	}
	if spec.Rows == 0 {
		spec.Rows = defaultRows
	}
	if spec.Cols < 2 || spec.Rows < 2 || spec.Cols > maxCols || spec.Rows > maxRows {
		return fmt.Errorf("%w: size %dx%d out of range (2x2 to %dx%d)", ErrInvalid, spec.Cols, spec.Rows, maxCols, maxRows)
	}
	if fi, err := os.Stat(spec.Cwd); err != nil || !fi.IsDir() {
		return fmt.Errorf("%w: %q", ErrBadCwd, spec.Cwd)
	}
	return nil
}

// reuseLocked finds the session a create of spec means when it already runs: the
// conversation's default shell (no name) or the session of that name, in the same directory.
// A named session in another directory (or ended) is ended, to be replaced (restarted). It is
// called with m.mu held, and returns with it held unless it returns reused or an error.
func (m *Manager) reuseLocked(ctx context.Context, conv string, spec SessionSpec) (inf Info, reused, restarted bool, err error) {
	if spec.Name == "" {
		// A create without a name means "a shell": the conversation's default one while it
		// is alive in the same directory, so a model that forgets its id gets no second shell.
		for k, old := range m.sessions {
			if k.conv != conv || !old.unnamed {
				continue
			}
			old.mu.Lock()
			same := old.cwd == spec.Cwd && old.state == StateRunning
			if same {
				old.lastUse = time.Now()
			}
			old.mu.Unlock()
			if same {
				m.mu.Unlock()
				inf := old.info()
				inf.Reused = true
				return inf, true, false, nil
			}
		}
		return Info{}, false, false, nil
	}
	old, ok := m.sessions[key{conv, spec.Name}]
	if !ok {
		return Info{}, false, false, nil
	}
	old.mu.Lock()
	same := old.cwd == spec.Cwd && (old.state == StateRunning || old.state == StateStarting)
	if same {
		old.lastUse = time.Now()
	}
	old.mu.Unlock()
	if same {
		m.mu.Unlock()
		t := time.NewTimer(10 * time.Second)
		select {
		case <-old.ready:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		inf := old.info()
		inf.Reused = true
		return inf, true, false, nil
	}
	delete(m.sessions, key{conv, spec.Name})
	m.mu.Unlock()
	old.terminate(ctx, m.cfg.CloseGrace)
	m.persistLater(old)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return Info{}, false, true, ErrShutdown
	}
	return Info{}, false, true, nil
}

// sessionLimitsLocked refuses a new session of conv over the per-conversation or the total
// limit of live sessions; m.mu is held.
func (m *Manager) sessionLimitsLocked(conv string) error {
	perConv, total := 0, 0
	var open []string
	for k, s := range m.sessions {
		s.mu.Lock()
		live := s.state == StateRunning || s.state == StateStarting
		s.mu.Unlock()
		if !live {
			continue
		}
		total++
		if k.conv == conv {
			perConv++
			open = append(open, k.id)
		}
	}
	if perConv >= m.cfg.MaxSessionsPerConversation {
		sort.Strings(open)
		return fmt.Errorf("%w: this conversation has %d of %d sessions open (%s); close one with close_session or reuse it", ErrLimit, perConv, m.cfg.MaxSessionsPerConversation, strings.Join(open, ", "))
	}
	if total >= m.cfg.MaxSessions {
		return fmt.Errorf("%w: %d of %d sessions are open across all conversations; close one with close_session", ErrLimit, total, m.cfg.MaxSessions)
	}
	return nil
}

// newSessionLocked names (spec.Name, or the next free s<N>) and registers a session of conv,
// not started yet; m.mu is held.
func (m *Manager) newSessionLocked(conv string, spec SessionSpec, start *gate.Start) *session {
	id := spec.Name
	if id == "" {
		for {
			m.seq++
			id = "s" + strconv.Itoa(m.seq)
			if _, ok := m.sessions[key{conv, id}]; !ok {
				break
			}
		}
	}
	now := time.Now()
	s := &session{
		stream: newStream(m.cfg.HistoryBytes), m: m, conv: conv, id: id, cwd: spec.Cwd,
		shell: m.shell, bash: m.bash, started: now, state: StateStarting,
		cols: spec.Cols, rows: spec.Rows, vt: vt10x.New(vt10x.WithSize(spec.Cols, spec.Rows)),
		ready: make(chan struct{}), sentDone: -1, cAtSend: -1, readerDone: make(chan struct{}), waitDone: make(chan struct{}),
		updCh: make(chan struct{}, 1), stopUpd: make(chan struct{}), extra: spec.Env, gated: start,
		unnamed: spec.Name == "",
	}
	s.view = newLogView(s.log, s.onMarker)
	s.rec = newRecorder(m.cfg.RecordDir, conv, id, now, spec.Cols, spec.Rows, m.shell, m.cfg.RecordSegmentBytes, m.cfg.RecordSegments)
	s.sel.marker = markerEnv + "=" + m.instance + "/" + conv + "/" + id
	m.sessions[key{conv, id}] = s
	return s
}

func (s *session) envExtra() map[string]string { return s.extra }

// lookup finds a live session or command.
func (m *Manager) lookup(conv, id string) (*session, *job) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.sessions[key{conv, id}]; ok {
		return s, nil
	}
	if j, ok := m.jobs[key{conv, id}]; ok {
		return nil, j
	}
	return nil, nil
}

func noSession(conv, id string) error {
	return fmt.Errorf("%w (id %q)", ErrNoSession, id)
}

// Send types into a session and, when in.Wait.WaitMS is set, waits for the result: the
// wait ends early when the command finishes (bash), wait_for matches, or output settles.
func (m *Manager) Send(ctx context.Context, conv, id string, in Input) (Output, error) {
	if in.User {
		// First: wherever the session lives, its lines are checked with this context.
		ctx = gate.WithUser(ctx)
	}
	if h := m.remote(ctx); h != nil {
		return h.send(ctx, conv, id, in)
	}
	s, j := m.lookup(conv, id)
	if j != nil {
		return Output{}, fmt.Errorf("%w: %q is a run_command job, which has no input; use get_output", ErrInvalid, id)
	}
	if s == nil {
		if _, ok := m.persist.load(ctx, conv, id); ok {
			return Output{}, fmt.Errorf("session %q: %w", id, ErrEnded)
		}
		return Output{}, noSession(conv, id)
	}
	doneBefore, err := s.send(ctx, in)
	if err != nil || in.User {
		return Output{ID: id}, err
	}
	return s.output(ctx, in.Wait, doneBefore)
}

// Output returns new output of a session or command, waiting per q. For a session that
// ended in an earlier server process it serves the stored history tail.
func (m *Manager) Output(ctx context.Context, conv, id string, q OutputQuery) (Output, error) {
	if h := m.remote(ctx); h != nil {
		return h.output(ctx, conv, id, q)
	}
	s, j := m.lookup(conv, id)
	switch {
	case s != nil:
		return s.output(ctx, q, -1)
	case j != nil:
		return j.output(ctx, q)
	}
	rec, ok := m.persist.load(ctx, conv, id)
	if !ok {
		return Output{}, noSession(conv, id)
	}
	st := stream{log: newRing(len(rec.Tail) + 1024), notify: make(chan struct{})}
	st.log.total = rec.TailStart
	st.log.write([]byte(rec.Tail))
	q.WaitMS = 0
	out, err := st.wait(ctx, q, 0, 0, func() waitState { return waitState{exited: true} })
	out.ID, out.Exited, out.ExitCode = id, true, rec.ExitCode
	return out, err
}

// Screen renders the visible screen of a session (for full-screen programs).
func (m *Manager) Screen(conv, id string) (string, error) {
	if h := m.remoteNow(); h != nil {
		return h.screen(conv, id)
	}
	s, j := m.lookup(conv, id)
	if j != nil {
		return "", fmt.Errorf("%w: %q is a run_command job without a screen; use get_output", ErrInvalid, id)
	}
	if s == nil {
		if rec, ok := m.persist.load(context.Background(), conv, id); ok {
			return lastLines(rec.Tail, defaultRows), nil
		}
		return "", noSession(conv, id)
	}
	return s.screen(), nil
}

// HistoryPage is a page of a session's retained history.
type HistoryPage struct {
	Text string `json:"text"`
	// Offset is where Text starts (the oldest retained offset when the request was older);
	// Start and End bound what is retained: the Start oldest bytes were dropped.
	Offset  int64 `json:"offset"`
	Start   int64 `json:"start"`
	End     int64 `json:"end"`
	HasMore bool  `json:"has_more"`
}

// History pages the retained log from offset (negative: counted back from the end).
func (m *Manager) History(conv, id string, offset, length int64) (HistoryPage, error) {
	if h := m.remoteNow(); h != nil {
		return h.history(conv, id, offset, length)
	}
	if length <= 0 {
		length = 64 << 10
	}
	length = min(length, maxMaxBytes)
	var st *stream
	s, j := m.lookup(conv, id)
	switch {
	case s != nil:
		st = &s.stream
	case j != nil:
		st = &j.stream
	default:
		rec, ok := m.persist.load(context.Background(), conv, id)
		if !ok {
			return HistoryPage{}, noSession(conv, id)
		}
		st = &stream{log: newRing(len(rec.Tail) + 1024)}
		st.log.total = rec.TailStart
		st.log.write([]byte(rec.Tail))
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if offset < 0 {
		offset = max(st.log.end()+offset, 0)
	}
	text, from, next, _, _ := st.readLocked(offset, int(length))
	return HistoryPage{Text: text, Offset: from, Start: st.log.start(), End: st.log.end(), HasMore: next < st.log.end()}, nil
}

// Resize changes a session's PTY size; the foreground program gets SIGWINCH.
func (m *Manager) Resize(conv, id string, cols, rows int) error {
	if h := m.remoteNow(); h != nil {
		return h.resize(conv, id, cols, rows)
	}
	if cols < 2 || rows < 2 || cols > maxCols || rows > maxRows {
		return fmt.Errorf("%w: size %dx%d out of range (2x2 to %dx%d)", ErrInvalid, cols, rows, maxCols, maxRows)
	}
	s, _ := m.lookup(conv, id)
	if s == nil {
		return noSession(conv, id)
	}
	return s.resize(cols, rows)
}

// List shows the conversation's sessions and commands, live ones first, then sessions that
// ended earlier (known from the store).
func (m *Manager) List(ctx context.Context, conv string) ([]Info, error) {
	if h := m.remote(ctx); h != nil {
		return h.list(ctx, conv)
	}
	var out []Info
	seen := map[string]bool{}
	m.mu.Lock()
	var ss []*session
	var js []*job
	for k, s := range m.sessions {
		if k.conv == conv {
			ss = append(ss, s)
		}
	}
	for k, j := range m.jobs {
		if k.conv == conv {
			js = append(js, j)
		}
	}
	m.mu.Unlock()
	for _, s := range ss {
		out = append(out, s.info())
		seen[s.id] = true
	}
	for _, j := range js {
		out = append(out, j.info())
		seen[j.id] = true
	}
	recs, err := m.persist.list(ctx, conv)
	for _, r := range recs {
		if seen[r.ID] {
			continue
		}
		out = append(out, r.info(m.instance))
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Started.Equal(out[b].Started) {
			return out[a].ID < out[b].ID
		}
		return out[a].Started.Before(out[b].Started)
	})
	return out, err
}

// Sessions returns the conversation's sessions of this process (not one-shot commands, not
// records of other processes), without touching the store: cheap enough to ask after every
// call.
func (m *Manager) Sessions(conv string) []Info {
	if h := m.remoteNow(); h != nil {
		return h.sessions(conv)
	}
	m.mu.Lock()
	var ss []*session
	for k, s := range m.sessions {
		if k.conv == conv {
			ss = append(ss, s)
		}
	}
	m.mu.Unlock()
	out := make([]Info, 0, len(ss))
	for _, s := range ss {
		out = append(out, s.info())
	}
	return out
}

// Close ends a session (every process of it) or kills a command's process tree (including
// what it left running in the background); either stays readable.
func (m *Manager) Close(ctx context.Context, conv, id string) error {
	return m.CloseWith(ctx, conv, id, 0)
}

// Signals close_session accepts, by name.
var Signals = map[string]syscall.Signal{
	"HUP": sigHUP, "INT": sigINT, "QUIT": sigQUIT, "TERM": sigTERM,
	"KILL": sigKILL, "USR1": sigUSR1, "USR2": sigUSR2,
}

// CloseWith is Close starting with signal sig instead of SIGHUP and SIGTERM (zero); whatever
// still runs after the grace time is killed.
func (m *Manager) CloseWith(ctx context.Context, conv, id string, sig syscall.Signal) error {
	if h := m.remote(ctx); h != nil {
		return h.closeWith(ctx, conv, id, sig)
	}
	m.mu.Lock()
	s := m.sessions[key{conv, id}]
	j := m.jobs[key{conv, id}]
	if s != nil {
		delete(m.sessions, key{conv, id})
	}
	// A killed command stays listed and readable like a closed session; finished commands
	// are forgotten by count and idle time.
	m.mu.Unlock()
	switch {
	case s != nil:
		s.terminateWith(ctx, sig, m.cfg.CloseGrace)
		m.persistLater(s)
		return nil
	case j != nil:
		j.killWith(ctx, sig, m.cfg.CloseGrace)
		return nil
	}
	if _, ok := m.persist.load(ctx, conv, id); ok {
		return nil // already ended
	}
	return noSession(conv, id)
}

// Shutdown closes every session and kills every command, recording sessions as ended in the
// store so list_sessions after a restart shows them with their last output.
func (m *Manager) Shutdown(ctx context.Context) error {
	if m.host != nil {
		// The host keeps the sessions and commands for the next server; a manager that
		// fell back to its own (modeLocal) ends them below.
		m.host.shutdown()
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	ss := make([]*session, 0, len(m.sessions))
	for _, s := range m.sessions {
		ss = append(ss, s)
	}
	js := make([]*job, 0, len(m.jobs))
	for _, j := range m.jobs {
		js = append(js, j)
	}
	m.sessions = map[key]*session{}
	m.jobs = map[key]*job{}
	m.mu.Unlock()
	close(m.stop)
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Add(1)
		go func() { defer wg.Done(); s.terminate(ctx, m.cfg.CloseGrace) }()
	}
	for _, j := range js {
		wg.Add(1)
		go func() { defer wg.Done(); j.kill(ctx, m.cfg.CloseGrace) }()
	}
	wg.Wait()
	m.bg.Wait()
	// Sessions closed earlier and not yet written, plus every session closed now (and a
	// host's commands, which ended above).
	all := make([]persisted, 0, len(ss))
	for _, s := range ss {
		all = append(all, s)
	}
	m.persist.mu.Lock()
	for s := range m.persist.dirty {
		if !slices.Contains(all, s) {
			all = append(all, s)
		}
	}
	clear(m.persist.dirty)
	m.persist.mu.Unlock()
	err := m.persist.saveAll(ctx, all)
	if err == nil {
		for _, j := range js {
			j.removeOutput() // the record holds the output now
		}
	}
	m.setupMu.Lock()
	if m.rcDir != "" {
		os.RemoveAll(m.rcDir)
	}
	m.setupMu.Unlock()
	return err
}

// Run starts a one-shot command and waits up to the yield time. A command still running
// then is returned with Running set and keeps running; its ID works with get_output.
func (m *Manager) Run(ctx context.Context, conv string, spec RunSpec) (RunResult, error) {
	if h := m.remote(ctx); h != nil && spec.Command != "" {
		return h.run(ctx, conv, spec)
	}
	return m.runHere(ctx, conv, spec, nil)
}

// runHere runs spec in this process. start, when set, is the gate's decision already made
// (by the server whose request the terminal host serves); nil asks this manager's gate.
func (m *Manager) runHere(ctx context.Context, conv string, spec RunSpec, start *gate.Start) (RunResult, error) {
	if spec.Command == "" {
		return RunResult{}, fmt.Errorf("%w: command is empty", ErrInvalid)
	}
	timeout, yield, err := runLimits(m.cfg, spec)
	if err != nil {
		return RunResult{}, err
	}
	budget := spec.MaxBytes
	if budget <= 0 {
		budget = defaultMaxBytes
	}
	budget = min(budget, 2*tailBytes)
	if start == nil {
		if start, err = gateRun(ctx, m.cfg.Gate, conv, spec, ""); err != nil {
			return RunResult{}, err
		}
	}
	m.seedJobIDs(ctx, conv)
	id, err := m.newJobID(conv)
	if err != nil {
		return RunResult{}, err
	}
	j, err := m.startJob(conv, id, spec, timeout, start)
	if err != nil {
		return RunResult{}, err
	}
	m.mu.Lock()
	m.jobs[key{conv, id}] = j
	m.mu.Unlock()
	m.persistLater(j)
	return j.await(ctx, spec.Progress, yield, budget)
}

// runLimits are spec's timeout and yield with the defaults of cfg; a timeout over the
// maximum is an error.
func runLimits(cfg Config, spec RunSpec) (timeout, yield time.Duration, err error) {
	timeout = spec.Timeout
	if timeout <= 0 {
		timeout = cfg.DefaultTimeout
	}
	if timeout > cfg.MaxTimeout {
		return 0, 0, fmt.Errorf("%w: timeout %s exceeds the maximum %s", ErrInvalid, timeout, cfg.MaxTimeout)
	}
	yield = spec.Yield
	if yield <= 0 {
		yield = cfg.DefaultYield
	}
	return timeout, min(yield, cfg.MaxWait), nil
}

// gateRun checks spec's directory and asks g to decide its start (the command rules on its
// line, the sandbox policy, the environment); temp is the TMPDIR of the process that will start
// it ("" for this one). A refusal is returned as it is, for the caller to show.
func gateRun(ctx context.Context, g Gate, conv string, spec RunSpec, temp string) (*gate.Start, error) {
	if fi, err := os.Stat(spec.Cwd); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: %q", ErrBadCwd, spec.Cwd)
	}
	line := spec.Command
	if spec.Check != "" {
		line = spec.Check
	}
	start, err := g.Start(ctx, gate.Request{Conversation: conv, Line: line, Dir: spec.Cwd, Temp: temp})
	var refusal *cmdrules.Refusal
	if errors.As(err, &refusal) || errors.Is(err, gate.ErrIncomplete) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("run command: %w", err)
	}
	return start, nil
}

// seedJobIDs moves the id sequence past the commands the store holds for conv, once per
// conversation, where commands are recorded (persistCommands): those of a terminal host that
// crashed stay readable under their ids.
func (m *Manager) seedJobIDs(ctx context.Context, conv string) {
	if !m.cfg.persistCommands {
		return
	}
	m.mu.Lock()
	done := m.seeded[conv]
	m.mu.Unlock()
	if done {
		return
	}
	recs, err := m.persist.list(ctx, conv)
	if err != nil {
		return // tried again by the next command
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seeded == nil {
		m.seeded = map[string]bool{}
	}
	m.seeded[conv] = true
	for _, r := range recs {
		if n, err := strconv.Atoi(strings.TrimPrefix(r.ID, "cmd")); err == nil && r.Kind == "command" && n > m.seq {
			m.seq = n
		}
	}
}

// newJobID names the conversation's next command, once it may start one: at most MaxJobs
// running, and at most MaxJobs finished ones kept (the oldest forgotten first).
func (m *Manager) newJobID(conv string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", ErrShutdown
	}
	running := 0
	var finished []*job
	for k, j := range m.jobs {
		if k.conv != conv {
			continue
		}
		j.mu.Lock()
		if j.running {
			running++
		} else {
			finished = append(finished, j)
		}
		j.mu.Unlock()
	}
	if running >= m.cfg.MaxJobs {
		return "", fmt.Errorf("%w: %d commands of this conversation are still running; wait for them with get_output or stop one with close_session", ErrLimit, running)
	}
	if len(finished) >= m.cfg.MaxJobs {
		sort.Slice(finished, func(a, b int) bool { return finished[a].started.Before(finished[b].started) })
		for _, j := range finished[:len(finished)-m.cfg.MaxJobs+1] {
			delete(m.jobs, key{conv, j.id})
			m.forgetCommand(j)
			go j.closePipes()
		}
	}
	m.seq++
	return "cmd" + strconv.Itoa(m.seq), nil
}

// await waits up to yield for the command to end, passing its output to progress (when set)
// as it comes, and returns its result within budget.
func (j *job) await(ctx context.Context, progress func(string), yield time.Duration, budget int) (RunResult, error) {
	t := time.NewTimer(yield)
	defer t.Stop()
	var sent int64
wait:
	for {
		var notify chan struct{}
		if progress != nil {
			j.mu.Lock()
			notify = j.notify
			var chunk []byte
			if end := j.log.end(); end > sent {
				lo := max(sent, end-progressChunk, j.log.start())
				chunk, _ = j.log.read(lo, progressChunk)
				sent = end
			}
			j.mu.Unlock()
			if len(chunk) > 0 {
				progress(string(chunk))
			}
		}
		select {
		case <-j.done:
			break wait
		case <-t.C:
			break wait
		case <-notify: // nil without progress: never ready
			time.Sleep(20 * time.Millisecond) // coalesce chunks of a chatty command
		case <-ctx.Done():
			// A cancelled caller (MCP cancellation, an operator's cancel) takes the command
			// with it, and the answer says how it ended. A deadline only ends the wait: the
			// command keeps running under its own timeout, readable by its id.
			if errors.Is(ctx.Err(), context.Canceled) {
				j.cancel()
			}
			j.mu.Lock()
			r := j.resultLocked(budget)
			j.mu.Unlock()
			return r, ctx.Err()
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lastUse = time.Now()
	if !j.running {
		// The caller has seen everything; get_output continues from here.
		j.cursor = j.log.end()
	}
	return j.resultLocked(budget), nil
}

// Ended returns a channel closed when command id of conv has ended, or nil when there is no
// such command. A command that outlives its call stays one execution until then.
func (m *Manager) Ended(conv, id string) <-chan struct{} {
	if h := m.remoteNow(); h != nil {
		return h.ended(conv, id)
	}
	_, j := m.lookup(conv, id)
	if j == nil {
		return nil
	}
	return j.done
}

// Cancel kills command id of conv as a cancelled call (its result says so) and returns once it
// has ended.
func (m *Manager) Cancel(conv, id string) error {
	if h := m.remoteNow(); h != nil {
		return h.cancel(conv, id)
	}
	_, j := m.lookup(conv, id)
	if j == nil {
		return noSession(conv, id)
	}
	j.cancel()
	return nil
}
