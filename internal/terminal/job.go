package terminal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"toolhost/internal/gate"
)

// RunSpec describes a one-shot command.
type RunSpec struct {
	// Command is run with sh -c.
	Command string
	// Cwd is the directory, already approved by the guard.
	Cwd string
	// Env holds extra variables.
	Env map[string]string
	// Timeout kills the whole process tree (0: Config.DefaultTimeout; above
	// Config.MaxTimeout is an error).
	Timeout time.Duration
	// Yield is how long Run waits before returning a still-running command as a job
	// (0: Config.DefaultYield; capped by Config.MaxWait).
	Yield time.Duration
	// MaxBytes is the budget per stream in the result (default 16 KiB, at most 128 KiB);
	// beyond it head and tail are kept around a marker.
	MaxBytes int
	// Check, when set, is what the command rules (the gate's Check) judge instead of Command: the
	// commands a wrapper script of toolhost's own runs, one per line.
	Check string
	// Progress, when set, receives output (stdout and stderr interleaved) while Run waits,
	// for progress notifications.
	Progress func(chunk string)
}

// RunResult is the outcome of run_command, or its state so far when Running.
type RunResult struct {
	// ID names the command for get_output (full retained output, waiting) and close_session.
	ID      string `json:"id"`
	Running bool   `json:"running"`
	// ExitCode is the exit status (128+signal when killed by a signal, -1 while running).
	ExitCode int  `json:"exit_code"`
	TimedOut bool `json:"timed_out,omitempty"`
	// Cancelled says the caller cancelled the call and the process tree was killed.
	Cancelled bool `json:"cancelled,omitempty"`
	// Stdout and Stderr are the captured streams within the budget, cleaned like a session's
	// log (escape sequences removed, \r and backspace resolved); get_output and get_history
	// of the command's id give the raw bytes.
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// StdoutBytes and StderrBytes are the full sizes produced.
	StdoutBytes int64 `json:"stdout_bytes"`
	StderrBytes int64 `json:"stderr_bytes"`
	// Truncated says a stream was cut to the budget; the retained log is readable with
	// get_output on ID.
	Truncated  bool   `json:"truncated,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	Cwd        string `json:"cwd"`
	// Sandbox is the mode the command ran under (workspace-write, read-only, off).
	Sandbox string `json:"sandbox,omitempty"`
}

// capture keeps the head and tail of one output stream.
type capture struct {
	head  []byte
	tail  *ring
	total int64
}

func (c *capture) write(p []byte) {
	c.total += int64(len(p))
	if room := tailBytes - len(c.head); room > 0 {
		n := min(room, len(p))
		c.head = append(c.head, p[:n]...)
	}
	c.tail.write(p)
}

// render returns the stream within budget, head and tail around a marker when cut, cleaned
// the way a terminal would show it.
func (c *capture) render(budget int, id string) (string, bool) {
	if c.total <= int64(budget) {
		data, _ := c.tail.read(0, int(c.total))
		return cleanOutput(data), false
	}
	h := budget / 2
	t := budget - h
	head := c.head[:min(h, len(c.head))]
	tail, _ := c.tail.read(c.tail.end()-int64(t), t)
	omitted := c.total - int64(len(head)) - int64(len(tail))
	return fmt.Sprintf("%s\n[... %d bytes omitted; get_output id=%s pages the retained output ...]\n%s", cleanOutput(head), omitted, id, cleanOutput(tail)), true
}

// cleanOutput removes escape sequences (colors forced on, cursor moves) and resolves carriage
// returns and backspaces, like the session log: a progress meter (curl, pip) on a pipe is one
// line of hundreds of \r-separated updates, of which only the last is worth reading.
func cleanOutput(p []byte) string {
	if !slices.ContainsFunc(p, func(b byte) bool { return b == 0x1b || b == '\r' || b == '\b' }) {
		return string(p)
	}
	r := newRing(2*len(p) + 1024)
	newLogView(r, nil).write(p, time.Time{})
	data, _ := r.read(r.start(), int(r.end()-r.start()))
	return string(data)
}

type job struct {
	stream
	m       *Manager
	conv    string
	id      string
	command string
	cwd     string
	shell   string // what runs the line (oneShotShell)
	sel     procSelector
	cmd     *exec.Cmd
	pid     int
	started time.Time
	timer   *time.Timer
	pipes   []io.Closer // its output pipes, and what startJobProcess said to hold with them
	sandbox string      // the sandbox mode it runs under

	// Guarded by stream.mu.
	stdout, stderr capture
	running        bool
	exit           int
	timedOut       bool
	cancelled      bool
	ended          time.Time
	done           chan struct{}
	closeOnce      sync.Once
	// written: the store holds a record of it (persistCommands: a command still running at
	// a write of the persister; one that ended before handed its caller the whole result).
	written atomic.Bool
	// out is the file the output is written to as it comes (commandOutputDir), under mu.
	out     *os.File
	outPath string
}

// openOutput creates the file the command's output goes to (commandOutputDir); without it
// the command runs, its output kept in memory and in the store only.
func (j *job) openOutput(dir string) {
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	sum := sha256.Sum256([]byte(j.conv))
	path := filepath.Join(dir, fmt.Sprintf("%s-%s-%d.out", hex.EncodeToString(sum[:8]), j.id, j.started.UnixNano()))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	j.out, j.outPath = f, path
}

// isRunning says whether the command has not ended yet.
func (j *job) isRunning() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.running
}

// removeOutput closes and removes the output file, once the record holds what it says.
func (j *job) removeOutput() {
	j.mu.Lock()
	f, path := j.out, j.outPath
	j.out, j.outPath = nil, ""
	j.mu.Unlock()
	if f != nil {
		f.Close()
		os.Remove(path)
	}
}

// record is what the store keeps of a terminal host's command (persistCommands): its state
// and the tail of its output, so that a crash of the host loses neither.
func (j *job) record() record {
	j.mu.Lock()
	defer j.mu.Unlock()
	r := record{ID: j.id, Conversation: j.conv, Kind: "command", Cwd: j.cwd, Shell: "/bin/sh", PID: j.pid,
		Instance: j.m.instance, State: StateRunning, Started: j.started, Ended: j.ended,
		LastCommand: truncateRunes(j.command, 200), OutputFile: j.outPath}
	if !j.running {
		r.State = StateExited
		c := j.exit
		r.ExitCode = &c
	}
	from := max(j.log.start(), j.log.end()-tailBytes)
	data, from := j.log.read(from, tailBytes)
	r.TailStart, r.Tail = from, strings.ToValidUTF8(string(data), "")
	return r
}

func (m *Manager) startJob(conv, id string, spec RunSpec, timeout time.Duration, start *gate.Start) (*job, error) {
	if err := m.setup(); err != nil {
		return nil, fmt.Errorf("run command: %w", err)
	}
	j := &job{
		stream: newStream(m.cfg.HistoryBytes), m: m, conv: conv, id: id,
		command: spec.Command, cwd: spec.Cwd, running: true, exit: -1,
		done: make(chan struct{}), sandbox: modeOf(start.Policy),
	}
	j.stdout.tail = newRing(tailBytes)
	j.stderr.tail = newRing(tailBytes)
	j.sel.marker = markerEnv + "=" + m.instance + "/" + conv + "/" + id
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("run command: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("run command: %w", err)
	}
	shell, err := oneShotShell()
	if err != nil {
		outR.Close()
		outW.Close()
		errR.Close()
		errW.Close()
		return nil, fmt.Errorf("run command: %w", err)
	}
	j.shell = shell
	cmd := m.command(shell, "-c", spec.Command)
	cmd.Dir = spec.Cwd
	cmd.Env = childEnv(m.cfg.Gate, start.Env, noTerminal, spec.Env, j.sel.marker)
	cmd.Stdout, cmd.Stderr = outW, errW
	j.started = time.Now()
	j.lastUse = j.started
	held, err := startJobProcess(cmd, start.Policy, &j.sel)
	if err != nil {
		outR.Close()
		outW.Close()
		errR.Close()
		errW.Close()
		return nil, fmt.Errorf("run command: %w", err)
	}
	outW.Close()
	errW.Close()
	j.cmd = cmd
	j.pid = cmd.Process.Pid
	j.sel.sid = j.pid
	j.pipes = []io.Closer{outR, errR}
	if held != nil {
		j.pipes = append(j.pipes, held)
	}
	j.openOutput(m.cfg.commandOutputDir)
	var readers sync.WaitGroup
	readers.Add(2)
	go j.readPipe(outR, &j.stdout, &readers)
	go j.readPipe(errR, &j.stderr, &readers)
	j.timer = time.AfterFunc(timeout, func() { j.endEarly(&j.timedOut, 500*time.Millisecond) })
	go j.waitLoop(&readers)
	return j, nil
}

func (j *job) readPipe(f *os.File, c *capture, wg *sync.WaitGroup) {
	defer wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			now := time.Now()
			j.mu.Lock()
			c.write(buf[:n])
			j.log.write(buf[:n])
			if j.out != nil {
				_, _ = j.out.Write(buf[:n])
			}
			j.lastOut = now
			j.broadcastLocked()
			j.mu.Unlock()
		}
		if err != nil {
			// io.EOF when every writer closed the pipe; os.ErrClosed after closePipes.
			return
		}
	}
}

func (j *job) waitLoop(readers *sync.WaitGroup) {
	err := j.cmd.Wait()
	code := exitCode(j.cmd.ProcessState, err)
	j.timer.Stop()
	// Give the pipes a moment to drain. A background process that still holds them keeps
	// being drained (so it never gets SIGPIPE) but does not keep the command "running".
	drained := make(chan struct{})
	go func() { readers.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(200 * time.Millisecond):
	}
	j.mu.Lock()
	j.running = false
	j.exit = code
	j.ended = time.Now()
	j.broadcastLocked()
	j.mu.Unlock()
	j.stream.mu.Lock()
	outTo := j.stream.log.end()
	j.stream.mu.Unlock()
	j.m.commands.add(j.conv, CommandRecord{Session: j.id, Command: truncateRunes(j.command, 500), Cwd: j.cwd, ExitCode: code,
		Started: j.started, Duration: j.ended.Sub(j.started), OutputFrom: 0, OutputTo: outTo})
	if j.written.Load() {
		j.m.persistLater(j)
	}
	close(j.done)
}

// kill ends the command's whole tree (used by close_session and shutdown).
func (j *job) kill(ctx context.Context, grace time.Duration) {
	j.killWith(ctx, 0, grace)
}

// killWith ends the command's tree starting with signal sig (zero: SIGHUP and SIGTERM).
func (j *job) killWith(ctx context.Context, sig syscall.Signal, grace time.Duration) {
	j.sel.killWith(ctx, sig, grace)
	j.waitEnded()
	j.closePipes()
}

// waitEnded waits until the command has ended, or 5 seconds.
func (j *job) waitEnded() {
	select {
	case <-j.done:
	case <-time.After(5 * time.Second):
	}
}

// endEarly kills the tree of a command still running, with grace, after setting why (timedOut
// or cancelled) under the lock; it reports false, and does nothing, once the command has ended.
func (j *job) endEarly(why *bool, grace time.Duration) bool {
	j.mu.Lock()
	if !j.running {
		j.mu.Unlock()
		return false
	}
	*why = true
	j.mu.Unlock()
	j.sel.killAll(context.Background(), grace)
	return true
}

// cancel kills the command's tree because its caller gave up (an MCP cancellation, an
// operator's cancel), with a short grace: the caller waits for the exit status. It returns
// once the command has ended, or after 5 seconds.
func (j *job) cancel() {
	if j.endEarly(&j.cancelled, cancelGrace) {
		j.waitEnded()
	}
}

// cancelGrace is how long a cancelled command has between SIGTERM and SIGKILL.
const cancelGrace = 50 * time.Millisecond

// closePipes stops draining output; a leftover background process that still writes then
// gets SIGPIPE. Used when the command is closed or forgotten.
func (j *job) closePipes() {
	j.closeOnce.Do(func() {
		for _, p := range j.pipes {
			_ = p.Close()
		}
	})
}

func (j *job) resultLocked(budget int) RunResult {
	r := RunResult{ID: j.id, Running: j.running, ExitCode: j.exit, TimedOut: j.timedOut, Cancelled: j.cancelled,
		StdoutBytes: j.stdout.total, StderrBytes: j.stderr.total, Cwd: j.cwd, Sandbox: j.sandbox}
	var t1, t2 bool
	r.Stdout, t1 = j.stdout.render(budget, j.id)
	r.Stderr, t2 = j.stderr.render(budget, j.id)
	r.Truncated = t1 || t2
	if j.running {
		r.DurationMS = time.Since(j.started).Milliseconds()
		r.ExitCode = -1
	} else {
		r.DurationMS = j.ended.Sub(j.started).Milliseconds()
	}
	return r
}

func (j *job) output(ctx context.Context, q OutputQuery) (Output, error) {
	out, err := j.stream.wait(ctx, q, j.m.cfg.MaxWait, j.m.cfg.Settle, func() waitState {
		return waitState{finished: !j.running, exited: !j.running}
	})
	j.mu.Lock()
	out.ID = j.id
	out.Sandbox, out.Cwd = j.sandbox, j.cwd
	out.CommandRunning = j.running
	out.Finished = !j.running
	out.Exited = !j.running
	if !j.running {
		c := j.exit
		out.ExitCode = &c
		r := j.resultLocked(defaultMaxBytes)
		out.Result = &r
	}
	j.mu.Unlock()
	return out, err
}

func (j *job) info() Info {
	j.mu.Lock()
	defer j.mu.Unlock()
	inf := Info{ID: j.id, Conversation: j.conv, Kind: "command", Cwd: j.cwd, Shell: j.shell, Sandbox: j.sandbox,
		PID: j.pid, State: StateRunning, Started: j.started, Ended: j.ended,
		IdleSeconds: int64(time.Since(j.lastUse).Seconds()), LastCommand: truncateRunes(j.command, 200)}
	if !j.running {
		inf.State = StateExited
		c := j.exit
		inf.ExitCode = &c
	}
	return inf
}
