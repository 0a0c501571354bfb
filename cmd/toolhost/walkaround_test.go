package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/sandbox/sandboxtest"
)

// The walk-arounds of issue 12, attempted from a terminal of the real binary: every one must
// fail, and the model's pending request must stay pending with no grant behind it.

// pendingRequest files a model's request for a write outside, as the CLI's `call` does.
func pendingRequest(t *testing.T, state, work string) string {
	t.Helper()
	out, err := commandIn(t, state, work, "call", "user_collaboration",
		`{"operation":"request_authorization","path":"`+filepath.Join(t.TempDir(), "x")+`","access":"file_operations:write"}`).Output()
	if err != nil {
		t.Fatalf("request_authorization: %v %s", err, out)
	}
	var res struct {
		StructuredContent struct {
			RequestID string `json:"request_id"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.StructuredContent.RequestID == "" {
		t.Fatalf("request_authorization = %s (%v)", out, err)
	}
	return res.StructuredContent.RequestID
}

// stillPending checks with the user's own CLI that nothing was decided and nothing granted.
func stillPending(t *testing.T, state, work, id string) {
	t.Helper()
	if out, err := commandIn(t, state, work, "approvals").Output(); err != nil || !strings.Contains(string(out), id) {
		t.Errorf("request %s is no longer pending: %v %s", id, err, out)
	}
	if out, _ := commandIn(t, state, work, "grants").Output(); !strings.Contains(string(out), "no active grants") {
		t.Errorf("a grant exists after the walk-arounds:\n%s", out)
	}
}

func runText(t *testing.T, cs *mcp.ClientSession, command string) string {
	t.Helper()
	res := callWithin(t, cs, time.Minute, "terminal_operations", map[string]any{
		"operation": "run_command", "command": command, "timeout_seconds": 30, "yield_seconds": 30})
	return textOf(res, "")
}

func stdioClient(t *testing.T, state, work string, extra ...string) *mcp.ClientSession {
	t.Helper()
	cmd := commandIn(t, state, work, append([]string{"stdio"}, extra...)...)
	cmd.Env = append(cmd.Env, "TOOLHOST_TOKEN=th_env_token_secret_0123")
	return connectCmd(t, cmd)
}

// TestWalkAroundsFromATerminal runs each walk-around in a terminal of the real stdio server,
// sandboxed as by default.
func TestWalkAroundsFromATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the binary")
	}
	sandboxtest.Require(t)
	state, work := t.TempDir(), t.TempDir()
	id := pendingRequest(t, state, work)
	token := filepath.Join(state, "token")
	if err := os.WriteFile(token, []byte("th_file_token_secret_0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "operator-token"), []byte("thop_operator_token_secret_0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(state, "config.toml")
	cs := stdioClient(t, state, work)
	flags := fmt.Sprintf(" --state-dir %s --workdir %s --config %s", state, work, cfg)
	cases := []struct{ name, command, want string }{
		{"the CLI", binary + " approve " + id + flags, "command_denied"},
		{"the CLI under env -i", "env -i HOME=$HOME " + binary + " approve " + id + flags, "command_denied"},
		{"a renamed copy of the binary", "cp " + binary + " ./th && ./th approve " + id + flags, "exit 1"},
		{"a renamed copy under setsid", "cp " + binary + " ./th2 && setsid -w ./th2 approve " + id + flags, "exit 1"},
		{"a detached copy (double fork, nohup)", "cp " + binary + " ./th3 && (nohup ./th3 approve " + id + flags + " > out.txt 2>&1 &); sleep 2; cat out.txt; grep -q approved out.txt && exit 9; exit 1", "exit 1"},
		{"a script that unsets the marker", "cp " + binary + " ./th4 && unset TOOLHOST_TERMINAL_ID; ./th4 deny " + id + flags, "exit 1"},
		{"append a grant to the config", "printf '[[grants]]\\npath = \"/\"\\naccess = \"*:write\"\\nrecursive = true\\n' >> " + cfg, "Permission denied"},
		{"write the state database", "echo x >> " + filepath.Join(state, "toolhost.db"), "Permission denied"},
		{"read the token file", "cat " + token, "Permission denied"},
		{"read the operator token file", "cat " + filepath.Join(state, "operator-token"), "Permission denied"},
		{"copy the operator token file", "cp " + filepath.Join(state, "operator-token") + " ./op && cat ./op", "Permission denied"},
		// Non-dumpable keeps other users' processes out; root reads any environ, so the value
		// itself is gone from the block (the secret check below).
		{"read the server's environment (token variable)", "tr '\\0' '\\n' < /proc/$PPID/environ | grep -a TOOLHOST_TOKEN", "exit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := runText(t, cs, c.command)
			if !strings.Contains(text, c.want) {
				t.Errorf("%q: want %q in:\n%s", c.command, c.want, text)
			}
			for _, secret := range []string{"th_file_token_secret", "th_env_token_secret", "thop_operator_token_secret"} {
				if strings.Contains(text, secret) {
					t.Errorf("%q revealed a token: %s", c.command, text)
				}
			}
		})
	}
	if b, _ := os.ReadFile(cfg); strings.Contains(string(b), "grants") {
		t.Errorf("the config was changed: %s", b)
	}
	stillPending(t, state, work, id)
}

// TestAncestryRefusesWithoutSandbox proves the operator check by itself: with the sandbox off,
// a renamed copy of the binary can open the state, and still refuses to decide because it
// runs under the server, however it detached.
func TestAncestryRefusesWithoutSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the binary")
	}
	state, work := t.TempDir(), t.TempDir()
	id := pendingRequest(t, state, work)
	cs := stdioClient(t, state, work, "--sandbox", "off")
	flags := fmt.Sprintf(" --state-dir %s --workdir %s --config %s", state, work, filepath.Join(state, "config.toml"))
	for _, c := range []struct{ name, command string }{
		{"renamed copy under env -i", "cp " + binary + " ./th && env -i ./th approve " + id + flags},
		{"setsid, marker unset", "cp " + binary + " ./th5 && unset TOOLHOST_TERMINAL_ID && setsid -w ./th5 approve " + id + flags},
		{"double fork, marker unset", "cp " + binary + " ./th6 && unset TOOLHOST_TERMINAL_ID && (./th6 revoke g-x" + flags + " > out6 2>&1 &); sleep 2; cat out6"},
		{"nohup and disown under env -i", "cp " + binary + " ./th7 && env -i nohup ./th7 approve " + id + flags + " > out7 2>&1 & disown; sleep 2; cat out7"},
		{"a script that clears the environment and re-executes", "cp " + binary + " ./th8 && printf '#!/bin/sh\nexec env -i setsid ./th8 deny " + id + flags + "\n' > go.sh && chmod +x go.sh && ./go.sh"},
		// Every principal's executions are the operator's: a model reads only its own.
		{"history from a renamed copy under env -i", "cp " + binary + " ./th9 && env -i ./th9 history --json" + flags},
		{"active under setsid, marker unset", "cp " + binary + " ./th10 && unset TOOLHOST_TERMINAL_ID && setsid -w ./th10 active --json" + flags},
		{"stats, double fork, marker unset", "cp " + binary + " ./th11 && unset TOOLHOST_TERMINAL_ID && (./th11 stats --json" + flags + " > out11 2>&1 &); sleep 2; cat out11"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if text := runText(t, cs, c.command); !strings.Contains(text, "runs under a toolhost server") {
				t.Errorf("%q: want the ancestry refusal in:\n%s", c.command, text)
			}
		})
	}
	stillPending(t, state, work, id)
}

// TestApprovalEndpointRefusesTerminals: a terminal of `serve` cannot approve over HTTP. With the
// MCP client token it is not the operator; with the sandbox (the default) it cannot read the
// operator token from the state directory; and with the sandbox off, holding the operator token,
// its connection still comes from the server's descendant. The user's own client with the
// operator token can.
func TestApprovalEndpointRefusesTerminals(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the binary")
	}
	for _, mode := range []string{"workspace-write", "off"} {
		t.Run("sandbox "+mode, func(t *testing.T) {
			if mode != "off" {
				sandboxtest.Require(t)
			}
			approvalFromTerminal(t, mode)
		})
	}
}

func approvalFromTerminal(t *testing.T, mode string) {
	url, token, state := startServeState(t, "", "--sandbox", mode)
	operatorToken := readToken(t, filepath.Join(state, "operator-token"))
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "user_collaboration", Arguments: map[string]any{
		"operation": "request_authorization", "path": "/srv/x", "access": "file_operations:write"}})
	if err != nil {
		t.Fatal(err)
	}
	// The model reads the request id in the text (clients receive no structuredContent).
	var st struct{ RequestID string }
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			if m := regexp.MustCompile(`Authorization request (\S+) is pending`).FindStringSubmatch(tc.Text); m != nil {
				st.RequestID = m[1]
			}
		}
	}
	if st.RequestID == "" {
		t.Fatalf("no request id: %+v", res.Content)
	}
	host := strings.TrimPrefix(strings.TrimSuffix(url, "/mcp"), "http://")
	hostName, port, _ := strings.Cut(host, ":")
	body := `{"decision":"approve"}`
	readByTerminal := "$(cat " + state + "/operator-token)"
	cases := []struct{ name, token, want, why string }{
		{"MCP client token", token, "401", "operator token"},
		{"operator token read by the terminal", readByTerminal, "403", "runs under a toolhost server"},
		{"operator token handed to the terminal", operatorToken, "403", "runs under a toolhost server"},
	}
	if mode != "off" {
		// The sandbox hides the state directory: cat fails and the request has no token.
		cases[1].want, cases[1].why = "401", "Permission denied"
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// bash's /dev/tcp: no curl needed, and no rule names it.
			script := fmt.Sprintf(`exec 3<>/dev/tcp/%s/%s; printf 'POST /api/approvals/%s HTTP/1.0\r\nHost: %s\r\nAuthorization: Bearer %%s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' "%s" >&3; head -c 400 <&3`,
				hostName, port, st.RequestID, host, len(body), body, c.token)
			text := runText(t, cs, "bash -c "+shellQuote(script))
			if !strings.Contains(text, c.want) || !strings.Contains(text, c.why) {
				t.Errorf("approval from a terminal over HTTP: want %s and %q, got:\n%s", c.want, c.why, text)
			}
		})
	}
	if out, err := exec.Command(binary, "grants", "--state-dir", state, "--config", filepath.Join(state, "config.toml")).Output(); err != nil || !strings.Contains(string(out), "no active grants") {
		t.Errorf("grants after the terminal's attempts = %v %s, want none", err, out)
	}
	// The user's own client (this test process) may, with the operator token.
	if resp, b := send(t, "POST", strings.TrimSuffix(url, "/mcp")+"/api/approvals/"+st.RequestID, operatorToken, body); resp.StatusCode != 200 {
		t.Errorf("approval from the user's own client: %d %s", resp.StatusCode, b)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
