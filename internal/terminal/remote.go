package terminal

import (
	"context"
	"fmt"
	"syscall"
	"time"
)

// The Manager's methods when its sessions live in a terminal host: each is a request, answered
// by the host's Manager as the method would have answered here.

func (h *hostClient) create(ctx context.Context, conv string, spec SessionSpec) (Info, error) {
	spec.Env = h.withoutWithheld(spec.Env)
	var inf Info
	err := h.call(ctx, "create", hostArgs{Conv: conv, Spec: &spec}, &inf, nil, false)
	return inf, err
}

func (h *hostClient) send(ctx context.Context, conv, id string, in Input) (Output, error) {
	var out Output
	w := &wireInput{Text: in.Text, PressEnter: in.PressEnter, Keys: in.Keys, User: in.User, Wait: *toWireQuery(in.Wait)}
	err := h.call(ctx, "send", hostArgs{Conv: conv, ID: id, In: w}, &out, in.Wait.Progress, false)
	return out, err
}

func (h *hostClient) output(ctx context.Context, conv, id string, q OutputQuery) (Output, error) {
	var out Output
	// Not idempotent: an answer moves the conversation's read cursor.
	err := h.call(ctx, "output", hostArgs{Conv: conv, ID: id, Q: toWireQuery(q)}, &out, q.Progress, false)
	return out, err
}

func (h *hostClient) screen(conv, id string) (string, error) {
	ctx, cancel := bg()
	defer cancel()
	var s string
	err := h.call(ctx, "screen", hostArgs{Conv: conv, ID: id}, &s, nil, true)
	return s, err
}

func (h *hostClient) history(conv, id string, offset, length int64) (HistoryPage, error) {
	ctx, cancel := bg()
	defer cancel()
	var p HistoryPage
	err := h.call(ctx, "history", hostArgs{Conv: conv, ID: id, Offset: offset, Length: length}, &p, nil, true)
	return p, err
}

func (h *hostClient) resize(conv, id string, cols, rows int) error {
	ctx, cancel := bg()
	defer cancel()
	return h.call(ctx, "resize", hostArgs{Conv: conv, ID: id, Cols: cols, Rows: rows}, nil, nil, false)
}

func (h *hostClient) list(ctx context.Context, conv string) ([]Info, error) {
	var out []Info
	err := h.call(ctx, "list", hostArgs{Conv: conv}, &out, nil, true)
	return out, err
}

func (h *hostClient) sessions(conv string) []Info {
	ctx, cancel := bg()
	defer cancel()
	var out []Info
	if err := h.call(ctx, "sessions", hostArgs{Conv: conv}, &out, nil, true); err != nil {
		return nil
	}
	return out
}

func (h *hostClient) closeWith(ctx context.Context, conv, id string, sig syscall.Signal) error {
	return h.call(ctx, "close", hostArgs{Conv: conv, ID: id, Signal: int(sig)}, nil, nil, false)
}

func (h *hostClient) run(ctx context.Context, conv string, spec RunSpec) (RunResult, error) {
	cfg := h.m.cfg
	// This server's settings decide a command's defaults, whichever server started the host.
	timeout, yield, err := runLimits(cfg, spec)
	if err != nil {
		return RunResult{}, err
	}
	// This server's gate decides the start here, before the request, rather than when the
	// host asks: one round trip less (the host would ask this server anyway).
	if _, err := h.connect(ctx); err != nil {
		return RunResult{}, fmt.Errorf("terminal host unavailable: %w", err)
	}
	h.mu.Lock()
	temp := h.hello.Temp
	h.mu.Unlock()
	start, err := gateRun(ctx, cfg.Gate, conv, spec, temp)
	if err != nil {
		return RunResult{}, err
	}
	w := &wireRun{Command: spec.Command, Cwd: spec.Cwd, Env: h.withoutWithheld(spec.Env), Timeout: timeout,
		Yield: yield, MaxBytes: spec.MaxBytes, Check: spec.Check, Progress: spec.Progress != nil, Start: start}
	var r RunResult
	err = h.call(ctx, "run", hostArgs{Conv: conv, Run: w}, &r, spec.Progress, false)
	return r, err
}

func (h *hostClient) wait(ctx context.Context, conv, id string, d time.Duration) (RunResult, error) {
	var r RunResult
	err := h.call(ctx, "wait", hostArgs{Conv: conv, ID: id, D: int64(min(max(d, 0), h.m.cfg.MaxWait))}, &r, nil, false)
	return r, err
}

func (h *hostClient) cancel(conv, id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), cancelWait+5*time.Second)
	defer cancel()
	return h.call(ctx, "cancel", hostArgs{Conv: conv, ID: id}, nil, nil, false)
}

func (h *hostClient) commands(conv string) []CommandRecord {
	ctx, cancel := bg()
	defer cancel()
	var out []CommandRecord
	if err := h.call(ctx, "commands", hostArgs{Conv: conv}, &out, nil, true); err != nil {
		return nil
	}
	return out
}

func (h *hostClient) conversations() []string {
	ctx, cancel := bg()
	defer cancel()
	var out []string
	if err := h.call(ctx, "conversations", hostArgs{}, &out, nil, true); err != nil {
		return nil
	}
	return out
}

func (h *hostClient) flushRecording(conv, id string) {
	ctx, cancel := bg()
	defer cancel()
	_ = h.call(ctx, "flushrec", hostArgs{Conv: conv, ID: id}, nil, nil, true)
}
