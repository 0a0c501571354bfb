package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"sync"
	"time"

	"toolhost/internal/gate"
)

// HostOptions make a Manager keep its sessions and commands in the terminal host of a state
// directory (see ServeHost), started on first use, instead of in this process.
type HostOptions struct {
	// Dir is the state directory; the host's socket, lock and key live there.
	Dir string
	// Command returns the command that starts a host: the toolhost binary's terminal-host
	// command, which reads a HostConfig as JSON on its stdin and runs ServeHost.
	Command func() *exec.Cmd
	// Log is the file a started host writes its log to ("" discards it).
	Log string
	// Config is what a host this process starts runs with; the Manager's own settings fill it
	// (HostConfigOf), Unattended and Linger come from here.
	Config HostConfig
	// Logger logs the host's coming and going on this side.
	Logger *slog.Logger
}

// hostStartWait bounds how long a server waits for a host it started to listen.
const hostStartWait = 30 * time.Second

// hostClient is a Manager's side of the connection to its terminal host.
type hostClient struct {
	m     *Manager
	o     HostOptions
	paths hostPaths

	dialMu sync.Mutex // one connect at a time
	mu     sync.Mutex
	peer   *rpcPeer
	hello  helloReply
	// mode is decided by the first use: remote, or local when no host can serve this process
	// (the platform, a refusal: this server runs under another toolhost's terminal).
	mode    int
	closing bool
}

const (
	modeUndecided = iota
	modeRemote
	modeLocal
)

func newHostClient(m *Manager, o HostOptions) *hostClient {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &hostClient{m: m, o: o}
}

// remote returns the host client when this manager's sessions live in a host, deciding on the
// first call: a manager whose host cannot be reached at all keeps its sessions itself.
func (m *Manager) remote(ctx context.Context) *hostClient {
	h := m.host
	if h == nil {
		return nil
	}
	h.mu.Lock()
	mode := h.mode
	h.mu.Unlock()
	switch mode {
	case modeRemote:
		return h
	case modeLocal:
		return nil
	}
	_, err := h.connect(ctx)
	h.mu.Lock()
	defer h.mu.Unlock()
	switch h.mode {
	case modeRemote:
		return h
	case modeLocal:
		return nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil // undecided still: the caller gave up, the next one tries again
		}
		h.o.Logger.Warn("terminal: no terminal host; sessions and commands live in this server and end with it", "err", err)
		h.mode = modeLocal
		return nil
	}
	h.mode = modeRemote
	return h
}

// bg is the context of a call that has none (Screen, History, ...): bounded, since a host that
// does not answer must not hang the caller.
func bg() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}

// connect returns the live connection to the host, connecting (and starting a host) when
// there is none.
func (h *hostClient) connect(ctx context.Context) (*rpcPeer, error) {
	if p := h.live(); p != nil {
		return p, nil
	}
	h.dialMu.Lock()
	defer h.dialMu.Unlock()
	if p := h.live(); p != nil {
		return p, nil
	}
	h.mu.Lock()
	closing := h.closing
	h.mu.Unlock()
	if closing {
		return nil, ErrShutdown
	}
	if !hostSupported {
		return nil, ErrHostUnsupported
	}
	if h.paths.sock == "" {
		paths, err := pathsFor(h.o.Dir)
		if err != nil {
			return nil, err
		}
		h.paths = paths
	}
	conn, err := dialHost(h.paths.sock)
	if err != nil {
		exited, err := h.start()
		if err != nil {
			return nil, err
		}
		deadline := time.Now().Add(hostStartWait)
		for delay := time.Millisecond; ; delay = min(delay*2, 50*time.Millisecond) {
			if conn, err = dialHost(h.paths.sock); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("the terminal host did not start within %s: %w", hostStartWait, err)
			}
			select {
			case werr := <-exited:
				// A host that failed (a read-only, full or unreadable state directory) says
				// so at once; one that found another host running exits 0: dial that one.
				if werr != nil {
					return nil, fmt.Errorf("the terminal host ended at its start (%v); its log is %s", werr, h.o.Log)
				}
				exited = nil
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(delay):
			}
		}
	}
	p := newRPCPeer(conn, h.handle, h.event)
	go p.run()
	go h.afterHost(p)
	key, err := os.ReadFile(h.paths.key)
	if err != nil {
		p.close()
		return nil, fmt.Errorf("terminal host key: %w", err)
	}
	var hello helloReply
	if err := p.call(ctx, "hello", hostArgs{Key: string(key), Proto: hostProto}, 0, &hello, nil); err != nil {
		p.close()
		if errors.Is(err, ErrHostGone) {
			return nil, errors.New("the terminal host refused this process (it runs under a toolhost terminal, or as another user)")
		}
		return nil, err
	}
	h.mu.Lock()
	h.peer, h.hello = p, hello
	h.mu.Unlock()
	h.o.Logger.Debug("terminal: connected to the terminal host", "pid", hello.PID)
	return p, nil
}

// live is the connection when it has not broken.
func (h *hostClient) live() *rpcPeer {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.peer == nil {
		return nil
	}
	select {
	case <-h.peer.done:
		h.peer = nil
		return nil
	default:
		return h.peer
	}
}

// start starts a host process; it outlives this server (a session of its own, see
// hostSysProcAttr). When another server started one a moment ago, the new one finds the lock
// taken and ends at once, with status 0. exited receives the process's end.
func (h *hostClient) start() (exited <-chan error, err error) {
	if h.o.Command == nil {
		return nil, errors.New("no command to start a terminal host")
	}
	cfg := HostConfigOf(h.m.cfg)
	cfg.Unattended, cfg.Linger = h.o.Config.Unattended, h.o.Config.Linger
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	cmd := h.o.Command()
	cmd.SysProcAttr = hostSysProcAttr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if h.o.Log != "" {
		if f, err := os.OpenFile(h.o.Log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err == nil {
			cmd.Stderr = f
			defer f.Close()
		}
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the terminal host: %w", err)
	}
	go func() {
		_, _ = stdin.Write(b)
		_ = stdin.Close()
	}()
	ch := make(chan error, 1)
	go func() { ch <- cmd.Wait() }()
	h.o.Logger.Info("terminal: started a terminal host", "pid", cmd.Process.Pid)
	return ch, nil
}

// call makes a request of the host. idempotent requests are made again, once, on a new
// connection when the host ended under them: a new host answers them from the store.
func (h *hostClient) call(ctx context.Context, op string, a hostArgs, out any, progress func(string), idempotent bool) error {
	for attempt := 0; ; attempt++ {
		p, err := h.connect(ctx)
		if err != nil {
			if errors.Is(err, ErrShutdown) {
				return err
			}
			return fmt.Errorf("terminal host unavailable: %w", err)
		}
		err = p.call(ctx, op, a, 0, out, progress)
		if errors.Is(err, ErrHostGone) && idempotent && attempt == 0 && ctx.Err() == nil {
			continue
		}
		return err
	}
}

// handle answers the host's questions: the gate's decisions for the request it serves.
func (h *hostClient) handle(ctx context.Context, p *rpcPeer, op string, raw json.RawMessage, re uint64) (any, error) {
	if rc, ok := p.pendingCtx(re); ok {
		ctx = rc // the caller's, with its principal and deadline
	}
	g := h.m.cfg.Gate
	switch op {
	case "gate.start":
		var req gate.Request
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, err
		}
		h.mu.Lock()
		temp := h.hello.Temp
		h.mu.Unlock()
		return g.Start(ctx, gateRequest(req, temp))
	case "gate.check":
		var q gateCheck
		if err := json.Unmarshal(raw, &q); err != nil {
			return nil, err
		}
		l := q.Line
		if len(q.Memory) > 0 {
			l.Memory = &gate.Memory{}
			if err := json.Unmarshal(q.Memory, l.Memory); err != nil {
				return nil, err
			}
		}
		err := g.Check(ctx, q.Conv, l)
		if l.Memory != nil {
			return l.Memory, err
		}
		return nil, err
	}
	return nil, fmt.Errorf("unknown question %q from the terminal host", op)
}

// event passes the host's events on: a session changed (Config.OnUpdate).
func (h *hostClient) event(op string, raw json.RawMessage) {
	if op != "update" {
		return
	}
	var a hostArgs
	if json.Unmarshal(raw, &a) != nil {
		return
	}
	if f := h.m.onUpdate.Load(); f != nil {
		go (*f)(a.Conv, a.ID)
	}
}

// withoutWithheld is env without the variables the gate withholds: the host's own gate
// (hostGate) knows only the rule every gate applies.
func (h *hostClient) withoutWithheld(env map[string]string) map[string]string {
	if len(env) == 0 {
		return env
	}
	out := maps.Clone(env)
	for k := range out {
		if h.m.cfg.Gate.Withheld(k) {
			delete(out, k)
		}
	}
	return out
}

// shutdown leaves the host: its sessions and commands go on for the next server.
func (h *hostClient) shutdown() {
	h.mu.Lock()
	h.closing = true
	p := h.peer
	h.peer = nil
	h.mu.Unlock()
	if p != nil {
		p.close()
		<-p.done
	}
}

func (h *hostClient) isClosing() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closing
}

// ended watches command id of conv: the channel closes when it ends, or when the host ended
// with it; it stays open when this server shuts down first (the command goes on, and the next
// server watches it). nil when the host has no such command.
func (h *hostClient) ended(conv, id string) <-chan struct{} {
	ctx, cancel := bg()
	defer cancel()
	var has bool
	if err := h.call(ctx, "has", hostArgs{Conv: conv, ID: id}, &has, nil, true); err != nil || !has {
		return nil
	}
	ch := make(chan struct{})
	go func() {
		var done bool
		err := h.call(context.Background(), "ended", hostArgs{Conv: conv, ID: id}, &done, nil, false)
		if h.isClosing() {
			return
		}
		if err != nil && !errors.Is(err, ErrHostGone) {
			h.o.Logger.Warn("terminal: watching a command in the terminal host failed", "command", id, "err", err)
		}
		close(ch)
	}()
	return ch
}

// afterHost waits for the connection to end; when the host died under it (SIGKILL, a crash),
// the commands it ran, which nothing watches or times out any more, are ended: sessions' shells
// got a hangup, but a command reads no terminal. A host that ended by itself left none.
func (h *hostClient) afterHost(p *rpcPeer) {
	<-p.done
	if h.isClosing() {
		return
	}
	h.mu.Lock()
	inst := h.hello.Instance
	h.mu.Unlock()
	// The socket closes while the host's process is still exiting.
	for deadline := time.Now().Add(5 * time.Second); inst != "" && instanceAlive(inst); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return // alive after all: a connection that broke, not a host that died
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sweepOrphans(ctx, h.m.instance, h.m.cfg.CloseGrace)
}
