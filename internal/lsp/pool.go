package lsp

import (
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// Pool keeps one server per language for a working directory.
type Pool struct {
	opts  Options
	specs map[string]Spec

	mu       sync.Mutex
	servers  map[string]*Server
	crashes  map[string][]time.Time
	closed   bool
	stopIdle chan struct{}
}

// crashWindow and maxCrashes: a server that exited this often within the window is not
// started again until the window passes.
const (
	crashWindow = time.Minute
	maxCrashes  = 3
)

// NewPool returns a pool for the specs (by language). Servers start on first use.
func NewPool(opts Options, specs []Spec) *Pool {
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 10 * time.Minute
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 5 * time.Second
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 20 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	p := &Pool{opts: opts, specs: map[string]Spec{}, servers: map[string]*Server{}, crashes: map[string][]time.Time{}, stopIdle: make(chan struct{})}
	for _, s := range specs {
		p.specs[s.Language] = s
	}
	go p.reapIdle()
	return p
}

// Options returns the pool's options.
func (p *Pool) Options() Options { return p.opts }

// Spec returns the language's server spec (ok false when it has none).
func (p *Pool) Spec(lang string) (Spec, bool) {
	s, ok := p.specs[lang]
	return s, ok
}

// Server returns the language's running server, starting it when none runs (or the last one
// exited). ErrNotInstalled says there is none for the language.
func (p *Pool) Server(lang string) (*Server, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("the language servers are shut down")
	}
	if s := p.servers[lang]; s != nil {
		if s.Alive() {
			return s, nil
		}
		delete(p.servers, lang)
		if !s.closing.Load() {
			p.crashes[lang] = append(p.crashes[lang], time.Now())
		}
	}
	spec, ok := p.specs[lang]
	if !ok || len(spec.Command) == 0 {
		return nil, fmt.Errorf("%w for %s", ErrNotInstalled, lang)
	}
	var recent []time.Time
	for _, t := range p.crashes[lang] {
		if time.Since(t) < crashWindow {
			recent = append(recent, t)
		}
	}
	p.crashes[lang] = recent
	if len(recent) >= maxCrashes {
		return nil, fmt.Errorf("%w: %s exited %d times in the last minute", ErrCrashing, spec.Name, len(recent))
	}
	s, err := start(spec, &p.opts)
	if err != nil {
		return nil, err
	}
	p.servers[lang] = s
	return s, nil
}

// Running returns the server of a language if one runs, without starting one.
func (p *Pool) Running(lang string) *Server {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.servers[lang]; s != nil && s.Alive() {
		return s
	}
	return nil
}

// Each calls fn with every running server.
func (p *Pool) Each(fn func(*Server)) {
	p.mu.Lock()
	var ss []*Server
	for _, s := range p.servers {
		if s.Alive() {
			ss = append(ss, s)
		}
	}
	p.mu.Unlock()
	for _, s := range ss {
		fn(s)
	}
}

func (p *Pool) reapIdle() {
	t := time.NewTicker(min(p.opts.IdleTimeout/2, 30*time.Second))
	defer t.Stop()
	for {
		select {
		case <-p.stopIdle:
			return
		case <-t.C:
		}
		p.mu.Lock()
		var idle []*Server
		for lang, s := range p.servers {
			if time.Since(time.Unix(0, s.lastUse.Load())) > p.opts.IdleTimeout {
				idle = append(idle, s)
				delete(p.servers, lang)
			}
		}
		p.mu.Unlock()
		for _, s := range idle {
			s.Close()
		}
	}
}

// Close shuts every server down.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.stopIdle)
	ss := p.servers
	p.servers = map[string]*Server{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Add(1)
		go func() { defer wg.Done(); s.Close() }()
	}
	wg.Wait()
	return nil
}

// Find resolves a command: a name on PATH, else in the Go bin directory (where go install
// puts gopls). It returns "" when the program is not there.
func Find(name string) string {
	if filepath.IsAbs(name) {
		if _, err := exec.LookPath(name); err == nil {
			return name
		}
		return ""
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range goBinDirs() {
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return p
		}
	}
	return ""
}
