package terminal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	t.Setenv("TOOLHOST_TOKEN", "do-not-leak")
	m := newTestManager(t, Config{})
	dir := t.TempDir()
	tests := []struct {
		name       string
		spec       RunSpec
		wantCode   int
		wantOut    string
		wantErrOut string
	}{
		{name: "true", spec: RunSpec{Command: "true"}},
		{name: "exit status", spec: RunSpec{Command: "exit 7"}, wantCode: 7},
		{name: "separate streams", spec: RunSpec{Command: "echo out; echo err >&2"}, wantOut: "out\n", wantErrOut: "err\n"},
		{name: "cwd", spec: RunSpec{Command: "pwd"}, wantOut: dir + "\n"},
		{name: "extra env", spec: RunSpec{Command: `echo "$FOO"`, Env: map[string]string{"FOO": "bar"}}, wantOut: "bar\n"},
		{name: "token scrubbed", spec: RunSpec{Command: `echo "${TOOLHOST_TOKEN:-unset}"`}, wantOut: "unset\n"},
		{name: "pagers off", spec: RunSpec{Command: `echo "$PAGER $GIT_PAGER $GIT_TERMINAL_PROMPT"`}, wantOut: "cat cat 0\n"},
		{name: "stdin is empty", spec: RunSpec{Command: "cat; read x; echo read=$?"}, wantOut: "read=1\n"},
		{name: "progress meter and forced color cleaned", spec: RunSpec{Command: `printf ' 10%%\r 60%%\r100%%\n\033[33mok\033[m\n' >&2`}, wantErrOut: "100%\nok\n"},
		{name: "no editor without a terminal", spec: RunSpec{Command: `"$EDITOR" file`}, wantCode: 1},
		{name: "no tty to prompt on", spec: RunSpec{Command: "echo hi > /dev/tty"}, wantCode: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.spec.Cwd = dir
			r, err := m.Run(context.Background(), "c", tt.spec)
			if err != nil {
				t.Fatalf("Run(%q) = %v", tt.spec.Command, err)
			}
			if r.Running || r.ExitCode != tt.wantCode || r.Stdout != tt.wantOut || (tt.wantErrOut != "" && r.Stderr != tt.wantErrOut) {
				t.Errorf("Run(%q) = %+v, want exit %d stdout %q stderr %q", tt.spec.Command, r, tt.wantCode, tt.wantOut, tt.wantErrOut)
			}
		})
	}
}

func TestRunOutlivesYieldThenPolled(t *testing.T) {
	m := newTestManager(t, Config{})
	ctx := context.Background()
	r, err := m.Run(ctx, "c", RunSpec{Command: "echo started; sleep 1; echo finished", Cwd: t.TempDir(), Yield: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("Run() = %v", err)
	}
	if !r.Running || r.ID == "" {
		t.Fatalf("Run() = %+v, want a running command with an id", r)
	}
	out, err := m.Output(ctx, "c", r.ID, OutputQuery{WaitMS: testWait, WaitFor: "finished"})
	for i := 0; i < 10 && err == nil && !out.Finished; i++ {
		out, err = m.Output(ctx, "c", r.ID, OutputQuery{WaitMS: testWait})
	}
	if err != nil || !out.Finished || out.Result == nil || out.Result.ExitCode != 0 || out.Result.Stdout != "started\nfinished\n" {
		t.Fatalf("Output(%s) = %+v (result %+v), %v; want finished with both lines", r.ID, out, out.Result, err)
	}
	infos, _ := m.List(ctx, "c")
	if len(infos) != 1 || infos[0].Kind != "command" || infos[0].State != StateExited {
		t.Errorf("List() = %+v, want the finished command", infos)
	}
}

func TestRunTimeoutKillsTree(t *testing.T) {
	m := newTestManager(t, Config{})
	r, err := m.Run(context.Background(), "c", RunSpec{
		Command: fmt.Sprintf("sleep %s & sleep %s & setsid sleep %s & echo spawned; wait", procArg("1002.25"), procArg("1002.5"), procArg("1002.75")),
		Cwd:     t.TempDir(), Timeout: time.Second, Yield: 30 * time.Second,
	})
	if err != nil {
		t.Fatalf("Run() = %v", err)
	}
	if r.Running || !r.TimedOut || r.Stdout != "spawned\n" {
		t.Errorf("Run() = %+v, want timed out with the output so far", r)
	}
	waitNoProcs(t, procArg("1002."))
	if z := zombieChildren(); len(z) > 0 {
		t.Errorf("zombies left: %v", z)
	}
}

func TestRunTruncatesHeadAndTail(t *testing.T) {
	m := newTestManager(t, Config{})
	ctx := context.Background()
	r, err := m.Run(ctx, "c", RunSpec{Command: "seq 1 100000", Cwd: t.TempDir(), MaxBytes: 1000})
	if err != nil {
		t.Fatalf("Run() = %v", err)
	}
	if !r.Truncated || !strings.HasPrefix(r.Stdout, "1\n2\n") || !strings.HasSuffix(r.Stdout, "99999\n100000\n") || !strings.Contains(r.Stdout, "bytes omitted") || len(r.Stdout) > 1200 {
		t.Errorf("Run(seq) stdout = %.60q...%q (%d bytes), want head, marker and tail within budget", r.Stdout, r.Stdout[max(0, len(r.Stdout)-30):], len(r.Stdout))
	}
	if r.StdoutBytes != 588895 {
		t.Errorf("Run(seq) StdoutBytes = %d, want 588895", r.StdoutBytes)
	}
	// The full output stays retrievable through get_output on the command's id.
	zero := int64(0)
	out, err := m.Output(ctx, "c", r.ID, OutputQuery{Cursor: &zero, MaxBytes: maxMaxBytes})
	if err != nil || len(out.Text) != 588895 {
		t.Errorf("Output(%s) = %d bytes, %v; want the full 588895", r.ID, len(out.Text), err)
	}
}

func TestRunErrors(t *testing.T) {
	m := newTestManager(t, Config{MaxTimeout: time.Minute})
	dir := t.TempDir()
	tests := []struct {
		name string
		spec RunSpec
		want error
	}{
		{name: "empty", spec: RunSpec{Cwd: dir}, want: ErrInvalid},
		{name: "timeout too long", spec: RunSpec{Command: "true", Cwd: dir, Timeout: time.Hour}, want: ErrInvalid},
		{name: "missing cwd", spec: RunSpec{Command: "true", Cwd: dir + "/nope"}, want: ErrBadCwd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := m.Run(context.Background(), "c", tt.spec); !errors.Is(err, tt.want) {
				t.Errorf("Run(%+v) = %v, want %v", tt.spec, err, tt.want)
			}
		})
	}
}

func TestRunStreamsProgress(t *testing.T) {
	m := newTestManager(t, Config{})
	var mu sync.Mutex
	var chunks []string
	r, err := m.Run(context.Background(), "c", RunSpec{
		Command: "echo one; sleep 0.3; echo two >&2; sleep 0.3; echo three",
		Cwd:     t.TempDir(),
		Progress: func(c string) {
			mu.Lock()
			chunks = append(chunks, c)
			mu.Unlock()
		},
	})
	if err != nil || r.Stdout != "one\nthree\n" || r.Stderr != "two\n" {
		t.Fatalf("Run() = %+v, %v", r, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(chunks, ""); len(chunks) < 2 || !strings.Contains(got, "one") || !strings.Contains(got, "two") {
		t.Errorf("progress chunks = %q, want one and two streamed in several chunks", chunks)
	}
}

// TestCloseCommandKeepsItReadable: close_session on a command kills its tree (and what it
// left in the background) but, like a closed session, its output stays readable.
func TestCloseCommandKeepsItReadable(t *testing.T) {
	m := newTestManager(t, Config{CloseGrace: 200 * time.Millisecond})
	ctx := context.Background()
	r, err := m.Run(ctx, "c", RunSpec{Command: "echo before; sleep " + procArg("1008.25"), Cwd: t.TempDir(), Yield: 100 * time.Millisecond})
	if err != nil || !r.Running {
		t.Fatalf("Run() = %+v, %v; want a running command", r, err)
	}
	if err := m.Close(ctx, "c", r.ID); err != nil {
		t.Fatalf("Close(%s) = %v", r.ID, err)
	}
	waitNoProcs(t, procArg("1008.25"))
	page, err := m.History("c", r.ID, 0, 0)
	if err != nil || page.Text != "before\n" {
		t.Errorf("History(%s) after Close = %+v, %v; want %q", r.ID, page, err, "before\n")
	}
	infos, _ := m.List(ctx, "c")
	if len(infos) != 1 || infos[0].State != StateExited || infos[0].ExitCode == nil {
		t.Errorf("List() after Close = %+v, want the command as exited with its status", infos)
	}
}
