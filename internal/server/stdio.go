package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/consolidated"
)

// MaxStdioLine bounds one inbound JSON-RPC line. A longer line is answered with an error and
// skipped; it does not end the session.
const MaxStdioLine = 32 << 20

// ServeStdio serves s over newline-delimited JSON on in and out until in ends or ctx is done.
// Unlike the SDK's own stdio transport, a malformed line is answered with a JSON-RPC parse error
// and the session goes on: one bad write by a client must not cost the user their session.
func ServeStdio(ctx context.Context, s *mcp.Server, in io.Reader, out io.Writer, logger *slog.Logger) error {
	return StartStdio(in, out, logger, nil).Serve(ctx, s)
}

// Handshake is what the stdio front answers by itself while the server behind it is still
// being built: a client waits for initialize, and for the tools/list that follows, before the
// model can do anything, and neither needs the state, the guard or the engines that the rest
// of the server does. Each answer is the server's own: the front passes the request on as
// well, compares the server's answer with its own and drops it (see earlyOut).
type Handshake struct {
	// Init answers initialize.
	Init func(*mcp.InitializeParams) *mcp.InitializeResult
	// Tools answers the first tools/list; nil leaves it to the server. The front calls it
	// once it has answered initialize, while the client reads that answer, so it may take a
	// while; it is called from one goroutine only.
	Tools func() *mcp.ListToolsResult
}

// NewHandshake answers initialize as New's server does for o, and tools/list with tools.
func NewHandshake(o Options, tools func() *mcp.ListToolsResult) *Handshake {
	return &Handshake{
		Init: func(p *mcp.InitializeParams) *mcp.InitializeResult {
			return &mcp.InitializeResult{
				Capabilities:    capabilities(),
				Instructions:    o.Instructions,
				ProtocolVersion: negotiate(p.ProtocolVersion),
				ServerInfo:      &mcp.Implementation{Name: o.Name, Version: o.Version},
			}
		},
		Tools: tools,
	}
}

// statelessVersion is the first protocol version without initialize.
const statelessVersion = "2026-07-28"

// negotiate is the version the go-sdk answers an initialize for requested with: the requested
// one when it knows it, else its newest; never one of the protocols without initialize, and
// 2025-11-25 should it know only those (TestEarlyHandshakeIsTheServers holds the two together).
func negotiate(requested string) string {
	supported := mcp.SupportedProtocolVersions()
	if slices.Contains(supported, requested) && requested < statelessVersion {
		return requested
	}
	for _, v := range supported {
		if v < statelessVersion {
			return v
		}
	}
	return "2025-11-25"
}

// Stdio is a stdio session's front: it reads the client's lines from the start, answers the
// malformed ones, answers the handshake when it has one (Handshake), and holds the rest until
// Serve runs a server on them.
type Stdio struct {
	out     *lockedWriter
	queue   *lineQueue
	hs      *Handshake
	logger  *slog.Logger
	early   *earlyOut
	serving atomic.Bool
	// readDone closes when the front stops reading the client's input.
	readDone chan struct{}
	// answered closes when the front will answer nothing more by itself (Answered).
	answered     chan struct{}
	answeredOnce sync.Once
	// handshake state, owned by the reading goroutine: whether the next message is the first,
	// whether the front answered an initialize, and whether a tools/list came since.
	first, initialized, listed bool
}

// StartStdio starts reading in; hs may be nil (no early answers).
func StartStdio(in io.Reader, out io.Writer, logger *slog.Logger, hs *Handshake) *Stdio {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	f := &Stdio{out: &lockedWriter{w: out}, queue: newLineQueue(stdioQueueBytes), hs: hs, logger: logger, first: true,
		readDone: make(chan struct{}), answered: make(chan struct{})}
	f.early = &earlyOut{w: notInitializedOut{f.out}, out: f.out, logger: logger, checked: make(chan struct{})}
	f.early.freed = sync.NewCond(&f.early.mu)
	var onMessage func([]byte, envelope)
	if hs != nil {
		onMessage = f.answerEarly
	} else {
		f.handshakeOver()
	}
	go func() {
		defer close(f.readDone)
		defer f.handshakeOver()
		f.queue.CloseWithError(filterLines(in, f.queue, f.out, logger, onMessage))
	}()
	return f
}

// Serve runs s on the session until the client's input ends or ctx is done.
func (f *Stdio) Serve(ctx context.Context, s *mcp.Server) error {
	f.serving.Store(true)
	err := s.Run(ctx, &mcp.IOTransport{Reader: f.queue, Writer: nopCloser{f.early}})
	f.Close()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	return err
}

// Answered closes once the front has answered all it answers by itself (initialize and the
// first tools/list), or knows it will answer nothing more: the session started otherwise, the
// client sent another request, or its input ended. Until then the client waits on the front,
// and work that can wait for it should: on a machine with few cores it competes with the front,
// and with the client, for the processor.
func (f *Stdio) Answered() <-chan struct{} { return f.answered }

func (f *Stdio) handshakeOver() { f.answeredOnce.Do(func() { close(f.answered) }) }

// EarlyChecked closes once the server has answered every request the front answered early,
// and its answers have been compared with the front's (a difference is logged). It never
// closes for a session without early answers.
func (f *Stdio) EarlyChecked() <-chan struct{} { return f.early.checked }

// Close ends a session no server will serve (its app did not open).
func (f *Stdio) Close() {
	f.early.close()
	f.queue.Close()
}

// stdioQueueBytes is how much of the client's input the front holds for a server that is not
// reading yet before it stops reading too.
const stdioQueueBytes = 1 << 20

// answerEarly answers the handshake while no server runs yet: an initialize that opens the
// session, then the first tools/list without a cursor. Anything else, and everything once the
// server runs, is the server's alone.
func (f *Stdio) answerEarly(line []byte, env envelope) {
	first := f.first
	f.first = false
	if !env.request || len(env.id) == 0 {
		if first {
			f.handshakeOver() // not a session that starts with initialize
		}
		return
	}
	// The client has the front's answer, so it may send the id again; the server, which has yet
	// to answer it, would refuse an id in use and the new request would never be answered.
	f.early.waitIDFree(env.id)
	var result any
	if !f.serving.Load() {
		result = f.earlyResult(line, env, first)
	}
	if result == nil {
		f.handshakeOver() // the server answers this request, and whatever follows
		return
	}
	if err := f.early.answer(env, result); err != nil {
		f.logger.Warn("stdio: early answer not sent; the server answers", "method", env.method, "err", err)
		f.handshakeOver()
		return
	}
	f.logger.Debug("stdio: answered before the server runs", "method", env.method)
	if env.method == "tools/list" {
		f.handshakeOver()
		return
	}
	f.initialized = true
	if f.hs.Tools != nil {
		f.hs.Tools() // the client's next request is tools/list: have it ready
	}
}

// earlyResult is the front's answer to a request, or nil when the server is to answer it.
func (f *Stdio) earlyResult(line []byte, env envelope, first bool) any {
	switch {
	case env.method == "initialize" && first:
		var p struct {
			Params *mcp.InitializeParams `json:"params"`
		}
		if json.Unmarshal(line, &p) != nil || p.Params == nil {
			return nil
		}
		if res := f.hs.Init(p.Params); res != nil {
			return res
		}
	case env.method == "tools/list" && f.initialized && !f.listed && f.hs.Tools != nil:
		f.listed = true
		var p struct {
			Params *struct {
				Cursor *string `json:"cursor"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &p) != nil || p.Params != nil && p.Params.Cursor != nil {
			return nil
		}
		if list := f.hs.Tools(); list != nil {
			return list
		}
	}
	return nil
}

// earlyOut carries the server's messages to the client, except its answers to requests the
// front answered already (Stdio.answerEarly): those it compares with the front's and drops.
// A different answer is a defect, logged; for a tools/list the client is also told to list
// the tools again.
type earlyOut struct {
	w      io.Writer
	out    *lockedWriter
	logger *slog.Logger

	mu      sync.Mutex
	freed   *sync.Cond // signalled when an answer leaves pending
	closed  bool       // the session ended
	pending []earlyAnswer
	waiting atomic.Bool // len(pending) > 0, read without the lock
	// checked closes when the server has answered every request answered early.
	checked     chan struct{}
	checkedOnce sync.Once
}

// earlyAnswer is one answer the front sent: head is its start up to the result, as the go-sdk
// starts its own answer to the same request ({"jsonrpc":"2.0","id":7,), which is how the
// server's answer is told from its other messages without decoding them.
type earlyAnswer struct {
	method string
	data   []byte
	head   []byte
	id     string // the id as the go-sdk holds it, in JSON
}

// sdkID is the id of a message as the go-sdk holds it (a number without its fraction, or a
// string), and that id in JSON, by which the front matches answers to requests.
func sdkID(raw json.RawMessage) (jsonrpc.ID, string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return jsonrpc.ID{}, "", err
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		return jsonrpc.ID{}, "", err
	}
	key, err := json.Marshal(id.Raw())
	return id, string(key), err
}

// waitIDFree waits until no answer the front sent for id awaits the server's.
func (e *earlyOut) waitIDFree(id json.RawMessage) {
	if !e.waiting.Load() {
		return
	}
	_, key, err := sdkID(id)
	if err != nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for !e.closed && slices.ContainsFunc(e.pending, func(a earlyAnswer) bool { return a.id == key }) {
		e.freed.Wait()
	}
}

// close releases waitIDFree: no server will answer.
func (e *earlyOut) close() {
	e.mu.Lock()
	e.closed = true
	e.freed.Broadcast()
	e.mu.Unlock()
}

// answer writes the response to env with result, as the go-sdk encodes it, and expects the
// server's.
func (e *earlyOut) answer(env envelope, result any) error {
	id, key, err := sdkID(env.id)
	if err != nil {
		return err
	}
	raw, err := consolidated.MarshalNoEscape(result)
	if err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: raw})
	if err != nil {
		return err
	}
	i := bytes.Index(data, []byte(`"result":`))
	if i < 0 {
		return fmt.Errorf("encoded answer without a result: %.60s", data)
	}
	e.mu.Lock()
	e.pending = append(e.pending, earlyAnswer{method: env.method, data: data, head: data[:i], id: key})
	e.waiting.Store(true)
	e.mu.Unlock()
	_, err = e.out.Write(append(data, '\n'))
	return err
}

func (e *earlyOut) Write(p []byte) (int, error) {
	if e.waiting.Load() && e.answered(bytes.TrimSuffix(p, []byte("\n"))) {
		return len(p), nil
	}
	return e.w.Write(p)
}

// answered reports whether msg is the server's answer to a request the front answered, and
// checks it against the front's.
func (e *earlyOut) answered(msg []byte) bool {
	e.mu.Lock()
	i := slices.IndexFunc(e.pending, func(a earlyAnswer) bool {
		rest, ok := bytes.CutPrefix(msg, a.head)
		return ok && (bytes.HasPrefix(rest, []byte(`"result":`)) || bytes.HasPrefix(rest, []byte(`"error":`)))
	})
	if i < 0 {
		e.mu.Unlock()
		return false
	}
	a := e.pending[i]
	e.pending = slices.Delete(e.pending, i, i+1)
	done := len(e.pending) == 0
	e.waiting.Store(!done)
	e.freed.Broadcast()
	e.mu.Unlock()
	if !bytes.Equal(a.data, msg) {
		at, early, server := firstDifference(a.data, msg)
		e.logger.Error("stdio: the early answer differed from the server's", "method", a.method, "at_byte", at, "early", early, "server", server)
		if a.method == "tools/list" {
			e.w.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n"))
		}
	}
	if done {
		e.checkedOnce.Do(func() { close(e.checked) })
	}
	return true
}

// firstDifference returns where a and b first differ and up to 60 bytes of each from a little
// before there, for a log line a person can read.
func firstDifference(a, b []byte) (at int, fromA, fromB string) {
	for at < len(a) && at < len(b) && a[at] == b[at] {
		at++
	}
	excerpt := func(s []byte) string {
		start := max(at-20, 0)
		return string(s[min(start, len(s)):min(start+60, len(s))])
	}
	return at, excerpt(a), excerpt(b)
}

// lineQueue carries the filtered lines to the server: an io.Pipe with a buffer in front, which
// holds up to limit bytes (and always one line) written before the server first reads, so that
// the front reads on. Once the server has read what was held, the lines go through the pipe
// itself: a write returns when the server has taken the line, so the front's goroutine parks
// and the server's runs at once, as the goroutines did before the queue, whether calls come back
// to back or after a pause (a buffer with a condition variable measured worse in both ways).
type lineQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	limit  int
	piped  bool  // the buffer is drained and the reader reads the pipe
	err    error // the writer's end: io.EOF or why reading in failed
	closed bool  // the reader is gone
	pr     *io.PipeReader
	pw     *io.PipeWriter
}

func newLineQueue(limit int) *lineQueue {
	q := &lineQueue{limit: limit}
	q.cond = sync.NewCond(&q.mu)
	q.pr, q.pw = io.Pipe()
	return q
}

func (q *lineQueue) Write(p []byte) (int, error) {
	q.mu.Lock()
	for len(q.buf) > 0 && len(q.buf)+len(p) > q.limit && !q.closed && !q.piped {
		q.cond.Wait()
	}
	switch {
	case q.closed:
		q.mu.Unlock()
		return 0, io.ErrClosedPipe
	case q.piped:
		q.mu.Unlock()
		return q.pw.Write(p)
	}
	q.buf = append(q.buf, p...)
	q.cond.Broadcast()
	q.mu.Unlock()
	return len(p), nil
}

func (q *lineQueue) Read(p []byte) (int, error) {
	q.mu.Lock()
	if q.piped {
		q.mu.Unlock()
		return q.pr.Read(p)
	}
	if q.closed {
		q.mu.Unlock()
		return 0, io.ErrClosedPipe
	}
	if len(q.buf) > 0 {
		n := copy(p, q.buf)
		q.buf = q.buf[n:]
		if len(q.buf) == 0 {
			q.buf = nil
		}
		q.cond.Broadcast()
		q.mu.Unlock()
		return n, nil
	}
	if q.err != nil {
		q.mu.Unlock()
		return 0, q.err
	}
	// Nothing held: from now on the writer hands lines over through the pipe.
	q.piped = true
	q.cond.Broadcast()
	q.mu.Unlock()
	return q.pr.Read(p)
}

// CloseWithError ends the input: the server reads what is held, then err (io.EOF for nil).
func (q *lineQueue) CloseWithError(err error) {
	if err == nil {
		err = io.EOF
	}
	q.mu.Lock()
	q.err = err
	q.cond.Broadcast()
	q.mu.Unlock()
	q.pw.CloseWithError(err)
}

// Close ends the reader's side: writes fail from then on.
func (q *lineQueue) Close() error {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
	return q.pr.Close()
}

// filterLines copies well-formed JSON-RPC lines from in to pass and answers the others on reply.
// onMessage, when set, sees each single message (not a batch) before it is passed on.
func filterLines(in io.Reader, pass io.Writer, reply io.Writer, logger *slog.Logger, onMessage func([]byte, envelope)) error {
	r := bufio.NewReaderSize(in, 64<<10)
	batchOK := false // whether the client asked for a protocol version that has batches
	for {
		line, tooLong, err := readLine(r, MaxStdioLine)
		if len(line) > 0 || tooLong {
			bad, env := check(line, tooLong)
			var out any = bad
			if bad == nil && line[0] == '[' {
				if errs := checkBatch(line, batchOK); errs != nil {
					bad, out = &errs[0], errs
					if len(errs) == 1 && string(errs[0].ID) == "null" {
						out = &errs[0] // an empty batch is answered with one error
					}
				}
			} else if bad == nil {
				batchOK = batchesAllowed(env, batchOK)
				if onMessage != nil {
					onMessage(line, env)
				}
			}
			if bad != nil {
				logger.Warn("stdio: rejected line", "code", bad.Error.Code, "bytes", len(line), "reason", bad.Error.Message)
				b, _ := json.Marshal(out)
				if _, werr := reply.Write(append(b, '\n')); werr != nil {
					return werr
				}
			} else if _, werr := pass.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// idProbeBytes is how much of an over-long line is kept to find its id: clients write "id" before
// the (large) params, so the start of the message holds it.
const idProbeBytes = 4096

// readLine returns the next line without its terminator. Past limit bytes the rest of the line is
// discarded and tooLong is set; line then holds only the line's first idProbeBytes, for probeID.
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit {
				tooLong = true
				if keep := idProbeBytes - len(line); keep > 0 {
					line = append(line, chunk[:min(keep, len(chunk))]...)
				}
				line = line[:min(len(line), idProbeBytes)]
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimSpace(line), tooLong, err
	}
}

// probeID returns the id of the JSON-RPC message whose first bytes are head (the message itself
// may be cut), or null when it cannot be read from there: the top-level members are scanned in
// order until "id", and a member that does not fit in head ends the scan.
func probeID(head []byte) json.RawMessage {
	null := json.RawMessage("null")
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return null
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return null
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return null
		}
		if key == "id" {
			if len(val) > 0 && (val[0] == '"' || val[0] == '-' || val[0] >= '0' && val[0] <= '9') {
				return val
			}
			return null
		}
	}
	return null
}

type errorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// check returns the error response for a line the SDK would choke on, or nil if it is fine,
// with whether it passes on the protocol version of an initialize request (see batchesAllowed).
func check(line []byte, tooLong bool) (*errorResponse, envelope) {
	resp := &errorResponse{JSONRPC: "2.0", ID: json.RawMessage("null")}
	switch {
	case tooLong:
		// Answered with the request's id, so the client's call fails now instead of waiting for
		// an answer that never comes; the session and its terminals go on.
		resp.ID = probeID(line)
		resp.Error.Code, resp.Error.Message = jsonrpc.CodeInvalidRequest, fmt.Sprintf("message longer than %d bytes; send less per call", MaxStdioLine)
		return resp, envelope{}
	case line[0] == '[':
		if !json.Valid(line) {
			resp.Error.Code, resp.Error.Message = jsonrpc.CodeParseError, "parse error: line is not valid JSON"
			return resp, envelope{}
		}
		return nil, envelope{} // batches are judged by checkBatch
	}
	env, err := readEnvelope(line)
	if err == nil {
		return nil, env
	}
	if !json.Valid(line) {
		resp.Error.Code, resp.Error.Message = jsonrpc.CodeParseError, "parse error: line is not valid JSON"
		return resp, envelope{}
	}
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &probe) == nil && len(probe.ID) > 0 {
		resp.ID = probe.ID
	}
	resp.Error.Code, resp.Error.Message = jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message"
	return resp, envelope{}
}

// envelope is what filterLines reads of a message: its id as written, its method and, for an
// initialize request, the protocol version it asks for.
type envelope struct {
	id              json.RawMessage
	request         bool // a method is named: a request or a notification
	method          string
	protocolVersion string
}

// errNotMessage: the value is JSON, but not a message the go-sdk decodes.
var errNotMessage = errors.New("not a JSON-RPC 2.0 message")

// maxMessageDepth is the go-sdk's nesting limit for a message: it refuses deeper JSON.
const maxMessageDepth = 1000

// readEnvelope accepts exactly the lines the go-sdk's jsonrpc.DecodeMessage accepts (a fuzz
// test holds the two together), with one pass of the standard decoder over the top-level
// members instead of the SDK's decoder, which takes a fresh 32 KB buffer for every message
// and would decode each line twice. Like the SDK it matches member names exactly, checks the
// type of every occurrence of a member it reads, and refuses JSON nested deeper than
// maxMessageDepth.
func readEnvelope(line []byte) (envelope, error) {
	var env envelope
	if tooDeep(line, maxMessageDepth) {
		return env, errNotMessage
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	tok, err := dec.Token()
	if err != nil {
		return env, err
	}
	if tok == nil {
		return env, errNotMessage // null decodes to an empty message, without a version
	}
	if tok != json.Delim('{') {
		return env, errNotMessage
	}
	var version string
	var hasMethod, hasID bool
	var params json.RawMessage
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return env, err
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return env, err
		}
		switch key {
		case "jsonrpc":
			if version, err = jsonString(val); err != nil {
				return env, err
			}
		case "id":
			env.id, hasID = val, true
			if !validID(val) {
				return env, errNotMessage
			}
		case "method":
			hasMethod, env.request = true, true
			if env.method, err = jsonString(val); err != nil {
				return env, err
			}
		case "params":
			params = val
		case "error":
			var e struct {
				Code    int64           `json:"code"`
				Message string          `json:"message"`
				Data    json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal(val, &e); err != nil {
				return env, err
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return env, err
	}
	if dec.More() {
		return env, errNotMessage // a second value on the line
	}
	if version != "2.0" {
		return env, errNotMessage
	}
	if !hasMethod && (!hasID || string(env.id) == "null") {
		return env, errNotMessage // a response needs an id
	}
	if hasMethod && env.method == "initialize" && len(params) > 0 {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(params, &p) == nil {
			env.protocolVersion = p.ProtocolVersion
		}
	}
	return env, nil
}

// jsonString decodes a JSON string or null (the empty string), as a Go string field does.
func jsonString(val json.RawMessage) (string, error) {
	var s string
	err := json.Unmarshal(val, &s)
	return s, err
}

// validID reports whether the go-sdk takes val as an id: a number, a string or null.
func validID(val json.RawMessage) bool {
	switch val[0] {
	case '"', 'n':
		return true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var f float64
		return json.Unmarshal(val, &f) == nil
	}
	return false
}

// tooDeep reports whether data nests objects and arrays deeper than limit, counting brackets
// outside strings as the go-sdk does before it decodes.
func tooDeep(data []byte, limit int) bool {
	depth := 0
	inString, escaped := false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > limit {
				return true
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
}

// batchVersion is the first protocol version without JSON-RPC batches; the go-sdk ends the
// session when a client on it (or later) sends one.
const batchVersion = "2025-06-18"

// batchesAllowed returns whether batches are allowed after a message: an initialize request
// sets it from the version the client asks for; other messages leave it as it was.
func batchesAllowed(env envelope, was bool) bool {
	if env.method != "initialize" {
		return was
	}
	v := env.protocolVersion
	return v != "" && v < batchVersion
}

// checkBatch returns the errors answering a batch the SDK would end the session over: an empty
// batch, a batch with an element that is not a JSON-RPC message, or any batch on a protocol
// version without batches. It returns nil for a batch to pass on. Every element with an id gets
// an error, so no client waits for an answer that never comes; an empty batch gets one error with
// a null id.
func checkBatch(line []byte, batchOK bool) []errorResponse {
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil || len(elems) == 0 {
		r := errorResponse{JSONRPC: "2.0", ID: json.RawMessage("null")}
		r.Error.Code, r.Error.Message = jsonrpc.CodeInvalidRequest, "invalid request: empty batch"
		return []errorResponse{r}
	}
	reason := ""
	if !batchOK {
		reason = fmt.Sprintf("invalid request: JSON-RPC batches are not part of protocol %s and later; send one message per line", batchVersion)
	} else {
		for i, e := range elems {
			if _, err := readEnvelope(e); err != nil {
				reason = fmt.Sprintf("invalid request: batch element %d is not a JSON-RPC 2.0 message", i)
				break
			}
		}
	}
	if reason == "" {
		return nil
	}
	var out []errorResponse
	for _, e := range elems {
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(e, &probe) != nil || len(probe.ID) == 0 || string(probe.ID) == "null" {
			continue // a notification (or garbage): nothing waits for an answer
		}
		r := errorResponse{JSONRPC: "2.0", ID: probe.ID}
		r.Error.Code, r.Error.Message = jsonrpc.CodeInvalidRequest, reason
		out = append(out, r)
	}
	if len(out) == 0 {
		// Only notifications: nothing waits for an answer; one error with a null id says why
		// they were dropped.
		r := errorResponse{JSONRPC: "2.0", ID: json.RawMessage("null")}
		r.Error.Code, r.Error.Message = jsonrpc.CodeInvalidRequest, reason
		return []errorResponse{r}
	}
	return out
}

// lockedWriter serialises whole-message writes from the SDK and from filterLines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// CodeNotInitialized answers a request sent before initialize. The go-sdk refuses such a request
// with code 0, which clients cannot tell from success codes; the TypeScript SDK answers -32000
// ("Server not initialized"), and so does toolhost.
const CodeNotInitialized = -32000

// sdkNotInitialized is the go-sdk's message for a request before initialize.
const sdkNotInitialized = "is invalid during session initialization"

// notInitializedOut gives the go-sdk's answer to a request before initialize the code
// CodeNotInitialized (see fixNotInitialized) on its way to w. The SDK writes one whole message
// (or SSE event) per Write.
type notInitializedOut struct{ w io.Writer }

func (n notInitializedOut) Write(p []byte) (int, error) {
	if fixed, ok := fixNotInitialized(p); ok {
		if _, err := n.w.Write(fixed); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return n.w.Write(p)
}
