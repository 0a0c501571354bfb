package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/logtest"
)

// TestAutoApproveThroughBinary: [guard] auto_approve on a state directory of its own says so in
// the log at start and at the head of every result, and a write outside the working directory
// goes through without asking; on the user's default state directory the server refuses to
// start.
func TestAutoApproveThroughBinary(t *testing.T) {
	state, work, outside := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte("[guard]\nauto_approve = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := commandIn(t, state, work, "stdio")
	stderr := &logtest.Buffer{}
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ci", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	target := filepath.Join(outside, "made.txt")
	text := mustCall(t, cs, "file_operations", map[string]any{"operation": "create_file", "path": target, "content": "x\n"})
	if !strings.HasPrefix(text, "[toolhost auto_approve:") {
		t.Errorf("result does not start with the auto-approve note:\n%s", text)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the write outside the working directory did not happen: %v\n%s", err, text)
	}
	if text := mustCall(t, cs, "user_collaboration", map[string]any{"operation": "request_authorization", "path": outside, "access": "file_operations:read", "recursive": true}); !strings.Contains(text, "Granted file_operations:read on "+outside) {
		t.Errorf("request_authorization with auto-approval = %s, want granted at once", text)
	}
	if text, _ := toolCall(t, cs, "think", map[string]any{"thoughts": "x"}); !strings.HasPrefix(text, "[toolhost auto_approve:") {
		t.Errorf("think's result does not start with the note: %s", text)
	}
	if !strings.Contains(stderr.String(), "AUTO-APPROVE IS ON") {
		t.Errorf("the log does not say auto-approval is on:\n%s", stderr.String())
	}

	// The user's default state directory: XDG_STATE_HOME/toolhost, no --state-dir.
	home := t.TempDir()
	cfg := filepath.Join(home, "config.toml")
	os.WriteFile(cfg, []byte("[guard]\nauto_approve = true\n"), 0o600)
	def := exec.Command(binary, "call", "think", `{"thoughts":"x"}`, "--config", cfg, "--workdir", work)
	def.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CONFIG_HOME="+home)
	out, err := def.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "refused on your default state directory") || !strings.Contains(string(out), "--state-dir") {
		t.Errorf("auto_approve on the default state directory = %v\n%s\nwant a refusal naming --state-dir", err, out)
	}
}
