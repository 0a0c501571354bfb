package terminal

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
	"testing"

	"toolhost/authz/cmdrules"
)

// TestWireErrorsKeepTheirIdentity: an error that crosses the socket to the terminal host and
// back keeps its text and what callers test it for.
func TestWireErrorsKeepTheirIdentity(t *testing.T) {
	for name, sentinel := range wireSentinels {
		t.Run(name, func(t *testing.T) {
			orig := fmt.Errorf("session %q: %w", "s1", sentinel)
			got := toWire(orig).err()
			if got.Error() != orig.Error() {
				t.Errorf("text = %q, want %q", got, orig)
			}
			if !errors.Is(got, sentinel) {
				t.Errorf("errors.Is(%v, %v) = false after the wire", got, sentinel)
			}
		})
	}
	refusal := &cmdrules.Refusal{Verdict: cmdrules.Verdict{Action: cmdrules.Deny}, Line: "rm -rf /", Dir: "/w", RequestID: "r-1"}
	got := toWire(fmt.Errorf("start: %w", refusal)).err()
	var r *cmdrules.Refusal
	if !errors.As(got, &r) || r.Line != "rm -rf /" || r.RequestID != "r-1" || r.Verdict.Action != cmdrules.Deny {
		t.Errorf("refusal after the wire = %#v", got)
	}
	if toWire(nil) != nil || (*wireError)(nil).err() != nil {
		t.Error("no error must stay no error")
	}
	plain := toWire(errors.New("something else")).err()
	if plain.Error() != "something else" || errors.Is(plain, ErrInvalid) {
		t.Errorf("a plain error after the wire = %#v", plain)
	}
}

// TestReadLineLimit: a message of the limit's size is read, one byte more is refused, and a
// line cut by the end of the connection is an error.
func TestReadLineLimit(t *testing.T) {
	const limit = 100
	for _, tc := range []struct {
		name string
		in   string
		ok   bool
	}{
		{"short", "abc\n", true},
		{"just under", strings.Repeat("x", limit-2) + "\n", true},
		{"at the limit", strings.Repeat("x", limit-1) + "\n", true},
		{"just over", strings.Repeat("x", limit) + "\n", false},
		{"far over", strings.Repeat("x", 10*limit) + "\n", false},
		{"cut off", "abc", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tc.in), 16) // lines longer than the buffer
			line, err := readLine(r, limit)
			if tc.ok && (err != nil || string(line) != tc.in) {
				t.Fatalf("readLine = %q, %v; want %q", line, err, tc.in)
			}
			if !tc.ok && err == nil {
				t.Fatalf("readLine = %q, want an error", line)
			}
		})
	}
}
