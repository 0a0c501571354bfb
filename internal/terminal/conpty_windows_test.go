//go:build windows

package terminal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/windows"
)

// Tests of the pseudo console on a real Windows (or Wine). They need no POSIX shell: the test
// binary itself is the child (TestConPTYHelper) and cmd.exe the interactive program.

const helperEnv = "TOOLHOST_CONPTY_HELPER"

// TestConPTYHelper is the child process of the tests below when helperEnv is set: "args"
// prints its arguments as JSON, "env" the value of HELPER_VALUE, "tree" starts a copy of
// itself that sleeps and then sleeps too, printing both pids.
func TestConPTYHelper(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return
	}
	i := slices.Index(os.Args, "--")
	args := os.Args[i+1:]
	switch mode {
	case "args":
		b, _ := json.Marshal(args)
		os.Stdout.Write(b)
	case "env":
		fmt.Fprint(os.Stdout, os.Getenv("HELPER_VALUE"))
		fmt.Fprint(os.Stderr, "to stderr")
	case "tree":
		c := exec.Command(os.Args[0], "-test.run=^TestConPTYHelper$", "--")
		c.Env = append(os.Environ(), helperEnv+"=sleep")
		if err := c.Start(); err != nil {
			fmt.Fprint(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Fprintf(os.Stdout, "%d %d\n", os.Getpid(), c.Process.Pid)
		time.Sleep(time.Minute)
	case "sleep":
		time.Sleep(time.Minute)
	}
	os.Exit(0)
}

// helperCmd is the test binary run as TestConPTYHelper in mode.
func helperCmd(t *testing.T, mode string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := exec.Command(exe, append([]string{"-test.run=^TestConPTYHelper$", "--"}, args...)...)
	c.Env = append(os.Environ(), helperEnv+"="+mode)
	return c
}

func needConPTY(t *testing.T) {
	t.Helper()
	if !hasConPTY() {
		t.Skip("this Windows has no pseudo consoles (before 10 1809)")
	}
}

// startHeld starts cmd as startJobProcess starts a one-shot command, with its stdout and
// stderr into pipes whose read ends it returns (closed when the test ends), and returns what
// startJobProcess holds and the selector of the command's processes.
func startHeld(t *testing.T, cmd *exec.Cmd) (held io.Closer, sel *procSelector, stdout, stderr *os.File) {
	t.Helper()
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	t.Cleanup(func() { outR.Close(); errR.Close() })
	cmd.Stdout, cmd.Stderr = outW, errW
	sel = &procSelector{}
	held, err := startJobProcess(cmd, nil, sel)
	outW.Close()
	errW.Close()
	if err != nil {
		t.Fatalf("startJobProcess(%v) = %v", cmd.Args, err)
	}
	return held, sel, outR, errR
}

// runOnConsole starts cmd as startJobProcess starts a one-shot command and returns its stdout,
// stderr and exit code.
func runOnConsole(t *testing.T, cmd *exec.Cmd) (stdout, stderr string, code int, sel *procSelector) {
	t.Helper()
	held, sel, outR, errR := startHeld(t, cmd)
	t.Cleanup(func() { held.Close() })
	var wg sync.WaitGroup
	var ob, eb bytes.Buffer
	wg.Add(2)
	go func() { defer wg.Done(); io.Copy(&ob, outR) }()
	go func() { defer wg.Done(); io.Copy(&eb, errR) }()
	werr := cmd.Wait()
	wg.Wait()
	return ob.String(), eb.String(), exitCode(cmd.ProcessState, werr), sel
}

func TestConsoleArguments(t *testing.T) {
	needConPTY(t)
	args := []string{"plain", "two words", `quote"inside`, `trailing\`, `back\\slashes\`, "", `C:\Program Files\x`, "tab\there", "ünï🙂"}
	out, _, code, _ := runOnConsole(t, helperCmd(t, "args", args...))
	var got []string
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("helper printed %q: %v", out, err)
	}
	if diff := cmp.Diff(args, got); diff != "" || code != 0 {
		t.Errorf("arguments through ComposeCommandLine and CreateProcess (-want +got):\n%s (exit %d)", diff, code)
	}
}

func TestConsoleEnvironmentAndStreams(t *testing.T) {
	needConPTY(t)
	c := helperCmd(t, "env")
	c.Env = append(c.Env, "HELPER_VALUE=grüße 🙂", "helper_value=last one wins")
	out, errOut, code, _ := runOnConsole(t, c)
	if out != "last one wins" || errOut != "to stderr" || code != 0 {
		t.Errorf("helper env = stdout %q, stderr %q, exit %d; want %q, %q, 0", out, errOut, code, "last one wins", "to stderr")
	}
}

func TestConsoleExitCode(t *testing.T) {
	needConPTY(t)
	cmdExe := filepath.Join(os.Getenv("SYSTEMROOT"), "System32", "cmd.exe")
	_, _, code, _ := runOnConsole(t, exec.Command(cmdExe, "/c", "exit 7"))
	if code != 7 {
		t.Errorf("cmd /c exit 7 = exit %d, want 7", code)
	}
}

// TestConsoleJobKillsTree: a grandchild is in the command's job, found by members, and ended
// with it when the tree is killed.
func TestConsoleJobKillsTree(t *testing.T) {
	needConPTY(t)
	cmd := helperCmd(t, "tree")
	held, sel, outR, _ := startHeld(t, cmd)
	defer held.Close()
	var parent, child int
	if _, err := fmt.Fscan(outR, &parent, &child); err != nil {
		t.Fatalf("reading the helper's pids: %v", err)
	}
	members := sel.members()
	if !slices.Contains(members, parent) || !slices.Contains(members, child) {
		t.Fatalf("members() = %v, want both %d and %d", members, parent, child)
	}
	if left := sel.killAll(t.Context(), 100*time.Millisecond); len(left) > 0 {
		t.Fatalf("killAll left %v", left)
	}
	cmd.Wait()
	for _, pid := range []int{parent, child} {
		if kill(pid, 0) == nil {
			t.Errorf("process %d alive after killAll", pid)
		}
	}
}

// TestConsoleCloseKillsJob: closing what startJobProcess holds kills what is left.
func TestConsoleCloseKillsJob(t *testing.T) {
	needConPTY(t)
	cmd := helperCmd(t, "sleep")
	held, sel, _, _ := startHeld(t, cmd)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	held.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the command outlived closing its job")
	}
	if m := sel.members(); len(m) != 0 {
		t.Errorf("members() after Close = %v, want none", m)
	}
}

// TestConsoleSession types into cmd.exe on a pseudo console and reads the screen it renders.
func TestConsoleSession(t *testing.T) {
	needConPTY(t)
	if underWine() {
		// Wine 8 gives a child on a pseudo console no console handles when
		// STARTF_USESTDHANDLES names none (Windows gives it the console's, as Microsoft
		// documents), and without the flag the child writes to the parent's own stdout.
		t.Skip("Wine's pseudo consoles do not hand their console to the child")
	}
	cmdExe := filepath.Join(os.Getenv("SYSTEMROOT"), "System32", "cmd.exe")
	cmd := exec.Command(cmdExe)
	started, err := startInPTY(cmd, 100, 30, nil)
	if err != nil {
		t.Fatalf("startInPTY(cmd.exe) = %v", err)
	}
	pty := started.conn
	var mu sync.Mutex
	var screen bytes.Buffer
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 4096)
		for {
			n, err := pty.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	waitFor := func(want string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			ok := strings.Contains(screen.String(), want)
			mu.Unlock()
			if ok {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("no %q on the console; it showed %q", want, screen.String())
	}
	pty.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := pty.Write([]byte("echo hello-^conpty\r")); err != nil {
		t.Fatalf("Write = %v", err)
	}
	waitFor("hello-conpty")
	if err := pty.Resize(60, 20); err != nil {
		t.Errorf("Resize(60, 20) = %v", err)
	}
	if !slices.Contains(started.job.pidsOrNil(), cmd.Process.Pid) {
		t.Errorf("the shell %d is not in the session's job", cmd.Process.Pid)
	}
	pty.Write([]byte("exit 3\r"))
	werr := cmd.Wait()
	if code := exitCode(cmd.ProcessState, werr); code != 3 {
		t.Errorf("exit 3 ended cmd.exe with %d", code)
	}
	pty.Close()
	select {
	case <-readDone:
	case <-time.After(10 * time.Second):
		t.Error("Read did not return after Close")
	}
}

// TestConsoleWriteDeadline: a deadline in the past fails at once, as on a PTY.
func TestConsoleWriteDeadline(t *testing.T) {
	needConPTY(t)
	cmd := helperCmd(t, "sleep")
	started, err := startInPTY(cmd, 80, 24, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { started.conn.Close(); cmd.Wait() }()
	started.conn.SetWriteDeadline(time.Now().Add(-time.Second))
	if _, err := started.conn.Write([]byte("x")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("Write past the deadline = %v, want os.ErrDeadlineExceeded", err)
	}
}

// underWine says whether the test runs under Wine, whose ntdll exports wine_get_version.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

func (j *jobObject) pidsOrNil() []int {
	ids, _ := j.pids()
	return ids
}

// TestNoConPTYWording: the refusal names the Windows version that has pseudo consoles.
func TestNoConPTYWording(t *testing.T) {
	if !strings.Contains(errNoPTY.Error(), "1809") {
		t.Errorf("errNoPTY = %q, want the Windows version named", errNoPTY)
	}
}
