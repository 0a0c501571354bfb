package terminal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"toolhost/internal/gate"
	"toolhost/internal/proctest"
	"toolhost/internal/sandbox"
	"toolhost/internal/sandbox/sandboxtest"
)

func TestLineStateFeed(t *testing.T) {
	cases := []struct {
		name  string
		last  string
		typed []string
		want  []submitted
	}{
		{"a line", "", []string{"ls -la\r"}, []submitted{{text: "ls -la"}}},
		{"two lines in one text", "", []string{"a\nb\r"}, []submitted{{text: "a"}, {text: "b"}}},
		{"typed in two sends", "", []string{"git push --for", "ce\r"}, []submitted{{text: "git push --force"}}},
		{"backspace", "", []string{"lsx\x7f\r"}, []submitted{{text: "ls"}}},
		{"ctrl-c discards", "", []string{"rm -rf /\x03", "ls\r"}, []submitted{{text: "ls"}}},
		{"ctrl-u erases", "", []string{"rm -rf /\x15ls\r"}, []submitted{{text: "ls"}}},
		{"up recalls the last line", "make run", []string{"\x1b[A\r"}, []submitted{{text: "make run"}}},
		{"ctrl-p recalls too", "make run", []string{"\x10\r"}, []submitted{{text: "make run"}}},
		{"tab completion is unknown", "", []string{"git pu\tsh\r"}, []submitted{{text: "git push", unknown: true}}},
		{"arrows inside a line are unknown", "", []string{"git push\x1b[Dx\r"}, []submitted{{text: "git pushx", unknown: true}}},
		{"up after typing is unknown", "x", []string{"a\x1b[A\r"}, []submitted{{text: "a", unknown: true}}},
		{"ctrl-r search is unknown", "", []string{"\x12force\r"}, []submitted{{text: "force", unknown: true}}},
		{"unknown ends with the line", "", []string{"a\tb\r", "ls\r"}, []submitted{{text: "ab", unknown: true}, {text: "ls"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := lineState{last: c.last}
			var got []submitted
			for _, p := range c.typed {
				got = append(got, st.feed(p)...)
			}
			if len(got) != len(c.want) {
				t.Fatalf("feed(%q) = %+v, want %+v", c.typed, got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("feed(%q)[%d] = %+v, want %+v", c.typed, i, got[i], c.want[i])
				}
			}
		})
	}
}

var errRefused = errors.New("refused by the test rule")

// recorder is a Config.Gate that refuses lines containing "forbidden", reports statements
// ending in "do" as unfinished, and records what it saw; every start runs under policy, with
// env set.
type recorder struct {
	mu     sync.Mutex
	lines  []gate.Line
	policy *sandbox.Policy
	env    map[string]string
}

func (r *recorder) Start(ctx context.Context, req gate.Request) (*gate.Start, error) {
	if req.Line != "" {
		if err := r.Check(ctx, req.Conversation, gate.Line{Text: req.Line, Dir: req.Dir}); err != nil {
			return nil, err
		}
	}
	env := (*gate.Gate)(nil).Environ()
	for k, v := range r.env {
		env = append(env, k+"="+v)
	}
	return &gate.Start{Policy: r.policy, Env: env}, nil
}

func (r *recorder) Check(_ context.Context, _ string, l gate.Line) error {
	r.mu.Lock()
	r.lines = append(r.lines, l)
	r.mu.Unlock()
	switch {
	case strings.Contains(l.Text, "forbidden"):
		return errRefused
	case strings.HasSuffix(strings.TrimSpace(l.Text), "do"):
		return gate.ErrIncomplete
	}
	return nil
}

func (r *recorder) Withheld(name string) bool { return (*gate.Gate)(nil).Withheld(name) }

func (r *recorder) seen() []gate.Line {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]gate.Line(nil), r.lines...)
}

// TestCheckRefusesBeforeRunning: a refused command or session line never runs (the file it
// would create does not appear) and the hook's error comes back as is.
func TestCheckRefusesBeforeRunning(t *testing.T) {
	rec := &recorder{}
	m := newTestManager(t, Config{Gate: rec})
	dir := t.TempDir()
	ctx := context.Background()
	_, err := m.Run(ctx, "c", RunSpec{Command: "touch made-by-run; echo forbidden", Cwd: dir})
	if !errors.Is(err, errRefused) {
		t.Fatalf("Run of a refused command = %v, want the hook's error", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "made-by-run")); err == nil {
		t.Error("the refused command ran")
	}
	inf, err := m.Create(ctx, "c", SessionSpec{Name: "s", Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Send(ctx, "c", inf.ID, Input{Text: "touch made-by-session # forbidden"})
	if !errors.Is(err, errRefused) {
		t.Fatalf("Send of a refused line = %v, want the hook's error", err)
	}
	// An unfinished statement is typed and checked again with its end.
	if _, err := m.Send(ctx, "c", inf.ID, Input{Text: "for i in 1; do"}); err != nil {
		t.Fatalf("Send of an unfinished statement = %v", err)
	}
	if _, err := m.Send(ctx, "c", inf.ID, Input{Text: "touch made-in-loop-$i; done # forbidden"}); !errors.Is(err, errRefused) {
		t.Fatalf("the end of a refused statement = %v", err)
	}
	if _, err := m.Send(ctx, "c", inf.ID, Input{Keys: []string{"ctrl-c"}, Wait: OutputQuery{WaitMS: testWait}}); err != nil {
		t.Fatal(err)
	}
	runIn(t, m, "c", inf.ID, "touch allowed")
	for _, f := range []string{"made-by-session", "made-in-loop-1"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s exists: a refused line ran", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "allowed")); err != nil {
		t.Errorf("the allowed line did not run: %v", err)
	}
	var joined bool
	for _, l := range rec.seen() {
		if l.Session == inf.ID && strings.HasPrefix(l.Text, "for i in 1; do\n") {
			joined = true
		}
		if l.Session != "" && l.Dir == "" {
			t.Errorf("a session line without its directory: %+v", l)
		}
	}
	if !joined {
		t.Errorf("the end of the statement was not checked with its beginning: %+v", rec.seen())
	}
}

// TestSandboxHook: the policy returned for a start confines the command, and Info says so.
func TestSandboxHook(t *testing.T) {
	sandboxtest.Require(t)
	work, other := t.TempDir(), t.TempDir()
	m := newTestManager(t, Config{Gate: &recorder{
		policy: &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Writable: []string{work}},
		env:    map[string]string{"FROM_CONFIG": "yes"},
	}})
	ctx := context.Background()
	r, err := m.Run(ctx, "c", RunSpec{Command: "echo $FROM_CONFIG > inside; echo x > " + filepath.Join(other, "outside"), Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode == 0 || !strings.Contains(r.Stderr, "Permission denied") {
		t.Errorf("the write outside did not fail with Permission denied: %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(work, "inside")); err != nil || string(b) != "yes\n" {
		t.Errorf("inside = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(other, "outside")); err == nil {
		t.Error("the sandboxed command wrote outside")
	}
	list, _ := m.List(ctx, "c")
	if len(list) == 0 || list[0].Sandbox != string(sandbox.ModeWorkspaceWrite) {
		t.Errorf("List = %+v, want the sandbox mode", list)
	}
	inf, err := m.Create(ctx, "c", SessionSpec{Name: "s", Cwd: work})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := runIn(t, m, "c", inf.ID, "echo y > "+filepath.Join(other, "from-session"))
	if !strings.Contains(out, "Permission denied") {
		t.Errorf("session write outside: %q", out)
	}
	if _, err := os.Stat(filepath.Join(other, "from-session")); err == nil {
		t.Error("the sandboxed session wrote outside")
	}
}

// TestForegroundShellLines: a line typed while a program runs is checked as a command line
// when that program is a shell or runs under one (a nested bash, sh -i, a shell waiting for
// its child), and as the program's input when it is not (cat, the read builtin).
func TestForegroundShellLines(t *testing.T) {
	rec := &recorder{}
	m := newTestManager(t, Config{Gate: rec})
	ctx := context.Background()
	missing := "/nonexistent-" + procArg("fg")
	cases := []struct {
		name, start string
		comm        string // the process to wait for ("" for a builtin)
		want        bool
		stop        Input // ends the program ("": the probe does)
	}{
		{"cat", "cat - " + missing, "cat", false, Input{Keys: []string{"ctrl-d"}}},
		{"the read builtin", "read x", "", false, Input{}},
		{"a nested bash", "bash --norc --noprofile --rcfile " + missing + " -i", "bash", true, Input{Text: "exit"}},
		{"sh -i", "sh -i -s " + missing, "sh", true, Input{Text: "exit"}},
		{"a shell waiting for its program", "sh -c 'cat - " + missing + "; true'", "cat", true, Input{Keys: []string{"ctrl-d"}}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// A session each: the next case does not depend on how this one's program ends.
			inf := createSession(t, m, "c", fmt.Sprintf("s%d", i))
			s, _ := m.lookup("c", inf.ID)
			if _, err := m.Send(ctx, "c", inf.ID, Input{Text: c.start}); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(time.Minute)
			for c.comm != "" && !hasComm(proctest.Matching(missing), c.comm) {
				if time.Now().After(deadline) {
					t.Fatalf("%s did not start: %v", c.comm, proctest.Matching(missing))
				}
				time.Sleep(10 * time.Millisecond)
			}
			if got := foregroundShell(s.pid); got != c.want {
				t.Errorf("foregroundShell = %v, want %v; processes %v", got, c.want, proctest.Matching(missing))
			}
			if _, err := m.Send(ctx, "c", inf.ID, Input{Text: "probe"}); err != nil {
				t.Fatal(err)
			}
			seen := rec.seen()
			last := seen[len(seen)-1]
			if last.Text != "probe" || !last.Foreground || last.ForegroundShell != c.want || last.Memory == nil {
				t.Errorf("the line typed into %s = %+v, want foreground, shell %v, with the session's memory", c.name, last, c.want)
			}
			if c.stop.Text != "" || c.stop.Keys != nil {
				if _, err := m.Send(ctx, "c", inf.ID, c.stop); err != nil {
					t.Fatal(err)
				}
			}
			waitNoProcs(t, missing)
		})
	}
}

// hasComm reports whether one of procs runs the program comm.
func hasComm(procs []proctest.Proc, comm string) bool {
	for _, p := range procs {
		if p.Comm == comm {
			return true
		}
	}
	return false
}

// TestCtrlCForgetsUnfinishedLines: ctrl-c discards the unfinished statement and what was
// typed ahead into a program (the terminal flushes its input queue on the interrupt).
func TestCtrlCForgetsUnfinishedLines(t *testing.T) {
	st := lineState{partial: "for i in 1; do", ahead: "echo 'x"}
	st.feed("\x03")
	if st.partial != "" || st.ahead != "" {
		t.Errorf("after ctrl-c: partial %q, ahead %q; want both empty", st.partial, st.ahead)
	}
}

// TestKeysReadByAProgramStayItsOwn: keys typed into a program that reads them as they come
// (less, with the terminal out of canonical mode) are that program's: the "q" that quits
// less is not the start of the next line at the prompt. Keys typed into such a program that
// never reads them are left for the shell, which runs them with the next line: that line is
// checked with them, as it runs.
func TestKeysReadByAProgramStayItsOwn(t *testing.T) {
	if _, err := exec.LookPath("less"); err != nil {
		t.Fatalf("less is required: %v", err)
	}
	rec := &recorder{}
	m := newTestManager(t, Config{Gate: rec})
	ctx := context.Background()
	noEnter := false
	lastLine := func() string {
		seen := rec.seen()
		return seen[len(seen)-1].Text
	}

	t.Run("less takes q", func(t *testing.T) {
		inf := createSession(t, m, "c", "pager")
		file := filepath.Join(t.TempDir(), "long.txt")
		if err := os.WriteFile(file, []byte(strings.Repeat("a line of text\n", 200)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Send(ctx, "c", inf.ID, Input{Text: "less " + file, Wait: OutputQuery{WaitMS: testWait, WaitFor: "a line of text"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Send(ctx, "c", inf.ID, Input{Text: "q", PressEnter: &noEnter}); err != nil {
			t.Fatal(err)
		}
		out, err := m.Output(ctx, "c", inf.ID, OutputQuery{WaitMS: testWait})
		if err != nil || !out.Finished {
			t.Fatalf("less did not end on q: %+v, %v", out, err)
		}
		got, _ := runIn(t, m, "c", inf.ID, "echo after-less")
		if line := lastLine(); line != "echo after-less" {
			t.Errorf("the line after quitting less was checked as %q, want %q", line, "echo after-less")
		}
		if !strings.Contains(got, "after-less") {
			t.Errorf("output of the line after less: %q", got)
		}
	})

	t.Run("unread keys go to the shell", func(t *testing.T) {
		inf := createSession(t, m, "c", "raw")
		// Raw mode, and nothing reads the keys: they wait in the terminal for the shell.
		start := fmt.Sprintf("stty raw -echo; sleep 1.%s; stty sane", procArg("1"))
		if _, err := m.Send(ctx, "c", inf.ID, Input{Text: start}); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
			s, _ := m.lookup("c", inf.ID)
			if !s.canonical() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the terminal never left canonical mode")
			}
		}
		if _, err := m.Send(ctx, "c", inf.ID, Input{Text: "echo typed-", PressEnter: &noEnter}); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Output(ctx, "c", inf.ID, OutputQuery{WaitMS: testWait}); err != nil {
			t.Fatal(err)
		}
		got, _ := runIn(t, m, "c", inf.ID, "ahead")
		if line := lastLine(); line != "echo typed-ahead" {
			t.Errorf("the line after a program that left the keys unread was checked as %q, want %q", line, "echo typed-ahead")
		}
		if !strings.Contains(got, "typed-ahead") {
			t.Errorf("the shell did not run the keys left for it: %q", got)
		}
	})
}
