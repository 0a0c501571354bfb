package terminal

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"toolhost/authz"
	"toolhost/internal/gate"
	"toolhost/internal/owner"
	"toolhost/store"
)

// The terminal host. A server keeps its PTY sessions and one-shot commands in a process of their
// own, per user and state directory and binary, so that they outlive the server: a client that
// restarts its stdio server, a server killed with SIGKILL, a dropped HTTP connection. The next
// server connects to the same host and finds them running, with their screens, their output and
// the conversation's read cursors.
//
// The host runs a Manager like a server's own; every decision that Manager asks its Gate for
// (the command rules, the sandbox policy, the environment) goes back to the gate of the server
// whose request it serves, so the host decides nothing. Who may connect: a process of the same
// user that is not a descendant of a toolhost server (no terminal, command or helper of one) and
// that can read the host's key from the state directory (which the sandbox hides from every
// command); see checkPeer.
//
// It stays while a server is connected, a session lives or a command is remembered, and ends
// Linger after the last of them. A conversation that no connected server has used for
// Unattended has its sessions and commands closed.

// HostConfig is what a server gives the terminal host it starts (as JSON on the host's stdin):
// the Manager settings every session and command of the host runs with.
type HostConfig struct {
	Shell                      string        `json:"shell,omitempty"`
	MaxSessionsPerConversation int           `json:"max_sessions_per_conversation,omitempty"`
	MaxSessions                int           `json:"max_sessions,omitempty"`
	MaxJobs                    int           `json:"max_jobs,omitempty"`
	IdleTimeout                time.Duration `json:"idle_timeout,omitempty"`
	HistoryBytes               int           `json:"history_bytes,omitempty"`
	DefaultYield               time.Duration `json:"default_yield,omitempty"`
	MaxWait                    time.Duration `json:"max_wait,omitempty"`
	DefaultTimeout             time.Duration `json:"default_timeout,omitempty"`
	MaxTimeout                 time.Duration `json:"max_timeout,omitempty"`
	CloseGrace                 time.Duration `json:"close_grace,omitempty"`
	Settle                     time.Duration `json:"settle,omitempty"`
	RecordDir                  string        `json:"record_dir,omitempty"`
	RecordSegmentBytes         int64         `json:"record_segment_bytes,omitempty"`
	RecordSegments             int           `json:"record_segments,omitempty"`
	RecordingsMaxBytes         int64         `json:"recordings_max_bytes,omitempty"`
	// Unattended closes the sessions and commands of a conversation that no connected server
	// has used for this long ([terminal] keep_sessions_idle; default 1 hour).
	Unattended time.Duration `json:"unattended,omitempty"`
	// Linger is how long the host stays once no server is connected and it holds nothing
	// (default 10 s).
	Linger time.Duration `json:"linger,omitempty"`
}

// HostConfigOf is the part of cfg a host runs with.
func HostConfigOf(cfg Config) HostConfig {
	return HostConfig{Shell: cfg.Shell, MaxSessionsPerConversation: cfg.MaxSessionsPerConversation,
		MaxSessions: cfg.MaxSessions, MaxJobs: cfg.MaxJobs, IdleTimeout: cfg.IdleTimeout, HistoryBytes: cfg.HistoryBytes,
		DefaultYield: cfg.DefaultYield, MaxWait: cfg.MaxWait, DefaultTimeout: cfg.DefaultTimeout, MaxTimeout: cfg.MaxTimeout,
		CloseGrace: cfg.CloseGrace, Settle: cfg.Settle, RecordDir: cfg.RecordDir, RecordSegmentBytes: cfg.RecordSegmentBytes,
		RecordSegments: cfg.RecordSegments, RecordingsMaxBytes: cfg.RecordingsMaxBytes}
}

func (h HostConfig) config() Config {
	return Config{Shell: h.Shell, MaxSessionsPerConversation: h.MaxSessionsPerConversation, MaxSessions: h.MaxSessions,
		MaxJobs: h.MaxJobs, IdleTimeout: h.IdleTimeout, HistoryBytes: h.HistoryBytes, DefaultYield: h.DefaultYield,
		MaxWait: h.MaxWait, DefaultTimeout: h.DefaultTimeout, MaxTimeout: h.MaxTimeout, CloseGrace: h.CloseGrace,
		Settle: h.Settle, RecordDir: h.RecordDir, RecordSegmentBytes: h.RecordSegmentBytes, RecordSegments: h.RecordSegments,
		RecordingsMaxBytes: h.RecordingsMaxBytes}
}

// commandOutputDir holds, in the state directory, the output of a terminal host's commands
// while they run.
const commandOutputDir = "terminal-host-output"

// Defaults of HostConfig.
const (
	DefaultUnattended = time.Hour
	DefaultLinger     = 10 * time.Second
)

// ErrHostRunning: another terminal host already serves this state directory and binary.
var ErrHostRunning = errors.New("a terminal host already runs for this state directory")

// hostPaths are the files of the host of one binary on one state directory.
type hostPaths struct{ sock, lock, key string }

func pathsFor(dir string) (hostPaths, error) {
	id, err := hostID()
	if err != nil {
		return hostPaths{}, err
	}
	base := filepath.Join(dir, "terminal-host-"+id)
	return hostPaths{sock: base + ".sock", lock: base + ".lock", key: base + ".key"}, nil
}

// host is a running terminal host.
type host struct {
	m      *Manager
	log    *slog.Logger
	cfg    HostConfig
	key    string
	hello  helloReply
	ln     net.Listener
	mu     sync.Mutex
	conns  map[*rpcPeer]*hostConn
	convs  map[string]time.Time // conversation -> when the last server that used it left
	last   time.Time            // when the host last had a connection
	closed bool
	// sock is the socket as it was listening: a host whose socket is gone (its state
	// directory removed) can be reached by no server, and ends.
	sockPath string
	sock     os.FileInfo
}

// hostConn is what the host knows of one connected server.
type hostConn struct {
	authed bool
	convs  map[string]bool
}

// ServeHost runs the terminal host of dir until it has been idle for cfg.Linger or ctx ends. It
// returns ErrHostRunning at once when another host runs for dir (and this binary).
func ServeHost(ctx context.Context, dir string, cfg HostConfig, logger *slog.Logger) error {
	if !hostSupported {
		return ErrHostUnsupported
	}
	if logger == nil {
		logger = slog.Default()
	}
	if cfg.Unattended <= 0 {
		cfg.Unattended = DefaultUnattended
	}
	if cfg.Linger <= 0 {
		cfg.Linger = DefaultLinger
	}
	paths, err := pathsFor(dir)
	if err != nil {
		return err
	}
	unlock, err := lockHost(paths.lock)
	if err != nil {
		return err
	}
	defer unlock()
	release, err := authz.MarkServer(dir, logger)
	if err != nil {
		return err
	}
	defer release()
	var rnd [32]byte
	_, _ = rand.Read(rnd[:])
	key := hex.EncodeToString(rnd[:])
	if err := writePrivate(paths.key, []byte(key)); err != nil {
		return fmt.Errorf("terminal host key: %w", err)
	}
	defer os.Remove(paths.key)
	temp, err := os.MkdirTemp("", PrivateTempPrefix+owner.Self().String()+"-")
	if err != nil {
		return fmt.Errorf("terminal host temp dir: %w", err)
	}
	defer os.RemoveAll(temp)
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		return fmt.Errorf("terminal host: open the state: %w", err)
	}
	defer st.Close()
	h := &host{log: logger, cfg: cfg, key: key, conns: map[*rpcPeer]*hostConn{}, convs: map[string]time.Time{}, last: time.Now()}
	mc := cfg.config()
	mc.Store, mc.Gate = st, hostGate{}
	mc.persistCommands = true
	mc.commandOutputDir = filepath.Join(dir, commandOutputDir)
	mc.OnUpdate = h.updated
	m, err := NewManager(mc)
	if err != nil {
		return err
	}
	h.m = m
	h.hello = helloReply{PID: os.Getpid(), Instance: m.instance, Temp: temp}
	ln, err := listenHost(paths.sock)
	if err != nil {
		_ = m.Shutdown(context.Background())
		return fmt.Errorf("terminal host: listen: %w", err)
	}
	h.ln = ln
	h.sockPath = paths.sock
	h.sock, _ = os.Stat(paths.sock)
	defer h.removeSock()
	logger.Info("terminal host started", "pid", os.Getpid(), "socket", paths.sock)
	go h.accept()
	h.watch(ctx)
	h.mu.Lock()
	h.closed = true
	conns := make([]*rpcPeer, 0, len(h.conns))
	for p := range h.conns {
		conns = append(conns, p)
	}
	h.mu.Unlock()
	_ = ln.Close()
	for _, p := range conns {
		p.close()
	}
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = m.Shutdown(sctx)
	logger.Info("terminal host ended", "pid", os.Getpid())
	return err
}

func (h *host) accept() {
	for {
		conn, err := h.ln.Accept()
		if err != nil {
			return
		}
		if err := checkPeer(conn); err != nil {
			h.log.Warn("terminal host: connection refused", "err", err)
			_ = conn.Close()
			continue
		}
		p := newRPCPeer(conn, h.handle, nil)
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			_ = conn.Close()
			return
		}
		h.conns[p] = &hostConn{convs: map[string]bool{}}
		h.mu.Unlock()
		go func() {
			p.run()
			h.left(p)
		}()
	}
}

// left forgets a connection; the conversations only it used start their unattended time.
func (h *host) left(p *rpcPeer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.conns[p]
	delete(h.conns, p)
	h.last = time.Now()
	if c == nil {
		return
	}
	for conv := range c.convs {
		if !h.usedLocked(conv) {
			h.convs[conv] = time.Now()
		}
	}
}

func (h *host) usedLocked(conv string) bool {
	for _, c := range h.conns {
		if c.convs[conv] {
			return true
		}
	}
	return false
}

// watch ends the host once it has been idle for Linger (or ctx ends), and closes what
// conversations left unattended for Unattended hold.
func (h *host) watch(ctx context.Context) {
	tick := min(h.cfg.Linger/4, h.cfg.Unattended/4, time.Second)
	t := time.NewTicker(max(tick, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		h.mu.Lock()
		var stale []string
		for conv, since := range h.convs {
			if h.usedLocked(conv) {
				delete(h.convs, conv)
				continue
			}
			if time.Since(since) > h.cfg.Unattended {
				stale = append(stale, conv)
				delete(h.convs, conv)
			}
		}
		idle := len(h.conns) == 0 && time.Since(h.last) > h.cfg.Linger
		h.mu.Unlock()
		for _, conv := range stale {
			h.log.Info("terminal host: closing the sessions of a conversation no server resumed", "conversation", conv)
			h.m.closeConversation(context.Background(), conv)
		}
		if idle && !h.m.holding() {
			return
		}
		if h.sock != nil {
			if fi, err := os.Stat(h.sockPath); err != nil || !os.SameFile(fi, h.sock) {
				h.log.Info("terminal host: its socket is gone (the state directory was removed); ending")
				return
			}
		}
	}
}

// removeSock removes the host's socket, unless it is gone or another's.
func (h *host) removeSock() {
	if fi, err := os.Stat(h.sockPath); err == nil && h.sock != nil && os.SameFile(fi, h.sock) {
		_ = os.Remove(h.sockPath)
	}
}

// updated tells every connected server that a session changed (Config.OnUpdate).
func (h *host) updated(conv, id string) {
	h.mu.Lock()
	peers := make([]*rpcPeer, 0, len(h.conns))
	for p, c := range h.conns {
		if c.authed {
			peers = append(peers, p)
		}
	}
	h.mu.Unlock()
	for _, p := range peers {
		p.event("update", hostArgs{Conv: conv, ID: id})
	}
}

// use notes that a connection works in conv.
func (h *host) use(p *rpcPeer, conv string) {
	if conv == "" {
		return
	}
	h.mu.Lock()
	if c := h.conns[p]; c != nil && !c.convs[conv] {
		c.convs[conv] = true
		delete(h.convs, conv)
	}
	h.mu.Unlock()
}

// errNotIntroduced: a request before hello.
var errNotIntroduced = errors.New("terminal host: hello first")

func (h *host) handle(ctx context.Context, p *rpcPeer, op string, raw json.RawMessage, _ uint64) (any, error) {
	var a hostArgs
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	}
	h.mu.Lock()
	c := h.conns[p]
	authed := c != nil && c.authed
	h.mu.Unlock()
	if op == "hello" {
		if c == nil {
			return nil, errNotIntroduced
		}
		if a.Proto != hostProto {
			return nil, fmt.Errorf("terminal host speaks protocol %d, the server %d", hostProto, a.Proto)
		}
		if subtle.ConstantTimeCompare([]byte(a.Key), []byte(h.key)) != 1 {
			return nil, errors.New("terminal host: wrong key")
		}
		h.mu.Lock()
		c.authed = true
		h.mu.Unlock()
		return h.hello, nil
	}
	if !authed {
		return nil, errNotIntroduced
	}
	h.use(p, a.Conv)
	m := h.m
	progress := func(chunk string) {
		if sv, ok := servingFrom(ctx); ok {
			sv.p.progress(sv.id, chunk)
		}
	}
	switch op {
	case "create":
		if a.Spec == nil {
			return nil, fmt.Errorf("%w: no session spec", ErrInvalid)
		}
		return m.Create(ctx, a.Conv, *a.Spec)
	case "send":
		if a.In == nil {
			return nil, fmt.Errorf("%w: no input", ErrInvalid)
		}
		in := Input{Text: a.In.Text, PressEnter: a.In.PressEnter, Keys: a.In.Keys, User: a.In.User, Wait: a.In.Wait.query(progress)}
		return m.Send(ctx, a.Conv, a.ID, in)
	case "output":
		return m.Output(ctx, a.Conv, a.ID, a.Q.query(progress))
	case "screen":
		return m.Screen(a.Conv, a.ID)
	case "history":
		return m.History(a.Conv, a.ID, a.Offset, a.Length)
	case "resize":
		return nil, m.Resize(a.Conv, a.ID, a.Cols, a.Rows)
	case "list":
		return m.List(ctx, a.Conv)
	case "sessions":
		return m.Sessions(a.Conv), nil
	case "close":
		return nil, m.CloseWith(ctx, a.Conv, a.ID, syscall.Signal(a.Signal))
	case "run":
		if a.Run == nil {
			return nil, fmt.Errorf("%w: no command", ErrInvalid)
		}
		spec := RunSpec{Command: a.Run.Command, Cwd: a.Run.Cwd, Env: a.Run.Env, Timeout: a.Run.Timeout, Yield: a.Run.Yield,
			MaxBytes: a.Run.MaxBytes, Check: a.Run.Check}
		if a.Run.Progress {
			spec.Progress = progress
		}
		return m.runHere(ctx, a.Conv, spec, a.Run.Start)
	case "wait":
		return m.Wait(ctx, a.Conv, a.ID, time.Duration(a.D))
	case "has":
		return m.Ended(a.Conv, a.ID) != nil, nil
	case "ended":
		ch := m.Ended(a.Conv, a.ID)
		if ch == nil {
			return false, nil
		}
		select {
		case <-ch:
			return true, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "cancel":
		return nil, m.Cancel(a.Conv, a.ID)
	case "commands":
		return m.Commands(a.Conv), nil
	case "conversations":
		return m.Conversations(), nil
	case "flushrec":
		m.flushRecording(a.Conv, a.ID)
		return nil, nil
	}
	return nil, fmt.Errorf("%w: unknown terminal host operation %q", ErrInvalid, op)
}

// writePrivate writes a file only this user can read, atomically.
func writePrivate(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// holding says whether the manager still holds a session or a command.
func (m *Manager) holding() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)+len(m.jobs) > 0
}

// closeConversation ends every session and command of conv.
func (m *Manager) closeConversation(ctx context.Context, conv string) {
	m.mu.Lock()
	var ids []string
	for k := range m.sessions {
		if k.conv == conv {
			ids = append(ids, k.id)
		}
	}
	for k := range m.jobs {
		if k.conv == conv {
			ids = append(ids, k.id)
		}
	}
	m.mu.Unlock()
	sort.Strings(ids)
	for _, id := range ids {
		_ = m.Close(ctx, conv, id)
		m.mu.Lock()
		if j := m.jobs[key{conv, id}]; j != nil {
			delete(m.jobs, key{conv, id})
			m.forgetCommand(j)
		}
		m.mu.Unlock()
	}
}

// flushRecording writes what a live session's recording holds in memory, so that another
// process reading the files (an export) sees all of it.
func (m *Manager) flushRecording(conv, id string) {
	if s, _ := m.lookup(conv, id); s != nil {
		s.rec.flush()
	}
}

// gateRequest is a gate request as the host's client sends it: with the host's TMPDIR.
func gateRequest(req gate.Request, temp string) gate.Request {
	req.Temp = temp
	return req
}
