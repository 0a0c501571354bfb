// Package casttest reads terminal recordings (asciicast v2) in tests: strictly, as the spec
// defines the format, and with asciinema's own player. Only tests import it.
package casttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Cast is an asciicast v2 file: a header object, then its events.
type Cast struct {
	Header map[string]any
	Events []Event
}

// Event is one event line [time, code, data]; Code is o (output), i (input), m (marker) or r
// (resize).
type Event struct {
	Time float64
	Code string
	Data string
}

// Parse reads b strictly: a header object with version 2 and a positive integer width and
// height, then events [time, code, data] with times that never go back and the codes the
// spec knows. Anything else fails the test.
func Parse(t testing.TB, b []byte) Cast {
	t.Helper()
	var c Cast
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	if !sc.Scan() {
		t.Fatal("empty cast")
	}
	if err := json.Unmarshal(sc.Bytes(), &c.Header); err != nil {
		t.Fatalf("header %q: %v", sc.Text(), err)
	}
	if c.Header["version"] != float64(2) {
		t.Errorf("header version = %v, want 2", c.Header["version"])
	}
	for _, k := range []string{"width", "height"} {
		if v, ok := c.Header[k].(float64); !ok || v < 1 || v != float64(int(v)) {
			t.Errorf("header %s = %v, want a positive integer", k, c.Header[k])
		}
	}
	last := 0.0
	for n := 2; sc.Scan(); n++ {
		var raw []json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil || len(raw) != 3 {
			t.Fatalf("line %d %q is not an event [time, code, data]: %v", n, sc.Text(), err)
		}
		var e Event
		if json.Unmarshal(raw[0], &e.Time) != nil || json.Unmarshal(raw[1], &e.Code) != nil || json.Unmarshal(raw[2], &e.Data) != nil {
			t.Fatalf("line %d %q: want a number, a string and a string", n, sc.Text())
		}
		if e.Time < last {
			t.Fatalf("line %d: time %v goes back from %v", n, e.Time, last)
		}
		last = e.Time
		if !strings.Contains("oimr", e.Code) || len(e.Code) != 1 {
			t.Fatalf("line %d: event code %q is not o, i, m or r", n, e.Code)
		}
		c.Events = append(c.Events, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return c
}

// Output is the text of the output events, in order.
func (c Cast) Output() string {
	var b strings.Builder
	for _, e := range c.Events {
		if e.Code == "o" {
			b.WriteString(e.Data)
		}
	}
	return b.String()
}
