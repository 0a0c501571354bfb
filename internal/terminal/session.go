package terminal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/hinshun/vt10x"

	"toolhost/internal/gate"
)

// Session states reported by Info.State.
const (
	StateStarting = "starting"
	StateRunning  = "running"
	StateExited   = "exited" // the shell (or command) ended by itself
	StateClosed   = "closed" // closed by close_session, idle timeout or shutdown
	StateEnded    = "ended"  // known only from the store: a previous server process ended it
)

// SessionSpec describes a session to create.
type SessionSpec struct {
	// Name is the session id within the conversation; empty picks s1, s2, ...
	Name string
	// Cwd is the starting directory, already approved by the guard (absolute, canonical).
	Cwd string
	// Env holds extra variables for the shell.
	Env map[string]string
	// Cols and Rows size the PTY (defaults 120x40).
	Cols, Rows int
}

// Info describes a session or one-shot command for list_sessions and create_session.
type Info struct {
	ID           string    `json:"id"`
	Conversation string    `json:"conversation"`
	Kind         string    `json:"kind"` // "session" or "command"
	Cwd          string    `json:"cwd"`
	Shell        string    `json:"shell"`
	PID          int       `json:"pid"`
	State        string    `json:"state"`
	Started      time.Time `json:"started"`
	Ended        time.Time `json:"ended,omitzero"`
	IdleSeconds  int64     `json:"idle_seconds"`
	LastCommand  string    `json:"last_command,omitempty"`
	// ExitCode is the last completed command's status in a session (when knowable) or a
	// one-shot command's status.
	ExitCode *int `json:"exit_code,omitempty"`
	// ExitCodes says whether the shell reports exit statuses (bash with prompt markers).
	ExitCodes bool `json:"exit_codes"`
	Cols      int  `json:"cols,omitempty"`
	Rows      int  `json:"rows,omitempty"`
	// Reused: create_session found the session with the same cwd and kept it. Restarted: it
	// existed with another cwd (or had exited) and was replaced.
	Reused    bool `json:"reused,omitempty"`
	Restarted bool `json:"restarted,omitempty"`
	// Sandbox is the mode it runs under (workspace-write, read-only, off); a session keeps
	// the sandbox, and so the grants, it started with.
	Sandbox string `json:"sandbox,omitempty"`
}

// Input is what send_input types into a session.
type Input struct {
	// Text is typed as is.
	Text string
	// PressEnter appends a carriage return after Text (default true; ignored without Text).
	PressEnter *bool
	// Keys are named keys sent after Text, e.g. "ctrl-c", "tab", "up".
	Keys []string
	// Wait, when its WaitMS is set, waits for output exactly like get_output.
	Wait OutputQuery
	// User says the user typed it (the console's terminal view, toolhost attach), not a
	// model: the gate reads its lines without refusing them (gate.WithUser), an enter inside
	// Text submits the line as press_enter would, and Send answers without reading output,
	// so the conversation's read cursor stays where the model left it.
	User bool
}

type session struct {
	stream
	m       *Manager
	conv    string
	id      string
	cwd     string
	shell   string
	bash    bool
	sel     procSelector
	cmd     *exec.Cmd
	pid     int
	f       ptyConn
	started time.Time
	// unnamed marks the conversation's default shell: created without a name, and returned
	// again by a create without a name while it is alive.
	unnamed bool

	writeMu sync.Mutex

	// Guarded by stream.mu.
	state      string
	view       *logView
	vt         vt10x.Terminal
	vtPend     []byte
	cols, rows int
	prompts    int
	done       int // completed commands (OSC 133;D after the first prompt)
	sentDone   int // done when the last command was sent; -1 before any
	// The terminal echoes typed lines; wait_for must not match the echo of its own command.
	echoFrom    int64 // log end when the last line was sent
	echoLines   int   // newlines still expected from the echo; 0 when skipped
	echoEnd     int64 // offset after the echo once found
	echoStart   int64
	cCount      int   // command-start markers seen
	cAtSend     int   // cCount when the last line was sent at the shell prompt; -1 otherwise
	firstCOff   int64 // offset of the first command-start marker after that send
	echoAt      time.Time
	lastExit    *int
	cmdStarted  time.Time // when the running command's C marker came
	cmdRunning  bool
	cmdStartOff int64
	cmdCwd      string // the shell's directory when the running command started
	// promptCwd is the shell's directory read at its last prompt, where the next command
	// starts (read at the start marker it would race with the command, a cd say).
	promptCwd string
	// A line submitted while a command runs is read by that command or, once it ends, by
	// the shell as the next command. typedAhead marks the last line sent as such a line.
	// When the command ends with the line still unread in the terminal's input queue, the
	// shell will run it: aheadQueued is then set until its start marker comes, and a line
	// sent at the prompt meanwhile queues behind it. When the queue is already empty, the
	// shell may have read the line just before the marker reached us, or the command read
	// it as input: aheadUnsure is when the question arose, answered by a start marker
	// soon after (the shell runs it) or by none within typeAheadGrace.
	typedAhead  bool
	aheadQueued bool
	aheadUnsure time.Time
	// redraw marks a ctrl-c typed at the shell prompt whose new prompt has not come yet:
	// that prompt's completion marker belongs to no command, and a line sent meanwhile is
	// finished by the one after it.
	redraw bool
	// inputPending reports unread bytes in the terminal's input queue.
	inputPending func() bool
	// promptAt is when the last prompt came (OSC 133;A).
	promptAt    time.Time
	lastCommand string
	shellExit   *int
	ended       time.Time

	ready      chan struct{} // closed at the first prompt or when the shell exits
	readyOnce  sync.Once
	readerDone chan struct{}
	waitDone   chan struct{}
	updCh      chan struct{}
	stopUpd    chan struct{}
	stopOnce   sync.Once
	extra      map[string]string
	gated      *gate.Start   // what the gate decided for its shell (policy, environment)
	rec        *castRecorder // the session's recording; nil when not recorded
	line       lineState     // what the shell's line editor holds (for the gate's Check)
	checkMem   gate.Memory   // the gate's memory of the session's lines
}

func (m *Manager) rcFile() string { return m.rcDir + "/bashrc" }

const bashRC = `# toolhost session rc: a predictable prompt with OSC 133 markers carrying $?.
PS1='\w\$ '
PS2='\[\e]133;P\a\]> '
PS0=$'\e]133;C\a'
unset HISTFILE PROMPT_COMMAND
set +H
__toolhost_prompt() { local ec=$?; printf '\033]133;D;%s\007\033]133;A\007' "$ec"; }
PROMPT_COMMAND=__toolhost_prompt
bind 'set enable-bracketed-paste off' 2>/dev/null
`

// start spawns the shell in a new PTY and starts the reader, waiter and notifier.
func (s *session) start() error {
	var args []string
	if s.bash {
		args = []string{"--noprofile", "--rcfile", s.m.rcFile(), "-i"}
	} else {
		args = []string{"-i"}
	}
	cmd := s.m.command(s.shell, args...)
	cmd.Dir = s.cwd
	cmd.Env = s.m.sessionEnv(s)
	started, err := startInPTY(cmd, s.cols, s.rows, s.gated.Policy)
	if err != nil {
		return fmt.Errorf("start shell %s: %w", s.shell, err)
	}
	s.sel.tty, s.sel.job = started.tty, started.job
	master := started.conn
	s.inputPending = master.InputPending
	s.mu.Lock()
	s.f = master
	s.cmd = cmd
	s.pid = cmd.Process.Pid
	s.sel.sid = s.pid
	s.mu.Unlock()
	go s.readLoop()
	go s.waitLoop()
	go s.notifyLoop()
	s.mu.Lock()
	closed := s.state != StateStarting
	if !closed {
		s.state = StateRunning
	}
	s.mu.Unlock()
	if closed {
		// Closed (shutdown) while the shell was being spawned.
		s.terminate(context.Background(), 0)
		return ErrShutdown
	}
	return nil
}

func (s *session) readLoop() {
	defer close(s.readerDone)
	defer s.m.recordingEnded(s)
	buf := make([]byte, 64<<10)
	for {
		n, err := s.f.Read(buf)
		if n > 0 {
			s.ingest(buf[:n])
		}
		if err != nil {
			// EIO once every holder of the slave has closed it; ErrClosed after Close.
			return
		}
	}
}

func (s *session) ingest(p []byte) {
	now := time.Now()
	s.rec.output(p, now)
	s.mu.Lock()
	s.view.write(p, now)
	s.vtPend = append(s.vtPend, p...)
	if len(s.vtPend) > vtPendingCap {
		// Nobody looked at the screen for a while: keep the newest half, from a line start.
		keep := s.vtPend[len(s.vtPend)-vtPendingCap/2:]
		if i := strings.IndexByte(string(keep[:min(len(keep), 4096)]), '\n'); i >= 0 {
			keep = keep[i+1:]
		}
		s.vtPend = append(s.vtPend[:0], keep...)
	}
	s.lastOut = now
	s.broadcastLocked()
	s.mu.Unlock()
	if !s.bash {
		// Without prompt markers the first output (the prompt) is the best sign of life.
		s.readyOnce.Do(func() { close(s.ready) })
	}
	s.poke()
}

// poke asks the notifier goroutine to report an update; it never blocks the reader.
func (s *session) poke() {
	select {
	case s.updCh <- struct{}{}:
	default:
	}
}

func (s *session) notifyLoop() {
	for {
		select {
		case <-s.stopUpd:
			return
		case <-s.updCh:
		}
		if f := s.m.onUpdate.Load(); f != nil {
			(*f)(s.conv, s.id)
		}
		t := time.NewTimer(updateEvery)
		select {
		case <-s.stopUpd:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func (s *session) waitLoop() {
	defer close(s.waitDone)
	err := s.cmd.Wait()
	code := exitCode(s.cmd.ProcessState, err)
	// Let the reader take in the shell's last words ("exit", an error) before waiters are
	// told it is gone; a background job still holding the terminal keeps it open, so bound it.
	t := time.NewTimer(200 * time.Millisecond)
	select {
	case <-s.readerDone:
	case <-t.C:
	}
	t.Stop()
	s.mu.Lock()
	s.shellExit = &code
	if s.state == StateRunning || s.state == StateStarting {
		s.state = StateExited
	}
	s.ended = time.Now()
	s.cmdRunning = false
	s.broadcastLocked()
	s.mu.Unlock()
	s.readyOnce.Do(func() { close(s.ready) })
	s.m.persistLater(s)
	s.poke()
}

func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		return -1
	}
	if code := signalledExit(ps); code != 0 {
		return code
	}
	return ps.ExitCode()
}

// onMarker runs with s.mu held (called from logView.write).
func (s *session) onMarker(mk marker) {
	switch mk.kind {
	case 'A':
		s.promptAt = time.Now()
		s.prompts++
		if s.prompts == 1 {
			s.readyOnce.Do(func() { close(s.ready) })
		}
	case 'C':
		if !s.aheadUnsure.IsZero() {
			// The shell had read the typed-ahead line: it is this command.
			s.aheadUnsure = time.Time{}
			s.sentDone, s.cAtSend = s.done, s.cCount
		}
		s.aheadQueued = false
		s.cmdRunning = true
		s.cmdStarted = time.Now()
		s.cmdStartOff = mk.off
		s.cmdCwd = s.promptCwd
		if s.cmdCwd == "" {
			s.cmdCwd = s.cwd
		}
		s.cCount++
		if s.cAtSend >= 0 && s.cCount == s.cAtSend+1 {
			s.firstCOff = mk.off
		}
	case 'P':
		// A continuation prompt (an open quote, a heredoc): the line sent is still being
		// typed, so no command will start; stop waiting for one (awaitStart, wait_for's echo).
		s.cAtSend = -1
	case 'D':
		if s.prompts == 0 {
			return // PROMPT_COMMAND before the very first prompt
		}
		s.done++
		s.redraw = false
		if s.typedAhead && s.cmdRunning {
			s.typedAhead = false
			if s.inputPending != nil && s.inputPending() {
				// The line typed into the command that just ended was not read by it: the
				// shell runs it next, and its own completion is the one to wait for.
				s.aheadQueued = true
				s.sentDone, s.cAtSend = s.done, s.cCount
			} else {
				s.aheadUnsure = time.Now()
			}
		}
		if mk.code >= 0 {
			c := mk.code
			s.lastExit = &c
		}
		if s.cmdRunning && s.lastCommand != "" {
			code := mk.code
			if code < 0 {
				code = -1
			}
			s.m.commands.add(s.conv, CommandRecord{Session: s.id, Command: s.lastCommand, ExitCode: code,
				Started: s.cmdStarted, Duration: time.Since(s.cmdStarted), Cwd: s.cmdCwd, OutputFrom: s.cmdStartOff, OutputTo: mk.off})
		}
		s.cmdRunning = false
		s.promptCwd = procCwd(s.pid, s.cwd)
		s.m.persistLater(s)
	}
}

func (s *session) send(ctx context.Context, in Input) (doneBefore int, err error) {
	atPrompt := false
	if len(in.Text) > maxInputBytes {
		return 0, fmt.Errorf("%w: text is %d bytes, at most %d can be typed at once; write it to a file and run that instead", ErrInvalid, len(in.Text), maxInputBytes)
	}
	var b strings.Builder
	b.WriteString(in.Text)
	enter := in.PressEnter == nil || *in.PressEnter
	if enter && in.Text != "" {
		b.WriteByte('\r')
	}
	// A line is submitted by press_enter after text or by an enter key (up + enter recalls
	// and reruns the last command); either starts a new command to report on.
	submit := enter && in.Text != "" || in.User && strings.ContainsAny(in.Text, "\r\n")
	for _, k := range in.Keys {
		kb, err := keyBytes(k)
		if err != nil {
			return 0, err
		}
		b.WriteString(kb)
		submit = submit || strings.Contains(kb, "\r")
	}
	s.awaitStart(ctx)
	// Lines are decided before anything is typed, in the order they are typed.
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	line, err := s.m.checkInput(ctx, s, b.String())
	if err != nil {
		return 0, err
	}
	s.mu.Lock()
	if s.state != StateRunning {
		st := s.state
		s.mu.Unlock()
		return 0, fmt.Errorf("session %q is %s: %w", s.id, st, ErrEnded)
	}
	doneBefore = s.done
	atPrompt = s.bash && !s.cmdRunning
	if submit {
		s.noteSubmitLocked(submittedText(in))
	} else if atPrompt && strings.Contains(b.String(), "\x03") {
		// Marked before it is typed: the new prompt's marker may come back at once.
		s.redraw = true
	}
	s.lastUse = time.Now()
	s.mu.Unlock()
	if b.Len() == 0 {
		return doneBefore, nil
	}
	if atPrompt {
		// Keys too: a ctrl-c that reaches the shell between its prompt and readline's
		// taking the terminal is seen only when the next character comes, which is eaten.
		s.awaitLineEditor(ctx, 2*time.Second)
	} else if strings.IndexByte(b.String(), 0x04) >= 0 {
		s.awaitEditorMode(ctx)
	}
	limit := min(5*time.Second, s.m.cfg.MaxWait)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < limit {
		limit = time.Until(dl)
	}
	_ = s.f.SetWriteDeadline(time.Now().Add(limit))
	if _, err := s.f.Write([]byte(b.String())); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return doneBefore, fmt.Errorf("%w: session %q does not read its input (input buffer full); try keys [\"ctrl-c\"] or get_screen", ErrInvalid, s.id)
		}
		return doneBefore, fmt.Errorf("write to session %q: %w", s.id, err)
	}
	s.rec.input(b.String(), time.Now())
	s.mu.Lock()
	s.line = line
	s.mu.Unlock()
	return doneBefore, nil
}

// noteSubmitLocked records a line submitted to the session: where its echo starts, which
// completion marker will be its own, and whether it was typed at the shell prompt (the
// returned value). s.mu must be held.
func (s *session) noteSubmitLocked(text string) (atPrompt bool) {
	// A line typed ahead into a command that has just ended is still to run: this
	// line's completion comes after that one's.
	ahead := 0
	if s.bash && !s.cmdRunning && s.aheadQueued {
		ahead = 1
	}
	redraw := 0
	if s.bash && !s.cmdRunning && s.redraw {
		redraw = 1 // no command starts for it: cAtSend does not count it
	}
	s.aheadUnsure = time.Time{} // Send waited it out (awaitStart)
	s.sentDone = s.done + ahead + redraw
	s.echoFrom, s.echoLines = s.log.end(), strings.Count(text, "\n")+1
	s.echoStart, s.echoAt = s.echoFrom, time.Now()
	s.cAtSend = -1
	if s.bash && !s.cmdRunning {
		// At the shell prompt: the command's own output starts at its start marker.
		s.cAtSend = s.cCount + ahead
	}
	s.typedAhead = s.bash && s.cmdRunning
	atPrompt = s.bash && !s.cmdRunning
	if t := strings.TrimSpace(text); t != "" {
		s.lastCommand = truncateRunes(t, 200)
	}
	return atPrompt
}

// echoEndLocked is the offset after the echo of the last sent line (the log end while the
// echo has not fully arrived).
func (s *session) echoEndLocked() int64 {
	if s.cAtSend >= 0 {
		if s.cCount > s.cAtSend {
			return s.firstCOff
		}
		if time.Since(s.echoAt) < 10*time.Second {
			return s.log.end()
		}
		s.cAtSend = -1 // no start marker: fall back to skipping the echoed lines
	}
	if s.echoLines == 0 {
		return s.echoEnd
	}
	data, from := s.log.read(s.echoFrom, maxMaxBytes)
	for i, b := range data {
		if b == '\n' {
			s.echoLines--
			if s.echoLines == 0 {
				s.echoEnd = from + int64(i) + 1
				return s.echoEnd
			}
		}
	}
	s.echoFrom = from + int64(len(data))
	if time.Since(s.echoAt) > 3*time.Second {
		// No echo (a program turned it off): match everything sent since.
		s.echoLines, s.echoEnd = 0, s.echoStart
		return s.echoEnd
	}
	return s.log.end()
}

// startWait bounds awaitStart. The wait ends as soon as the shell answers, within
// milliseconds on an idle machine; a CI machine running every package's tests at once was
// seen to take more than 2 s to print the prompt after a ctrl-c, and the line typed
// meanwhile lost its first character.
const startWait = 5 * time.Second

// awaitStart waits (briefly) until a line typed at the shell prompt has started or finished,
// and until the prompt a ctrl-c at the prompt brings has come. Until then readline owns the
// terminal, and text meant for the new program (cat, a REPL) would be read by the shell or
// lost in the switch between raw and cooked mode; a line typed while readline handles the
// ctrl-c loses its first character, and bash runs the rest without a new prompt.
func (s *session) awaitStart(ctx context.Context) {
	deadline := time.Now().Add(startWait)
	for {
		s.mu.Lock()
		pending := s.bash && s.state == StateRunning &&
			(s.cAtSend >= 0 && s.cCount <= s.cAtSend && !s.finishedLocked() || s.redraw && !s.cmdRunning)
		unsure := s.aheadUnsureLocked()
		ch := s.notify
		s.mu.Unlock()
		d := time.Until(deadline)
		if !pending && !unsure.IsZero() {
			// Until it is known whether the shell runs the typed-ahead line, a new line
			// cannot be told where it stands.
			pending, d = true, min(d, time.Until(unsure))
		}
		if !pending || d <= 0 {
			return
		}
		t := time.NewTimer(d)
		select {
		case <-ch:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		if ctx.Err() != nil {
			return
		}
	}
}

// awaitLineEditor waits at most limit until readline has switched the terminal out of
// canonical echo mode and the shell sleeps waiting for input, or a command has started
// instead. Input typed before that is echoed twice (by the kernel and by readline's
// redisplay), which clutters the log; and a ctrl-c that comes after readline checked for
// signals but before it waits for input is seen only when the next character comes, which
// readline then throws away with the interrupted line (a loaded machine hit that window).
func (s *session) awaitLineEditor(ctx context.Context, limit time.Duration) {
	s.awaitTerminal(ctx, limit, func(lflag uint32) bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.cmdRunning || s.state != StateRunning {
			return true
		}
		if lflag&lflagECHO != 0 {
			return false
		}
		asleep, known := sleeping(s.pid)
		return asleep || !known
	})
}

// eofQuiet and eofWait bound awaitEditorMode: how long a program must have been silent, and
// how long the wait may last in all. A line editor takes the terminal back within
// microseconds of printing on an idle machine, but CI under load lost a ctrl-d to bc with a
// 50 ms quiet; a program that stays in canonical mode (cat) pays eofQuiet once per ctrl-d.
const (
	eofQuiet = 200 * time.Millisecond
	eofWait  = time.Second
)

// awaitEditorMode waits briefly before an end-of-file key reaches a program that has just
// printed while its terminal is in canonical mode. A line editor such as readline puts the
// terminal back in canonical mode between lines; an end-of-file typed in that gap becomes
// a NUL byte once the editor switches to raw mode again, and ctrl-d is lost. The wait ends
// when the terminal leaves canonical mode or the program has been quiet for eofQuiet.
func (s *session) awaitEditorMode(ctx context.Context) {
	s.awaitTerminal(ctx, eofWait, func(lflag uint32) bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return lflag&lflagICANON == 0 || time.Since(s.lastOut) >= eofQuiet
	})
}

// awaitTerminal reads the terminal's local modes every millisecond until over says the wait
// is over, limit has passed or ctx is done.
func (s *session) awaitTerminal(ctx context.Context, limit time.Duration, over func(lflag uint32) bool) {
	deadline := time.Now().Add(limit)
	for {
		lflag, _ := s.f.LocalModes()
		if over(lflag) || time.Now().After(deadline) || ctx.Err() != nil {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// canonical says whether the terminal is in canonical mode now (line by line, as for the
// shell between prompts and for most programs; pagers and editors read keys as they come).
// When the modes cannot be read it says so.
func (s *session) canonical() bool {
	l, ok := s.f.LocalModes()
	return !ok || l&lflagICANON != 0
}

// promptEcho is how long after a prompt the shell's line editor has surely read and echoed
// what was waiting in the terminal's input queue.
const promptEcho = 150 * time.Millisecond

// shellHolds says whether the shell's line editor holds text, typed while a program that
// reads keys as they come had the terminal, now that the shell has its prompt back. The
// program read it unless it is still waiting in the input queue, or readline took it, which
// it shows after the prompt. When unsure, the shell holds it: the next line is then checked
// with it, as it would run.
func (s *session) shellHolds(text string) bool {
	s.mu.Lock()
	wait := promptEcho - time.Since(s.promptAt)
	s.mu.Unlock()
	if wait > 0 {
		time.Sleep(wait)
	}
	if s.inputPending != nil && s.inputPending() {
		return true
	}
	s.mu.Lock()
	s.feedVTLocked()
	line, ok := cursorLine(s.vt)
	s.mu.Unlock()
	return !ok || strings.HasSuffix(strings.TrimRight(line, " "), strings.TrimRight(text, " "))
}

// cursorLine is the text of the screen line the cursor is on, up to the cursor.
func cursorLine(vt vt10x.Terminal) (string, bool) {
	vt.Lock()
	defer vt.Unlock()
	cur := vt.Cursor()
	cols, rows := vt.Size()
	if cur.Y < 0 || cur.Y >= rows {
		return "", false
	}
	var b strings.Builder
	for x := 0; x < min(cur.X, cols); x++ {
		c := vt.Cell(x, cur.Y).Char
		if c == 0 {
			c = ' '
		}
		b.WriteRune(c)
	}
	return b.String(), true
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// finishedLocked says the command sent last has completed (known with prompt markers).
func (s *session) finishedLocked() bool {
	return s.sentDone >= 0 && s.done > s.sentDone && s.aheadUnsureLocked().IsZero()
}

// typeAheadGrace is how long after the end of the command a line was typed into the shell
// has to show that it runs the line (its start marker) before the line is taken as input
// that command read.
const typeAheadGrace = 250 * time.Millisecond

// aheadUnsureLocked is when the question of a typed-ahead line ends (zero if none is open).
func (s *session) aheadUnsureLocked() time.Time {
	if s.aheadUnsure.IsZero() {
		return time.Time{}
	}
	if end := s.aheadUnsure.Add(typeAheadGrace); time.Now().Before(end) {
		return end
	}
	s.aheadUnsure = time.Time{}
	return time.Time{}
}

// output waits per q; completion of the command sent last ends the wait.
//
// A command finishing ends the wait only if it finishes after since (a count of completed
// commands; -1 means now): a get_output that waits for a background server's readiness
// must not return at once just because the command that started it has completed.
func (s *session) output(ctx context.Context, q OutputQuery, since int) (Output, error) {
	cfg := s.m.cfg
	if since < 0 {
		s.mu.Lock()
		since = s.done
		s.mu.Unlock()
	}
	out, err := s.stream.wait(ctx, q, cfg.MaxWait, cfg.Settle, func() waitState {
		ws := waitState{exited: s.state != StateRunning, finished: s.done > since && s.finishedLocked(), matchFrom: s.echoEndLocked(),
			recheck: s.aheadUnsureLocked()}
		if s.bash && s.cmdRunning {
			ws.baseline = s.cmdStartOff
		}
		return ws
	})
	s.mu.Lock()
	out.ID = s.id
	out.CommandRunning = s.cmdRunning
	out.Finished = s.finishedLocked()
	if e := s.exitLocked(); e != nil {
		c := *e
		out.ExitCode = &c
	}
	out.Exited = s.state != StateRunning
	out.Sandbox, out.Cwd = modeOf(s.gated.Policy), s.cwd
	s.mu.Unlock()
	return out, err
}

// screen renders the visible screen, first feeding the emulator what arrived since.
func (s *session) screen() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.feedVTLocked()
	s.lastUse = time.Now()
	return renderScreen(s.vt)
}

func (s *session) feedVTLocked() {
	if len(s.vtPend) == 0 {
		return
	}
	p := s.vtPend
	// Hold back an incomplete UTF-8 sequence at the end for the next read.
	cut := completeUTF8(p)
	func() {
		defer func() {
			if r := recover(); r != nil {
				slog.Warn("terminal emulator failed; screen reset", "session", s.id, "panic", r)
				s.vt = vt10x.New(vt10x.WithSize(s.cols, s.rows))
			}
		}()
		_, _ = s.vt.Write(p[:cut])
	}()
	s.vtPend = append(s.vtPend[:0], p[cut:]...)
}

func renderScreen(vt vt10x.Terminal) string {
	vt.Lock()
	defer vt.Unlock()
	cols, rows := vt.Size()
	lines := make([]string, rows)
	var b strings.Builder
	for y := 0; y < rows; y++ {
		b.Reset()
		for x := 0; x < cols; x++ {
			c := vt.Cell(x, y).Char
			if c == 0 {
				c = ' '
			}
			b.WriteRune(c)
		}
		lines[y] = strings.TrimRight(b.String(), " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// resizeWait bounds how long a resize at the shell prompt waits for readline to take the
// terminal; only a shell without line editing (set +o emacs) ever waits that long.
const resizeWait = 5 * time.Second

func (s *session) resize(cols, rows int) error {
	s.mu.Lock()
	st, atPrompt := s.state, s.bash && !s.cmdRunning
	s.mu.Unlock()
	if st != StateRunning {
		return fmt.Errorf("session %q is %s: %w", s.id, st, ErrEnded)
	}
	if atPrompt {
		// Readline reads the window size and writes it back each time it takes the
		// terminal for a prompt, before it switches echo off. A size set in between is lost:
		// the kernel, stty and every later program keep the old one.
		s.awaitLineEditor(context.Background(), resizeWait)
	}
	if err := s.f.Resize(cols, rows); err != nil {
		return fmt.Errorf("resize session %q: %w", s.id, err)
	}
	s.rec.resize(cols, rows, time.Now())
	s.mu.Lock()
	s.feedVTLocked()
	s.vt.Resize(cols, rows)
	s.cols, s.rows = cols, rows
	s.lastUse = time.Now()
	s.mu.Unlock()
	return nil
}

// terminate kills every process of the session, closes the PTY and reaps the shell. It
// is bounded: grace plus a few seconds of SIGKILL rounds at most.
func (s *session) terminate(ctx context.Context, grace time.Duration) {
	s.terminateWith(ctx, 0, grace)
}

// terminateWith ends the session starting with signal sig (zero: SIGHUP and SIGTERM).
func (s *session) terminateWith(ctx context.Context, sig syscall.Signal, grace time.Duration) {
	s.mu.Lock()
	if s.state == StateRunning || s.state == StateStarting {
		s.state = StateClosed
	}
	if s.ended.IsZero() {
		s.ended = time.Now()
	}
	s.broadcastLocked()
	started := s.f != nil
	s.mu.Unlock()
	if !started {
		return
	}
	if left := s.sel.killWith(ctx, sig, grace); len(left) > 0 {
		slog.Warn("terminal session processes survived SIGKILL", "session", s.id, "pids", left)
	}
	_ = s.f.Close()
	select {
	case <-s.waitDone:
	case <-time.After(5 * time.Second):
		slog.Warn("terminal shell not reaped", "session", s.id, "pid", s.pid)
	}
	select {
	case <-s.readerDone:
	case <-time.After(time.Second):
	}
	s.stopOnce.Do(func() { close(s.stopUpd) })
}

func (s *session) info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	inf := Info{
		ID: s.id, Conversation: s.conv, Kind: "session", Cwd: s.cwd, Shell: s.shell,
		PID: s.pid, State: s.state, Started: s.started, Ended: s.ended,
		IdleSeconds: int64(time.Since(s.lastUse).Seconds()), LastCommand: s.lastCommand,
		ExitCodes: s.bash, Cols: s.cols, Rows: s.rows, Sandbox: modeOf(s.gated.Policy),
	}
	if e := s.exitLocked(); e != nil {
		c := *e
		inf.ExitCode = &c
	}
	return inf
}

// exitLocked is the status to report: the shell's own once it has exited by itself (`exit 3`
// ends a session with 3, whatever the command before returned), else the last command's.
func (s *session) exitLocked() *int {
	if s.state == StateExited && s.shellExit != nil {
		return s.shellExit
	}
	return s.lastExit
}
