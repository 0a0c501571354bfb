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
		if rec, ok := m.persist.load(ctx, conv, id); ok && rec.Kind == "command" && rec.Recovered {
			// A command of a terminal host that crashed: ended, with no status to report.
			return RunResult{}, fmt.Errorf("command %q ended with its terminal host, which died; get_output shows what it printed", id)
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
