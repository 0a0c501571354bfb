package terminal

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTypeAheadQueuesTheNextLine replays the marker sequence of a line typed while a command
// ran, followed by a line sent at the prompt before the shell read the first one: the second
// line is finished only by its own completion marker, not by the typed-ahead line's.
func TestTypeAheadQueuesTheNextLine(t *testing.T) {
	const (
		prompt = "\x1b]133;A\x07$ "
		start  = "\x1b]133;C\x07"
		done0  = "\x1b]133;D;0\x07"
	)
	tests := []struct {
		name string
		// aheadAge is how long ago the command the line was typed into ended; past the
		// window the typed line is taken as input that command read.
		aheadAge time.Duration
		// wantAfterAhead is finished after the typed-ahead line's own completion.
		wantAfterAhead bool
	}{
		{"typed-ahead line still to run", 0, false},
		{"typed-ahead line was read as input", 2 * typeAheadWindow, true},
	}
	m, err := NewManager(Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &session{stream: newStream(1 << 16), m: m, id: "x", updCh: make(chan struct{}, 1), cols: 80, rows: 24,
				bash: true, ready: make(chan struct{}), sentDone: -1, cAtSend: -1}
			s.view = newLogView(s.log, s.onMarker)
			feed := func(out string) {
				t.Helper()
				s.ingest([]byte(out))
			}
			submit := func(line string) {
				s.mu.Lock()
				s.noteSubmitLocked(line)
				s.mu.Unlock()
			}
			finished := func() bool {
				s.mu.Lock()
				defer s.mu.Unlock()
				return s.finishedLocked()
			}

			feed(prompt)
			submit("sleep 1; echo ready")
			feed("sleep 1; echo ready\r\n" + start + "ready\r\n")
			submit("true") // typed while the first command still runs
			feed(done0 + prompt)
			if !finished() {
				t.Fatal("the line typed into a running command is not finished when that command ends")
			}
			s.mu.Lock()
			s.aheadAt = s.aheadAt.Add(-tc.aheadAge)
			s.mu.Unlock()
			submit("sh -c 'echo later'") // at the prompt, before the shell has read "true"
			feed("true\r\n" + start + done0 + prompt)
			if got := finished(); got != tc.wantAfterAhead {
				t.Fatalf("after the typed-ahead line's completion: finished = %v, want %v", got, tc.wantAfterAhead)
			}
			feed("sh -c 'echo later'\r\n" + start + "later\r\n" + done0 + prompt)
			if !finished() {
				t.Fatal("the line is not finished after its own completion marker")
			}
		})
	}
}

// TestLineAfterInterruptedPrompt: ctrl-c at the prompt (here a continuation prompt) makes
// bash draw a new prompt, with a completion marker of its own. When the ctrl-c's answer
// came back before that prompt did (its wait settled on the echoed ^C, as it does under
// load), the next line was reported finished by the interrupted prompt's marker, with
// exit 130, before it had run. A slow PROMPT_COMMAND holds the new prompt back here.
func TestLineAfterInterruptedPrompt(t *testing.T) {
	m := newTestManager(t, Config{})
	dir := t.TempDir()
	createSession(t, m, "c", "s")
	runIn(t, m, "c", "s", "PROMPT_COMMAND='ec=$?; sleep 1; (exit $ec); __toolhost_prompt'")
	ctx := context.Background()
	if out, err := m.Send(ctx, "c", "s", Input{Text: "for i in 1; do", Wait: OutputQuery{WaitMS: testWait, WaitFor: "> $"}}); err != nil || !out.Matched {
		t.Fatalf("Send(an unfinished statement) = %+v, %v; want the continuation prompt", out, err)
	}
	if _, err := m.Send(ctx, "c", "s", Input{Keys: []string{"ctrl-c"}}); err != nil {
		t.Fatal(err)
	}
	_, out := runIn(t, m, "c", "s", "touch "+filepath.Join(dir, "ran"))
	if _, err := os.Stat(filepath.Join(dir, "ran")); err != nil || out.ExitCode == nil || *out.ExitCode != 0 {
		t.Errorf("the line after ctrl-c = finished with exit %v while its file is %v; want finished with 0 after it ran", deref(out.ExitCode), err)
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
