// Package lsp runs language servers (gopls, pyright, typescript-language-server, rust-analyzer,
// clangd) for the symbol operations: one per working directory and language, started on first
// use through the caller's start function (the terminal sandbox), shared by every
// conversation, shut down when idle and started again after a crash. The JSON-RPC transport is
// github.com/sourcegraph/jsonrpc2 with a framing codec of our own that bounds messages; the
// protocol types are the few this package needs (protocol.go).
//
// Nothing here waits unbounded: every request has a deadline, a cancelled request is
// cancelled at the server too ($/cancelRequest), a server that exits fails its pending
// requests at once, and a server that floods (a message over the bound) is stopped.
package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"toolhost/internal/proctree"

	"github.com/sourcegraph/jsonrpc2"
)

// Errors a caller tells apart.
var (
	// ErrNotInstalled: no server is configured or found on PATH for the language.
	ErrNotInstalled = errors.New("no language server installed")
	// ErrExited: the server exited (crashed or was killed) during the call.
	ErrExited = errors.New("the language server exited")
	// ErrNotReady: the server is still starting or indexing after the time the caller gave it.
	ErrNotReady = errors.New("the language server is still starting")
	// ErrTimeout: the server did not answer in time.
	ErrTimeout = errors.New("the language server did not answer in time")
	// ErrCrashing: the server exited several times in a row and is not started for a while.
	ErrCrashing = errors.New("the language server keeps crashing")
)

// DefaultMaxMessage bounds one message from a server; a larger one stops it.
const DefaultMaxMessage = 64 << 20

// Spec is one language's server.
type Spec struct {
	Language string   // go, python, typescript, rust, c
	Name     string   // what the answers call it: gopls, pyright, ...
	Command  []string // program and arguments
	// LanguageID returns the LSP language id of a file name (for didOpen).
	LanguageID func(name string) string
	// InitOptions are the initializationOptions; Settings answer workspace/configuration.
	InitOptions any
	Settings    any
}

// Options configure the servers of a Pool.
type Options struct {
	// Root is the working directory (canonical).
	Root string
	// Start starts a server's command (the sandbox); nil means cmd.Start.
	Start func(cmd *exec.Cmd) error
	// Env is the servers' environment (nil: the process's).
	Env []string
	// Timeout bounds one request (default 20s); StartTimeout how long a call waits for a
	// server to start and load (default 5s); IdleTimeout shuts an unused server down (10m).
	Timeout, StartTimeout, IdleTimeout time.Duration
	MaxMessage                         int
	Logger                             *slog.Logger
}

// Server is one running language server.
type Server struct {
	spec Spec
	opts *Options
	cmd  *exec.Cmd
	conn *jsonrpc2.Conn
	pgid int

	initDone chan struct{}
	initErr  error
	exited   chan struct{}
	utf8     bool

	mu       sync.Mutex
	docs     map[string]*document
	progress map[string]string // active work-done progress: token → title
	stderr   *tailBuffer

	nextID  atomic.Uint64
	lastUse atomic.Int64
	closing atomic.Bool
}

type document struct {
	version int
	text    string
}

// Name is the server's name (gopls, pyright, ...).
func (s *Server) Name() string { return s.spec.Name }

// Language is the language it serves.
func (s *Server) Language() string { return s.spec.Language }

// UTF8 reports whether positions count bytes (else UTF-16 code units).
func (s *Server) UTF8() bool { return s.utf8 }

// start spawns the server and initializes it in the background.
func start(spec Spec, opts *Options) (*Server, error) {
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Dir = opts.Root
	cmd.Env = opts.Env
	proctree.Isolate(cmd, false)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &Server{spec: spec, opts: opts, cmd: cmd, initDone: make(chan struct{}), exited: make(chan struct{}),
		docs: map[string]*document{}, progress: map[string]string{}, stderr: &tailBuffer{max: 8 << 10}}
	cmd.Stderr = s.stderr
	startFn := opts.Start
	if startFn == nil {
		startFn = (*exec.Cmd).Start
	}
	if err := startFn(cmd); err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Name, err)
	}
	s.pgid = cmd.Process.Pid
	s.touch()
	maxMsg := opts.MaxMessage
	if maxMsg <= 0 {
		maxMsg = DefaultMaxMessage
	}
	stream := jsonrpc2.NewBufferedStream(pipes{stdout, stdin}, codec{max: maxMsg})
	s.conn = jsonrpc2.NewConn(context.Background(), stream, handler{s})
	go func() {
		err := cmd.Wait()
		s.conn.Close()
		if !s.closing.Load() {
			opts.Logger.Warn("language server exited", "server", spec.Name, "err", err, "stderr", s.stderr.String())
		}
		close(s.exited)
	}()
	go func() {
		<-s.conn.DisconnectNotify()
		// A connection closed by a bad message (over the bound, not JSON) leaves a server
		// that cannot be talked to: stop it.
		s.kill()
	}()
	go s.initialize()
	return s, nil
}

// pipes joins a server's stdout and stdin into one stream.
type pipes struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipes) Close() error {
	p.w.Close()
	return p.ReadCloser.Close()
}

func (s *Server) touch() { s.lastUse.Store(time.Now().UnixNano()) }

// Alive reports whether the process still runs.
func (s *Server) Alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// Exited is closed when the server's process has ended.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// Pid is the server's process id.
func (s *Server) Pid() int { return s.pgid }

func (s *Server) initialize() {
	defer close(s.initDone)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rootURI := FileURI(s.opts.Root)
	valueSet := make([]int, 26)
	for i := range valueSet {
		valueSet[i] = i + 1
	}
	params := map[string]any{
		// No process id: a confined server cannot signal outside its sandbox (Landlock's
		// signal scope), so one that polls kill(pid, 0) on its client (typescript-language-
		// server) would take toolhost for dead and exit. Servers end when their stdin closes,
		// and the pool stops them.
		"processId": nil,
		"rootUri":   rootURI,
		"rootPath":  s.opts.Root,
		"workspaceFolders": []map[string]string{
			{"uri": rootURI, "name": filepath.Base(s.opts.Root)},
		},
		"clientInfo": map[string]string{"name": "toolhost"},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}},
			"window":  map[string]any{"workDoneProgress": true},
			"workspace": map[string]any{
				"configuration":    true,
				"workspaceFolders": true,
				"symbol":           map[string]any{"symbolKind": map[string]any{"valueSet": valueSet}},
				"workspaceEdit":    map[string]any{"documentChanges": true, "resourceOperations": []string{"create", "rename", "delete"}},
			},
			"textDocument": map[string]any{
				"synchronization": map[string]any{"didSave": false},
				"documentSymbol":  map[string]any{"hierarchicalDocumentSymbolSupport": true, "symbolKind": map[string]any{"valueSet": valueSet}},
				"definition":      map[string]any{"linkSupport": true},
				"references":      map[string]any{},
				"rename":          map[string]any{"prepareSupport": true},
			},
		},
	}
	if s.spec.InitOptions != nil {
		params["initializationOptions"] = s.spec.InitOptions
	}
	var res struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	if err := s.call(ctx, "initialize", params, &res); err != nil {
		s.initErr = err
		return
	}
	s.utf8 = res.Capabilities.PositionEncoding == "utf-8"
	if err := s.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		s.initErr = err
	}
}

// WaitReady waits up to d (bounded by ctx) for the server to have initialized and to have no
// loading or indexing under way. It returns ErrNotReady when it is not ready by then (the
// caller may still call it), the init error, or ErrExited.
func (s *Server) WaitReady(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.initDone:
	case <-s.exited:
		return s.exitError()
	case <-t.C:
		return ErrNotReady
	case <-ctx.Done():
		return ctx.Err()
	}
	if s.initErr != nil {
		return fmt.Errorf("initialize %s: %w", s.spec.Name, s.initErr)
	}
	for {
		if !s.Busy() {
			return nil
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-s.exited:
			return s.exitError()
		case <-t.C:
			return ErrNotReady
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Busy reports work the server said it does (loading packages, indexing), by title.
func (s *Server) Busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.progress) > 0
}

// BusyWith names what the server is busy with ("" when idle).
func (s *Server) BusyWith() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.progress {
		return t
	}
	return ""
}

func (s *Server) exitError() error {
	msg := strings.TrimSpace(s.stderr.String())
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	if msg != "" {
		return fmt.Errorf("%w (%s: %s)", ErrExited, s.spec.Name, msg)
	}
	return fmt.Errorf("%w (%s)", ErrExited, s.spec.Name)
}

// Call sends a request and waits for the answer, within the Options' timeout and ctx. A call
// that ends early is cancelled at the server.
func (s *Server) Call(ctx context.Context, method string, params, result any) error {
	s.touch()
	defer s.touch()
	wait := time.NewTimer(s.timeout())
	defer wait.Stop()
	select {
	case <-s.initDone:
		if s.initErr != nil {
			return fmt.Errorf("initialize %s: %w", s.spec.Name, s.initErr)
		}
	case <-s.exited:
		return s.exitError()
	case <-wait.C:
		return fmt.Errorf("%w: %s has not finished starting", ErrNotReady, s.spec.Name)
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.call(ctx, method, params, result)
}

// timeout is the bound of one request.
func (s *Server) timeout() time.Duration {
	if s.opts.Timeout <= 0 {
		return 20 * time.Second
	}
	return s.opts.Timeout
}

func (s *Server) call(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	id := jsonrpc2.ID{Num: s.nextID.Add(1)}
	w, err := s.conn.DispatchCall(ctx, method, params, jsonrpc2.PickID(id))
	if err != nil {
		if !s.Alive() {
			return s.exitError()
		}
		return fmt.Errorf("%s %s: %w", s.spec.Name, method, err)
	}
	var raw json.RawMessage
	done := make(chan error, 1)
	go func() { done <- w.Wait(ctx, &raw) }()
	select {
	case err = <-done:
	case <-s.exited:
		return s.exitError()
	}
	if err != nil {
		if ctx.Err() != nil {
			// Tell the server to stop working on it (LSP's cancellation).
			nctx, ncancel := context.WithTimeout(context.Background(), time.Second)
			s.conn.Notify(nctx, "$/cancelRequest", map[string]any{"id": id.Num})
			ncancel()
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("%w: %s %s", ErrTimeout, s.spec.Name, method)
			}
			return ctx.Err()
		}
		var re *jsonrpc2.Error
		if errors.As(err, &re) {
			return &ResponseError{Code: int(re.Code), Message: re.Message}
		}
		if !s.Alive() || errors.Is(err, jsonrpc2.ErrClosed) {
			<-time.After(50 * time.Millisecond)
			return s.exitError()
		}
		return fmt.Errorf("%s %s: %w", s.spec.Name, method, err)
	}
	if result == nil || len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, result)
}

// Notify sends a notification.
func (s *Server) Notify(ctx context.Context, method string, params any) error {
	return s.conn.Notify(ctx, method, params)
}

// Sync makes the server see text as the content of the file at path (didOpen, or didChange
// when it changed), and returns the version it has now.
func (s *Server) Sync(ctx context.Context, path, text string) (int, error) {
	uri := FileURI(path)
	s.mu.Lock()
	d, open := s.docs[uri]
	if open && d.text == text {
		v := d.version
		s.mu.Unlock()
		return v, nil
	}
	var method string
	var params any
	if !open {
		d = &document{version: 1, text: text}
		s.docs[uri] = d
		lang := s.spec.Language
		if s.spec.LanguageID != nil {
			lang = s.spec.LanguageID(path)
		}
		method, params = "textDocument/didOpen", map[string]any{"textDocument": textDocumentItem{URI: uri, LanguageID: lang, Version: 1, Text: text}}
	} else {
		d.version++
		d.text = text
		method = "textDocument/didChange"
		params = map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": d.version},
			"contentChanges": []map[string]string{{"text": text}},
		}
	}
	v := d.version
	s.mu.Unlock()
	wait := time.NewTimer(s.timeout())
	defer wait.Stop()
	select {
	case <-s.initDone:
	case <-s.exited:
		return 0, s.exitError()
	case <-wait.C:
		return 0, fmt.Errorf("%w: %s has not finished starting", ErrNotReady, s.spec.Name)
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	if err := s.conn.Notify(ctx, method, params); err != nil {
		return 0, s.exitError()
	}
	return v, nil
}

// Sent returns the text and version the server was last given for path (ok false when the
// document is not open).
func (s *Server) Sent(path string) (string, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.docs[FileURI(path)]
	if !ok {
		return "", 0, false
	}
	return d.text, d.version, true
}

// OpenPaths lists the documents the server has open.
func (s *Server) OpenPaths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.docs))
	for uri := range s.docs {
		out = append(out, URIPath(uri))
	}
	return out
}

// FilesChanged tells the server that files changed on disk (workspace/didChangeWatchedFiles);
// an open document is given its new text instead.
func (s *Server) FilesChanged(ctx context.Context, paths []string) {
	var changes []map[string]any
	for _, p := range paths {
		uri := FileURI(p)
		s.mu.Lock()
		_, open := s.docs[uri]
		s.mu.Unlock()
		if open {
			if b, err := os.ReadFile(p); err == nil {
				s.Sync(ctx, p, string(b))
				continue
			}
			s.mu.Lock()
			delete(s.docs, uri)
			s.mu.Unlock()
			s.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": textDocumentID{URI: uri}})
		}
		typ := 2 // changed
		if _, err := os.Stat(p); err != nil {
			typ = 3 // deleted
		}
		changes = append(changes, map[string]any{"uri": uri, "type": typ})
	}
	if len(changes) > 0 {
		s.conn.Notify(ctx, "workspace/didChangeWatchedFiles", map[string]any{"changes": changes})
	}
}

// Close asks the server to shut down and kills it if it does not exit soon.
func (s *Server) Close() {
	if !s.closing.CompareAndSwap(false, true) {
		<-s.exited
		return
	}
	if s.Alive() {
		select {
		case <-s.initDone:
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			s.call(ctx, "shutdown", nil, nil)
			s.conn.Notify(ctx, "exit", nil)
			cancel()
		default:
		}
	}
	select {
	case <-s.exited:
	case <-time.After(2 * time.Second):
		s.kill()
		<-s.exited
	}
}

// Kill ends the server's process group at once.
func (s *Server) kill() {
	if s.pgid > 0 {
		proctree.Kill(s.cmd.Process)
	}
}

// Kill ends the server at once (tests, and a server that floods).
func (s *Server) Kill() { s.closing.Store(true); s.kill() }

// handler answers the server's requests and follows its progress.
type handler struct{ s *Server }

// Handle runs on the connection's reading goroutine: progress is recorded there, in order;
// requests are answered on goroutines of their own.
func (h handler) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Method == "$/progress" {
		h.handle(ctx, conn, req)
		return
	}
	if req.Notif {
		return // logs, diagnostics, telemetry: not used
	}
	go h.handle(ctx, conn, req)
}

func (h handler) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	s := h.s
	switch req.Method {
	case "$/progress":
		var p progressParams
		if req.Params != nil && json.Unmarshal(*req.Params, &p) == nil {
			tok := string(p.Token)
			s.mu.Lock()
			switch p.Value.Kind {
			case "begin":
				s.progress[tok] = p.Value.Title
			case "end":
				delete(s.progress, tok)
			}
			s.mu.Unlock()
		}
		return
	case "workspace/configuration":
		var p configurationParams
		if req.Params != nil {
			json.Unmarshal(*req.Params, &p)
		}
		out := make([]any, len(p.Items))
		for i := range out {
			out[i] = s.spec.Settings
		}
		conn.Reply(ctx, req.ID, out)
		return
	case "workspace/workspaceFolders":
		conn.Reply(ctx, req.ID, []map[string]string{{"uri": FileURI(s.opts.Root), "name": filepath.Base(s.opts.Root)}})
		return
	case "client/registerCapability", "client/unregisterCapability", "window/workDoneProgress/create",
		"window/showMessageRequest", "workspace/diagnostic/refresh", "workspace/semanticTokens/refresh",
		"workspace/inlayHint/refresh", "workspace/codeLens/refresh":
		if !req.Notif {
			conn.Reply(ctx, req.ID, nil)
		}
		return
	case "workspace/applyEdit":
		// toolhost applies edits itself, through the guard and the journal.
		conn.Reply(ctx, req.ID, map[string]any{"applied": false, "failureReason": "the client applies edits itself"})
		return
	}
	if !req.Notif {
		conn.ReplyWithError(ctx, req.ID, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "not supported by toolhost: " + req.Method})
	}
}

// codec is the LSP base protocol's framing (Content-Length headers) with a bound on the size
// of a message: a server that sends more is cut off.
type codec struct{ max int }

func (codec) WriteObject(w io.Writer, obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

func (c codec) ReadObject(r *bufio.Reader, v any) error {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		if len(line) > 1024 {
			return errors.New("lsp: header line too long")
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if k, val, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "Content-Length") {
			n, err = strconv.Atoi(strings.TrimSpace(val))
			if err != nil || n < 0 {
				return fmt.Errorf("lsp: bad Content-Length %q", val)
			}
		}
	}
	if n < 0 {
		return errors.New("lsp: message without Content-Length")
	}
	if n > c.max {
		return fmt.Errorf("lsp: a message of %d bytes, over the bound of %d", n, c.max)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return err
	}
	return json.Unmarshal(buf, v)
}

// tailBuffer keeps the last max bytes written (a server's stderr, for error messages).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// FileURI is the file: URI of an absolute path.
func FileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// URIPath is the path of a file: URI ("" for another scheme).
func URIPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.FromSlash(u.Path)
}

// NewTestServer returns a server value that runs nothing, with the given position encoding:
// for tests of position conversions.
func NewTestServer(utf8 bool) *Server { return &Server{utf8: utf8} }
