package app

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/consolidated"
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
	// onWrite: the server's output says when a tools/list was answered (SettleOnWrite);
	// listed: a tools/list handler has returned, its answer to be written next.
	onWrite, listed atomic.Bool
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
	a.onClose(func() error { t.Stop(); return nil })
}

// settleMiddleware releases the housekeeping once a tools/list has been answered: at once, or
// once the answer is written when the server's output tells (SettleOnWrite).
func (a *App) settleMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/list" {
				if a.settling.onWrite.Load() {
					a.settling.listed.Store(true)
				} else {
					a.settling.settle()
				}
			}
			return res, err
		}
	}
}

// SettleOnWrite returns w, the server's output, such that the app settles once the answer to
// the first tools/list is written to it rather than once it is computed: the go-sdk encodes
// and writes the answer after the handler returns, and work started then took a core from
// it, and from the client reading it. The first write after a tools/list handler returned
// counts as its answer.
func (a *App) SettleOnWrite(w io.Writer) io.Writer {
	a.settling.onWrite.Store(true)
	return settleWriter{w: w, s: a.settling}
}

type settleWriter struct {
	w io.Writer
	s *settling
}

func (sw settleWriter) Write(p []byte) (int, error) {
	n, err := sw.w.Write(p)
	if sw.s.listed.Load() {
		sw.s.settle()
	}
	return n, err
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
	a.onClose(func() error { cancel(); <-done; return nil })
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

// Prepared waits for the engines (Opened) and then for the start-up work given to prepare,
// running it now if it has not started, and returns the first error: a server whose engines
// did not open or whose preparation failed must not serve calls.
func (a *App) Prepared(ctx context.Context) error {
	if err := a.Opened(ctx); err != nil {
		return err
	}
	return a.prepared(ctx)
}

// prepared runs the start-up work given to prepare now if it has not started, waits until it
// has finished and returns its error.
func (a *App) prepared(ctx context.Context) error {
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

// Needed closes when a request waits for the engines (prepareMiddleware): a server that holds
// OpenEngines back for its client's handshake opens them now.
func (a *App) Needed() <-chan struct{} { return a.needed }

func (a *App) need() { a.needOnce.Do(func() { close(a.needed) }) }

// answeredFromTables are the requests a server answers before its engines are open, from the
// tools' tables and the configuration alone: the handshake, ping, the tool, prompt and resource
// template lists, the log level. Notifications never wait either.
var answeredFromTables = map[string]bool{
	"initialize": true, "server/discover": true, "ping": true, "tools/list": true, "prompts/list": true,
	"resources/templates/list": true, "logging/setLevel": true,
}

// withoutPreparation are the requests answered before the start-up preparation finishes,
// besides those: resources/list, which reads the conversation's resources but touches no file
// and starts no process.
var withoutPreparation = map[string]bool{"resources/list": true}

// prepareMiddleware holds every request but those answered from the tables until the engines
// are open (OpenEngines), and every request that may touch a file or start a process until
// the start-up preparation has finished too; a tools/call that the engines' failure stops is
// an error result saying why.
func (a *App) prepareMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if answeredFromTables[method] || strings.HasPrefix(method, "notifications/") {
				return next(ctx, method, req)
			}
			a.need()
			wait := a.Prepared
			if withoutPreparation[method] {
				wait = a.Opened
			}
			if err := wait(ctx); err != nil {
				if method == "tools/call" && ctx.Err() == nil {
					te := &consolidated.ToolError{Code: consolidated.CodeUnavailable, Message: err.Error(),
						Next: "tell the user: the server's log has the details; once the cause is fixed, restart toolhost"}
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: te.Error()}}}, nil
				}
				return nil, err
			}
			return next(ctx, method, req)
		}
	}
}
