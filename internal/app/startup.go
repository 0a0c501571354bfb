package app

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// settleAfter bounds how long a server holds back its start-up housekeeping for a client that
// never lists the tools.
const settleAfter = time.Second

// settling holds back housekeeping that no request needs (sweeping temporary files and
// processes that dead toolhost processes left) until the server has answered its first
// tools/list: an editor waits for that answer before the model can do anything, and on a
// small machine those sweeps would otherwise take the CPU the answer needs. Recovery that
// later calls depend on (the edit journal, the execution journals) is not held back.
type settling struct {
	once sync.Once
	ch   chan struct{}
}

func newSettling() *settling { return &settling{ch: make(chan struct{})} }

// settle releases the housekeeping; later calls do nothing.
func (s *settling) settle() { s.once.Do(func() { close(s.ch) }) }

// Settled closes once the app's start-up housekeeping may run.
func (a *App) Settled() <-chan struct{} { return a.settling.ch }

// Serving tells the app that a server begins serving: its start-up housekeeping runs after the
// first tools/list is answered, or settleAfter from now for clients that never list tools. It
// holds the housekeeping back only for an app opened with config.Config.Serve; a one-shot
// command's runs at once (its recovery of a crashed server's temp files included).
func (a *App) Serving() {
	t := time.AfterFunc(settleAfter, a.settling.settle)
	a.closers = append(a.closers, func() error { t.Stop(); return nil })
}

// settleMiddleware releases the housekeeping once a tools/list has been answered.
func (a *App) settleMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/list" {
				// After the handler: the answer is on its way before the sweeps start.
				a.settling.settle()
			}
			return res, err
		}
	}
}

// afterSettled runs f in the background once the app has settled, unless the app closes
// first; Close cancels f's context and waits for it.
func (a *App) afterSettled(f func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-a.settling.ch:
		case <-ctx.Done():
			return
		}
		f(ctx)
	}()
	a.closers = append(a.closers, func() error { cancel(); <-done; return nil })
}

// preparing is the start-up work that tools/list does not need but every other request does:
// recovering the edit journal (before any call can touch a file) and marking the process as a
// server (before any call can start a child). A server holds it back, like the housekeeping,
// until it has answered its first tools/list, and runs it at once when a request needs it
// first: every request but the few that touch nothing waits for it (prepareMiddleware), and so
// do a workspace's Open and the app's Close.
type preparing struct {
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
	kick chan struct{} // closed by the first Prepared: run now, do not wait for settling
	once sync.Once
	done chan struct{} // closed once wg is done (made by the first Prepared)
}

func newPreparing() *preparing { return &preparing{kick: make(chan struct{})} }

// prepare runs f once the app has settled or a request needs it, whichever comes first; its
// error, if any, is what Prepared reports. A one-shot command's app is settled from the start.
func (a *App) prepare(f func() error) {
	p := a.preparing
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		select {
		case <-a.settling.ch:
		case <-p.kick:
		}
		if err := f(); err != nil {
			p.mu.Lock()
			p.err = errors.Join(p.err, err)
			p.mu.Unlock()
		}
	}()
}

// Prepared runs the start-up work given to prepare now if it has not started, waits until it
// has finished and returns its error: a server whose preparation failed must not serve calls.
func (a *App) Prepared(ctx context.Context) error {
	p := a.preparing
	p.once.Do(func() {
		close(p.kick)
		p.done = make(chan struct{})
		go func() { p.wg.Wait(); close(p.done) }()
	})
	select {
	case <-p.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// withoutPreparation are the methods answered before the start-up preparation finishes: none
// of them touches a file or starts a process.
var withoutPreparation = map[string]bool{
	"initialize": true, "server/discover": true, "notifications/initialized": true, "ping": true, "tools/list": true,
	"prompts/list": true, "resources/list": true, "resources/templates/list": true, "logging/setLevel": true,
	"notifications/cancelled": true, "notifications/roots/list_changed": true,
}

// prepareMiddleware holds every other request until the start-up preparation has finished.
func (a *App) prepareMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if !withoutPreparation[method] {
				if err := a.Prepared(ctx); err != nil {
					return nil, err
				}
			}
			return next(ctx, method, req)
		}
	}
}
