// Package logtest collects what other goroutines write (a process's stderr, a logger's
// output) while a test reads it. Only tests import it.
package logtest

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer safe for one writer and readers in other goroutines; the zero
// value is ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
