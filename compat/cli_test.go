//go:build compat

package compat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// script is what the fake model calls, in order. Markers make each payload unique, and none of
// the expected payloads appears in the call's own arguments, so finding one in a tool result
// proves the result carried it.
func script(m string) []Step {
	return []Step{
		{Name: "read_file", Tool: "file_operations", Args: map[string]any{"operation": "read_file", "path": "notes.txt"}},
		// The output says 42 where the command says $((6*7)).
		{Name: "run_command", Tool: "terminal_operations", Args: map[string]any{"operation": "run_command", "command": "echo echo-marker-$((6*7))-" + m}},
		// A PTY session, then a line whose output comes a second later: send_input with wait_for
		// and no wait_ms waits until the pattern appears (a zero wait would answer at once, with
		// the prompt and the echoed line, which says $((6*7)) where the output says 42).
		{Name: "create_session", Tool: "terminal_operations", Args: map[string]any{"operation": "create_session", "session_id": "compat-wait"}},
		{Name: "wait_for", Tool: "terminal_operations", Args: map[string]any{"operation": "send_input", "session_id": "compat-wait",
			"text": "sleep 1; echo wait-marker-$((6*7))-" + m, "wait_for": "wait-marker-42-" + m}},
		{Name: "edit", Tool: "file_operations", Args: map[string]any{"operation": "replace_string", "path": "edit.txt", "old_string": "beta", "new_string": "gamma-" + m}},
		{Name: "todo_write", Tool: "todo_operations", Args: map[string]any{"operation": "write", "todos": []any{
			// The spellings of Claude Code's and OpenAI's plan tools, and the "done" of others.
			map[string]any{"title": "todo-marker-" + m + " first", "status": "in_progress"},
			map[string]any{"title": "second step", "status": "pending"},
			map[string]any{"title": "third step", "status": "done"},
		}}},
		// With every_n_calls = 1 the reminder is due on the second quiet call after the write.
		{Name: "quiet_read", Tool: "file_operations", Args: map[string]any{"operation": "read_file", "path": "other.txt"}},
		{Name: "reminder_read", Tool: "file_operations", Args: map[string]any{"operation": "list_dir", "path": "."}},
		// About 250 KB of matches: larger than the result budget, so toolhost cuts and spills it.
		{Name: "big_result", Tool: "file_operations", Args: map[string]any{"operation": "grep_search", "pattern": "lorem", "path": "big.log", "max_results": 5000}},
		{Name: "todo_read", Tool: "todo_operations", Args: map[string]any{"operation": "read"}},
		// Gemini CLI adds wait_for_previous to every MCP tool's schema and forwards it.
		{Name: "injected_key", Tool: "file_operations", Args: map[string]any{"operation": "read_file", "path": "notes.txt", "wait_for_previous": true}},
		// Results of 5, 10, 20 and 80 KB, and a file of 3,000 short lines: toolhost keeps each
		// under the client's own limit (a page), and the client must pass it on whole.
		{Name: "size_5k", Tool: "file_operations", Args: map[string]any{"operation": "read_file", "path": sizedName(5)}},
		{Name: "size_10k", Tool: "file_operations", Args: map[string]any{"operation": "read_file", "path": sizedName(10)}},
		{Name: "size_20k", Tool: "file_operations", Args: map[string]any{"operation": "read_file", "path": sizedName(20)}},
		{Name: "size_80k", Tool: "file_operations", Args: map[string]any{"operation": "read_file", "path": sizedName(80)}},
		{Name: "lines_page", Tool: "file_operations", Args: map[string]any{"operation": "read_file", "path": "lines.txt"}},
		// An approval round trip: a write outside the working directory is refused with the way
		// to ask; the model asks (user_collaboration), the user approves in a terminal
		// (`toolhost approve`, which the suite runs before approval_check), the model checks,
		// and the write goes through.
		{Name: "approval_write", Tool: "file_operations", Args: map[string]any{"operation": "create_file", "path": OutsidePath, "content": "approved-marker-" + m + "\n"}},
		{Name: "approval_request", Tool: "user_collaboration", Args: map[string]any{"operation": "request_authorization", "path": OutsidePath,
			"access": "file_operations.create_file", "reason": "the compat suite's approval round trip", "once": true}},
		{Name: "approval_check", Tool: "user_collaboration", Args: map[string]any{"operation": "check_request", "request_id": RequestID}},
		{Name: "approval_retry", Tool: "file_operations", Args: map[string]any{"operation": "create_file", "path": OutsidePath, "content": "approved-marker-" + m + "\n"}},
		// Over HTTP, toolhost serve is restarted before this call: the client's session is gone.
		{Name: "after_restart", Tool: "file_operations", Args: map[string]any{"operation": "read_file", "path": "other.txt"}},
		// Over HTTP, the restarted serve closes sessions idle for 2s, and the model waits for
		// that before this call: the client's session was closed, and the conversation's todo
		// list must still be there.
		{Name: "after_idle", Tool: "todo_operations", Args: map[string]any{"operation": "read"}},
	}
}

func stepIndex(name string) int {
	return slices.IndexFunc(script(""), func(s Step) bool { return s.Name == name })
}

// report is one row of the per-client table.
type report struct {
	name      string // client/transport
	version   string
	protocol  string
	toolName  string // how the client named file_operations for the model
	forwards  string // what of a result reaches the model: text, structured, both, neither
	cut       string // what of the big result reached the model
	sizes     string // what of the sized results reached the model
	approvals string // how the approval round trip went
	session   Session
	duration  time.Duration
	checks    []checkResult
	notes     []string
	refused   []string
	unknown   []string
	requests  int
	mcpErrors map[int]int
}

type checkResult struct {
	name   string
	ok     bool
	detail string
}

var (
	reportsMu sync.Mutex
	reports   []*report
	versions  sync.Map // client name -> version string
)

// TestAgentCLIs drives each pinned agent CLI through the script, over stdio and streamable
// HTTP, and checks what reached the fake model. Runs go in parallel (COMPAT_PARALLEL, default
// 3), each bounded by COMPAT_TIMEOUT (default 6m). A table of every client's results is
// printed at the end.
func TestAgentCLIs(t *testing.T) {
	s := newSuite(t)
	known := knownFailures(t)
	pins := packagePins(t)
	parallel := envInt("COMPAT_PARALLEL", 3)
	timeout := envDuration("COMPAT_TIMEOUT", defaultRunTimeout)
	sem := make(chan struct{}, parallel)
	t.Cleanup(func() { printTable(t, known) })
	for _, c := range clients {
		for _, tr := range c.transports {
			t.Run(c.name+"/"+tr, func(t *testing.T) {
				t.Parallel()
				defer s.clientSlot(t, c, sem)()
				r := s.newRun(t, c, tr)
				args, env := c.setup(t, r)
				o := r.exec(t, args, env, timeout)
				r.keepArtifacts(t, c.name+"/"+tr, o)
				rep := evaluate(r, o)
				rep.name, rep.version = c.name+"/"+tr, clientVersion(s, c)
				checkPins(rep, pinned(t, c.pkg), pins[c.pkg], tr)
				reportsMu.Lock()
				reports = append(reports, rep)
				reportsMu.Unlock()
				for _, ch := range rep.checks {
					t.Run(ch.name, func(t *testing.T) { judge(t, known, rep.name+" "+ch.name, ch.ok, ch.detail) })
				}
				if t.Failed() {
					t.Logf("exit %d after %s; stderr tail:\n%s", o.exitCode, o.duration.Round(time.Second), tail(o.stderr, 1500))
				}
			})
		}
	}
}

// defaultRunTimeout bounds one client run (COMPAT_TIMEOUT): Kilo Code takes over two minutes
// of a loaded 2-core machine for the script.
const defaultRunTimeout = 6 * time.Minute

func envInt(k string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(k)); err == nil && n > 0 {
		return n
	}
	return def
}

func envDuration(k string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(k)); err == nil && d > 0 {
		return d
	}
	return def
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

func clientVersion(s *suite, c *client) string {
	if v, ok := versions.Load(c.name); ok {
		return v.(string)
	}
	cmd := exec.Command(filepath.Join(s.bin, c.bin), "--version")
	home, _ := os.MkdirTemp("", "compat-version-")
	defer os.RemoveAll(home)
	network := newRefuser()
	defer network.Close()
	cmd.Env = s.baseEnv(home, network)
	out, _ := cmd.Output()
	v := "?"
	if m := regexp.MustCompile(`\d+\.\d+\.\d+`).Find(out); m != nil {
		v = string(m)
	}
	versions.Store(c.name, v)
	return v
}

// evaluate runs the checks on what a run recorded.
func evaluate(r *run, o outcome) *report {
	m := r.marker
	steps := script(m)
	rep := &report{session: o.session, duration: o.duration, protocol: o.session.Protocol, requests: len(o.requests), unknown: o.unknown, mcpErrors: o.session.HTTPErrors}
	for h, n := range o.refused {
		rep.refused = append(rep.refused, fmt.Sprintf("%s×%d", h, n))
	}
	slices.Sort(rep.refused)
	mains := mainRequests(o.requests)
	fwd := forwardedResults(mains, len(steps))
	sent := sentResults(o.session, steps)
	add := func(name string, ok bool, format string, args ...any) {
		rep.checks = append(rep.checks, checkResult{name: name, ok: ok, detail: fmt.Sprintf(format, args...)})
	}
	var last *Request
	if len(mains) > 0 {
		last = mains[len(mains)-1]
		rep.toolName = last.ToolName("file_operations")
		if rep.toolName == "" {
			rep.toolName = last.deferredName("file_operations") + " (deferred)"
		}
	}

	// ran: the CLI finished cleanly after the whole script.
	finished := last != nil && last.scriptCalls() >= len(steps) && last.Answer == "text"
	calls := 0
	if last != nil {
		calls = last.scriptCalls()
	}
	add("ran", !o.timedOut && o.exitCode == 0 && finished,
		"exit %d (timed out: %v) after %d of %d scripted calls; %d model requests (%d in the main conversation); unserved paths %v",
		o.exitCode, o.timedOut, calls, len(steps), len(o.requests), len(mains), o.unknown)

	// tools_reachable: every tool the script needs reached the model, offered with its schema
	// or named as a deferred tool the model can load.
	var missing []string
	for _, tool := range []string{"file_operations", "terminal_operations", "todo_operations", "read_tool_result"} {
		if last == nil || (last.ToolName(tool) == "" && last.deferredName(tool) == "") {
			missing = append(missing, tool)
		}
	}
	var offered []string
	if last != nil {
		for _, td := range last.Tools {
			offered = append(offered, td.Name)
		}
	}
	add("tools_reachable", last != nil && len(missing) == 0, "missing %v; offered %v", missing, offered)

	text := func(step string) (string, bool) {
		res := fwd[stepIndex(step)]
		if res == nil {
			return "", false
		}
		return res.Text(), true
	}
	expect := func(check, step string, wants ...string) {
		got, ok := text(step)
		if !ok {
			add(check, false, "no %s result reached the model (toolhost sent: %s)", step, excerpt(sent[stepIndex(step)].Result.Text(), 300))
			return
		}
		for _, w := range wants {
			if !strings.Contains(got, w) {
				add(check, false, "the model did not receive %q; it received: %s\n(toolhost sent text: %s\n structuredContent: %s)",
					w, excerpt(got, 400), excerpt(sent[stepIndex(step)].Result.Text(), 300), excerpt(string(sent[stepIndex(step)].Result.Structured), 300))
				return
			}
		}
		add(check, true, "")
	}
	expect("read_file_content", "read_file", "file-marker-"+m)
	expect("command_output", "run_command", "echo-marker-42-"+m)
	expect("edit_diff", "edit", "@@", "+gamma-"+m)
	// send_input_wait_for: the line's output came a second after it was sent; without a wait
	// the answer would hold only the prompt and the echoed line.
	expect("send_input_wait_for", "wait_for", "wait_for matched", "wait-marker-42-"+m)

	// todo_list_once: the list reaches the model, once per result.
	for _, step := range []string{"todo_write", "todo_read"} {
		got, ok := text(step)
		n := strings.Count(got, "todo-marker-"+m)
		add("todo_list_once/"+step, ok && n == 1, "the todo title reached the model %d times in the %s result (want 1): %s", n, step, excerpt(got, 400))
	}

	// todo_synonyms: the write spells its statuses as Claude Code's and OpenAI's plan tools do
	// (in_progress, pending) and as others do (done); neither the client's own schema check
	// nor toolhost refuses them, and each means what it says.
	{
		got, ok := text("todo_write")
		add("todo_synonyms", ok && !sent[stepIndex("todo_write")].Result.IsError && strings.Contains(got, "1/3 completed (33%), 1 in-progress, 1 not-started"),
			"a todo write with statuses in_progress, pending and done: toolhost answered isError=%v; the model received: %s", sent[stepIndex("todo_write")].Result.IsError, excerpt(got, 300))
	}

	// todo_reminder: after the write, a later non-todo result carries the reminder.
	var sentReminder, gotReminder bool
	for i := stepIndex("todo_write") + 1; i < len(steps); i++ {
		if steps[i].Tool == "todo_operations" {
			continue
		}
		if strings.Contains(sent[i].Result.Text(), "todo-marker-"+m) {
			sentReminder = true
		}
		if fwd[i] != nil && strings.Contains(fwd[i].Text(), "todo-marker-"+m) {
			gotReminder = true
		}
	}
	add("todo_reminder", gotReminder, "no result after todo_write brought the todo reminder to the model (toolhost sent one: %v)", sentReminder)

	// cut_marker: the big result's cut notice and its read_tool_result id reach the model.
	bi := stepIndex("big_result")
	id := regexp.MustCompile(`r[0-9a-f]{12}`).FindString(sent[bi].Result.Text())
	got, ok := text("big_result")
	switch {
	case id == "":
		add("cut_marker", false, "toolhost sent no read_tool_result id in the big result (%d bytes)", len(sent[bi].Result.Text()))
	case !ok:
		add("cut_marker", false, "no big result reached the model")
	default:
		add("cut_marker", strings.Contains(got, "read_tool_result") && strings.Contains(got, id),
			"the model received %d of the %d bytes toolhost sent, without the read_tool_result marker and id %s; %s", len(got), len(sent[bi].Result.Text()), id, cutShape(got))
	}
	rep.cut = fmt.Sprintf("%d of %d B; %s", len(got), len(sent[bi].Result.Text()), cutShape(got))

	// injected_key: a client-added key does not fail the call. A client that strips the key
	// proves nothing about toolhost, so the report says whether the key reached it; one that
	// adds wait_for_previous to the schema must have passed it on.
	ii := stepIndex("injected_key")
	got, ok = text("injected_key")
	var received map[string]json.RawMessage
	json.Unmarshal(sent[ii].Args, &received)
	_, reached := received["wait_for_previous"]
	addsKey := false
	if last != nil {
		td, ok := last.Tool("file_operations")
		addsKey = ok && strings.Contains(string(td.Schema), "wait_for_previous")
	}
	add("injected_key", ok && strings.Contains(got, "file-marker-"+m) && !sent[ii].Result.IsError && (reached || !addsKey),
		"a call with wait_for_previous=true (reached toolhost: %v; the client adds it to the schema: %v): toolhost answered isError=%v: %s",
		reached, addsKey, sent[ii].Result.IsError, excerpt(got, 300))
	if reached {
		rep.notes = append(rep.notes, "passes client-added keys on")
	}

	// no_duplicate_payload: no payload reaches the model twice in one result (text and
	// structured forms both forwarded).
	dups := []string{}
	for step, payload := range map[string]string{"read_file": "file-marker-" + m, "run_command": "echo-marker-42-" + m, "edit": "+gamma-" + m} {
		if got, ok := text(step); ok && strings.Count(got, payload) > 1 {
			dups = append(dups, fmt.Sprintf("%s ×%d", step, strings.Count(got, payload)))
		}
	}
	slices.Sort(dups)
	add("no_duplicate_payload", len(dups) == 0, "payloads reached the model more than once: %v", dups)

	// survives_restart (HTTP): after toolhost serve restarts, the next call still works.
	if r.transport == "http" {
		got, ok := text("after_restart")
		answered := sent[stepIndex("after_restart")].Answered && !sent[stepIndex("after_restart")].Result.IsError
		add("survives_restart", ok && answered,
			"after a restart of toolhost serve the call never reached the new toolhost (MCP HTTP errors %v); the model received: %s", o.session.HTTPErrors, excerpt(got, 300))

		// survives_idle: the restarted serve closes a session idle for 2s; the recorder cut the
		// client's GET stream (which keeps a session in use) and the model waited for the close
		// before this call, which must reach toolhost and see the conversation's todo list (the
		// client initialised again, or toolhost took the old session id back). A client on the
		// stateless protocol has no session; with any other reason for no close the wait
		// proved nothing.
		ai := stepIndex("after_idle")
		got, ok = text("after_idle")
		answered = sent[ai].Answered && !sent[ai].Result.IsError
		why := "no wait before the after_idle step"
		proved := false
		if w := o.idle; w != nil {
			switch {
			case w.closed:
				why, proved = "session closed idle, then", true
				_, after, _ := strings.Cut(o.log[strings.LastIndex(o.log, "http session idle")+1:], "\n")
				if strings.Contains(after, "http session resumed") {
					why += " toolhost took the old session id back"
				} else {
					why += " the client initialised a new session"
				}
			case len(o.session.SessionIDs) == 0:
				why, proved = "no session (stateless)", true
			default:
				why = fmt.Sprintf("toolhost closed no idle session within %s (GET streams open: %d; its session log: %q)", w.waited.Round(time.Second), w.streams, w.logLines)
			}
		}
		add("survives_idle", proved && ok && answered && strings.Contains(got, "todo-marker-"+m),
			"%s; the call after it was answered by toolhost: %v; the model received: %s", why, answered, excerpt(got, 300))
		rep.notes = append(rep.notes, "idle: "+why)
	}

	// approval_roundtrip: the refusal told the model how to ask, and the request reached the
	// user and the answer the model: either the user approved in a terminal (toolhost approve)
	// and the retried write went through, or the client showed toolhost's question itself
	// (elicitation) and its answer came back.
	{
		var missing []string
		write, _ := text("approval_write")
		request, _ := text("approval_request")
		if !strings.Contains(write, "request_authorization") {
			missing = append(missing, "the refusal did not name request_authorization: "+excerpt(write, 160))
		}
		switch {
		case strings.Contains(request, "declined") || strings.Contains(request, "Granted") || strings.Contains(request, "cancel"):
			how := "the client answered toolhost's question itself (elicitation): "
			switch {
			case strings.Contains(request, "Granted"):
				how += "granted"
			case strings.Contains(request, "declined"):
				how += "declined (no one to ask in its print mode)"
			default:
				how += "cancelled"
			}
			rep.approvals = how
		default:
			rep.approvals = "the user approves in toolhost's console or CLI (toolhost approve), the model checks"
			for _, c := range []struct{ step, want string }{
				{"approval_request", "r-"},
				{"approval_check", "Granted"},
				{"approval_retry", "outside-" + m + ".txt"},
			} {
				if got, ok := text(c.step); !ok || !strings.Contains(got, c.want) {
					missing = append(missing, fmt.Sprintf("%s without %q (got %s)", c.step, c.want, excerpt(got, 160)))
				}
			}
			if sent[stepIndex("approval_retry")].Result.IsError {
				missing = append(missing, "the retried write failed: "+excerpt(sent[stepIndex("approval_retry")].Result.Text(), 200))
			}
		}
		add("approval_roundtrip", len(missing) == 0, "the approval did not round-trip: %s", strings.Join(missing, "; "))
	}

	// passed_whole: what toolhost sent, cut to the client's limit by toolhost, reached the
	// model whole: the client cut nothing itself (the table of client limits is true).
	var cutByClient, sizes []string
	for _, step := range []string{"size_5k", "size_10k", "size_20k", "size_80k", "lines_page", "big_result"} {
		i := stepIndex(step)
		want := sent[i].Result.Text()
		got, ok := text(step)
		if !ok || want == "" {
			cutByClient = append(cutByClient, step+": no result")
			continue
		}
		main := mainText(sent[i].Result)
		whole := strings.Contains(got, main)
		state := "whole"
		if !whole {
			state = fmt.Sprintf("CUT to %d B", len(got))
			cutByClient = append(cutByClient, fmt.Sprintf("%s (toolhost sent %d B, %d lines; the model got %d B: %s)", step, len(main), strings.Count(main, "\n")+1, len(got), excerpt(got, 200)))
		}
		sizes = append(sizes, fmt.Sprintf("%s %s %s", step, kbytes(len(main)), state))
	}
	add("passed_whole", len(cutByClient) == 0, "the client cut results toolhost sent whole: %s", strings.Join(cutByClient, "; "))
	rep.sizes = strings.Join(sizes, ", ")

	rep.forwards = forwarding(fwd[stepIndex("run_command")], sent[stepIndex("run_command")])
	if len(mains) > 0 && mains[0].Deferred() {
		rep.notes = append(rep.notes, "defers MCP tools (the model searches to load them)")
	}
	if last != nil {
		if td, ok := last.Tool("file_operations"); ok && strings.Contains(string(td.Schema), "wait_for_previous") {
			rep.notes = append(rep.notes, "adds wait_for_previous to the schema")
		}
		if td, ok := last.Tool("file_operations"); ok && !strings.Contains(td.Description, "read_file") {
			rep.notes = append(rep.notes, "file_operations description without its operations")
		}
	}
	return rep
}

// forwardedResults maps each step to the first tool result the client sent for it. Results
// are matched by the call id the fake model gave (compat_NN) where the client kept it, else by
// position.
func forwardedResults(mains []*Request, n int) []*ToolResult {
	out := make([]*ToolResult, n)
	idRE := regexp.MustCompile(`compat_(\d+)`)
	for _, q := range mains {
		names := map[string]string{} // call id -> tool name
		for _, c := range q.Calls {
			names[c.ID] = c.Name
		}
		pos := 0
		for i := range q.Results {
			res := &q.Results[i]
			name := names[res.CallID]
			if name == "" {
				name = res.Name
			}
			if isSearchTool(name) || strings.Contains(res.CallID, "compat_search") {
				continue
			}
			k := pos
			pos++
			if sm := idRE.FindStringSubmatch(res.CallID); sm != nil {
				k, _ = strconv.Atoi(sm[1])
			}
			if k < n && out[k] == nil {
				out[k] = res
			}
		}
	}
	return out
}

// sentResults maps each step to toolhost's answer, from the MCP recording: the next tools/call
// whose operation is the step's. A retry of the same call (after a lost session) counts as the
// same step; the answered attempt wins.
func sentResults(s Session, steps []Step) []MCPCall {
	out := make([]MCPCall, len(steps))
	j := 0
	for i, st := range steps {
		for ; j < len(s.Calls); j++ {
			var a struct {
				Operation string `json:"operation"`
			}
			json.Unmarshal(s.Calls[j].Args, &a)
			if a.Operation != st.Args["operation"] {
				continue
			}
			for j+1 < len(s.Calls) && !s.Calls[j].Answered && bytes.Equal(s.Calls[j+1].Args, s.Calls[j].Args) {
				j++
			}
			out[i] = s.Calls[j]
			j++
			break
		}
	}
	return out
}

// forwarding classifies what of a result the client passed on: toolhost's text, its
// structuredContent, both, or neither.
func forwarding(fwd *ToolResult, sent MCPCall) string {
	if fwd == nil {
		return "no result"
	}
	got := fwd.Text() + "\n" + string(fwd.Raw)
	hasText := strings.Contains(got, "--- stdout ---")
	hasStruct := strings.Contains(got, "duration_ms")
	switch {
	case hasText && hasStruct:
		return "text+structured"
	case hasText:
		return "text"
	case hasStruct:
		return "structured only"
	}
	return "neither"
}

// cutShape describes which lines of the big result survived: the first and last grep lines
// present and whether the middle is missing.
func cutShape(got string) string {
	re := regexp.MustCompile(`\b(\d+):line \d{6}`)
	ms := re.FindAllStringSubmatch(got, -1)
	if len(ms) == 0 {
		return "no matched lines"
	}
	first, _ := strconv.Atoi(ms[0][1])
	lastN, _ := strconv.Atoi(ms[len(ms)-1][1])
	return fmt.Sprintf("%d lines (%d..%d)", len(ms), first, lastN)
}

// mainText is the first text block of a result: the result itself, without the reminders
// that follow it (clients join blocks their own way).
func mainText(r CallResult) string {
	for _, b := range r.Content {
		if b.Type == "text" {
			return b.Text
		}
	}
	return ""
}

func kbytes(n int) string { return fmt.Sprintf("%.1fK", float64(n)/1000) }

func excerpt(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if len(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:n*2/3]) + " … " + strconv.Quote(s[len(s)-n/3:])
}

// knownFailures reads $COMPAT_KNOWN_FAILURES: lines of "client/transport check  # why". A
// listed check that fails is reported (in the table too) but does not fail the test; a listed
// check that passes fails the test, so the list shrinks as the fixes land. Unset, every
// failure fails.
func knownFailures(t *testing.T) map[string]string {
	t.Helper()
	path := os.Getenv("COMPAT_KNOWN_FAILURES")
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("COMPAT_KNOWN_FAILURES: %v", err)
	}
	out := map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		text, why, _ := strings.Cut(line, "#")
		f := strings.Fields(text)
		switch {
		case len(f) == 0:
			continue
		case len(f) != 2:
			t.Fatalf("%s:%d: want \"client/transport check  # why\", got %q", path, i+1, line)
		}
		out[f[0]+" "+f[1]] = strings.TrimSpace(why)
	}
	return out
}

// judge fails t for a failed check (key is "client/transport check"), unless known lists it;
// a listed check that passes fails t, so that its line is removed with the fix.
func judge(t *testing.T, known map[string]string, key string, ok bool, detail string) {
	t.Helper()
	why, isKnown := known[key]
	switch {
	case !ok && isKnown:
		t.Logf("known failure (%s): %s", why, detail)
	case !ok:
		t.Error(detail)
	case isKnown:
		t.Errorf("listed as a known failure (%s) but passes now: remove it from %s", why, os.Getenv("COMPAT_KNOWN_FAILURES"))
	}
}

// printTable prints the per-client table, and appends it to $COMPAT_REPORT when set. XX marks
// a failed check, -- a check that does not apply (survives_restart on stdio).
func printTable(t *testing.T, known map[string]string) {
	reportsMu.Lock()
	defer reportsMu.Unlock()
	if len(reports) == 0 {
		return
	}
	slices.SortFunc(reports, func(a, b *report) int { return strings.Compare(a.name, b.name) })
	var names []string
	for _, r := range reports {
		for _, ch := range r.checks {
			if !slices.Contains(names, ch.name) {
				names = append(names, ch.name)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n== compat: agent CLIs (what reached the model)\n")
	fmt.Fprintf(&b, "%-18s %-9s %-11s %-16s %-5s", "client", "version", "protocol", "forwards", "time")
	for i := range names {
		fmt.Fprintf(&b, " %-3s", fmt.Sprintf("c%d", i+1))
	}
	b.WriteString("  result\n")
	for _, r := range reports {
		fails, unknown := 0, 0
		fmt.Fprintf(&b, "%-18s %-9s %-11s %-16s %-5s", r.name, r.version, orDash(r.protocol), r.forwards, fmt.Sprintf("%ds", int(r.duration.Seconds())))
		for _, n := range names {
			i := slices.IndexFunc(r.checks, func(c checkResult) bool { return c.name == n })
			mark := "--"
			switch {
			case i < 0:
			case r.checks[i].ok:
				mark = "ok"
			default:
				mark, fails = "XX", fails+1
				if _, ok := known[r.name+" "+n]; !ok {
					unknown++
				}
			}
			fmt.Fprintf(&b, " %-3s", mark)
		}
		switch {
		case fails == 0:
			b.WriteString("  PASS\n")
		case known != nil && unknown == 0:
			fmt.Fprintf(&b, "  FAIL %d (all known)\n", fails)
		case known != nil:
			fmt.Fprintf(&b, "  FAIL %d (%d new)\n", fails, unknown)
		default:
			fmt.Fprintf(&b, "  FAIL %d\n", fails)
		}
	}
	b.WriteString("checks:")
	for i, n := range names {
		fmt.Fprintf(&b, " c%d=%s", i+1, n)
	}
	b.WriteString("\n")
	for _, r := range reports {
		fmt.Fprintf(&b, "%s: tool name %s; big result reached the model as %s", r.name, orDash(r.toolName), r.cut)
		if len(r.notes) > 0 {
			fmt.Fprintf(&b, "; %s", strings.Join(r.notes, "; "))
		}
		if len(r.refused) > 0 {
			fmt.Fprintf(&b, "; refused off-machine: %s", strings.Join(r.refused, ", "))
		}
		if len(r.mcpErrors) > 0 {
			fmt.Fprintf(&b, "; MCP HTTP errors %v", r.mcpErrors)
		}
		b.WriteString("\n")
		for _, ch := range r.checks {
			if !ch.ok {
				fmt.Fprintf(&b, "    FAIL %s: %s\n", ch.name, ch.detail)
			}
		}
	}
	writeReport(t, b.String())
}

// writeReport prints one of the suite's tables and appends it to $COMPAT_REPORT when set (each
// test that has a table adds its own).
func writeReport(t *testing.T, table string) {
	fmt.Print(table)
	p := os.Getenv("COMPAT_REPORT")
	if p == "" {
		return
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err == nil {
		_, err = f.WriteString(table)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Errorf("write COMPAT_REPORT: %v", err)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
