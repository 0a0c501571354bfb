package terminal

import (
	"context"
	"encoding/json"
	"time"

	"toolhost/internal/gate"
)

// What the server and the terminal host say to each other: the arguments of every request, in
// one shape (each operation reads the fields it needs), and the gate's questions.

// hostProto is the wire protocol's version; a server and a host of different versions do not
// talk (each binary has a host of its own anyway, see hostID).
const hostProto = 1

// hostArgs are a request's arguments.
type hostArgs struct {
	Conv string `json:"conv,omitempty"`
	ID   string `json:"id,omitempty"`

	Spec   *SessionSpec `json:"spec,omitempty"`
	Run    *wireRun     `json:"run,omitempty"`
	In     *wireInput   `json:"in,omitempty"`
	Q      *wireQuery   `json:"q,omitempty"`
	Offset int64        `json:"offset,omitempty"`
	Length int64        `json:"length,omitempty"`
	Cols   int          `json:"cols,omitempty"`
	Rows   int          `json:"rows,omitempty"`
	Signal int          `json:"signal,omitempty"`
	D      int64        `json:"d,omitempty"` // a duration, in nanoseconds
	Text   string       `json:"text,omitempty"`
	// Hello: the key that proves the caller may read the state directory, and the protocol.
	Key   string `json:"key,omitempty"`
	Proto int    `json:"proto,omitempty"`
}

// helloReply is what a host tells a server that connected.
type helloReply struct {
	PID      int    `json:"pid"`
	Instance string `json:"instance"`
	// Temp is the host's private TMPDIR, which the gate gives the processes the host starts
	// (gate.Request.Temp).
	Temp string `json:"temp"`
}

// wireQuery is an OutputQuery without its callback: Progress says whether to stream chunks.
type wireQuery struct {
	Cursor   *int64 `json:"cursor,omitempty"`
	MaxBytes int    `json:"max_bytes,omitempty"`
	WaitMS   int    `json:"wait_ms,omitempty"`
	WaitFor  string `json:"wait_for,omitempty"`
	Progress bool   `json:"progress,omitempty"`
}

func toWireQuery(q OutputQuery) *wireQuery {
	return &wireQuery{Cursor: q.Cursor, MaxBytes: q.MaxBytes, WaitMS: q.WaitMS, WaitFor: q.WaitFor, Progress: q.Progress != nil}
}

func (w *wireQuery) query(progress func(string)) OutputQuery {
	if w == nil {
		return OutputQuery{}
	}
	q := OutputQuery{Cursor: w.Cursor, MaxBytes: w.MaxBytes, WaitMS: w.WaitMS, WaitFor: w.WaitFor}
	if w.Progress {
		q.Progress = progress
	}
	return q
}

// wireInput is an Input.
type wireInput struct {
	Text       string    `json:"text,omitempty"`
	PressEnter *bool     `json:"press_enter,omitempty"`
	Keys       []string  `json:"keys,omitempty"`
	User       bool      `json:"user,omitempty"`
	Wait       wireQuery `json:"wait"`
}

// wireRun is a RunSpec without its callback.
type wireRun struct {
	Command  string            `json:"command"`
	Cwd      string            `json:"cwd"`
	Env      map[string]string `json:"env,omitempty"`
	Timeout  time.Duration     `json:"timeout,omitempty"`
	Yield    time.Duration     `json:"yield,omitempty"`
	MaxBytes int               `json:"max_bytes,omitempty"`
	Check    string            `json:"check,omitempty"`
	Progress bool              `json:"progress,omitempty"`
	// Start is the server's gate's decision on the command (gateRun), made before the request.
	Start *gate.Start `json:"start,omitempty"`
}

// gateCheck is a line the host asks the server's gate about, with the session's memory.
type gateCheck struct {
	Conv   string          `json:"conv"`
	Line   gate.Line       `json:"line"`
	Memory json.RawMessage `json:"memory,omitempty"`
}

// hostGate is the gate of the Manager a host runs: it asks the gate of the server whose request
// it serves (the one in ctx) for every decision, so that the host decides nothing itself.
type hostGate struct{}

// errNoAsker: a start outside any request (it never happens: the host starts nothing by itself).
var errNoAsker = &remoteError{msg: "terminal host: a start outside any server's request"}

func (hostGate) Start(ctx context.Context, req gate.Request) (*gate.Start, error) {
	sv, ok := servingFrom(ctx)
	if !ok {
		return nil, errNoAsker
	}
	var st gate.Start
	if err := sv.p.call(ctx, "gate.start", req, sv.id, &st, nil); err != nil {
		return nil, err
	}
	return &st, nil
}

func (hostGate) Check(ctx context.Context, conv string, l gate.Line) error {
	sv, ok := servingFrom(ctx)
	if !ok {
		return errNoAsker
	}
	q := gateCheck{Conv: conv, Line: l}
	if l.Memory != nil {
		b, err := json.Marshal(l.Memory)
		if err != nil {
			return err
		}
		q.Memory = b
	}
	q.Line.Memory = nil
	var mem json.RawMessage
	err := sv.p.call(ctx, "gate.check", q, sv.id, &mem, nil)
	if l.Memory != nil && len(mem) > 0 {
		// What the line defined counts even when it is refused (cmdrules.Defs).
		if uerr := json.Unmarshal(mem, l.Memory); uerr != nil && err == nil {
			err = uerr
		}
	}
	return err
}

// Withheld applies the rule every gate applies (toolhost's own variables never reach a child):
// the server took the variables its gate withholds out of a request's environment before
// sending it.
func (hostGate) Withheld(name string) bool { return (*gate.Gate)(nil).Withheld(name) }
