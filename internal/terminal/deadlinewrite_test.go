package terminal

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

// pipeWriter is a deadlineWriter over a real pipe's blocking write; r reads what arrived.
func pipeWriter(t *testing.T) (w *deadlineWriter, r *os.File) {
	t.Helper()
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// The raw descriptor, written without the runtime poller: it blocks as a synchronous
	// Windows pipe does.
	fd := int(pw.Fd())
	t.Cleanup(func() { pw.Close(); r.Close() })
	return &deadlineWriter{write: func(p []byte) (int, error) { return writeFD(fd, p) }}, r
}

func TestDeadlineWriter(t *testing.T) {
	t.Run("no deadline writes", func(t *testing.T) {
		w, r := pipeWriter(t)
		if n, err := w.Write([]byte("abc")); n != 3 || err != nil {
			t.Fatalf("Write(abc) = %d, %v; want 3, nil", n, err)
		}
		got := make([]byte, 3)
		io.ReadFull(r, got)
		if string(got) != "abc" {
			t.Errorf("read %q, want abc", got)
		}
	})
	t.Run("a deadline passed fails at once", func(t *testing.T) {
		w, _ := pipeWriter(t)
		w.SetWriteDeadline(time.Now().Add(-time.Millisecond))
		if n, err := w.Write([]byte("x")); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("Write past the deadline = %d, %v; want 0, os.ErrDeadlineExceeded", n, err)
		}
	})
	t.Run("a blocked write gives up at the deadline; the next waits for it and keeps the order", func(t *testing.T) {
		w, r := pipeWriter(t)
		big := bytes.Repeat([]byte("a"), 4<<20) // far over any pipe buffer: blocks until read
		w.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
		start := time.Now()
		if n, err := w.Write(big); n != 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("Write(4 MiB) to a pipe nobody reads = %d, %v; want 0, os.ErrDeadlineExceeded", n, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("Write returned after %v, want about the 50ms deadline", d)
		}
		// Still blocked behind the first: the second write gives up too.
		w.SetWriteDeadline(time.Now().Add(20 * time.Millisecond))
		if _, err := w.Write([]byte("b")); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("second Write behind a blocked one = %v, want os.ErrDeadlineExceeded", err)
		}
		// Once the reader drains the pipe, the first write ends and the next one follows it.
		got := make(chan []byte)
		go func() {
			all := make([]byte, len(big)+1)
			io.ReadFull(r, all)
			got <- all
		}()
		w.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if n, err := w.Write([]byte("c")); n != 1 || err != nil {
			t.Fatalf("Write(c) after the reader drained = %d, %v; want 1, nil", n, err)
		}
		all := <-got
		if !bytes.Equal(all[:len(big)], big) || all[len(big)] != 'c' {
			t.Errorf("the pipe carried %d bytes ending %q; want the 4 MiB then c", len(all), all[len(all)-1:])
		}
	})
}
