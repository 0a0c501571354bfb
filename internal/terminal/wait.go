package terminal

import (
	"context"
	"fmt"
	"time"
)

// Wait waits up to d (capped by Config.MaxWait) for the one-shot command id to finish and returns
// its result, Running still set when it has not. Unlike Output it reads nothing, so the
// conversation's read cursor stays where get_output left it: a tool that runs a command and parses
// its result later (run_tests) waits with it. ErrNoSession when id is not a command of conv.
func (m *Manager) Wait(ctx context.Context, conv, id string, d time.Duration) (RunResult, error) {
	if h := m.remote(ctx); h != nil {
		return h.wait(ctx, conv, id, d)
	}
	_, j := m.lookup(conv, id)
	if j == nil {
		if s, _ := m.lookup(conv, id); s != nil {
			return RunResult{}, fmt.Errorf("%w: %q is a session, not a command", ErrInvalid, id)
		}
		return RunResult{}, noSession(conv, id)
	}
	d = min(max(d, 0), m.cfg.MaxWait)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-j.done:
	case <-t.C:
	case <-ctx.Done():
		return RunResult{}, ctx.Err()
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lastUse = time.Now()
	return j.resultLocked(defaultMaxBytes), nil
}
