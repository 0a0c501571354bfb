package terminal

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestKeysText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ls -la\r", "ls -la⏎"},
		{"a\tb\x7f\x03", "a⇥b⌫^C"},
		{"\x1b[A\x1b[B\x1bOC\x1b[D\x1b", "↑↓→←⎋"},
		{"héllo\n", "héllo⏎"},
		{"\xff", "\uFFFD"},
	}
	for _, tt := range tests {
		if got := KeysText(tt.in); got != tt.want {
			t.Errorf("KeysText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestUserInputsNote(t *testing.T) {
	at := time.Date(2026, 12, 6, 20, 41, 3, 0, time.UTC)
	tests := []struct {
		name  string
		typed []Typed
		want  string
	}{
		{"nothing", nil, ""},
		{"keys merge", []Typed{{At: at, Via: "console", Text: "l"}, {At: at, Via: "console", Text: "s"}, {At: at.Add(2 * time.Second), Via: "console", Text: "\r"}},
			"⟦user typed (console 20:41:03-20:41:05): ls⏎⟧"},
		{"two places", []Typed{{At: at, Via: "console", Text: "y\r"}, {At: at, Via: "attach", Text: "n\r"}},
			"⟦user typed (console 20:41:03): y⏎⟧\n⟦user typed (attach 20:41:03): n⏎⟧"},
		{"not echoed", []Typed{{At: at, Via: "attach", Text: "hunter2", Hidden: true}, {At: at, Via: "attach", Text: "\r", Hidden: true}},
			"⟦user typed (attach 20:41:03): 8 characters the terminal did not echo (a password or other secret; not shown)⟧"},
		{"secret masked", []Typed{{At: at, Via: "console", Text: "export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789\r"}},
			"⟦user typed (console 20:41:03): export GITHUB_TOKEN=***⏎⟧"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := NewUserInputs()
			for _, ty := range tt.typed {
				u.Add("c", "s1", ty)
			}
			if got := u.Take("c", "s1"); got != tt.want {
				t.Errorf("note = %q\nwant   %q", got, tt.want)
			}
			if again := u.Take("c", "s1"); again != "" {
				t.Errorf("second Take = %q, want nothing", again)
			}
		})
	}
}

// TestUserInputsBounds: the text kept per session stops at maxTypedBytes (the rest is
// counted), and at most maxTypedSessions sessions are kept, the stalest dropped first.
func TestUserInputsBounds(t *testing.T) {
	for _, n := range []int{maxTypedBytes - 1, maxTypedBytes, maxTypedBytes + 1, 10 * maxTypedBytes} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			u := NewUserInputs()
			u.Add("c", "s1", Typed{Via: "console", Text: strings.Repeat("x", n)})
			note := u.Take("c", "s1")
			kept := strings.Count(note, "x")
			if kept != min(n, maxTypedBytes) {
				t.Errorf("kept %d of %d bytes, want %d", kept, n, min(n, maxTypedBytes))
			}
			if more := n > maxTypedBytes; more != strings.Contains(note, fmt.Sprintf("typed %d more bytes", n-maxTypedBytes)) {
				t.Errorf("note of %d bytes says more = %v: %q", n, !more, note[len(note)-60:])
			}
		})
	}
	u := NewUserInputs()
	for i := range maxTypedSessions + 1 {
		u.Add("c", fmt.Sprint("s", i), Typed{Via: "console", Text: "x"})
	}
	if got := u.Take("c", "s0"); got != "" {
		t.Errorf("the stalest session was kept past the bound: %q", got)
	}
	if got := u.Take("c", fmt.Sprint("s", maxTypedSessions)); got == "" {
		t.Error("the newest session was dropped")
	}
}
