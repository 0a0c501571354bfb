// Package browser drives conversation-scoped headless Chromium with chromedp: one browser per
// conversation, a fresh profile in a temporary directory, closed with the conversation, after an
// idle timeout or at shutdown, and killed as a process tree. Pages are read as accessibility-tree
// snapshots whose interactive elements carry references (e12) that click, type and select take.
//
// Every request the browser makes goes through a proxy in this process (see proxy.go): Chromium
// is told to use it for everything, loopback included, and the proxy asks the network guard.
// It knows nothing about MCP.
package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"toolhost/authz"
	"toolhost/internal/proctree"
	"toolhost/internal/web"
)

// Defaults of Config.
const (
	DefaultIdleTimeout = 10 * time.Minute
	DefaultMaxBrowsers = 4
	DefaultNavTimeout  = 30 * time.Second
	DefaultWidth       = 1280
	DefaultHeight      = 800
)

// ErrNoChromium: no Chromium binary was found. Its text says how to install one.
var ErrNoChromium = errors.New("no Chromium found: install it (Debian/Ubuntu: apt-get install chromium; Fedora: dnf install chromium; macOS and Windows: Google Chrome, Chromium or Edge in their usual place) or set [web] chromium to its path")

// ErrTooManyBrowsers: MaxBrowsers conversations already have a browser open.
var ErrTooManyBrowsers = errors.New("too many browsers open")

// ErrNotOpen: the conversation has no browser.
var ErrNotOpen = errors.New("no browser open in this conversation")

// Config configures a Manager.
type Config struct {
	// Chromium is the browser binary; empty means chromium, chromium-browser, google-chrome or
	// google-chrome-stable on PATH.
	Chromium string
	// Web forwards the browser's requests; Guard decides them. Both are required.
	Web   *web.Client
	Guard *authz.NetGuard
	// IdleTimeout closes a browser nobody used for that long.
	IdleTimeout time.Duration
	MaxBrowsers int
	// NavTimeout bounds a navigation that a call does not bound itself.
	NavTimeout    time.Duration
	Width, Height int
	Logger        *slog.Logger
}

// Manager owns the browsers of all conversations. Safe for concurrent use.
type Manager struct {
	cfg  Config
	log  *slog.Logger
	mu   sync.Mutex
	byID map[string]*Session
	done chan struct{}
	wg   sync.WaitGroup
}

// NewManager returns a manager; browsers start on first use.
func NewManager(cfg Config) (*Manager, error) {
	if cfg.Web == nil || cfg.Guard == nil {
		return nil, errors.New("browser: Web and Guard are required")
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxBrowsers <= 0 {
		cfg.MaxBrowsers = DefaultMaxBrowsers
	}
	if cfg.NavTimeout <= 0 {
		cfg.NavTimeout = DefaultNavTimeout
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		cfg.Width, cfg.Height = DefaultWidth, DefaultHeight
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	m := &Manager{cfg: cfg, log: cfg.Logger, byID: map[string]*Session{}, done: make(chan struct{})}
	m.wg.Add(1)
	go m.reapIdle()
	return m, nil
}

// FindChromium returns the browser binary the configuration names or PATH holds.
func FindChromium(configured string) (string, error) {
	if configured != "" {
		p, err := exec.LookPath(configured)
		if err != nil {
			return "", fmt.Errorf("[web] chromium %q: %w", configured, ErrNoChromium)
		}
		return behindWrapper(p), nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return behindWrapper(p), nil
		}
	}
	home, _ := os.UserHomeDir()
	for _, p := range installedBrowsers(runtime.GOOS, home, os.Getenv) {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", ErrNoChromium
}

// wrappedBinaries are where distributions keep the real browser behind a launcher script.
var wrappedBinaries = []string{"/usr/lib/chromium/chromium", "/usr/lib/chromium-browser/chromium-browser", "/usr/lib64/chromium-browser/chromium-browser"}

// behindWrapper returns the real binary when p is a distribution's launcher script: Debian's
// sources /etc/chromium.d, which adds Google API keys and loads extensions, and those reach out
// to Google services on their own.
func behindWrapper(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return p
	}
	var head [2]byte
	_, err = io.ReadFull(f, head[:])
	f.Close()
	if err != nil || string(head[:]) != "#!" {
		return p
	}
	for _, b := range wrappedBinaries {
		if st, err := os.Stat(b); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return b
		}
	}
	return p
}

// Session returns the conversation's browser, or ErrNotOpen.
func (m *Manager) Session(conv string) (*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.byID[conv]
	if !ok {
		return nil, ErrNotOpen
	}
	s.touch()
	return s, nil
}

// Open returns the conversation's browser, starting one if it has none. started reports a new
// browser.
func (m *Manager) Open(ctx context.Context, conv string) (s *Session, started bool, err error) {
	for {
		m.mu.Lock()
		cur, ok := m.byID[conv]
		if !ok {
			break
		}
		select {
		case <-cur.ready:
		default:
			// Another call is starting this conversation's browser: wait for it without the
			// lock (its failure path takes the lock), then look again.
			m.mu.Unlock()
			select {
			case <-cur.ready:
			case <-ctx.Done():
				return nil, false, ctx.Err()
			}
			continue
		}
		if cur.alive() {
			cur.touch()
			m.mu.Unlock()
			return cur, false, nil
		}
		// It crashed or failed: replace it.
		delete(m.byID, conv)
		go cur.close()
		break
	}
	if len(m.byID) >= m.cfg.MaxBrowsers {
		m.mu.Unlock()
		return nil, false, fmt.Errorf("%w (%d); close one with browser_close", ErrTooManyBrowsers, m.cfg.MaxBrowsers)
	}
	// Reserve the slot while starting, so two calls of one conversation start one browser.
	s = &Session{conv: conv, m: m, ready: make(chan struct{})}
	m.byID[conv] = s
	m.mu.Unlock()
	s.startErr = s.start(ctx)
	close(s.ready)
	if s.startErr != nil {
		m.mu.Lock()
		if m.byID[conv] == s {
			delete(m.byID, conv)
		}
		m.mu.Unlock()
		return nil, false, s.startErr
	}
	return s, true, nil
}

// Close closes the conversation's browser; it reports whether there was one.
func (m *Manager) Close(conv string) bool {
	m.mu.Lock()
	s, ok := m.byID[conv]
	delete(m.byID, conv)
	m.mu.Unlock()
	if ok {
		s.close()
	}
	return ok
}

// Shutdown closes every browser and stops the idle reaper.
func (m *Manager) Shutdown() {
	select {
	case <-m.done:
	default:
		close(m.done)
	}
	m.mu.Lock()
	all := make([]*Session, 0, len(m.byID))
	for id, s := range m.byID {
		all = append(all, s)
		delete(m.byID, id)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() { defer wg.Done(); s.close() }()
	}
	wg.Wait()
	m.wg.Wait()
}

// Conversations lists the conversations with a browser open.
func (m *Manager) Conversations() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.byID))
	for id := range m.byID {
		out = append(out, id)
	}
	return out
}

func (m *Manager) reapIdle() {
	defer m.wg.Done()
	tick := time.NewTicker(max(m.cfg.IdleTimeout/4, 50*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-m.done:
			return
		case <-tick.C:
		}
		var idle []*Session
		m.mu.Lock()
		for id, s := range m.byID {
			if s.idleFor() >= m.cfg.IdleTimeout || s.started() && !s.alive() {
				idle = append(idle, s)
				delete(m.byID, id)
			}
		}
		m.mu.Unlock()
		for _, s := range idle {
			m.log.Info("closing idle browser", "conv", s.conv)
			s.close()
		}
	}
}

// killTree kills the browser's process group (it was started as a group leader), so renderers,
// the GPU and network services and the zygote go with it.
func killTree(p *os.Process) {
	if p == nil {
		return
	}
	proctree.Kill(p)
}
