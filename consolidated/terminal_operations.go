package consolidated

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/terminal"
)

// The argument structs. A parameter keeps one type across operations; its description is
// taken from the first operation that declares it (table order), so later structs leave it out.

type runCommandArgs struct {
	Command        string            `json:"command" alias:"cmd"`
	Cwd            string            `json:"cwd,omitempty" alias:"working_directory,workdir,dir,directory" jsonschema:"Default: working dir."`
	Env            map[string]string `json:"env,omitempty"`
	TimeoutSeconds int               `json:"timeout_seconds,omitempty" alias:"timeout" jsonschema:"Kills the tree; default 120."`
	YieldSeconds   int               `json:"yield_seconds,omitempty" alias:"yield" jsonschema:"Then return an id to poll; default 15."`
	MaxBytes       int               `json:"max_bytes,omitempty" alias:"max_output,limit"`
}

type createSessionArgs struct {
	SessionID string            `json:"session_id,omitempty" alias:"id,session,name,session_name" jsonschema:"create_session: optional name."`
	Cwd       string            `json:"cwd,omitempty" alias:"working_directory,workdir,dir,directory"`
	Env       map[string]string `json:"env,omitempty"`
	Cols      int               `json:"cols,omitempty" alias:"columns,width"`
	Rows      int               `json:"rows,omitempty" alias:"height,lines"`
}

type sendInputArgs struct {
	SessionID  string   `json:"session_id" alias:"id,session,name,session_name"`
	Text       string   `json:"text,omitempty" alias:"input,data,keystrokes"`
	PressEnter *bool    `json:"press_enter,omitempty" alias:"enter" jsonschema:"Default true."`
	Keys       []string `json:"keys,omitempty" alias:"key" jsonschema:"Sent after text: ctrl-c, ctrl-d, tab, esc, up, down, enter..."`
	WaitMS     int      `json:"wait_ms,omitempty" alias:"wait,timeout_ms" jsonschema:"Wait up to this for output to settle."`
	WaitFor    string   `json:"wait_for,omitempty" alias:"pattern,until" jsonschema:"Regex that ends the wait."`
	MaxBytes   int      `json:"max_bytes,omitempty" alias:"max_output,limit"`
}

type getOutputArgs struct {
	SessionID string `json:"session_id" alias:"id,session,name,session_name"`
	Cursor    int64  `json:"cursor,omitempty" alias:"since,from" jsonschema:"Default: after your last read."`
	WaitMS    int    `json:"wait_ms,omitempty" alias:"wait,timeout_ms"`
	WaitFor   string `json:"wait_for,omitempty" alias:"pattern,until"`
	MaxBytes  int    `json:"max_bytes,omitempty" alias:"max_output,limit"`
}

type sessionIDArgs struct {
	SessionID string `json:"session_id" alias:"id,session,name,session_name"`
}

type closeSessionArgs struct {
	SessionID string `json:"session_id" alias:"id,session,name,session_name"`
	Signal    string `json:"signal,omitempty" jsonschema:"close_session: TERM (default), INT, HUP, KILL…"`
}

type getHistoryArgs struct {
	SessionID string `json:"session_id" alias:"id,session,name,session_name"`
	Offset    int64  `json:"offset,omitempty" jsonschema:"Negative: from the end."`
	MaxBytes  int    `json:"max_bytes,omitempty" alias:"max_output,limit"`
}

type resizeArgs struct {
	SessionID string `json:"session_id" alias:"id,session,name,session_name"`
	Cols      int    `json:"cols" alias:"columns,width"`
	Rows      int    `json:"rows" alias:"height,lines"`
}

type listSessionsArgs struct{}

// TerminalConfig is what terminal_operations needs from the wiring.
type TerminalConfig struct {
	// Manager is the terminal engine. The tool serves its sessions as resources (it takes the
	// manager's update hook, see terminal.Manager.SetOnUpdate) and shuts it down on Close.
	Manager *terminal.Manager
	Guard   *authz.Guard
	// MaxWait is the engine's cap on one wait (terminal.Config.MaxWait; 0 means its default of
	// 60 s). Waiting operations get a seam deadline above it, so the seam never cuts a wait the
	// engine would end by itself.
	MaxWait time.Duration
	// CloseGrace is the engine's SIGTERM-to-SIGKILL wait (0 means its default of 2 s).
	CloseGrace time.Duration
	// DefaultYield is the engine's run_command yield (terminal.Config.DefaultYield; 0 means
	// its default of 15 s); calls that stream progress wait for it themselves.
	DefaultYield time.Duration
	// Sandbox explains refusals of the terminal sandbox in results; nil adds nothing.
	Sandbox TerminalSandbox
	// Typed is what the user typed into sessions (the console, toolhost attach): the model's
	// next send_input, get_output or get_screen of the session says so (typedNote). Nil
	// adds nothing.
	Typed *terminal.UserInputs
}

// terminalToolName is the tool's name, also the Tool field of guard requests.
const terminalToolName = "terminal_operations"

// terminalShutdownWait bounds closing every session when the registry closes.
const terminalShutdownWait = 15 * time.Second

// TerminalRunner names terminal_operations and its operations that start commands, for the
// gate, which asks authz about the commands of those operations; it needs the table only.
func TerminalRunner() authz.Runner { return TerminalTool(TerminalConfig{}).Runner() }

// TerminalTool is terminal_operations: one-shot commands and named PTY sessions scoped to the
// conversation, on the terminal engine. Every wait is bounded (run_command hands back an id to
// poll); the guard decides where a command or session starts, not what it touches.
func TerminalTool(cfg TerminalConfig) *Tool {
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = 60 * time.Second
	}
	if cfg.CloseGrace <= 0 {
		cfg.CloseGrace = 2 * time.Second
	}
	if cfg.DefaultYield <= 0 {
		cfg.DefaultYield = 15 * time.Second
	}
	t := &terminalTool{mgr: cfg.Manager, guard: cfg.Guard, yield: cfg.DefaultYield, maxWait: cfg.MaxWait, sandbox: cfg.Sandbox, typed: cfg.Typed}
	// A wait ends by itself within MaxWait; the margin covers starting the process and, for
	// create_session, the first prompt (at most 10 s) after closing a session being replaced.
	waiting := cfg.MaxWait + 30*time.Second
	closing := 4*cfg.CloseGrace + 30*time.Second
	res := newTerminalResources(cfg.Manager)
	var shutdown func() error
	if m := cfg.Manager; m != nil {
		m.SetOnUpdate(res.Updated)
		shutdown = func() error {
			ctx, cancel := context.WithTimeout(context.Background(), terminalShutdownWait)
			defer cancel()
			return m.Shutdown(ctx)
		}
	}
	return &Tool{
		Name:        terminalToolName,
		Title:       "Terminal",
		Description: "Shell commands and PTY sessions: " + OperationsPlaceholder + ". They run in a sandbox, under the user's command rules.",
		Operations: []Operation{
			Op("run_command", "run via sh -c", RiskExecute, t.run).WithTimeout(waiting).WithRunsCommands(),
			Op("create_session", "start or reuse PTY shell", RiskExecute, t.create).WithTimeout(closing + 10*time.Second).WithRunsCommands(),
			Op("send_input", "type text or keys", RiskExecute, t.send).WithTimeout(waiting).WithRunsCommands(),
			Op("get_output", "new output, optionally waiting", RiskRead, t.output).WithTimeout(waiting),
			Op("get_screen", "rendered visible screen", RiskRead, t.screen),
			Op("get_history", "page retained output", RiskRead, t.history),
			Op("resize_session", "", RiskExecute, t.resize),
			Op("list_sessions", "", RiskRead, t.list),
			Op("close_session", "end it and its processes", RiskExecute, t.closeSession).WithTimeout(closing),
		},
		Resources:     res.resources(),
		Subscriptions: res,
		ListResources: res.listResources,
		AfterCall:     res.afterCall,
		Close:         shutdown,
	}
}

type terminalTool struct {
	mgr     *terminal.Manager
	guard   *authz.Guard
	yield   time.Duration
	maxWait time.Duration
	sandbox TerminalSandbox
	typed   *terminal.UserInputs
}

// startDir checks a starting directory with the guard and returns its canonical path.
func (t *terminalTool) startDir(ctx context.Context, c *Call, cwd string) (string, error) {
	d, err := t.guard.Check(ctx, c.GuardRequest(authz.ClassExecute, cwd))
	if err != nil {
		return "", GuardError(err, "cwd")
	}
	return d.Canonical, nil
}

// runStructured is run_command's structured content: the handles and flags, never the output.
type runStructured struct {
	ID         string `json:"id"`
	Running    bool   `json:"running,omitempty"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	TimedOut   bool   `json:"timed_out,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	Cursor     *int64 `json:"cursor,omitempty"`
	Truncated  bool   `json:"truncated,omitempty"`
	Cancelled  bool   `json:"cancelled,omitempty"`
	// Execution is the execution id of a command handed back still running: the history
	// keeps it running until the command ends, and cancelling it kills the command.
	Execution string `json:"execution,omitempty"`
}

func (t *terminalTool) run(ctx context.Context, c *Call, a *runCommandArgs) (*Result, error) {
	if strings.TrimSpace(a.Command) == "" {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "command", Message: "command is empty"}
	}
	if a.TimeoutSeconds < 0 || a.YieldSeconds < 0 {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "timeout_seconds", Message: "timeout_seconds and yield_seconds must be positive"}
	}
	cwd, err := t.startDir(ctx, c, a.Cwd)
	if err != nil {
		return nil, err
	}
	spec := terminal.RunSpec{
		Command: a.Command, Cwd: cwd, Env: a.Env,
		Timeout:  time.Duration(a.TimeoutSeconds) * time.Second,
		Yield:    time.Duration(a.YieldSeconds) * time.Second,
		MaxBytes: a.MaxBytes,
	}
	c.SetCommand(a.Command)
	res, err := t.runCommand(ctx, c, a, spec)
	if err != nil || res == nil {
		return res, err
	}
	if st, ok := res.Structured.(*runStructured); ok {
		switch {
		case st.Running:
			if t.continueExecution(c, st); st.Execution != "" {
				res.Text += fmt.Sprintf("\n(execution %s runs until the command ends)", st.Execution)
			}
		case st.ExitCode != nil:
			c.SetExitCode(*st.ExitCode)
			if st.TimedOut && c.Execution != nil {
				c.Execution.Report(exitOutcome(*st.ExitCode, true))
			}
		}
	}
	return res, nil
}

// continueExecution keeps the call's execution running while the command it started runs
// past its yield (continueWithCommand) and names it in the structured result.
func (t *terminalTool) continueExecution(c *Call, st *runStructured) {
	st.Execution = continueWithCommand(c, t.mgr, st.ID)
}

// runCommand runs the command and renders its outcome. A call cancelled while the command runs
// kills its process tree, and the answer says so with the exit status.
func (t *terminalTool) runCommand(ctx context.Context, c *Call, a *runCommandArgs, spec terminal.RunSpec) (*Result, error) {
	if p := newProgress(ctx, c); p != nil {
		defer p.stop()
		return t.runStreaming(ctx, c, spec, p)
	}
	r, err := t.mgr.Run(ctx, c.Conversation, spec)
	if err != nil && r.ID != "" && ctx.Err() != nil {
		return renderRun(r), nil
	}
	if err != nil {
		return nil, terminalError(err, "command")
	}
	if !r.Running {
		return t.noted(ctx, c, renderRun(r), r.Sandbox, r.Cwd, r.Stderr+r.Stdout), nil
	}
	if r.Running {
		// Move the conversation's own cursor past what this answer shows, so a get_output
		// without a cursor continues here; output that arrived meanwhile is shown too.
		cursor := r.StdoutBytes + r.StderrBytes
		out, err := t.mgr.Output(ctx, c.Conversation, r.ID, terminal.OutputQuery{Cursor: &cursor, MaxBytes: max(a.MaxBytes, 16<<10)})
		if err == nil {
			res := renderRun(r)
			if out.Text != "" {
				res.Text += "\n--- then (stdout+stderr) ---\n" + out.Text
				res.Text = strings.Replace(res.Text, fmt.Sprintf("cursor=%d", cursor), fmt.Sprintf("cursor=%d", out.NextCursor), 1)
				res.Structured.(*runStructured).Cursor = &out.NextCursor
			}
			return res, nil
		}
	}
	return renderRun(r), nil
}

// runStreaming runs a command for a client that asked for progress: a short first wait, then
// waits on its output (which streams as progress notifications) until it finishes or the
// yield time is up. A command still running then is handed back like run_command does,
// with its output so far as one log (stdout and stderr interleaved).
func (t *terminalTool) runStreaming(ctx context.Context, c *Call, spec terminal.RunSpec, p *progress) (*Result, error) {
	yield := spec.Yield
	if yield <= 0 {
		yield = t.yield
	}
	yield = min(yield, t.maxWait)
	began := time.Now()
	spec.Yield = min(yield, 100*time.Millisecond)
	r, err := t.mgr.Run(ctx, c.Conversation, spec)
	if err != nil {
		return nil, terminalError(err, "command")
	}
	if !r.Running {
		return t.noted(ctx, c, renderRun(r), r.Sandbox, r.Cwd, r.Stderr+r.Stdout), nil
	}
	p.chunk(r.Stdout + r.Stderr)
	cursor := r.StdoutBytes + r.StderrBytes
	for {
		left := yield - time.Since(began)
		if left <= 0 {
			break
		}
		out, err := t.mgr.Output(ctx, c.Conversation, r.ID, terminal.OutputQuery{
			Cursor: &cursor, WaitMS: int(left / time.Millisecond), MaxBytes: 1 << 20, Progress: p.chunk,
		})
		if err != nil && ctx.Err() != nil {
			t.mgr.Cancel(c.Conversation, r.ID)
			if fin, werr := t.mgr.Wait(context.Background(), c.Conversation, r.ID, 0); werr == nil {
				return renderRun(fin), nil
			}
		}
		if err != nil {
			return nil, terminalError(err, "command")
		}
		if out.Result != nil {
			return t.noted(ctx, c, renderRun(*out.Result), out.Sandbox, out.Cwd, out.Result.Stderr+out.Result.Stdout), nil
		}
		cursor = out.NextCursor
	}
	zero := int64(0)
	out, err := t.mgr.Output(ctx, c.Conversation, r.ID, terminal.OutputQuery{Cursor: &zero, MaxBytes: max(spec.MaxBytes, 16<<10)})
	if err != nil {
		return nil, terminalError(err, "command")
	}
	if out.Result != nil {
		return t.noted(ctx, c, renderRun(*out.Result), out.Sandbox, out.Cwd, out.Result.Stderr+out.Result.Stdout), nil
	}
	if out.HasMore {
		// Keep the tail instead: the newest output is what a running command is judged by.
		from := max(out.NextCursor, cursor-int64(max(spec.MaxBytes, 16<<10)))
		if o2, err := t.mgr.Output(ctx, c.Conversation, r.ID, terminal.OutputQuery{Cursor: &from, MaxBytes: 1 << 20}); err == nil {
			out.Text += "\n[... output skipped; get_output pages it ...]\n" + o2.Text
			out.NextCursor = o2.NextCursor
		}
	}
	d := time.Since(began)
	st := &runStructured{ID: r.ID, Running: true, DurationMS: d.Milliseconds(), Cursor: &out.NextCursor}
	text := fmt.Sprintf("still running after %s: poll with get_output session_id=%s cursor=%d (stop: close_session)\n--- output so far (stdout+stderr) ---\n%s",
		roundDur(d), r.ID, out.NextCursor, out.Text)
	return &Result{Text: strings.TrimRight(text, "\n"), Structured: st}, nil
}

// renderRun is the text the model sees for a one-shot command, finished or handed back.
func renderRun(r terminal.RunResult) *Result {
	var b strings.Builder
	st := &runStructured{ID: r.ID, Running: r.Running, TimedOut: r.TimedOut, DurationMS: r.DurationMS, Truncated: r.Truncated, Cancelled: r.Cancelled}
	switch {
	case r.Cancelled:
		code := r.ExitCode
		st.ExitCode = &code
		fmt.Fprintf(&b, "cancelled after %s; the process tree was killed (exit %d)\n", roundDur(ms(r.DurationMS)), r.ExitCode)
	case r.Running:
		cursor := r.StdoutBytes + r.StderrBytes
		st.Cursor = &cursor
		fmt.Fprintf(&b, "still running after %s: poll with get_output session_id=%s cursor=%d (stop: close_session)\n", roundDur(ms(r.DurationMS)), r.ID, cursor)
	case r.TimedOut:
		code := r.ExitCode
		st.ExitCode = &code
		fmt.Fprintf(&b, "timed out after %s; the process tree was killed (exit %d)\n", roundDur(ms(r.DurationMS)), r.ExitCode)
	default:
		code := r.ExitCode
		st.ExitCode = &code
		fmt.Fprintf(&b, "exit %d in %s\n", r.ExitCode, roundDur(ms(r.DurationMS)))
	}
	if r.Stdout == "" && r.Stderr == "" {
		b.WriteString("(no output)\n")
	}
	writeStream(&b, "stdout", r.Stdout, r.StdoutBytes, r.Truncated)
	writeStream(&b, "stderr", r.Stderr, r.StderrBytes, r.Truncated)
	if r.Truncated {
		fmt.Fprintf(&b, "(full output, both streams: get_history session_id=%s)\n", r.ID)
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Structured: st}
}

// writeStream writes one stream under a header that gives its full size when it was cut
// (cleaning alone, \r\n to \n, also makes the text shorter than what the command wrote).
func writeStream(b *strings.Builder, name, text string, total int64, truncated bool) {
	if text == "" {
		return
	}
	if truncated && int64(len(text)) < total {
		fmt.Fprintf(b, "--- %s (%d bytes) ---\n", name, total)
	} else {
		fmt.Fprintf(b, "--- %s ---\n", name)
	}
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
}

// roundDur prints durations the way a person reads them: 3ms, 1.2s, 2m5s.
// ms converts the engine's millisecond counts.
func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

func roundDur(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}

// sessionStructured is create_session's structured content.
type sessionStructured struct {
	ID        string `json:"id"`
	PID       int    `json:"pid"`
	Cwd       string `json:"cwd"`
	Reused    bool   `json:"reused,omitempty"`
	Restarted bool   `json:"restarted,omitempty"`
}

func (t *terminalTool) create(ctx context.Context, c *Call, a *createSessionArgs) (*Result, error) {
	cwd, err := t.startDir(ctx, c, a.Cwd)
	if err != nil {
		return nil, err
	}
	inf, err := t.mgr.Create(ctx, c.Conversation, terminal.SessionSpec{Name: a.SessionID, Cwd: cwd, Env: a.Env, Cols: a.Cols, Rows: a.Rows})
	if err != nil {
		return nil, terminalError(err, "session_id")
	}
	verb := "started"
	switch {
	case inf.Reused:
		verb = "reused (already running there)"
	case inf.Restarted:
		verb = "restarted"
	}
	codes := "exit codes reported"
	if !inf.ExitCodes {
		codes = "exit codes unknown (not bash)"
	}
	text := fmt.Sprintf("session %s %s: pid %d, %s, %dx%d, %s; %s; sandbox %s.\nnext: send_input session_id=%s", inf.ID, verb, inf.PID, inf.Cwd, inf.Cols, inf.Rows, inf.Shell, codes, orOff(inf.Sandbox), inf.ID)
	return &Result{Text: text, Structured: sessionStructured{ID: inf.ID, PID: inf.PID, Cwd: inf.Cwd, Reused: inf.Reused, Restarted: inf.Restarted}}, nil
}

func (t *terminalTool) send(ctx context.Context, c *Call, a *sendInputArgs) (*Result, error) {
	if a.Text == "" && len(a.Keys) == 0 {
		return nil, &ToolError{Code: CodeMissingParameter, Param: "text, keys", Message: "send_input needs text or keys",
			Next: "keys: " + terminal.KeyNames()}
	}
	q, stop := t.query(ctx, c, nil, a.WaitMS, a.WaitFor, a.MaxBytes)
	defer stop()
	var unread terminal.Output
	if q.WaitMS > 0 {
		// The engine counts output nobody has read yet (a prompt printed long ago) as output
		// that has settled, and would end the wait at once. Read it first; it leads the answer.
		var err error
		if unread, err = t.mgr.Output(ctx, c.Conversation, a.SessionID, terminal.OutputQuery{MaxBytes: q.MaxBytes}); err != nil {
			return nil, terminalError(err, "session_id")
		}
	}
	out, err := t.mgr.Send(ctx, c.Conversation, a.SessionID, terminal.Input{Text: a.Text, PressEnter: a.PressEnter, Keys: a.Keys, Wait: q})
	if err != nil {
		return nil, terminalError(err, "session_id")
	}
	out = t.skipToTail(ctx, c.Conversation, out, q.MaxBytes)
	if unread.Text != "" {
		out.Text, out.Cursor = unread.Text+out.Text, unread.Cursor
	}
	res := t.typedNote(c, a.SessionID, t.noted(ctx, c, renderOutput(out), out.Sandbox, out.Cwd, out.Text))
	if q.WaitMS == 0 && !out.Exited {
		// Without a wait the answer holds only what was there before (often the old prompt).
		res.Text = strings.Replace(res.Text, "\n", "; sent without waiting: get_output wait_ms=5000 reads the result\n", 1)
	}
	return res, nil
}

func (t *terminalTool) output(ctx context.Context, c *Call, a *getOutputArgs) (*Result, error) {
	var cursor *int64
	if a.Cursor > 0 {
		// 0 is what clients that fill every property send; it means "my own cursor".
		cursor = &a.Cursor
	}
	q, stop := t.query(ctx, c, cursor, a.WaitMS, a.WaitFor, a.MaxBytes)
	defer stop()
	out, err := t.mgr.Output(ctx, c.Conversation, a.SessionID, q)
	if err != nil {
		return nil, terminalError(err, "session_id")
	}
	if cursor == nil {
		out = t.skipToTail(ctx, c.Conversation, out, q.MaxBytes)
	}
	return t.typedNote(c, a.SessionID, t.noted(ctx, c, renderOutput(out), out.Sandbox, out.Cwd, out.Text)), nil
}

// skipToTail keeps the head of an answer read with the conversation's own cursor that left
// more than a page unread, skips to the newest output and moves the cursor there, the way
// run_command keeps head and tail. After a flood (yes, a chatty build, ctrl-c) the model sees
// how it ended (the prompt, the error) at once instead of paging through megabytes; the
// skipped bytes stay readable with get_history. An explicit cursor pages without skipping.
func (t *terminalTool) skipToTail(ctx context.Context, conv string, out terminal.Output, maxBytes int) terminal.Output {
	if maxBytes <= 0 {
		maxBytes = 16 << 10
	}
	if !out.HasMore || maxBytes < 1<<10 {
		return out
	}
	half := maxBytes / 2
	page, err := t.mgr.History(conv, out.ID, -1, 1)
	if err != nil {
		return out
	}
	from := page.End - int64(half)
	// The head: the first half of what was read, cut at a line end when there is one.
	head := out.Text[:min(len(out.Text), half)]
	if i := strings.LastIndexByte(head, '\n'); i >= half/2 {
		head = head[:i+1]
	} else {
		for i := len(head) - 1; i >= 0 && i >= len(head)-utf8.UTFMax; i-- {
			if utf8.RuneStart(head[i]) {
				if !utf8.FullRuneInString(head[i:]) {
					head = head[:i]
				}
				break
			}
		}
	}
	headEnd := out.NextCursor - int64(len(out.Text)-len(head))
	if from <= headEnd {
		return out
	}
	tail, err := t.mgr.Output(ctx, conv, out.ID, terminal.OutputQuery{Cursor: &from, MaxBytes: half})
	if err != nil {
		return out
	}
	if !strings.HasSuffix(head, "\n") {
		head += "\n"
	}
	out.Text = fmt.Sprintf("%s[... %d bytes skipped; get_history session_id=%s offset=%d reads them ...]\n%s",
		head, from-headEnd, out.ID, headEnd, tail.Text)
	out.NextCursor, out.HasMore = tail.NextCursor, tail.HasMore
	return out
}

// impliedWaitMS is the wait of a wait_for given without wait_ms: long enough for a build or a
// server start, well inside the minute after which clients abandon a call.
const impliedWaitMS = 30_000

// query builds the engine's output query, with a progress callback when the client asked for
// progress. stop flushes nothing; it only ends the throttle's bookkeeping.
func (t *terminalTool) query(ctx context.Context, c *Call, cursor *int64, waitMS int, waitFor string, maxBytes int) (terminal.OutputQuery, func()) {
	if waitFor != "" && waitMS <= 0 {
		// A pattern to wait for without a wait time means "wait until it appears"; a zero wait
		// would return at once, before the pattern could match.
		waitMS = impliedWaitMS
	}
	q := terminal.OutputQuery{Cursor: cursor, WaitMS: max(waitMS, 0), WaitFor: waitFor, MaxBytes: maxBytes}
	if waitMS <= 0 {
		return q, func() {}
	}
	p := newProgress(ctx, c)
	if p == nil {
		return q, func() {}
	}
	q.Progress = p.chunk
	return q, p.stop
}

// outputStructured is the structured content of get_output and send_input.
type outputStructured struct {
	ID         string `json:"id"`
	Cursor     int64  `json:"cursor"`
	NextCursor int64  `json:"next_cursor"`
	HasMore    bool   `json:"has_more,omitempty"`
	Running    bool   `json:"running,omitempty"`
	Finished   bool   `json:"finished,omitempty"`
	Exited     bool   `json:"exited,omitempty"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	Matched    bool   `json:"matched,omitempty"`
}

// renderOutput puts a one-line status above the new output.
func renderOutput(o terminal.Output) *Result {
	var parts []string
	switch {
	case o.Result != nil && o.Result.TimedOut:
		parts = append(parts, fmt.Sprintf("command timed out after %s; tree killed", roundDur(ms(o.Result.DurationMS))))
	case o.Result != nil:
		parts = append(parts, fmt.Sprintf("command finished in %s", roundDur(ms(o.Result.DurationMS))))
	case o.Exited:
		parts = append(parts, "ended")
	case o.Finished:
		parts = append(parts, "command finished")
	case o.CommandRunning:
		parts = append(parts, "command running")
	}
	if o.ExitCode != nil && (o.Finished || o.Exited) {
		parts = append(parts, fmt.Sprintf("exit %d", *o.ExitCode))
	}
	switch {
	case o.Matched:
		parts = append(parts, fmt.Sprintf("wait_for matched %q", truncateRunes(o.Match, 80)))
	case o.Reason == "timeout":
		parts = append(parts, fmt.Sprintf("waited %s", roundDur(ms(o.WaitedMS))))
	}
	parts = append(parts, fmt.Sprintf("next cursor %d", o.NextCursor))
	if o.HasMore {
		parts = append(parts, "more output waiting: call get_output again")
	}
	text := o.Text
	if text == "" {
		text = "(no new output)"
	}
	st := outputStructured{ID: o.ID, Cursor: o.Cursor, NextCursor: o.NextCursor, HasMore: o.HasMore, Running: o.CommandRunning,
		Finished: o.Finished, Exited: o.Exited, ExitCode: o.ExitCode, Matched: o.Matched}
	return &Result{Text: o.ID + ": " + strings.Join(parts, "; ") + "\n" + text, Structured: st}
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func (t *terminalTool) screen(ctx context.Context, c *Call, a *sessionIDArgs) (*Result, error) {
	s, err := t.mgr.Screen(c.Conversation, a.SessionID)
	if err != nil {
		return nil, terminalError(err, "session_id")
	}
	if note := t.typed.Take(c.Conversation, a.SessionID); note != "" {
		s = note + "\n" + s
	}
	return &Result{Text: s}, nil
}

func (t *terminalTool) history(ctx context.Context, c *Call, a *getHistoryArgs) (*Result, error) {
	p, err := t.mgr.History(c.Conversation, a.SessionID, a.Offset, int64(a.MaxBytes))
	if err != nil {
		return nil, terminalError(err, "session_id")
	}
	end := p.Offset + int64(len(p.Text))
	head := fmt.Sprintf("%s history bytes %d-%d (retained %d-%d)", a.SessionID, p.Offset, end, p.Start, p.End)
	if p.Start > 0 {
		head += fmt.Sprintf("; %d older bytes dropped", p.Start)
	}
	if p.HasMore {
		head += fmt.Sprintf("; more: offset=%d", end)
	}
	return &Result{Text: head + "\n" + p.Text, Structured: map[string]any{"offset": p.Offset, "next_offset": end, "start": p.Start, "end": p.End, "has_more": p.HasMore}}, nil
}

func (t *terminalTool) resize(ctx context.Context, c *Call, a *resizeArgs) (*Result, error) {
	if err := t.mgr.Resize(c.Conversation, a.SessionID, a.Cols, a.Rows); err != nil {
		return nil, terminalError(err, "cols")
	}
	return Text("resized %s to %dx%d", a.SessionID, a.Cols, a.Rows), nil
}

// sessionEntry is one row of list_sessions' structured content.
type sessionEntry struct {
	ID          string `json:"id"`
	Kind        string `json:"kind"`
	State       string `json:"state"`
	PID         int    `json:"pid,omitempty"`
	Cwd         string `json:"cwd"`
	IdleSeconds int64  `json:"idle_s"`
	LastCommand string `json:"last_command,omitempty"`
	ExitCode    *int   `json:"exit_code,omitempty"`
}

func (t *terminalTool) list(ctx context.Context, c *Call, _ *listSessionsArgs) (*Result, error) {
	infos, err := t.mgr.List(ctx, c.Conversation)
	if err != nil && len(infos) == 0 {
		return nil, err
	}
	if len(infos) == 0 {
		return Text("no sessions or commands; run_command or create_session starts one"), nil
	}
	var b strings.Builder
	entries := make([]sessionEntry, 0, len(infos))
	for _, in := range infos {
		fmt.Fprintf(&b, "%s %s %s", in.ID, in.Kind, in.State)
		if in.PID > 0 && (in.State == terminal.StateRunning || in.State == terminal.StateStarting) {
			fmt.Fprintf(&b, " pid %d", in.PID)
		}
		fmt.Fprintf(&b, " idle %s cwd %s", time.Duration(in.IdleSeconds)*time.Second, in.Cwd)
		if in.LastCommand != "" {
			fmt.Fprintf(&b, " last: %s", in.LastCommand)
		}
		if in.ExitCode != nil {
			fmt.Fprintf(&b, " (exit %d)", *in.ExitCode)
		}
		b.WriteByte('\n')
		entries = append(entries, sessionEntry{ID: in.ID, Kind: in.Kind, State: in.State, PID: in.PID, Cwd: in.Cwd,
			IdleSeconds: in.IdleSeconds, LastCommand: in.LastCommand, ExitCode: in.ExitCode})
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Structured: map[string]any{"sessions": entries}}, nil
}

func (t *terminalTool) closeSession(ctx context.Context, c *Call, a *closeSessionArgs) (*Result, error) {
	name := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(a.Signal)), "SIG")
	var sig syscall.Signal
	if name != "" {
		var ok bool
		if sig, ok = terminal.Signals[name]; !ok {
			return nil, &ToolError{Code: CodeInvalidValue, Param: "signal", Message: fmt.Sprintf("unknown signal %q", a.Signal),
				Next: "signals: TERM, INT, HUP, QUIT, KILL, USR1, USR2"}
		}
	}
	if err := t.mgr.CloseWith(ctx, c.Conversation, a.SessionID, sig); err != nil {
		return nil, terminalError(err, "session_id")
	}
	how := ""
	if name != "" {
		how = " with SIG" + name
	}
	if r, err := t.mgr.Wait(ctx, c.Conversation, a.SessionID, 0); err == nil && !r.Running {
		if c.Execution != nil {
			c.Execution.SetExitCode(r.ExitCode) // the command's; closing it succeeded
		}
		return Text("closed %s%s; its processes are gone (exit %d; output stays readable with get_history)", a.SessionID, how, r.ExitCode), nil
	}
	return Text("closed %s%s; its processes are gone (history stays readable with get_history)", a.SessionID, how), nil
}

// terminalError turns the engine's typed errors into model-fixable ones; their texts are
// written for a model. Anything else stays internal.
func terminalError(err error, param string) error {
	if te := guardTerminalError(err); te != nil {
		return te
	}
	switch {
	case errors.Is(err, terminal.ErrNoSession):
		return &ToolError{Code: CodeNoSession, Param: "session_id", Message: err.Error(), Next: "list_sessions shows this conversation's ids", Cause: err}
	case errors.Is(err, terminal.ErrLimit):
		return &ToolError{Code: CodeLimit, Message: err.Error(), Next: "list_sessions, then close_session one you no longer need", Cause: err}
	case errors.Is(err, terminal.ErrEnded):
		return &ToolError{Code: CodeSessionEnded, Param: "session_id", Message: err.Error(), Next: "get_history still reads it; create_session starts a new one", Cause: err}
	case errors.Is(err, terminal.ErrBadCwd):
		return &ToolError{Code: CodeNotFound, Param: "cwd", Message: err.Error(), Next: "use an existing directory", Cause: err}
	case errors.Is(err, terminal.ErrInvalid):
		return &ToolError{Code: CodeInvalidValue, Param: invalidParam(err, param), Message: err.Error(), Cause: err}
	case errors.Is(err, terminal.ErrShutdown):
		return &ToolError{Code: CodeUnavailable, Message: "toolhost is shutting down", Next: "call again after it restarts", Cause: err}
	}
	return err
}

// invalidParam names the parameter an ErrInvalid is about, from the engine's text.
func invalidParam(err error, fallback string) string {
	msg := err.Error()
	if strings.Contains(msg, "is a run_command job") {
		return "session_id" // before "command" matches inside "run_command"
	}
	for _, p := range []string{"wait_for", "timeout", "key", "size", "session name", "command"} {
		if strings.Contains(msg, p) {
			switch p {
			case "timeout":
				return "timeout_seconds"
			case "key":
				return "keys"
			case "size":
				return "cols, rows"
			case "session name":
				return "session_id"
			}
			return p
		}
	}
	return fallback
}

// progressEvery and progressBytes bound progress notifications: at most four a second, each
// carrying at most the last 2 KiB of new output.
const (
	progressEvery = 250 * time.Millisecond
	progressBytes = 2 << 10
)

// progress streams output chunks to a client that sent a progress token while a call waits.
type progress struct {
	ctx   context.Context
	ss    *mcp.ServerSession
	token any

	mu   sync.Mutex
	n    int
	last time.Time
	done bool
}

func newProgress(ctx context.Context, c *Call) *progress {
	if c.Request == nil || c.Request.Session == nil || c.Request.Params == nil {
		return nil
	}
	tok := c.Request.Params.GetProgressToken()
	if tok == nil {
		return nil
	}
	return &progress{ctx: ctx, ss: c.Request.Session, token: tok}
}

// chunk is the engine's progress callback. Chunks arriving inside the throttle window are
// dropped: the call's answer carries all output anyway, and notifications are a live view.
func (p *progress) chunk(s string) {
	p.mu.Lock()
	if p.done || time.Since(p.last) < progressEvery {
		p.mu.Unlock()
		return
	}
	p.last = time.Now()
	p.n++
	n := p.n
	p.mu.Unlock()
	if len(s) > progressBytes {
		s = s[len(s)-progressBytes:]
		for i := 0; i < 4 && i < len(s); i++ {
			if s[i]&0xC0 != 0x80 {
				s = s[i:]
				break
			}
		}
	}
	ctx, cancel := context.WithTimeout(p.ctx, time.Second)
	defer cancel()
	_ = p.ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: float64(n), Message: s})
}

func (p *progress) stop() {
	p.mu.Lock()
	p.done = true
	p.mu.Unlock()
}
