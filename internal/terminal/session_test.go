//go:build unix

package terminal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"toolhost/internal/proctest"
	"toolhost/store/storetest"

	"golang.org/x/sys/unix"
)

func TestPromptMarkerExitCodes(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "c", "sh")
	tests := []struct {
		name, cmd string
		want      int
		wantOut   string
	}{
		{name: "true", cmd: "true", want: 0},
		{name: "false", cmd: "false", want: 1},
		{name: "subshell exit", cmd: "(exit 42)", want: 42},
		{name: "output and status", cmd: "echo hi-there; (exit 3)", want: 3, wantOut: "hi-there"},
		{name: "missing command", cmd: "no-such-command-xyz", want: 127},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, out := runIn(t, m, "c", "sh", tt.cmd)
			if out.ExitCode == nil || *out.ExitCode != tt.want {
				t.Fatalf("exit code of %q = %v, want %d (output %q)", tt.cmd, out.ExitCode, tt.want, text)
			}
			if !strings.Contains(text, tt.wantOut) {
				t.Errorf("output of %q = %q, want it to contain %q", tt.cmd, text, tt.wantOut)
			}
			if strings.Contains(text, "133;") {
				t.Errorf("output of %q = %q leaks prompt markers", tt.cmd, text)
			}
		})
	}
	infos, err := m.List(context.Background(), "c")
	if err != nil || len(infos) != 1 || infos[0].LastCommand != "no-such-command-xyz" || *infos[0].ExitCode != 127 {
		t.Errorf("List() = %+v, %v, want one session with last command and exit code 127", infos, err)
	}
}

func TestWaitForReadinessAndInterrupt(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "c", "dev")
	ctx := context.Background()
	// A fake dev server: becomes ready after a moment and then runs until interrupted. One
	// process throughout, so ctrl-c cannot fall between two foreground jobs of the shell.
	out, err := m.Send(ctx, "c", "dev", Input{
		Text: "sh -c 'sleep 0.3; echo Listening on port $((2000*2)); exec sleep 100'",
		Wait: OutputQuery{WaitMS: testWait, WaitFor: `Listening on port \d+`},
	})
	if err != nil {
		t.Fatalf("Send() = %v", err)
	}
	if !out.Matched || out.Match != "Listening on port 4000" || out.Finished || !out.CommandRunning {
		t.Fatalf("Send(wait_for) = %+v, want a match while the command runs", out)
	}
	out, err = m.Send(ctx, "c", "dev", Input{Keys: []string{"ctrl-c"}, Wait: OutputQuery{WaitMS: testWait}})
	if err != nil {
		t.Fatalf("Send(ctrl-c) = %v", err)
	}
	for i := 0; i < 10 && !out.Finished; i++ {
		out, _ = m.Output(ctx, "c", "dev", OutputQuery{WaitMS: testWait})
	}
	if !out.Finished || out.ExitCode == nil || *out.ExitCode != 130 {
		t.Fatalf("after ctrl-c: %+v, want finished with exit code 130", out)
	}
}

func TestInteractiveProgram(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "c", "repl")
	ctx := context.Background()
	var start, prompt, expr, want string
	switch {
	case hasProgram("python3"):
		start, prompt, expr, want = "python3 -i -q", ">>> ", "6*7", "42"
	case hasProgram("bc"):
		start, prompt, expr, want = "bc -q", "", "6*7", "42"
	default:
		start, prompt, expr, want = "cat", "", "echo-me-42", "echo-me-42"
	}
	// Each Send waits itself: a Send answers with the output so far, which advances the
	// conversation's cursor past it.
	if prompt != "" {
		if out, err := m.Send(ctx, "c", "repl", Input{Text: start, Wait: OutputQuery{WaitMS: testWait, WaitFor: regexp.QuoteMeta(prompt)}}); err != nil || !out.Matched {
			t.Fatalf("Send(%q) = %+v, %v; want the prompt %q", start, out, err, prompt)
		}
	} else if _, err := m.Send(ctx, "c", "repl", Input{Text: start}); err != nil {
		t.Fatalf("Send(%q) = %v", start, err)
	}
	// Wait for the next prompt too: keys typed while a program computes are cooked by the
	// line discipline and may be lost, exactly as on a real terminal.
	re := `(?m)^` + want + `\r?\n` + regexp.QuoteMeta(prompt)
	if out, err := m.Send(ctx, "c", "repl", Input{Text: expr, Wait: OutputQuery{WaitMS: testWait, WaitFor: re}}); err != nil || !out.Matched {
		t.Fatalf("Send(%q) = %+v, %v; want a match for %q", expr, out, err, re)
	}
	// ctrl-d ends the program and the shell reports the status again.
	out, err := m.Send(ctx, "c", "repl", Input{Keys: []string{"ctrl-d"}, Wait: OutputQuery{WaitMS: testWait}})
	for i := 0; i < 10 && err == nil && !out.Finished; i++ {
		out, err = m.Output(ctx, "c", "repl", OutputQuery{WaitMS: testWait})
	}
	if err != nil || !out.Finished || out.ExitCode == nil || *out.ExitCode != 0 {
		t.Fatalf("after ctrl-d: %+v, %v; want finished with status 0", out, err)
	}
}

func TestScreenRendersCarriageReturns(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "c", "bar")
	text, _ := runIn(t, m, "c", "bar", `for p in 10 40 70; do printf '\rprogress %3d%%' $p; sleep 0.05; done; printf '\rprogress 100%%\n'; printf 'caf\303'; printf '\251 ok\n'`)
	if !strings.Contains(text, "progress 100%") {
		t.Errorf("log = %q, want it to contain the final progress line", text)
	}
	screen, err := m.Screen("c", "bar")
	if err != nil {
		t.Fatalf("Screen() = %v", err)
	}
	lines := strings.Split(screen, "\n")
	var bar, utf string
	for _, l := range lines {
		if strings.HasPrefix(l, "progress") {
			bar = l
		}
		if strings.HasPrefix(l, "caf") {
			utf = l
		}
	}
	if bar != "progress 100%" {
		t.Errorf("screen progress line = %q, want %q; screen:\n%s", bar, "progress 100%", screen)
	}
	if utf != "café ok" {
		t.Errorf("screen UTF-8 line = %q, want %q", utf, "café ok")
	}
	if !strings.Contains(text, "café ok") {
		t.Errorf("log = %q, want UTF-8 split across writes reassembled as %q", text, "café ok")
	}
}

func TestHistoryOverflowMarker(t *testing.T) {
	m := newTestManager(t, Config{HistoryBytes: 8 << 10})
	createSession(t, m, "c", "big")
	runIn(t, m, "c", "big", "seq 1 20000")
	zero := int64(0)
	out, err := m.Output(context.Background(), "c", "big", OutputQuery{Cursor: &zero, MaxBytes: 1 << 20})
	if err != nil {
		t.Fatalf("Output() = %v", err)
	}
	if out.Dropped == 0 || !strings.HasPrefix(out.Text, "[... ") || !strings.Contains(out.Text, "20000\n") {
		t.Errorf("Output(cursor 0) dropped %d, text %.80q...; want a dropped marker and the newest lines", out.Dropped, out.Text)
	}
	if len(out.Text) > 9<<10 {
		t.Errorf("Output() returned %d bytes, want at most the 8 KiB history plus a marker", len(out.Text))
	}
	page, err := m.History("c", "big", 0, 100)
	if err != nil || page.Offset != page.Start || page.Start == 0 || !page.HasMore || len(page.Text) > 200 {
		t.Errorf("History(0, 100) = %+v, %v; want a page from the oldest retained byte", page, err)
	}
	// Paging with max_bytes: has_more and next cursor.
	small, err := m.Output(context.Background(), "c", "big", OutputQuery{Cursor: &page.Start, MaxBytes: 100})
	if err != nil || !small.HasMore || small.NextCursor != page.Start+100 {
		t.Errorf("Output(max 100) = has_more %v next %d, %v; want has_more and next %d", small.HasMore, small.NextCursor, err, page.Start+100)
	}
}

func TestCancelWaitingCall(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "c", "idle")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := m.Output(ctx, "c", "idle", OutputQuery{WaitMS: 60000, WaitFor: "never-printed"})
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Output() after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Output() did not return after its context was canceled")
	}
	// The session is still usable.
	if _, out := runIn(t, m, "c", "idle", "true"); *out.ExitCode != 0 {
		t.Errorf("after cancel: exit code %d, want 0", *out.ExitCode)
	}
}

func TestConversationsIsolated(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "alice", "main")
	createSession(t, m, "bob", "main")
	createSession(t, m, "alice", "only-alice")
	// Both conversations work at the same time.
	var a, b string
	var errA, errB error
	done := make(chan struct{})
	run := func(conv string, text *string, err *error) {
		out, e := m.Send(context.Background(), conv, "main", Input{Text: "for i in 1 2 3; do echo from-" + conv + "; sleep 0.05; done", Wait: OutputQuery{WaitMS: testWait, WaitFor: "(?s)from-" + conv + ".*from-" + conv + ".*from-" + conv}})
		*text, *err = out.Text, e
		done <- struct{}{}
	}
	go run("alice", &a, &errA)
	go run("bob", &b, &errB)
	<-done
	<-done
	if errA != nil || errB != nil {
		t.Fatalf("Send() = %v, %v", errA, errB)
	}
	if strings.Contains(a, "from-bob") || strings.Contains(b, "from-alice") || !strings.Contains(a, "from-alice") || !strings.Contains(b, "from-bob") {
		t.Errorf("outputs leaked between conversations: alice %q, bob %q", a, b)
	}
	if _, err := m.Output(context.Background(), "bob", "only-alice", OutputQuery{}); !errors.Is(err, ErrNoSession) {
		t.Errorf("Output(bob, only-alice) = %v, want ErrNoSession", err)
	}
	if err := m.Close(context.Background(), "bob", "only-alice"); !errors.Is(err, ErrNoSession) {
		t.Errorf("Close(bob, only-alice) = %v, want ErrNoSession", err)
	}
	la, _ := m.List(context.Background(), "alice")
	lb, _ := m.List(context.Background(), "bob")
	if len(la) != 2 || len(lb) != 1 {
		t.Errorf("List() = %d alice, %d bob sessions, want 2 and 1", len(la), len(lb))
	}
}

func TestCreateReuseRestartAndLimits(t *testing.T) {
	m := newTestManager(t, Config{MaxSessionsPerConversation: 2, MaxSessions: 3})
	ctx := context.Background()
	dir1, dir2 := t.TempDir(), t.TempDir()
	first, err := m.Create(ctx, "c", SessionSpec{Name: "w", Cwd: dir1})
	if err != nil {
		t.Fatalf("Create() = %v", err)
	}
	again, err := m.Create(ctx, "c", SessionSpec{Name: "w", Cwd: dir1})
	if err != nil || !again.Reused || again.PID != first.PID {
		t.Errorf("Create(same cwd) = %+v, %v; want the same session reused", again, err)
	}
	moved, err := m.Create(ctx, "c", SessionSpec{Name: "w", Cwd: dir2})
	if err != nil || !moved.Restarted || moved.PID == first.PID || moved.Cwd != dir2 {
		t.Errorf("Create(other cwd) = %+v, %v; want a restarted session in %s", moved, err, dir2)
	}
	second, err := m.Create(ctx, "c", SessionSpec{Cwd: dir1})
	if err != nil {
		t.Fatalf("Create(second) = %v", err)
	}
	if dflt, err := m.Create(ctx, "c", SessionSpec{Cwd: dir1}); err != nil || !dflt.Reused || dflt.ID != second.ID {
		t.Errorf("Create(no name again) = %+v, %v; want the conversation's default shell %s reused", dflt, err, second.ID)
	}
	if _, err := m.Create(ctx, "c", SessionSpec{Name: "third", Cwd: dir1}); !errors.Is(err, ErrLimit) {
		t.Errorf("Create(third in conversation) = %v, want ErrLimit", err)
	}
	if _, err := m.Create(ctx, "d", SessionSpec{Cwd: dir1}); err != nil {
		t.Fatalf("Create(other conversation) = %v", err)
	}
	if _, err := m.Create(ctx, "e", SessionSpec{Cwd: dir1}); !errors.Is(err, ErrLimit) {
		t.Errorf("Create(beyond total) = %v, want ErrLimit", err)
	}
	if _, err := m.Create(ctx, "e", SessionSpec{Cwd: dir1 + "/missing"}); !errors.Is(err, ErrBadCwd) {
		t.Errorf("Create(missing cwd) = %v, want ErrBadCwd", err)
	}
	for _, name := range []string{"bad name!", "cmd12", strings.Repeat("x", 65)} {
		if _, err := m.Create(ctx, "e", SessionSpec{Name: name, Cwd: dir1}); !errors.Is(err, ErrInvalid) {
			t.Errorf("Create(name %q) = %v, want ErrInvalid", name, err)
		}
	}
}

func TestCloseKillsEveryProcess(t *testing.T) {
	m := newTestManager(t, Config{CloseGrace: 500 * time.Millisecond})
	createSession(t, m, "c", "k")
	// A background job, a job-control process group and a setsid escapee holding the pts.
	runIn(t, m, "c", "k", fmt.Sprintf("sleep %s & set -m; sleep %s & setsid sleep %s & set +m; true", procArg("1001.25"), procArg("1001.5"), procArg("1001.75")))
	waitUntil(t, func() bool { return len(proctest.Matching(procArg("1001."))) == 3 }, "three sleeps running")
	if err := m.Close(context.Background(), "c", "k"); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	waitNoProcs(t, procArg("1001."))
	if z := zombieChildren(); len(z) > 0 {
		t.Errorf("zombies left: %v", z)
	}
	if _, err := m.Send(context.Background(), "c", "k", Input{Text: "true"}); !errors.Is(err, ErrNoSession) {
		t.Errorf("Send() after Close = %v, want ErrNoSession", err)
	}
}

func TestRestartShowsEndedSessions(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	st := storetest.OpenDir(t, dir)
	m1, err := NewManager(Config{Store: st})
	if err != nil {
		t.Fatalf("NewManager() = %v", err)
	}
	t.Cleanup(func() { m1.Shutdown(context.Background()) })
	if _, err := m1.Create(ctx, "c", SessionSpec{Name: "old", Cwd: t.TempDir()}); err != nil {
		t.Fatalf("Create() = %v", err)
	}
	runIn(t, m1, "c", "old", "echo last-words-before-restart; (exit 5)")
	// A session closed before the shutdown is recorded too.
	createSession(t, m1, "c", "closed-early")
	if err := m1.Close(ctx, "c", "closed-early"); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if err := m1.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown() = %v", err)
	}
	m2 := newTestManager(t, Config{Store: st})
	infos, err := m2.List(ctx, "c")
	if err != nil || len(infos) != 2 {
		t.Fatalf("List() after restart = %+v, %v; want the two old sessions", infos, err)
	}
	got := infos[0]
	if infos[1].ID != "closed-early" || infos[1].State != StateEnded {
		t.Errorf("List()[1] = %+v, want ended session closed-early", infos[1])
	}
	if got.ID != "old" || got.State != StateEnded || got.ExitCode == nil || *got.ExitCode != 5 || !strings.Contains(got.LastCommand, "last-words") {
		t.Errorf("List()[0] = %+v, want ended session old with exit code 5", got)
	}
	zero := int64(0)
	out, err := m2.Output(ctx, "c", "old", OutputQuery{Cursor: &zero})
	if err != nil || !strings.Contains(out.Text, "last-words-before-restart") || !out.Exited {
		t.Errorf("Output(ended) = %+v, %v; want the stored tail", out, err)
	}
	if _, err := m2.Send(ctx, "c", "old", Input{Text: "true"}); !errors.Is(err, ErrEnded) {
		t.Errorf("Send(ended) = %v, want ErrEnded", err)
	}
	if other, _ := m2.List(ctx, "other"); len(other) != 0 {
		t.Errorf("List(other) = %+v, want nothing", other)
	}
}

func TestResize(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "c", "r")
	if err := m.Resize("c", "r", 90, 30); err != nil {
		t.Fatalf("Resize() = %v", err)
	}
	text, _ := runIn(t, m, "c", "r", "stty size")
	if !strings.Contains(text, "30 90") {
		s, _ := m.lookup("c", "r")
		rows, cols, echo := ptyState(t, s)
		t.Errorf("stty size after Resize(90, 30) = %q, want 30 90 (kernel now says %d %d, echo %v)", text, rows, cols, echo)
	}
	if err := m.Resize("c", "r", 0, 30); !errors.Is(err, ErrInvalid) {
		t.Errorf("Resize(0, 30) = %v, want ErrInvalid", err)
	}
}

// TestResizeWhileLineEditorStarts: readline reads the window size and writes it back each
// time it takes the terminal for a prompt. A resize that lands in between was lost (stty
// said 24 80 after Resize(90, 30), about once in a few hundred runs under load). The stand-in
// shell below holds that window open for a second, or until the resize's SIGWINCH arrives,
// so that a resize that does not wait for the line editor loses every time.
func TestResizeWhileLineEditorStarts(t *testing.T) {
	// Named bash: the session then expects prompt markers and a line editor.
	shell := filepath.Join(t.TempDir(), "bash")
	const editor = `#!/bin/sh
size=$(stty size)
printf '\033]133;A\007'
trap 'kill $pid 2>/dev/null' WINCH
sleep 1 & pid=$!
wait $pid
trap - WINCH
stty rows "${size% *}" cols "${size#* }" -echo
printf '$ '
exec cat >/dev/null
`
	if err := os.WriteFile(shell, []byte(editor), 0o755); err != nil {
		t.Fatal(err)
	}
	m := newTestManager(t, Config{Shell: shell})
	createSession(t, m, "c", "r")
	if err := m.Resize("c", "r", 90, 30); err != nil {
		t.Fatalf("Resize() = %v", err)
	}
	s, _ := m.lookup("c", "r")
	// Once echo is off the editor has written back what it read: the size is final.
	rows, cols, echo := ptyState(t, s)
	for deadline := time.Now().Add(time.Minute); echo && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		rows, cols, echo = ptyState(t, s)
	}
	if echo {
		t.Fatalf("the stand-in line editor never switched echo off")
	}
	if rows != 30 || cols != 90 {
		t.Errorf("PTY size after Resize(90, 30) and the line editor's write-back = %d rows, %d cols; want 30, 90", rows, cols)
	}
}

// ptyState reads the session's window size and echo flag from the kernel.
func ptyState(t *testing.T, s *session) (rows, cols int, echo bool) {
	t.Helper()
	rc, err := s.f.(*filePTY).SyscallConn()
	if err != nil {
		t.Fatalf("SyscallConn() = %v", err)
	}
	var ws *unix.Winsize
	var tio *unix.Termios
	var werr, terr error
	if err := rc.Control(func(fd uintptr) {
		ws, werr = unix.IoctlGetWinsize(int(fd), unix.TIOCGWINSZ)
		tio, terr = unix.IoctlGetTermios(int(fd), ioctlGetTermios)
	}); err != nil {
		t.Fatalf("Control() = %v", err)
	}
	if werr != nil || terr != nil {
		t.Fatalf("TIOCGWINSZ, TCGETS = %v, %v", werr, terr)
	}
	return int(ws.Row), int(ws.Col), tio.Lflag&unix.ECHO != 0
}

// TestChildrenDoNotInheritPTYMaster guards conversation isolation and hang-up: a command or
// shell started after a session exists must not hold that session's PTY master open.
func TestChildrenDoNotInheritPTYMaster(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "a", "first")
	listFDs := `for f in /proc/$$/fd/*; do readlink "$f"; done`
	r, err := m.Run(context.Background(), "b", RunSpec{Command: listFDs, Cwd: t.TempDir(), Yield: 20 * time.Second})
	if err != nil {
		t.Fatalf("Run(%q) = %v", listFDs, err)
	}
	if strings.Contains(r.Stdout, "ptmx") {
		t.Errorf("Run(%q).Stdout = %q, want no /dev/ptmx among a command's descriptors", listFDs, r.Stdout)
	}
	createSession(t, m, "b", "second")
	text, _ := runIn(t, m, "b", "second", listFDs)
	if strings.Contains(text, "ptmx") {
		t.Errorf("second session's descriptors = %q, want no /dev/ptmx", text)
	}
}

// TestShellExitStatusAndLastWords: a session whose shell exits by itself reports the
// shell's status (not the previous command's) and the output printed on the way out.
func TestShellExitStatusAndLastWords(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "c", "x")
	runIn(t, m, "c", "x", "true")
	ctx := context.Background()
	out, err := m.Send(ctx, "c", "x", Input{Text: "echo bye-bye; exit 3", Wait: OutputQuery{WaitMS: testWait}})
	text := out.Text
	for i := 0; i < 10 && err == nil && !out.Exited; i++ {
		out, err = m.Output(ctx, "c", "x", OutputQuery{WaitMS: testWait})
		text += out.Text
	}
	if err != nil || !out.Exited || out.ExitCode == nil || *out.ExitCode != 3 || !strings.Contains(text, "bye-bye\n") {
		t.Fatalf("Send(exit 3) = exited %v, exit %v, text %q, %v; want exited with 3 after bye-bye", out.Exited, out.ExitCode, text, err)
	}
	infos, _ := m.List(ctx, "c")
	if len(infos) != 1 || infos[0].ExitCode == nil || *infos[0].ExitCode != 3 {
		t.Errorf("List() = %+v, want the session with exit code 3", infos)
	}
}

// TestContinuationPromptEndsStartWait: a line that leaves bash at its continuation prompt
// (an open quote) starts no command, so the next input must not wait for one to start.
func TestContinuationPromptEndsStartWait(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "c", "p")
	ctx := context.Background()
	out, err := m.Send(ctx, "c", "p", Input{Text: "echo 'open", Wait: OutputQuery{WaitMS: testWait, WaitFor: `> $`}})
	if err != nil || !out.Matched {
		t.Fatalf("Send(echo 'open) = %+v, %v; want the continuation prompt", out, err)
	}
	s, _ := m.lookup("c", "p")
	s.mu.Lock()
	cAtSend := s.cAtSend
	s.mu.Unlock()
	if cAtSend >= 0 {
		t.Errorf("after the continuation prompt the session still waits for a command start (cAtSend %d)", cAtSend)
	}
	text, _ := runIn(t, m, "c", "p", "closed'")
	if !strings.Contains(text, "open\nclosed\n") {
		t.Errorf("finishing the quoted line = %q, want the two-line echo", text)
	}
}

// TestEnterKeySubmitsCommand: a line submitted with the enter key (after press_enter false
// text, or up to recall one) is a new command; the previous one's completion must not be
// reported as its own.
func TestEnterKeySubmitsCommand(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "c", "k")
	runIn(t, m, "c", "k", "true")
	ctx := context.Background()
	no := false
	if _, err := m.Send(ctx, "c", "k", Input{Text: "sleep 1009.5", PressEnter: &no}); err != nil {
		t.Fatalf("Send(text without enter) = %v", err)
	}
	// sleep prints nothing, so the wait can only time out; keep it short.
	out, err := m.Send(ctx, "c", "k", Input{Keys: []string{"enter"}, Wait: OutputQuery{WaitMS: 500}})
	if err != nil || out.Finished {
		t.Errorf("Send(keys enter) while sleep runs = finished %v (reason %s), %v; want not finished", out.Finished, out.Reason, err)
	}
	out, err = m.Send(ctx, "c", "k", Input{Keys: []string{"ctrl-c"}, Wait: OutputQuery{WaitMS: testWait}})
	for i := 0; i < 10 && err == nil && !out.Finished; i++ {
		out, err = m.Output(ctx, "c", "k", OutputQuery{WaitMS: testWait})
	}
	if err != nil || !out.Finished || out.ExitCode == nil || *out.ExitCode != 130 {
		t.Errorf("after ctrl-c = finished %v exit %v, %v; want finished with 130", out.Finished, out.ExitCode, err)
	}
}
