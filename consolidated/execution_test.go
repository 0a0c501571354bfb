package consolidated

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/engine"
)

// TestRiskCategory pins how rows map to categories: derived from Risk, or declared.
func TestRiskCategory(t *testing.T) {
	noop := func(context.Context, *Call, *struct{}) (*Result, error) { return nil, nil }
	tests := []struct {
		name string
		op   Operation
		want authz.Category
	}{
		{"read is safe", Op("a", "", RiskRead, noop), authz.CategorySafe},
		{"state is moderate", Op("a", "", RiskState, noop), authz.CategoryModerate},
		{"network is moderate", Op("a", "", RiskNetwork, noop), authz.CategoryModerate},
		{"write is dangerous", Op("a", "", RiskWrite, noop), authz.CategoryDangerous},
		{"execute is dangerous", Op("a", "", RiskExecute, noop), authz.CategoryDangerous},
		{"declared wins", Op("a", "", RiskState, noop).WithCategory(authz.CategoryDangerous), authz.CategoryDangerous},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.op.RiskCategory(); got != tt.want {
				t.Errorf("RiskCategory() = %s, want %s", got, tt.want)
			}
		})
	}
}

// TestTierAdmission calls through Dispatch as principals of each tier: a refused call is an
// isError result naming the tier needed, recorded as denied, and its handler never ran.
func TestTierAdmission(t *testing.T) {
	h := newFileHarness(t, 0)
	h.env.Executions = openTestEngine(t, h)
	tests := []struct {
		tier    authz.Tier
		op      string
		args    map[string]any
		allowed bool
		needs   string
	}{
		{authz.TierViewOnly, "read_file", map[string]any{"path": "a.txt"}, false, "execute_basic"},
		{authz.TierExecuteBasic, "read_file", map[string]any{"path": "a.txt"}, true, ""},
		{authz.TierExecuteBasic, "create_file", map[string]any{"path": "b.txt", "content": "x"}, false, "execute_advanced"},
		{authz.TierExecuteAdvanced, "create_file", map[string]any{"path": "c.txt", "content": "x"}, true, ""},
		{authz.TierAdmin, "create_file", map[string]any{"path": "d.txt", "content": "x"}, true, ""},
	}
	h.write(map[string]string{"a.txt": "hello\n"})
	for _, tt := range tests {
		t.Run(string(tt.tier)+" "+tt.op, func(t *testing.T) {
			p := authz.Principal{Name: "p-" + string(tt.tier), Tier: tt.tier}
			args := map[string]any{"operation": tt.op}
			for k, v := range tt.args {
				args[k] = v
			}
			raw, _ := json.Marshal(args)
			res := h.reg.Dispatch(authz.WithPrincipal(context.Background(), p), "file_operations", raw, nil)
			text := res.Content[0].(*mcp.TextContent).Text
			if tt.allowed {
				if res.IsError {
					t.Fatalf("Dispatch = %q, want allowed", text)
				}
				return
			}
			if !res.IsError || !strings.Contains(text, "error forbidden") || !strings.Contains(text, tt.needs) {
				t.Errorf("Dispatch = %q, want forbidden naming %s", text, tt.needs)
			}
			if p, ok := tt.args["path"].(string); ok && tt.op == "create_file" && h.exists(p) {
				t.Errorf("a forbidden create_file wrote %s", p)
			}
			page, err := h.env.Executions.List(context.Background(), engine.Filter{Viewer: p, Status: engine.StatusDenied})
			if err != nil || len(page.Executions) != 1 || page.Executions[0].Operation != tt.op || page.Executions[0].ErrorCode != "forbidden" {
				t.Errorf("history of %s = %+v, %v; want one denied call", p.Name, page, err)
			}
		})
	}
}

func openTestEngine(t testing.TB, h *harness) *engine.Engine {
	e, err := engine.Open(context.Background(), engine.Options{StateDir: h.st.Dir(), Store: h.st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestRateLimitedCall: the call over the limit is refused with the wait and recorded as
// rate_limited; a limit per category leaves the other categories alone.
func TestRateLimitedCall(t *testing.T) {
	h := newFileHarness(t, 0)
	h.env.Executions = openTestEngine(t, h)
	h.env.Limits = &engine.Limits{PerCategory: map[authz.Category]engine.Rate{authz.CategoryDangerous: {N: 1, Per: time.Hour}}}
	h.write(map[string]string{"a.txt": "x\n"})
	if text, isErr, _ := h.op("create_file", map[string]any{"path": "b.txt", "content": "x"}); isErr {
		t.Fatalf("first write = %q", text)
	}
	text, isErr, _ := h.op("create_file", map[string]any{"path": "c.txt", "content": "x"})
	if !isErr || !strings.Contains(text, "error rate_limited") || !strings.Contains(text, "retry in") || h.exists("c.txt") {
		t.Errorf("second write = %q, want rate_limited with the wait and no file", text)
	}
	if text, isErr, _ := h.op("read_file", map[string]any{"path": "a.txt"}); isErr {
		t.Errorf("a safe read under a dangerous-only limit = %q", text)
	}
	page, _ := h.env.Executions.List(context.Background(), engine.Filter{Viewer: authz.StdioPrincipal, Status: engine.StatusRateLimited})
	if len(page.Executions) != 1 {
		t.Errorf("rate_limited records = %d, want 1", len(page.Executions))
	}
}

// TestLongCommandStaysOneExecution: a command handed back past its yield keeps its execution
// running (its id in the result) until it ends, with the exit code; cancelling that execution
// kills it.
func TestLongCommandStaysOneExecution(t *testing.T) {
	h := newTermHarness(t, harnessOptions{executions: true})
	e := h.env.Executions
	_, st := h.mustOp("run_command", map[string]any{"command": "sleep 1.5; exit 3", "yield_seconds": 1})
	id, _ := st["execution"].(string)
	if id == "" || st["running"] != true {
		t.Fatalf("structured = %v, want a running command with its execution id", st)
	}
	r, err := e.Get(context.Background(), authz.StdioPrincipal, id)
	if err != nil || r.Status != engine.StatusRunning {
		t.Fatalf("execution after the call = %+v, %v; want running", r, err)
	}
	eventually(t, 10*time.Second, "the execution to end with the command", func() bool {
		r, _ = e.Get(context.Background(), authz.StdioPrincipal, id)
		return r.Finished()
	})
	if r.Status != engine.StatusFailed || r.ErrorCode != "exit_status" || r.ExitCode == nil || *r.ExitCode != 3 || !strings.Contains(r.Command, "sleep 1.5") {
		t.Errorf("ended execution = %+v, want failed with exit 3 and the command", r)
	}

	_, st = h.mustOp("run_command", map[string]any{"command": "sleep 30", "yield_seconds": 1})
	id = st["execution"].(string)
	r, err = e.Cancel(context.Background(), authz.StdioPrincipal, id)
	if err != nil || r.Status != engine.StatusCancelled || r.ExitCode == nil {
		t.Errorf("Cancel(continued command) = %+v, %v; want cancelled with its exit code", r, err)
	}
	if _, err := e.Cancel(context.Background(), authz.StdioPrincipal, id); !errors.Is(err, engine.ErrFinished) {
		t.Errorf("second Cancel = %v, want ErrFinished", err)
	}
}

// TestCommandOutcomes: how a command's end reads in the history: exit 0 success, non-zero
// failed (the model still gets a normal result), killed by its timeout timeout.
func TestCommandOutcomes(t *testing.T) {
	h := newTermHarness(t, harnessOptions{executions: true})
	e := h.env.Executions
	tests := []struct {
		command string
		timeout int
		status  engine.Status
		exit    int
	}{
		{"true", 0, engine.StatusSuccess, 0},
		{"exit 2", 0, engine.StatusFailed, 2},
		{"sleep 30", 1, engine.StatusTimeout, -1},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			args := map[string]any{"command": tt.command, "yield_seconds": 20}
			if tt.timeout > 0 {
				args["timeout_seconds"] = tt.timeout
			}
			if text, isErr, _ := h.op("run_command", args); isErr {
				t.Fatalf("run_command = %q", text)
			}
			page, err := e.List(context.Background(), engine.Filter{Viewer: authz.StdioPrincipal, Limit: 1})
			if err != nil || len(page.Executions) != 1 {
				t.Fatalf("List = %+v, %v", page, err)
			}
			r := page.Executions[0]
			if r.Status != tt.status || r.ExitCode == nil || (tt.exit >= 0 && *r.ExitCode != tt.exit) || r.Command != tt.command {
				t.Errorf("record = status %s exit %v command %q, want %s exit %d", r.Status, r.ExitCode, r.Command, tt.status, tt.exit)
			}
		})
	}
}

// TestCloseSessionSignal: close_session ends a command with the signal asked for, and refuses
// an unknown one.
func TestCloseSessionSignal(t *testing.T) {
	h := newTermHarness(t, harnessOptions{})
	_, st := h.mustOp("run_command", map[string]any{"command": "trap 'echo got-int; exit 7' INT; while :; do sleep 0.05; done", "yield_seconds": 1})
	id := st["id"].(string)
	text, isErr, _ := h.op("close_session", map[string]any{"session_id": id, "signal": "bogus"})
	if !isErr || !strings.Contains(text, "signal") {
		t.Errorf("close_session signal=bogus = %q, want an error naming signal", text)
	}
	text, _ = h.mustOp("close_session", map[string]any{"session_id": id, "signal": "INT"})
	if !strings.Contains(text, "SIGINT") || !strings.Contains(text, "exit 7") {
		t.Errorf("close_session signal=INT = %q, want SIGINT and the trap's exit 7", text)
	}
}
