package consolidated

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolhost/authz"
	"toolhost/internal/engine"
)

// TestCallTimeoutBounds checks a call's timeout_seconds on both sides of the operation's
// deadline: up to it the call runs, above it (or negative) the model gets an error naming the
// limit and nothing runs.
func TestCallTimeoutBounds(t *testing.T) {
	var ran int
	tool := &Tool{Name: "think", Single: false, Operations: []Operation{
		Op("wait", "", RiskRead, func(ctx context.Context, c *Call, a *struct {
			TimeoutSeconds int `json:"timeout_seconds,omitempty"`
		}) (*Result, error) {
			ran++
			return Text("ran"), nil
		}).WithTimeout(5 * time.Second).WithCallTimeout(),
	}}
	h := newHarness(t, harnessOptions{tools: func(*harness) []*Tool { return []*Tool{tool} }})
	for _, tc := range []struct {
		name    string
		secs    any
		wantErr string
	}{
		{"absent", nil, ""},
		{"zero is the default", 0, ""},
		{"just under", 4, ""},
		{"at the deadline", 5, ""},
		{"just over", 6, "timeout_seconds is 6; wait takes 1 to 5"},
		{"far over", 86400, "timeout_seconds is 86400; wait takes 1 to 5"},
		{"negative", -1, "timeout_seconds is -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := ran
			args := map[string]any{}
			if tc.secs != nil {
				args["timeout_seconds"] = tc.secs
			}
			text, isErr, _ := h.op("wait", args)
			if tc.wantErr == "" {
				if isErr || text != "ran" || ran != before+1 {
					t.Errorf("wait %v = %q (error %v), want it to run", tc.secs, text, isErr)
				}
				return
			}
			if !isErr || !strings.Contains(text, tc.wantErr) || !strings.Contains(text, "parameter: timeout_seconds") || ran != before {
				t.Errorf("wait %v = %q (error %v, ran %v), want an error containing %q and nothing run", tc.secs, text, isErr, ran != before, tc.wantErr)
			}
		})
	}
}

// TestCallTimeoutKillsTree checks a per-call deadline on real work: a git_commit whose
// pre-commit hook hangs (with a child of its own) ends at timeout_seconds with a timeout error,
// the hook's whole process tree is gone, and the execution record says timeout.
func TestCallTimeoutKillsTree(t *testing.T) {
	h := newBuildHarness(t, buildOptions{executions: true})
	h.repo("")
	arg := sleepArg(1)
	hook := filepath.Join(h.wd, ".git", "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\nsleep "+arg+" &\nsleep "+arg+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.write("b.txt", "b\n")
	h.mustOp("git_stage", map[string]any{"paths": []string{"b.txt"}})
	began := time.Now()
	text := h.errOp("git_commit", map[string]any{"message": "hangs", "timeout_seconds": 1})
	took := time.Since(began)
	if !strings.Contains(text, "error timeout") || !strings.Contains(text, "did not finish within 1s") || !strings.Contains(text, "raise timeout_seconds") {
		t.Errorf("git_commit past its timeout = %q, want a timeout error naming timeout_seconds", text)
	}
	if took > 15*time.Second {
		t.Errorf("git_commit with timeout_seconds 1 took %s", took)
	}
	if pids := procsWithArgs(t, "sleep", arg); len(pids) > 0 {
		t.Errorf("the hook's processes %v survived the timeout", pids)
	}
	e := h.hs.env.Executions
	if err := e.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	page, err := e.List(context.Background(), engine.Filter{Tool: "build_and_version_control", Viewer: authz.StdioPrincipal})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range page.Executions {
		if r.Operation == "git_commit" {
			found = true
			if r.Status != engine.StatusTimeout || r.ErrorCode != string(CodeTimeout) {
				t.Errorf("execution of git_commit: status %s, error %s; want timeout", r.Status, r.ErrorCode)
			}
		}
	}
	if !found {
		t.Errorf("no execution of git_commit in %v", page.Executions)
	}
}
