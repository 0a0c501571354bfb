package terminal

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTypeAheadQueuesTheNextLine replays the markers of a line typed while a command ran: the
// line is finished by its own completion when the shell runs it, and a line sent at the
// prompt after it is finished only by its own completion, not by the typed-ahead line's.
func TestTypeAheadQueuesTheNextLine(t *testing.T) {
	const (
		prompt = "\x1b]133;A\x07$ "
		start  = "\x1b]133;C\x07"
		done0  = "\x1b]133;D;0\x07"
	)
	tests := []struct {
		name string
		// unread: the typed-ahead line is still in the terminal's input queue when the
		// command it was typed into ends.
		unread bool
		// shellRuns: the shell starts the typed-ahead line (else the command read it).
		shellRuns bool
	}{
		{"line still unread, the shell runs it", true, true},
		{"line read by the shell before its marker came", false, true},
		{"line read by the command as input", false, false},
	}
	m, err := NewManager(Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &session{stream: newStream(1 << 16), m: m, id: "x", updCh: make(chan struct{}, 1), cols: 80, rows: 24,
				bash: true, ready: make(chan struct{}), sentDone: -1, cAtSend: -1,
				inputPending: func() bool { return tc.unread }}
			s.view = newLogView(s.log, s.onMarker)
			feed := func(out string) { s.ingest([]byte(out)) }
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
			check := func(what string, want bool) {
				t.Helper()
				if got := finished(); got != want {
					t.Fatalf("%s: finished = %v, want %v", what, got, want)
				}
			}

			feed(prompt)
			submit("sleep 1; echo ready")
			feed("sleep 1; echo ready\r\n" + start + "ready\r\n")
			submit("true") // typed while the first command still runs
			feed(done0 + prompt)
			check("the command typed into has ended", false)
			if !tc.shellRuns {
				// No start marker within the grace: the command had read the line.
				s.mu.Lock()
				s.aheadUnsure = s.aheadUnsure.Add(-typeAheadGrace)
				s.mu.Unlock()
				check("the grace has passed without a start", true)
				submit("echo later")
				feed("echo later\r\n" + start + "later\r\n")
				check("the next line runs", false)
				feed(done0 + prompt)
				check("the next line has completed", true)
				return
			}
			if tc.unread {
				submit("echo later") // at the prompt, before the shell has read "true"
			}
			feed("true\r\n" + start)
			check("the typed-ahead line runs", false)
			feed(done0 + prompt)
			if !tc.unread {
				check("the typed-ahead line has completed", true)
				return
			}
			check("the typed-ahead line has completed, the next one not yet", false)
			feed("echo later\r\n" + start + "later\r\n" + done0 + prompt)
			check("the next line has completed", true)
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

// TestTypeAheadLineRunsAfterCommand types a line while a command runs: the wait ends with
// the typed line's own output and completion, not with the end of the command it was typed
// into.
func TestTypeAheadLineRunsAfterCommand(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "c", "q")
	ctx := context.Background()
	if _, err := m.Send(ctx, "c", "q", Input{Text: "sleep 0.3"}); err != nil {
		t.Fatal(err)
	}
	out, err := m.Send(ctx, "c", "q", Input{Text: "sleep 0.3; echo typed-$((6*7))", Wait: OutputQuery{WaitMS: testWait}})
	if err != nil || !out.Finished || !strings.Contains(out.Text, "typed-42") {
		t.Fatalf("typed-ahead line = %q (%s, finished %v), %v; want its own output and completion", out.Text, out.Reason, out.Finished, err)
	}
	// A line the command reads as input is finished when the command ends.
	if _, err := m.Send(ctx, "c", "q", Input{Text: "head -n1"}); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	out, err = m.Send(ctx, "c", "q", Input{Text: "input-line", Wait: OutputQuery{WaitMS: testWait}})
	if err != nil || !out.Finished || out.Reason != "finished" {
		t.Fatalf("line read by head = %q (%s, finished %v) after %v, %v; want finished", out.Text, out.Reason, out.Finished, time.Since(began), err)
	}
}
