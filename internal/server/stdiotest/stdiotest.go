// Package stdiotest is the client's end of a stdio session for tests: it writes lines to the
// server's input and reads the server's output a line at a time, all the time, as a client
// does, over in-memory pipes. It knows nothing of MCP; the test starts the server on ServerIn
// and ServerOut.
package stdiotest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"
)

// Client drives one session.
type Client struct {
	// ServerIn is what the server reads; ServerOut is where it writes.
	ServerIn  io.Reader
	ServerOut io.WriteCloser

	t     testing.TB
	in    *io.PipeWriter
	lines chan string
}

// New connects a client to pipes for a server; the test's end closes both.
func New(t testing.TB) *Client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &Client{ServerIn: inR, ServerOut: outW, t: t, in: inW, lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() { inW.Close(); outW.Close() })
	return c
}

// Send writes one line to the server.
func (c *Client) Send(line string) {
	c.t.Helper()
	if _, err := fmt.Fprintln(c.in, line); err != nil {
		c.t.Fatalf("write %s: %v", line, err)
	}
}

// CloseInput ends the server's input, as a client that exits does.
func (c *Client) CloseInput() { c.in.Close() }

// Recv returns the next line the server wrote, failing the test after wait.
func (c *Client) Recv(wait time.Duration) string {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatal("session ended")
		}
		return l
	case <-time.After(wait):
		c.t.Fatalf("no line within %s", wait)
	}
	return ""
}

// Quiet fails the test if the server writes a line within wait.
func (c *Client) Quiet(wait time.Duration) {
	c.t.Helper()
	select {
	case l := <-c.lines:
		c.t.Fatalf("unexpected line %s", l)
	case <-time.After(wait):
	}
}

// Log is a log destination a test reads while the session writes it.
type Log struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
