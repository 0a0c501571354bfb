package terminal

import (
	"os"
	"sync"
	"time"
)

// deadlineWriter gives a writer that blocks and has no deadline of its own (a Windows pipe
// opened for synchronous I/O) the write deadline a pollable file has. A write runs aside and
// is given up on at the deadline; it goes on until the other side reads or the writer is
// closed, and the next write waits for it first, so that what is typed never interleaves.
type deadlineWriter struct {
	write func(p []byte) (int, error)

	mu       sync.Mutex
	deadline time.Time
	pending  chan struct{} // closed when a write given up on has ended; nil if none
}

func (w *deadlineWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	w.deadline = t
	w.mu.Unlock()
	return nil
}

// Write writes all of p, or fails with os.ErrDeadlineExceeded once the deadline has passed.
func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var timeout <-chan time.Time
	if !w.deadline.IsZero() {
		d := time.Until(w.deadline)
		if d <= 0 {
			return 0, os.ErrDeadlineExceeded
		}
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	if w.pending != nil {
		select {
		case <-w.pending:
			w.pending = nil
		case <-timeout:
			return 0, os.ErrDeadlineExceeded
		}
	}
	buf := append([]byte(nil), p...) // the caller may reuse p once Write returns
	var n int
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		n, err = w.write(buf)
	}()
	select {
	case <-done:
		return n, err
	case <-timeout:
		w.pending = done
		return 0, os.ErrDeadlineExceeded
	}
}
