package consolidated

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"toolhost/authz"
	"toolhost/internal/tasks"
	"toolhost/internal/terminal"
)

// runKind says which operation started a run, so that a handle is continued by the same one.
type runKind string

const (
	runTask   runKind = "run_task"
	runTests  runKind = "run_tests"
	runErrors runKind = "get_errors"
)

type runKey struct{ conv, id string }

// pendingRun is a run that outlived its yield: what to parse when it ends.
type pendingRun struct {
	kind      runKind
	title     string // run_task: "$ make build"
	plan      *tasks.Plan
	reportDir string
	started   time.Time
	// execution is the id of the execution that runs until the run ends ("" when none
	// records it).
	execution string
}

// maxPendingRuns bounds the handles kept; the oldest is forgotten (its report removed) first.
const maxPendingRuns = 32

// runEnv keeps tools' output plain when they write to a pipe anyway.
var runEnv = map[string]string{"NO_COLOR": "1", "FORCE_COLOR": "0", "CARGO_TERM_COLOR": "never", "PY_COLORS": "0", "PYTHONUNBUFFERED": "1"}

// projectDir resolves the repo argument as the directory a run starts in (an execute check, as
// terminal_operations does for cwd).
func (b *buildTool) projectDir(ctx context.Context, c *Call, repoArg string) (string, error) {
	return b.check(ctx, c, repoArg, authz.ClassExecute, false)
}

func (b *buildTool) listTasks(ctx context.Context, c *Call, a *listTasksArgs) (*Result, error) {
	dir, err := b.check(ctx, c, a.Repo, authz.ClassRead, true)
	if err != nil {
		return nil, err
	}
	ts, derr := tasks.Discover(dir)
	if derr != nil && len(ts) == 0 {
		c.Logger.Warn("task discovery", "err", derr)
	}
	var sb strings.Builder
	if len(ts) == 0 {
		sb.WriteString("no tasks found (looked for Taskfile.yml, Makefile, package.json scripts, justfile, go.mod, Cargo.toml, pytest configuration)")
	}
	w := 0
	for _, t := range ts {
		w = max(w, len(t.Name))
	}
	w = min(w, 32)
	for _, t := range ts {
		fmt.Fprintf(&sb, "%-*s  %s", w, t.Name, t.Command)
		if t.Description != "" && t.Description != strings.TrimPrefix(t.Command, "npm run ") {
			fmt.Fprintf(&sb, "  # %s", t.Description)
		}
		sb.WriteByte('\n')
	}
	if derr != nil {
		fmt.Fprintf(&sb, "(skipped: %s)\n", strings.ReplaceAll(derr.Error(), "\n", "; "))
	}
	if len(ts) > 0 {
		sb.WriteString("run_task name=NAME runs one (a bare name works when unique)")
	}
	return &Result{Text: strings.TrimRight(sb.String(), "\n")}, nil
}

func (b *buildTool) runTask(ctx context.Context, c *Call, a *runTaskArgs) (*Result, error) {
	if a.ID != "" {
		return b.resume(ctx, c, runTask, a.ID)
	}
	if a.Name == "" {
		return nil, &ToolError{Code: CodeMissingParameter, Param: "name", Message: "run_task needs name (or id to wait for a run)", Next: "list_tasks shows the names"}
	}
	dir, err := b.projectDir(ctx, c, a.Repo)
	if err != nil {
		return nil, err
	}
	ts, _ := tasks.Discover(dir)
	t, cands, err := tasks.Find(ts, a.Name)
	if err != nil {
		return nil, taskError(err, a.Name, cands)
	}
	title := "$ " + t.Command
	c.SetCommand(t.Command)
	r, err := b.start(ctx, c, dir, t.Command, "", a.TimeoutSeconds, 0)
	if err != nil {
		return nil, err
	}
	if c.Task != "" && r.Running {
		if r, err = awaitTask(ctx, c, b.cfg.Terminal, r, b.cfg.MaxWait); err != nil {
			return nil, terminalError(err, "id")
		}
	}
	if r.Running {
		pr := &pendingRun{kind: runTask, title: title, started: time.Now()}
		b.handBack(c, r, pr)
		return stillRunning(r, pr), nil
	}
	recordExit(c, r)
	res := renderRun(r)
	res.Text = title + "\n" + res.Text
	return res, nil
}

func (b *buildTool) runTests(ctx context.Context, c *Call, a *runTestsArgs) (*Result, error) {
	if a.ID != "" {
		return b.resume(ctx, c, runTests, a.ID)
	}
	dir, err := b.projectDir(ctx, c, a.Repo)
	if err != nil {
		return nil, err
	}
	plan, err := tasks.TestPlan(dir, tasks.TestOptions{Runner: tasks.Runner(a.Name), Paths: a.Paths, Filter: a.Filter})
	if err != nil {
		return nil, planError(err)
	}
	return b.runPlan(ctx, c, runTests, plan, a.TimeoutSeconds)
}

func (b *buildTool) getErrors(ctx context.Context, c *Call, a *getErrorsArgs) (*Result, error) {
	if a.ID != "" {
		return b.resume(ctx, c, runErrors, a.ID)
	}
	dir, err := b.projectDir(ctx, c, a.Repo)
	if err != nil {
		return nil, err
	}
	plan, err := tasks.CheckPlan(dir, a.Paths)
	if err != nil {
		return nil, planError(err)
	}
	return b.runPlan(ctx, c, runErrors, plan, a.TimeoutSeconds)
}

// runPlan runs a plan's script through the terminal engine. A finished run is parsed at once;
// one still running is remembered under its id for a later call with id.
func (b *buildTool) runPlan(ctx context.Context, c *Call, kind runKind, plan *tasks.Plan, timeout int) (*Result, error) {
	reports, err := os.MkdirTemp("", "toolhost-run-")
	if err != nil {
		return nil, fmt.Errorf("report dir: %w", err)
	}
	commands := plan.Commands(reports)
	c.SetCommand(strings.ReplaceAll(commands, "\n", "; "))
	r, err := b.start(ctx, c, plan.Dir, plan.Script(reports), commands, timeout, 1<<10)
	if err != nil {
		os.RemoveAll(reports)
		return nil, err
	}
	pr := &pendingRun{kind: kind, plan: plan, reportDir: reports, started: time.Now()}
	if c.Task != "" && r.Running {
		if r, err = awaitTask(ctx, c, b.cfg.Terminal, r, b.cfg.MaxWait); err != nil {
			return nil, terminalError(err, "id")
		}
	}
	if r.Running {
		b.handBack(c, r, pr)
		return stillRunning(r, pr), nil
	}
	recordExit(c, r)
	return finishRun(r, pr), nil
}

// handBack remembers a run that outlived its yield under its id, and keeps the call's execution
// running until the run ends (continueWithCommand): the history shows one execution from the
// run's start to its exit code, and cancelling that execution kills the run's process tree.
func (b *buildTool) handBack(c *Call, r terminal.RunResult, pr *pendingRun) {
	pr.execution = continueWithCommand(c, b.cfg.Terminal, r.ID, fmt.Sprintf("%s id=%s reads it", pr.kind, r.ID))
	b.remember(c, r.ID, pr)
}

// recordExit records how a run that ended within its call ended: its exit code (non-zero makes
// the execution failed in the history, as for run_command; the model reads a normal result)
// and a kill by its timeout.
func recordExit(c *Call, r terminal.RunResult) {
	c.SetExitCode(r.ExitCode)
	if r.TimedOut && c.Execution != nil {
		c.Execution.Report(exitOutcome(r.ExitCode, true))
	}
}

// start runs a shell command through the terminal engine; the command rules judge check
// instead when it is set (the tools a plan's wrapper script runs).
func (b *buildTool) start(ctx context.Context, c *Call, dir, command, check string, timeout, maxBytes int) (terminal.RunResult, error) {
	if timeout < 0 {
		return terminal.RunResult{}, &ToolError{Code: CodeInvalidValue, Param: "timeout_seconds", Message: "timeout_seconds must be positive"}
	}
	r, err := b.cfg.Terminal.Run(ctx, c.Conversation, terminal.RunSpec{
		Command: command, Check: check, Cwd: dir, Env: runEnv, MaxBytes: maxBytes,
		Timeout: time.Duration(timeout) * time.Second, Yield: b.cfg.DefaultYield,
	})
	if err != nil {
		return r, terminalError(err, "timeout_seconds")
	}
	return r, nil
}

// resume waits on a run handed back earlier and, once it ended, parses it.
func (b *buildTool) resume(ctx context.Context, c *Call, kind runKind, id string) (*Result, error) {
	k := runKey{c.Conversation, id}
	b.mu.Lock()
	pr := b.runs[k]
	b.mu.Unlock()
	if pr == nil {
		return nil, &ToolError{Code: CodeNotFound, Param: "id", Message: fmt.Sprintf("no %s run %q is waiting in this conversation (a finished run is reported once)", kind, truncate(id, 40)),
			Next: "call " + string(kind) + " without id to start a new run; the terminal_operations tool's get_history session_id=" + truncate(id, 40) + " reads a run's log"}
	}
	if pr.kind != kind {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "id", Message: fmt.Sprintf("%s was started by %s", id, pr.kind), Next: "call " + string(pr.kind) + " id=" + id}
	}
	r, err := b.cfg.Terminal.Wait(ctx, c.Conversation, id, min(b.cfg.DefaultYield, b.cfg.MaxWait))
	if err != nil {
		if errors.Is(err, terminal.ErrNoSession) {
			// The engine forgot the command (closed or evicted); so do we.
			if dir := b.forget(k).reportDir; dir != "" {
				os.RemoveAll(dir)
			}
		}
		return nil, terminalError(err, "id")
	}
	if r.Running {
		return stillRunning(r, pr), nil
	}
	b.forget(k)
	c.Acknowledge(id)
	if kind == runTask {
		res := renderRun(r)
		res.Text = pr.title + "\n" + res.Text
		return res, nil
	}
	return finishRun(r, pr), nil
}

// finishRun parses a finished run and removes its reports.
func finishRun(r terminal.RunResult, pr *pendingRun) *Result {
	defer os.RemoveAll(pr.reportDir)
	o := pr.plan.Collect(pr.reportDir)
	var sb strings.Builder
	switch {
	case r.TimedOut:
		fmt.Fprintf(&sb, "timed out after %s; the process tree was killed; results so far:\n", roundDur(ms(r.DurationMS)))
	case r.Cancelled:
		fmt.Fprintf(&sb, "cancelled after %s (its execution was cancelled); the process tree was killed; results so far:\n", roundDur(ms(r.DurationMS)))
	}
	if pr.kind == runTests {
		sb.WriteString(tasks.RenderTests(o, 50))
		if len(o.Also) > 0 {
			also := make([]string, len(o.Also))
			for i, a := range o.Also {
				also[i] = string(a)
			}
			fmt.Fprintf(&sb, "\n(also here: %s; name=RUNNER picks one)", strings.Join(also, ", "))
		}
	} else {
		sb.WriteString(tasks.RenderDiagnostics(o, 200))
	}
	fmt.Fprintf(&sb, "\n%s; raw log: the terminal_operations tool's get_history session_id=%s", roundDur(ms(r.DurationMS)), r.ID)
	return &Result{Text: sb.String()}
}

func stillRunning(r terminal.RunResult, pr *pendingRun) *Result {
	res := Text("still running after %s: call %s id=%s to wait for the result (live output: the terminal_operations tool's get_output session_id=%s; stop: its close_session)",
		roundDur(ms(r.DurationMS)), pr.kind, r.ID, r.ID)
	if pr.execution != "" {
		res.Text += fmt.Sprintf("\n(execution %s runs until the run ends)", pr.execution)
	}
	return res
}

func (b *buildTool) remember(c *Call, id string, pr *pendingRun) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.runs) >= maxPendingRuns {
		var oldest runKey
		var t time.Time
		for k, v := range b.runs {
			if t.IsZero() || v.started.Before(t) {
				oldest, t = k, v.started
			}
		}
		if old := b.runs[oldest]; old != nil && old.reportDir != "" {
			os.RemoveAll(old.reportDir)
		}
		delete(b.runs, oldest)
	}
	b.runs[runKey{c.Conversation, id}] = pr
}

// forget drops a handle and returns what it was (its reports are the caller's to parse or remove).
func (b *buildTool) forget(k runKey) *pendingRun {
	b.mu.Lock()
	defer b.mu.Unlock()
	pr := b.runs[k]
	delete(b.runs, k)
	if pr == nil {
		pr = &pendingRun{}
	}
	return pr
}

// taskError explains a task name that matched nothing or several tasks.
func taskError(err error, name string, cands []string) error {
	if errors.Is(err, tasks.ErrAmbiguous) {
		return &ToolError{Cause: err, Code: CodeAmbiguous, Param: "name", Message: err.Error(), Next: "use one of: " + strings.Join(cands, ", ")}
	}
	te := &ToolError{Cause: err, Code: CodeNotFound, Param: "name", Message: fmt.Sprintf("no task %q", truncate(name, 80)), Next: "list_tasks shows the names"}
	if len(cands) == 0 {
		te.Next = "this project declares no tasks (no Makefile, Taskfile.yml, package.json scripts, justfile, go.mod or Cargo.toml)"
		return te
	}
	// Compare with the bare names too: "helo" is near "hello", not "make:hello".
	bare := map[string]string{}
	names := slices.Clone(cands)
	for _, q := range cands {
		if _, b, ok := strings.Cut(q, ":"); ok {
			bare[b] = q
			names = append(names, b)
		}
	}
	if n := nearest(name, names); n != "" {
		if q, ok := bare[n]; ok && n != q {
			n = q
		}
		te.Next = "did you mean " + n + "? list_tasks shows the names"
	}
	return te
}

// planError turns the task engine's planning errors into model-fixable ones.
func planError(err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, tasks.ErrNoRunner):
		return &ToolError{Cause: err, Code: CodeNoTestRunner, Param: "name", Message: msg, Next: "list_tasks shows what the project declares; run_task runs one"}
	case errors.Is(err, tasks.ErrNoChecker):
		return &ToolError{Cause: err, Code: CodeNoChecker, Param: "repo", Message: msg, Next: "run_task runs the project's own lint or build task (list_tasks)"}
	case errors.Is(err, tasks.ErrNotInstalled):
		return &ToolError{Cause: err, Code: CodeNotInstalled, Message: msg, Next: "install the project's dependencies (run_task, or the terminal_operations tool's run_command)"}
	case errors.Is(err, tasks.ErrBadArgument):
		param := "paths"
		if strings.Contains(msg, "filter") {
			param = "filter"
		}
		return &ToolError{Cause: err, Code: CodeInvalidValue, Param: param, Message: msg}
	}
	return err
}

// close removes the reports of runs still waiting to be parsed, when the tool closes.
func (b *buildTool) close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, pr := range b.runs {
		if pr.reportDir != "" {
			os.RemoveAll(pr.reportDir)
		}
		delete(b.runs, k)
	}
	return nil
}
