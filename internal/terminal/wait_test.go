package terminal

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Wait reports a command's end without reading its output: get_output afterwards still starts
// at the conversation's own cursor.
func TestWaitLeavesTheCursor(t *testing.T) {
	m := newTestManager(t, Config{})
	ctx := context.Background()
	r, err := m.Run(ctx, "c", RunSpec{Command: "echo one; sleep 0.5; echo two", Cwd: t.TempDir(), Yield: 50 * time.Millisecond})
	if err != nil || !r.Running {
		t.Fatalf("Run() = %+v, %v; want a running command", r, err)
	}
	early, err := m.Wait(ctx, "c", r.ID, time.Millisecond)
	if err != nil || !early.Running {
		t.Fatalf("Wait(1ms) = %+v, %v; want it still running", early, err)
	}
	done, err := m.Wait(ctx, "c", r.ID, 30*time.Second)
	if err != nil || done.Running || done.ExitCode != 0 || done.Stdout != "one\ntwo\n" {
		t.Fatalf("Wait() = %+v, %v; want the finished command", done, err)
	}
	out, err := m.Output(ctx, "c", r.ID, OutputQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Text != "one\ntwo\n" {
		t.Errorf("get_output after Wait = %q, want everything from the start", out.Text)
	}
	if _, err := m.Wait(ctx, "other", r.ID, 0); !errors.Is(err, ErrNoSession) {
		t.Errorf("Wait(other conversation) = %v, want ErrNoSession", err)
	}
	inf := createSession(t, m, "c", "s")
	if _, err := m.Wait(ctx, "c", inf.ID, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("Wait(session) = %v, want ErrInvalid", err)
	}
}
