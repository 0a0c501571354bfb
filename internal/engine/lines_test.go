package engine

import (
	"bufio"
	"io"
	"testing"
	"time"
)

// lineReader reads a child's stdout lines with a deadline.
type lineReader struct {
	c chan string
}

func newLineReader(r io.Reader) *lineReader {
	l := &lineReader{c: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.c <- sc.Text()
		}
		close(l.c)
	}()
	return l
}

func (l *lineReader) next(t *testing.T) string {
	t.Helper()
	select {
	case s, ok := <-l.c:
		if !ok {
			t.Fatal("helper process ended")
		}
		return s
	case <-time.After(20 * time.Second):
		t.Fatal("no line from the helper process in 20s")
	}
	return ""
}

// rest returns the lines left once the child has ended.
func (l *lineReader) rest() []string {
	var out []string
	for s := range l.c {
		out = append(out, s)
	}
	return out
}
