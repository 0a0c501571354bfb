package terminal

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"toolhost/authz/cmdrules"
	"toolhost/internal/gate"
	"toolhost/internal/sandbox"
)

// The terminal host's wire: one JSON object a line on a unix stream socket, in both directions.
// Either side sends requests ("q") and answers the other's ("r"); the server's requests are
// the Manager's methods, the host's are the gate's decisions it asks the server for while it
// serves one of them (Re names that request). "c" cancels a request, "p" carries a chunk of
// output for a request's progress callback, "e" is an event of the host (a session changed).

// frame is one message.
type frame struct {
	T  string          `json:"t"`
	ID uint64          `json:"id,omitempty"`
	Re uint64          `json:"re,omitempty"`
	Op string          `json:"op,omitempty"`
	A  json.RawMessage `json:"a,omitempty"`
	R  json.RawMessage `json:"r,omitempty"`
	E  *wireError      `json:"e,omitempty"`
	// DL is a request's deadline (Unix nanoseconds), so that the host's wait ends as the
	// caller's does, with context.DeadlineExceeded.
	DL int64 `json:"dl,omitempty"`
	// S is a progress chunk.
	S string `json:"s,omitempty"`
}

// ErrHostGone means the connection to the terminal host broke while a call was in flight (the
// host was killed): the call's outcome is unknown; the sessions it held have ended.
var ErrHostGone = errors.New("the terminal host ended; its sessions have ended (list_sessions shows them with their output)")

// wireError carries an error across the socket with what callers test it for: a sentinel of
// this package, of the gate or the sandbox, a command rules refusal, a context error.
type wireError struct {
	Kind    string            `json:"kind,omitempty"`
	Msg     string            `json:"msg"`
	Refusal *cmdrules.Refusal `json:"refusal,omitempty"`
}

// wireSentinels are the errors that keep their identity across the wire, by name.
var wireSentinels = map[string]error{
	"no_session":  ErrNoSession,
	"limit":       ErrLimit,
	"invalid":     ErrInvalid,
	"ended":       ErrEnded,
	"bad_cwd":     ErrBadCwd,
	"shutdown":    ErrShutdown,
	"incomplete":  gate.ErrIncomplete,
	"unavailable": sandbox.ErrUnavailable,
	"no_rec":      ErrNoRecording,
	"canceled":    context.Canceled,
	"deadline":    context.DeadlineExceeded,
	"gone":        ErrHostGone,
}

func toWire(err error) *wireError {
	if err == nil {
		return nil
	}
	w := &wireError{Msg: err.Error()}
	var r *cmdrules.Refusal
	if errors.As(err, &r) {
		w.Kind, w.Refusal = "refusal", r
		return w
	}
	for name, s := range wireSentinels {
		if errors.Is(err, s) {
			w.Kind = name
			break
		}
	}
	return w
}

// remoteError is an error that came over the wire: its text as it was, and Is/As as the
// original answered them.
type remoteError struct {
	msg      string
	sentinel error
	refusal  *cmdrules.Refusal
}

func (e *remoteError) Error() string { return e.msg }

func (e *remoteError) Unwrap() []error {
	var out []error
	if e.sentinel != nil {
		out = append(out, e.sentinel)
	}
	if e.refusal != nil {
		out = append(out, e.refusal)
	}
	return out
}

func (w *wireError) err() error {
	if w == nil {
		return nil
	}
	if w.Kind == "refusal" && w.Refusal != nil {
		return w.Refusal
	}
	return &remoteError{msg: w.Msg, sentinel: wireSentinels[w.Kind]}
}

// rpcHandler serves a request of the other side; re is the id the other side gave it.
type rpcHandler func(ctx context.Context, p *rpcPeer, op string, args json.RawMessage, re uint64) (any, error)

// rpcPeer is one end of a connection.
type rpcPeer struct {
	conn   net.Conn
	handle rpcHandler
	// onEvent sees the other side's events, on the reading goroutine: it must not block.
	onEvent func(op string, args json.RawMessage)

	wmu sync.Mutex
	w   *bufio.Writer
	enc *json.Encoder

	mu      sync.Mutex
	next    uint64
	pending map[uint64]*rpcCall
	serving map[uint64]context.CancelFunc
	closed  bool
	done    chan struct{}
	err     error
}

type rpcCall struct {
	ch       chan frame
	ctx      context.Context
	progress chan string
}

func newRPCPeer(conn net.Conn, handle rpcHandler, onEvent func(string, json.RawMessage)) *rpcPeer {
	p := &rpcPeer{conn: conn, handle: handle, onEvent: onEvent, pending: map[uint64]*rpcCall{},
		serving: map[uint64]context.CancelFunc{}, done: make(chan struct{})}
	p.w = bufio.NewWriterSize(conn, 32<<10)
	p.enc = json.NewEncoder(p.w)
	p.enc.SetEscapeHTML(false)
	return p
}

func (p *rpcPeer) send(f frame) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if err := p.enc.Encode(f); err != nil {
		return err
	}
	return p.w.Flush()
}

// maxFrame bounds one line: the largest answer is a page of a megabyte of output, escaped.
const maxFrame = 16 << 20

// run reads frames until the connection ends, then fails every call in flight with
// ErrHostGone and cancels every request it serves.
func (p *rpcPeer) run() {
	r := bufio.NewReaderSize(p.conn, 64<<10)
	var err error
	for {
		var line []byte
		line, err = readLine(r, maxFrame)
		if err != nil {
			break
		}
		var f frame
		if err = json.Unmarshal(line, &f); err != nil {
			break
		}
		p.dispatch(f)
	}
	p.mu.Lock()
	p.closed = true
	if p.err == nil {
		p.err = err
	}
	pending := p.pending
	p.pending = map[uint64]*rpcCall{}
	serving := p.serving
	p.serving = map[uint64]context.CancelFunc{}
	p.mu.Unlock()
	for _, c := range pending {
		select {
		case c.ch <- frame{T: "r", E: &wireError{Kind: "gone", Msg: ErrHostGone.Error()}}:
		default:
		}
	}
	for _, cancel := range serving {
		cancel()
	}
	close(p.done)
	_ = p.conn.Close()
}

// readLine reads one newline-terminated line of at most limit bytes.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > limit {
			return nil, fmt.Errorf("terminal host: a message exceeds %d bytes", limit)
		}
		if err == nil {
			if buf == nil {
				return chunk, nil
			}
			return append(buf, chunk...), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) && len(buf)+len(chunk) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		buf = append(buf, chunk...)
	}
}

func (p *rpcPeer) dispatch(f frame) {
	switch f.T {
	case "r":
		p.mu.Lock()
		c := p.pending[f.ID]
		delete(p.pending, f.ID)
		p.mu.Unlock()
		if c != nil {
			c.ch <- f
		}
	case "p":
		p.mu.Lock()
		c := p.pending[f.ID]
		p.mu.Unlock()
		if c != nil && c.progress != nil {
			select {
			case c.progress <- f.S:
			default: // a live view: a chunk the caller has no room for is dropped
			}
		}
	case "c":
		p.mu.Lock()
		cancel := p.serving[f.ID]
		p.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	case "e":
		if p.onEvent != nil {
			p.onEvent(f.Op, f.A)
		}
	case "q":
		ctx, cancel := context.WithCancel(context.Background())
		if f.DL > 0 {
			ctx, cancel = context.WithDeadline(context.Background(), time.Unix(0, f.DL))
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			cancel()
			return
		}
		p.serving[f.ID] = cancel
		p.mu.Unlock()
		go func() {
			res, err := p.handle(withServing(ctx, p, f.ID), p, f.Op, f.A, f.Re)
			p.mu.Lock()
			delete(p.serving, f.ID)
			p.mu.Unlock()
			cancel()
			out := frame{T: "r", ID: f.ID, E: toWire(err)}
			if res != nil {
				b, merr := json.Marshal(res)
				if merr != nil {
					out.E = toWire(fmt.Errorf("terminal host: encode %s: %w", f.Op, merr))
				} else {
					out.R = b
				}
			}
			_ = p.send(out)
		}()
	}
}

// servingKey marks a context as serving request id of peer p, so that the gate's questions
// asked while serving it go back to the peer that asked (with Re set).
type servingKey struct{}

type servingVal struct {
	p  *rpcPeer
	id uint64
}

func withServing(ctx context.Context, p *rpcPeer, id uint64) context.Context {
	return context.WithValue(ctx, servingKey{}, servingVal{p, id})
}

func servingFrom(ctx context.Context) (servingVal, bool) {
	v, ok := ctx.Value(servingKey{}).(servingVal)
	return v, ok
}

// cancelWait bounds how long a cancelled call waits for the other side's answer, which says
// how the work ended (a command killed with its tree).
const cancelWait = 10 * time.Second

// call sends a request and waits for its answer, which it decodes into out. A cancelled ctx is
// passed on: the other side cancels its work and answers (both its result and its error), as
// the local method would have. progress, when set, receives progress chunks.
func (p *rpcPeer) call(ctx context.Context, op string, args any, re uint64, out any, progress func(string)) error {
	a, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("terminal host: encode %s: %w", op, err)
	}
	c := &rpcCall{ch: make(chan frame, 1), ctx: ctx}
	if progress != nil {
		// The channel is never closed (the reader may hold it a moment after the call
		// ended); stop ends its consumer once what arrived before the answer is delivered.
		c.progress = make(chan string, 64)
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case s := <-c.progress:
					progress(s)
				case <-stop:
					for {
						select {
						case s := <-c.progress:
							progress(s)
						default:
							return
						}
					}
				}
			}
		}()
		defer func() { close(stop); <-done }()
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrHostGone
	}
	p.next++
	id := p.next
	p.pending[id] = c
	p.mu.Unlock()
	f := frame{T: "q", ID: id, Re: re, Op: op, A: a}
	if dl, ok := ctx.Deadline(); ok {
		f.DL = dl.UnixNano()
	}
	if err := p.send(f); err != nil {
		p.mu.Lock()
		delete(p.pending, id)
		p.mu.Unlock()
		return ErrHostGone
	}
	var r frame
	select {
	case r = <-c.ch:
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.Canceled) {
			_ = p.send(frame{T: "c", ID: id})
		}
		t := time.NewTimer(cancelWait)
		select {
		case r = <-c.ch:
		case <-t.C:
			p.mu.Lock()
			delete(p.pending, id)
			p.mu.Unlock()
			return ctx.Err()
		}
		t.Stop()
	}
	if len(r.R) > 0 && out != nil {
		if err := json.Unmarshal(r.R, out); err != nil {
			return fmt.Errorf("terminal host: decode %s: %w", op, err)
		}
	}
	return r.E.err()
}

// event sends an event; a broken connection is found by its reader.
func (p *rpcPeer) event(op string, args any) {
	a, err := json.Marshal(args)
	if err != nil {
		return
	}
	_ = p.send(frame{T: "e", Op: op, A: a})
}

// progress sends a chunk of output for request id.
func (p *rpcPeer) progress(id uint64, chunk string) {
	_ = p.send(frame{T: "p", ID: id, S: chunk})
}

// close ends the connection; run fails what is in flight.
func (p *rpcPeer) close() {
	_ = p.conn.Close()
}

// pendingCtx is the context of this side's call id, for the other side's questions about it.
func (p *rpcPeer) pendingCtx(id uint64) (context.Context, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.pending[id]; c != nil {
		return c.ctx, true
	}
	return nil, false
}
