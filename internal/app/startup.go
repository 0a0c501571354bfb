package app

import (
	"context"
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
