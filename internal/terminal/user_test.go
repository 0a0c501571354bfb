package terminal

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolhost/authz/cmdrules"
	"toolhost/internal/gate"
	"toolhost/internal/sandbox"
)

// TestUserInput: what the user types (Input.User) reaches the shell whatever the command
// rules say to a model, and typing it neither reads output nor moves the conversation's read
// cursor: the model's next read still starts where it left off.
func TestUserInput(t *testing.T) {
	dir := t.TempDir()
	g, err := gate.New(gate.Config{Mode: sandbox.ModeOff, Workdir: dir, Rules: []string{"deny touch*"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	m := newTestManager(t, Config{Gate: g})
	ctx := context.Background()
	inf, err := m.Create(ctx, "c", SessionSpec{Name: "s", Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	var r *cmdrules.Refusal
	if _, err := m.Send(ctx, "c", inf.ID, Input{Text: "touch by-model"}); !errors.As(err, &r) {
		t.Fatalf("a model's denied line = %v, want a refusal", err)
	}
	runIn(t, m, "c", inf.ID, "echo before-user")
	// Unread output the model has not seen yet.
	if _, err := m.Send(ctx, "c", inf.ID, Input{Text: "echo unread-by-model"}); err != nil {
		t.Fatal(err)
	}
	// The user types key by key, as a terminal sends them.
	for _, k := range []string{"t", "o", "u", "c", "h", " by-user", "\r"} {
		out, err := m.Send(ctx, "c", inf.ID, Input{Text: k, PressEnter: new(false), User: true})
		if err != nil {
			t.Fatalf("the user's %q = %v", k, err)
		}
		if out.Text != "" || out.NextCursor != 0 {
			t.Fatalf("the user's input read output: %+v", out)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "by-user")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the user's line did not run")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The model's own read (its cursor), without wait_for: the engine skips the echo of the
	// line submitted last when it matches one.
	var text string
	for !strings.Contains(text, "touch by-user") && time.Now().Before(deadline) {
		out, err := m.Output(ctx, "c", inf.ID, OutputQuery{WaitMS: 200})
		if err != nil {
			t.Fatal(err)
		}
		text += out.Text
	}
	if !strings.Contains(text, "unread-by-model") {
		t.Errorf("the model's next read lost output from before the user typed: %q", text)
	}
	if _, err := os.Stat(filepath.Join(dir, "by-model")); err == nil {
		t.Error("the model's denied line ran")
	}
	for _, s := range m.Sessions("c") {
		if s.ID == inf.ID && s.LastCommand != userLine {
			t.Errorf("last command = %q, want %q (the engine saw only the user's enter)", s.LastCommand, userLine)
		}
	}
}

func TestSubmittedText(t *testing.T) {
	no := false
	tests := []struct {
		in   Input
		want string
	}{
		{Input{Text: "ls"}, "ls"},
		{Input{Text: "ls -la\r", PressEnter: &no, User: true}, "ls -la"},
		{Input{Text: "echo a\recho b\r", PressEnter: &no, User: true}, "echo b"},
		{Input{Text: "\r", PressEnter: &no, User: true}, userLine},
		{Input{Text: "\x1b[A\r", PressEnter: &no, User: true}, userLine},
	}
	for _, tt := range tests {
		if got := submittedText(tt.in); got != tt.want {
			t.Errorf("submittedText(%q, user %v) = %q, want %q", tt.in.Text, tt.in.User, got, tt.want)
		}
	}
}
