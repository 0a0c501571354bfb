package terminal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"toolhost/internal/owner"
	"toolhost/internal/proctest"
)

func TestProgressAndUpdateHooks(t *testing.T) {
	var mu sync.Mutex
	updates := map[string]int{}
	m := newTestManager(t, Config{OnUpdate: func(conv, id string) {
		mu.Lock()
		updates[conv+"/"+id]++
		mu.Unlock()
	}})
	createSession(t, m, "c", "p")
	var chunks []string
	var cmu sync.Mutex
	out, err := m.Send(context.Background(), "c", "p", Input{
		Text: "for i in 1 2 3; do echo tick-$i; sleep 0.2; done; echo all-done",
		Wait: OutputQuery{WaitMS: testWait, WaitFor: "all-done", Progress: func(c string) {
			cmu.Lock()
			chunks = append(chunks, c)
			cmu.Unlock()
		}},
	})
	if err != nil || !out.Matched {
		t.Fatalf("Send() = %+v, %v", out, err)
	}
	cmu.Lock()
	streamed := strings.Join(chunks, "")
	cmu.Unlock()
	if !strings.Contains(streamed, "tick-1") || len(chunks) < 2 {
		t.Errorf("progress chunks = %q, want tick-1 streamed in several chunks while waiting", chunks)
	}
	waitUntil(t, func() bool { mu.Lock(); defer mu.Unlock(); return updates["c/p"] > 0 }, "an OnUpdate call")
}

// TestSetOnUpdate: a hook set after the manager runs gets the updates Config.OnUpdate would.
func TestSetOnUpdate(t *testing.T) {
	var mu sync.Mutex
	updates := 0
	m := newTestManager(t, Config{})
	m.SetOnUpdate(func(conv, id string) {
		mu.Lock()
		updates++
		mu.Unlock()
	})
	createSession(t, m, "c", "late")
	if _, err := m.Send(context.Background(), "c", "late", Input{Text: "echo hooked", Wait: OutputQuery{WaitMS: testWait, WaitFor: "hooked"}}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool { mu.Lock(); defer mu.Unlock(); return updates > 0 }, "a call of the hook set by SetOnUpdate")
}

func TestIdleTimeoutClosesSession(t *testing.T) {
	m := newTestManager(t, Config{IdleTimeout: 300 * time.Millisecond, CloseGrace: 200 * time.Millisecond})
	createSession(t, m, "c", "idle")
	waitUntil(t, func() bool {
		s, _ := m.lookup("c", "idle")
		return s == nil
	}, "the idle session to be closed")
}

func TestShutdownKillsEscapees(t *testing.T) {
	m, err := NewManager(Config{CloseGrace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	createSession(t, m, "c", "a")
	runIn(t, m, "c", "a", fmt.Sprintf("setsid sleep %s & sleep %s &", procArg("1004.5"), procArg("1004.25")))
	r, err := m.Run(context.Background(), "c", RunSpec{Command: fmt.Sprintf("setsid sleep %s & sleep %s", procArg("1004.75"), procArg("1004.125")), Cwd: t.TempDir(), Yield: 50 * time.Millisecond})
	if err != nil || !r.Running {
		t.Fatalf("Run() = %+v, %v; want still running", r, err)
	}
	waitUntil(t, func() bool { return len(proctest.Matching(procArg("1004."))) >= 4 }, "four sleeps")
	if err := m.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown() = %v", err)
	}
	waitNoProcs(t, procArg("1004."))
	if _, err := m.Create(context.Background(), "c", SessionSpec{Cwd: t.TempDir()}); !errors.Is(err, ErrShutdown) {
		t.Errorf("Create() after Shutdown = %v, want ErrShutdown", err)
	}
}

func TestFloodsStayBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("floods for a few seconds")
	}
	m := newTestManager(t, Config{HistoryBytes: 256 << 10})
	ctx := context.Background()
	r, err := m.Run(ctx, "c", RunSpec{Command: "cat /dev/urandom | base64", Cwd: t.TempDir(), Timeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("Run() = %v", err)
	}
	if !r.TimedOut || r.StdoutBytes < 1<<20 || len(r.Stdout) > defaultMaxBytes+200 {
		t.Errorf("Run(urandom) timed out %v, produced %d, returned %d bytes; want a timeout, a flood and a bounded answer", r.TimedOut, r.StdoutBytes, len(r.Stdout))
	}
	zero := int64(0)
	out, err := m.Output(ctx, "c", r.ID, OutputQuery{Cursor: &zero, MaxBytes: maxMaxBytes})
	if err != nil || out.Dropped == 0 || len(out.Text) > 257<<10 {
		t.Errorf("Output(flood) dropped %d, %d bytes, %v; want the ring bound", out.Dropped, len(out.Text), err)
	}

	createSession(t, m, "c", "yes")
	if _, err := m.Send(ctx, "c", "yes", Input{Text: "yes"}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		out, err := m.Output(ctx, "c", "yes", OutputQuery{WaitMS: 200})
		if err != nil || len(out.Text) > defaultMaxBytes+100 {
			t.Fatalf("Output(yes) = %d bytes, %v; want at most the default budget", len(out.Text), err)
		}
	}
	out, err = m.Send(ctx, "c", "yes", Input{Keys: []string{"ctrl-c"}, Wait: OutputQuery{WaitMS: testWait}})
	for i := 0; i < 10 && err == nil && !out.Finished; i++ {
		out, err = m.Output(ctx, "c", "yes", OutputQuery{WaitMS: testWait})
	}
	if err != nil || !out.Finished {
		t.Errorf("ctrl-c did not stop yes: %+v, %v", out.Reason, err)
	}
	page, _ := m.History("c", "yes", 0, 1)
	if page.End-page.Start > 256<<10 {
		t.Errorf("History retains %d bytes, want at most %d", page.End-page.Start, 256<<10)
	}
}

func TestRunCanceledKeepsCommand(t *testing.T) {
	m := newTestManager(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	r, err := m.Run(ctx, "c", RunSpec{Command: "sleep 0.5; echo survived", Cwd: t.TempDir()})
	if !errors.Is(err, context.DeadlineExceeded) || !r.Running || r.ID == "" {
		t.Fatalf("Run(canceled) = %+v, %v; want the running command's id and the context error", r, err)
	}
	out, err := m.Output(context.Background(), "c", r.ID, OutputQuery{WaitMS: testWait, WaitFor: "survived"})
	if err != nil || !out.Matched {
		t.Errorf("Output(%s) = %+v, %v; want the command to have kept running", r.ID, out, err)
	}
}

// TestRunCancelledKillsTree: a cancelled caller takes the command's whole tree with it (also a
// background child in its own process group), and the result says so with the exit status.
func TestRunCancelledKillsTree(t *testing.T) {
	m := newTestManager(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	num := procArg("7")
	marker := "sleep " + num
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancel()
	}()
	r, err := m.Run(ctx, "c", RunSpec{Command: "setsid " + marker + " & " + marker + "; echo survived", Cwd: t.TempDir(), Yield: 30 * time.Second})
	if !errors.Is(err, context.Canceled) || r.Running || !r.Cancelled || r.ExitCode <= 0 {
		t.Fatalf("Run(cancelled) = %+v, %v; want a finished, cancelled result with the exit status", r, err)
	}
	if strings.Contains(r.Stdout, "survived") {
		t.Errorf("the command went on after the cancel: %q", r.Stdout)
	}
	if pids := proctest.Matching(num); len(pids) > 0 {
		t.Errorf("processes %v of the cancelled command are left", pids)
	}
}

func TestPlainShFallback(t *testing.T) {
	m := newTestManager(t, Config{Shell: "sh"})
	inf := createSession(t, m, "c", "plain")
	if inf.ExitCodes {
		t.Errorf("Create(sh) ExitCodes = true, want false (no prompt markers)")
	}
	ctx := context.Background()
	out, err := m.Send(ctx, "c", "plain", Input{Text: "echo plain-$((6*7))", Wait: OutputQuery{WaitMS: testWait, WaitFor: "plain-42"}})
	if err != nil || !out.Matched || out.ExitCode != nil {
		t.Errorf("Send(sh) = %+v, %v; want a match and no exit code", out, err)
	}
	out, err = m.Send(ctx, "c", "plain", Input{Text: "echo settled", Wait: OutputQuery{WaitMS: testWait}})
	if err != nil || out.Reason != "settled" {
		t.Errorf("Send(sh, no wait_for) reason = %q, %v; want settled", out.Reason, err)
	}
}

// TestTypeAheadReachesNewProgram sends a line to a program immediately after starting it:
// the send must wait until the shell has handed the terminal over.
func TestTypeAheadReachesNewProgram(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "c", "ta")
	ctx := context.Background()
	tests := []struct{ name, program string }{
		{name: "cat", program: "cat"},
		{name: "bc", program: "bc -q"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !hasProgram(strings.Fields(tt.program)[0]) {
				t.Skipf("%s not installed", tt.program)
			}
			// Rounds, because ctrl-d sent right after a line editor printed used to be lost
			// now and then (see awaitEditorMode).
			for round := 0; round < 5; round++ {
				if _, err := m.Send(ctx, "c", "ta", Input{Text: tt.program}); err != nil {
					t.Fatal(err)
				}
				out, err := m.Send(ctx, "c", "ta", Input{Text: "42", Wait: OutputQuery{WaitMS: testWait, WaitFor: `(?m)^42\r?\n`}})
				if err != nil || !out.Matched {
					t.Fatalf("Send(42) to %s = %q (%s), %v; want the program's own 42", tt.program, out.Text, out.Reason, err)
				}
				out, err = m.Send(ctx, "c", "ta", Input{Keys: []string{"ctrl-d"}, Wait: OutputQuery{WaitMS: 5000}})
				for i := 0; i < 3 && err == nil && !out.Finished; i++ {
					out, err = m.Output(ctx, "c", "ta", OutputQuery{WaitMS: 5000})
				}
				if err != nil || !out.Finished {
					t.Fatalf("round %d: ctrl-d to %s: %+v, %v", round, tt.program, out, err)
				}
			}
		})
	}
}

// TestWaitForBackgroundReadiness: a server started with & completes its command at once;
// a later wait for its readiness must still wait for the pattern.
func TestWaitForBackgroundReadiness(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "c", "bg")
	runIn(t, m, "c", "bg", "sh -c 'sleep 0.5; echo bg-$((20+1))-ready; exec sleep "+procArg("1006.5")+"' &")
	out, err := m.Output(context.Background(), "c", "bg", OutputQuery{WaitMS: testWait, WaitFor: "bg-21-ready"})
	if err != nil || !out.Matched || out.Reason != "match" {
		t.Fatalf("Output(wait_for) = %+v, %v; want a match, not an early return", out, err)
	}
	if err := m.Close(context.Background(), "c", "bg"); err != nil {
		t.Fatal(err)
	}
	waitNoProcs(t, procArg("1006.5"))
}

// TestSettleIgnoresEcho: typing into a program that then computes silently must not count
// the echo of the typed line as output that settled.
func TestSettleIgnoresEcho(t *testing.T) {
	if !hasProgram("python3") {
		t.Skip("python3 not installed")
	}
	m := newTestManager(t, Config{Settle: 100 * time.Millisecond})
	createSession(t, m, "c", "py")
	ctx := context.Background()
	if out, err := m.Send(ctx, "c", "py", Input{Text: "python3 -i -q", Wait: OutputQuery{WaitMS: testWait, WaitFor: ">>> "}}); err != nil || !out.Matched {
		t.Fatalf("start python: %+v, %v", out, err)
	}
	out, err := m.Send(ctx, "c", "py", Input{Text: "import time; time.sleep(0.6); print('woke')", Wait: OutputQuery{WaitMS: testWait}})
	if err != nil || out.Reason != "settled" || !strings.Contains(out.Text, "woke") {
		t.Errorf("Send() = %q (%s), %v; want it to settle only after the program printed", out.Text, out.Reason, err)
	}
}

func TestScreenFullScreenProgram(t *testing.T) {
	m := newTestManager(t, Config{})
	createSession(t, m, "c", "fs")
	ctx := context.Background()
	// Enter the alternate screen, draw at fixed positions, wait; leave it on exit. CENTERED is
	// drawn last because the test waits for it before reading the screen.
	prog := `sh -c 'printf "\033[?1049h\033[2J\033[H"; printf "\033[1;1HTOP"; printf "\033[5;10HCENTERED-$((6*7))"; exec sleep 100'`
	if out, err := m.Send(ctx, "c", "fs", Input{Text: prog, Wait: OutputQuery{WaitMS: testWait, WaitFor: "CENTERED-42"}}); err != nil || !out.Matched {
		t.Fatalf("Send() = %+v, %v", out, err)
	}
	screen, err := m.Screen("c", "fs")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(screen, "\n")
	if len(lines) < 5 || lines[0] != "TOP" || lines[4] != strings.Repeat(" ", 9)+"CENTERED-42" {
		t.Errorf("Screen() = %q, want TOP on row 1 and CENTERED-42 at row 5 column 10", screen)
	}
	out, err := m.Send(ctx, "c", "fs", Input{Keys: []string{"ctrl-c"}, Wait: OutputQuery{WaitMS: testWait}})
	for i := 0; i < 10 && err == nil && !out.Finished; i++ {
		out, err = m.Output(ctx, "c", "fs", OutputQuery{WaitMS: testWait})
	}
	runIn(t, m, "c", "fs", `printf '\033[?1049l'`)
	screen, _ = m.Screen("c", "fs")
	if strings.Contains(screen, "CENTERED-42") || !strings.Contains(screen, "exec sleep 100") {
		t.Errorf("Screen() after leaving the alternate screen = %q, want the shell's main screen back", screen)
	}
}

// TestCtrlCWhenServerIgnoresSIGINT: a server started in the background by a non-interactive
// shell runs with SIGINT ignored; its sessions must still be interruptible.
func TestCtrlCWhenServerIgnoresSIGINT(t *testing.T) {
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT)
	t.Cleanup(func() { signal.Reset(syscall.SIGINT, syscall.SIGQUIT) })
	m := newTestManager(t, Config{})
	createSession(t, m, "c", "int")
	ctx := context.Background()
	out, err := m.Send(ctx, "c", "int", Input{Text: "sh -c 'echo up-$((1+1)); exec sleep 1007.5'", Wait: OutputQuery{WaitMS: testWait, WaitFor: "up-2"}})
	if err != nil || !out.Matched {
		t.Fatalf("Send() = %+v, %v", out, err)
	}
	out, err = m.Send(ctx, "c", "int", Input{Keys: []string{"ctrl-c"}, Wait: OutputQuery{WaitMS: testWait}})
	for i := 0; i < 10 && err == nil && !out.Finished; i++ {
		out, err = m.Output(ctx, "c", "int", OutputQuery{WaitMS: 2000})
	}
	if err != nil || !out.Finished || out.ExitCode == nil || *out.ExitCode != 130 {
		t.Fatalf("ctrl-c with SIGINT ignored in the server: %+v, %v; want exit status 130", out.Reason, err)
	}
}

// TestSweepsOrphansOfDeadInstances: processes of a toolhost that was SIGKILLed (its marker
// names a pid that is gone, or a zombie) are ended when the next manager starts; those of a
// live instance are left alone.
func TestSweepsOrphansOfDeadInstances(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatalf("run true: %v", err)
	}
	start := func(owner int, arg string) *exec.Cmd {
		cmd := exec.Command("sleep", arg)
		cmd.Env = append(os.Environ(), markerEnv+"="+strconv.Itoa(owner)+"-0123456789ab/conv/s1")
		if err := cmd.Start(); err != nil {
			t.Fatalf("start sleep %s: %v", arg, err)
		}
		go func() { _ = cmd.Wait() }()
		return cmd
	}
	start(gone.Process.Pid, procArg("1007.25"))
	live := start(os.Getpid(), procArg("1007.5"))
	t.Cleanup(func() { _ = live.Process.Kill() })
	// A server killed with SIGKILL whose parent has not reaped it yet is a zombie: it is
	// gone, and what it left runs unobserved (markers of this version name the owner ID).
	zombie := exec.Command("sleep", "1000")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	zid := owner.ID{PID: zombie.Process.Pid, Boot: owner.Self().Boot}
	_ = zombie.Process.Kill()
	t.Cleanup(func() { _ = zombie.Wait() })
	for i := 0; i < 1000 && !owner.Exited(zid.PID); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	cmd := exec.Command("sleep", procArg("1007.75"))
	cmd.Env = append(os.Environ(), markerEnv+"="+zid.String()+"-0123456789ab/conv/s2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait() }()
	newTestManager(t, Config{CloseGrace: 200 * time.Millisecond})
	waitNoProcs(t, procArg("1007.25"))
	waitNoProcs(t, procArg("1007.75"))
	if got := proctest.Matching(procArg("1007.5")); len(got) != 1 {
		t.Errorf("processes of a live instance after the sweep = %v, want the one sleep", got)
	}
}
