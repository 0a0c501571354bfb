package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"toolhost/internal/database/pgtest"
	"toolhost/internal/logtest"
	"toolhost/internal/mcptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests build the real binary once and talk to it as clients do: over stdio through the
// go-sdk's CommandTransport, and over HTTP on a loopback listener.

var binary string

// wantTools is what the default configuration advertises, in the fixed order.
const wantTools = "think,user_collaboration,todo_operations,memory_operations,file_operations,terminal_operations,build_and_version_control,web_operations,database_operations,read_tool_result"

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "toolhost-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "toolhost")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := pgtest.Main(m) // stops the PostgreSQL server a database test started
	stopHosts("")          // the terminal hosts a test left (see hostcleanup_test.go)
	os.RemoveAll(dir)
	os.Exit(code)
}

func command(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	return commandIn(t, t.TempDir(), t.TempDir(), args...)
}

// commandIn runs the binary with a given state dir and working directory and an empty config.
func commandIn(t testing.TB, state, workdir string, args ...string) *exec.Cmd {
	t.Helper()
	cfg := filepath.Join(state, "config.toml")
	if _, err := os.Stat(cfg); err != nil {
		os.WriteFile(cfg, nil, 0o600)
	}
	cmd := exec.Command(binary, append(args, "--state-dir", state, "--workdir", workdir, "--config", cfg)...)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+state)
	stopHostsAtCleanup(t, state)
	return cmd
}

// connectStdio connects a client to the toolhost process cmd starts, over its stdin and stdout.
func connectStdio(t testing.TB, ctx context.Context, cmd *exec.Cmd) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// callWithin calls tool with args on cs and returns the result, failing t when the call itself
// fails (an error result is a result) or takes longer than d (0: no bound but the test's).
func callWithin(t testing.TB, cs *mcp.ClientSession, d time.Duration, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx := context.Background()
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return res
}

// textOf joins the text blocks of res with sep.
func textOf(res *mcp.CallToolResult, sep string) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, sep)
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func callThink(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "think", Arguments: map[string]any{"thoughts": "plan"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) == 0 || !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "Thought recorded") {
		t.Fatalf("think = %+v", res)
	}
}

func TestStdioBinary(t *testing.T) {
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("protocol "+version, func(t *testing.T) {
			cmd := command(t, "stdio")
			// An explicit --config that does not exist is an error; use an empty file.
			cfg := cmd.Args[len(cmd.Args)-1]
			if err := os.WriteFile(cfg, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
				Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			names := toolNames(t, cs)
			if got, want := strings.Join(names, ","), wantTools; got != want {
				t.Errorf("tools = %s, want %s", got, want)
			}
			callThink(t, cs)
		})
	}
}

// TestToolListWireBytes checks what clients cache: the bytes of the tools array in the tools/list
// answer are the same on every protocol version and on every start of the binary.
func TestToolListWireBytes(t *testing.T) {
	var seen []string
	for _, version := range []string{"", "2025-11-25", "2025-06-18", ""} {
		cmd := command(t, "stdio")
		os.WriteFile(cmd.Args[len(cmd.Args)-1], nil, 0o600)
		var log logtest.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
			Connect(ctx, &mcp.LoggingTransport{Transport: &mcp.CommandTransport{Command: cmd}, Writer: &log}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		toolNames(t, cs)
		cs.Close()
		cancel()
		var tools string
		for _, line := range strings.Split(log.String(), "\n") {
			data, ok := strings.CutPrefix(line, "read: ")
			if !ok || !strings.Contains(data, `"tools":[`) {
				continue
			}
			var msg struct {
				Result struct {
					Tools json.RawMessage `json:"tools"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(data), &msg); err == nil && len(msg.Result.Tools) > 0 {
				tools = string(msg.Result.Tools)
			}
		}
		if tools == "" {
			t.Fatalf("protocol %q: no tools/list answer in the wire log", version)
		}
		seen = append(seen, tools)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] != seen[0] {
			t.Errorf("tools array differs between runs/protocols:\n%s\n%s", seen[0], seen[i])
		}
	}
}

func TestStdioMalformedLineKeepsSession(t *testing.T) {
	cmd := command(t, "stdio")
	os.WriteFile(cmd.Args[len(cmd.Args)-1], nil, 0o600)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	read := func() map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("no response: %v", lines.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
			t.Fatalf("response %q: %v", lines.Text(), err)
		}
		return m
	}
	io.WriteString(stdin, "this is not json\n")
	if m := read(); m["error"].(map[string]any)["code"].(float64) != -32700 {
		t.Fatalf("garbage line answered %v, want parse error -32700", m)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	if m := read(); m["id"].(float64) != 7 || m["result"] == nil {
		t.Fatalf("initialize after garbage answered %v", m)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(stdin, `{"id":8,"method":"tools/list"}`+"\n") // no jsonrpc tag
	if m := read(); m["id"].(float64) != 8 || m["error"].(map[string]any)["code"].(float64) != -32600 {
		t.Fatalf("message without version answered %v, want -32600 with its id", m)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"think","arguments":{"thoughts":"x"}}}`+"\n")
	if m := read(); m["id"].(float64) != 9 || m["result"] == nil {
		t.Fatalf("tools/call after bad lines answered %v", m)
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("toolhost stdio exited with %v after stdin closed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("toolhost stdio did not exit after stdin closed")
	}
}

// startServe runs `toolhost serve` on a free loopback port and returns its URL and token.
func startServe(t *testing.T, extra ...string) (url, token string) {
	t.Helper()
	return startServeWith(t, "", extra...)
}

// startServeWith is startServe with a configuration file's content.
func startServeWith(t *testing.T, config string, extra ...string) (url, token string) {
	t.Helper()
	sv := startServeFull(t, config, extra...)
	return sv.url, sv.token
}

// startServeState is startServeWith that also returns the server's state directory.
func startServeState(t *testing.T, config string, extra ...string) (url, token, state string) {
	t.Helper()
	sv := startServeFull(t, config, extra...)
	return sv.url, sv.token, sv.state
}

// served is a running `toolhost serve` as its output describes it.
type served struct {
	url, token string
	// signIn is the console's one-time sign-in link.
	signIn string
	// state and work are its state and working directories.
	state, work string
}

// startServeFull runs `toolhost serve` with a configuration file's content and reads what it
// printed: the MCP URL, the token and the console's sign-in link.
func startServeFull(t *testing.T, config string, extra ...string) served {
	t.Helper()
	sv := served{state: t.TempDir(), work: t.TempDir()}
	cmd := commandIn(t, sv.state, sv.work, append([]string{"serve", "--addr", "127.0.0.1:0"}, extra...)...)
	os.WriteFile(cmd.Args[len(cmd.Args)-1], []byte(config), 0o600)
	printed := readServe(t, cmd)
	sv.url, sv.token, sv.signIn = printed.url, printed.token, printed.signIn
	return sv
}

// runServe starts a serve command and reads the URL and token it prints.
func runServe(t *testing.T, cmd *exec.Cmd) (url, token string) {
	t.Helper()
	sv := readServe(t, cmd)
	return sv.url, sv.token
}

// readServe starts a serve command and reads what it prints: the URL, the token and the
// console's sign-in link.
func readServe(t *testing.T, cmd *exec.Cmd) served {
	t.Helper()
	var sv served
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "serving http://"); i >= 0 {
			sv.url = strings.Fields(line[i+len("serving "):])[0]
		}
		if rest, ok := strings.CutPrefix(line, "console: open "); ok {
			sv.signIn = strings.Fields(rest)[0]
		}
		if i := strings.Index(line, `"Bearer `); i >= 0 {
			sv.token = strings.TrimSuffix(strings.Fields(line[i+len(`"Bearer `):])[0], `"}}}}`)
			break
		}
		if strings.HasPrefix(line, "{") && strings.Contains(line, "mcpServers") {
			break
		}
	}
	if sv.url == "" {
		t.Fatalf("serve printed no URL")
	}
	go io.Copy(io.Discard, stdout)
	return sv
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func TestHTTPBinary(t *testing.T) {
	url, token := startServe(t)
	if token == "" {
		t.Fatal("serve printed no token")
	}
	status := func(mod func(*http.Request)) int {
		req := mcptest.NewRequest(url, token, "", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		mod(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	checks := []struct {
		name string
		mod  func(*http.Request)
		want int
	}{
		{"no token", func(r *http.Request) { r.Header.Del("Authorization") }, 401},
		{"wrong token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer nope") }, 401},
		{"foreign origin", func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, 403},
		{"foreign host", func(r *http.Request) { r.Host = "evil.example:80" }, 403},
	}
	for _, c := range checks {
		if got := status(c.mod); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("protocol "+version, func(t *testing.T) {
			cs := httpSession(t, url, token, version)
			if got, want := strings.Join(toolNames(t, cs), ","), wantTools; got != want {
				t.Errorf("tools = %s, want %s", got, want)
			}
			callThink(t, cs)
		})
	}
}

func TestServeRefusesNonLoopbackWithoutToken(t *testing.T) {
	cmd := command(t, "serve", "--addr", "0.0.0.0:0")
	os.WriteFile(cmd.Args[len(cmd.Args)-1], nil, 0o600)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "without an explicit token") {
		t.Fatalf("serve on 0.0.0.0 = %v, %s; want refusal", err, out)
	}
	cmd = command(t, "serve", "--addr", "0.0.0.0:0", "--no-auth", "--token", "x")
	os.WriteFile(cmd.Args[len(cmd.Args)-1], nil, 0o600)
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "loopback") {
		t.Fatalf("serve --no-auth on 0.0.0.0 = %v, %s; want refusal", err, out)
	}
}

func TestCallAndTools(t *testing.T) {
	if out, err := command(t, "call", "no_such_tool.x", "{}").CombinedOutput(); err == nil || !strings.Contains(string(out), `no tool "no_such_tool.x"`) {
		t.Errorf("call of an unknown tool = %v, %s", err, out)
	}
	if out, err := command(t, "call", "file_operations.nope", "{}").Output(); err == nil || !strings.Contains(string(out), `has no operation \"nope\"`) {
		t.Errorf("call of an unknown operation = %v, %s", err, out)
	}
	cmd := command(t, "call", "think", `{"thoughts":"hello"}`)
	if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "Thought recorded") {
		t.Errorf("call think = %v, %s", err, out)
	}
	cmd = command(t, "tools", "--json")
	os.WriteFile(cmd.Args[len(cmd.Args)-1], nil, 0o600)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var listing struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(out, &listing); err != nil || len(listing.Tools) == 0 || listing.Tools[0].Name != "think" {
		t.Errorf("tools --json = %s (%v)", out, err)
	}
}

func TestApproveViaCLI(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	target := filepath.Join(t.TempDir(), "out.txt")
	out, err := commandIn(t, state, work, "call", "user_collaboration",
		`{"operation":"request_authorization","path":"`+target+`","access":"file_operations:write","reason":"write output"}`).Output()
	if err != nil {
		t.Fatalf("request_authorization: %v %s", err, out)
	}
	var res struct {
		StructuredContent struct {
			RequestID string `json:"request_id"`
			Status    string `json:"status"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.StructuredContent.Status != "pending" {
		t.Fatalf("request_authorization = %s (%v)", out, err)
	}
	id := res.StructuredContent.RequestID
	create := `{"operation":"create_file","path":"` + target + `","content":"hello\n"}`
	if out, err := commandIn(t, state, work, "call", "file_operations", create).Output(); err == nil || !strings.Contains(string(out), "outside_workdir") {
		t.Fatalf("create_file outside before approval = %v %s, want outside_workdir", err, out)
	}
	if out, err := commandIn(t, state, work, "approvals").Output(); err != nil || !strings.Contains(string(out), id) {
		t.Fatalf("approvals = %v %s, want %s listed", err, out, id)
	}
	if out, err := commandIn(t, state, work, "approve", id, "--for", "10m").CombinedOutput(); err != nil || !strings.Contains(string(out), "approved "+id) {
		t.Fatalf("approve = %v %s", err, out)
	}
	out, err = commandIn(t, state, work, "call", "user_collaboration", `{"operation":"check_request","request_id":"`+id+`"}`).Output()
	if err != nil || !strings.Contains(string(out), "Granted file_operations:write on") {
		t.Fatalf("check_request after approve = %v %s", err, out)
	}
	if out, err := commandIn(t, state, work, "call", "file_operations", create).Output(); err != nil {
		t.Fatalf("create_file outside after approval = %v %s", err, out)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "hello\n" {
		t.Fatalf("file written after approval = %q, %v", b, err)
	}
	out, err = commandIn(t, state, work, "grants").Output()
	if err != nil || !strings.Contains(string(out), "file_operations:write on "+target) {
		t.Fatalf("grants = %v %s", err, out)
	}
	grantID := strings.Fields(string(out))[0]
	if out, err := commandIn(t, state, work, "revoke", grantID).CombinedOutput(); err != nil {
		t.Fatalf("revoke = %v %s", err, out)
	}
	if out, _ := commandIn(t, state, work, "grants").Output(); !strings.Contains(string(out), "no active grants") {
		t.Fatalf("grants after revoke = %s", out)
	}
	if out, err := commandIn(t, state, work, "deny", id).CombinedOutput(); err == nil {
		t.Fatalf("deny of a decided request succeeded: %s", out)
	}
}

func TestApprovalEndpoint(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	out, err := commandIn(t, state, work, "call", "user_collaboration",
		`{"operation":"request_authorization","path":"/tmp","access":"file_operations:read","recursive":true}`).Output()
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		StructuredContent struct {
			RequestID string `json:"request_id"`
		} `json:"structuredContent"`
	}
	json.Unmarshal(out, &res)
	url := serveIn(t, state, work)
	clientToken := readToken(t, filepath.Join(state, "token"))
	operatorToken := readToken(t, filepath.Join(state, "operator-token"))
	if fi, err := os.Stat(filepath.Join(state, "operator-token")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("operator-token mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	base := strings.TrimSuffix(url, "/mcp")
	request := func(method, path, auth, body string) (int, string) {
		resp, b := send(t, method, base+path, auth, body)
		return resp.StatusCode, b
	}
	approve := "/api/approvals/" + res.StructuredContent.RequestID
	tests := []struct {
		name, method, path, auth, body string
		want                           int
	}{
		{"approve without a token", "POST", approve, "", `{"decision":"approve"}`, 401},
		{"approve with the MCP client token", "POST", approve, clientToken, `{"decision":"approve"}`, 401},
		{"list with the MCP client token", "GET", "/api/approvals", clientToken, "", 401},
		{"grants with the MCP client token", "GET", "/api/grants", clientToken, "", 401},
		{"MCP with the operator token", "POST", "/mcp", operatorToken, `{}`, 401},
		{"bad decision", "POST", approve, operatorToken, `{"decision":"maybe"}`, 400},
		{"approve", "POST", approve, operatorToken, `{"decision":"approve","minutes":2}`, 200},
		{"deny after approve", "POST", approve, operatorToken, `{"decision":"deny"}`, 409},
	}
	for _, tt := range tests {
		if got, body := request(tt.method, tt.path, tt.auth, tt.body); got != tt.want {
			t.Errorf("%s: %s %s = %d %s, want %d", tt.name, tt.method, tt.path, got, body, tt.want)
		}
	}
	// The grant says who approved: the channel, the user and the process, as the kernel reports
	// them (this test process was the peer).
	code, body := request("GET", "/api/grants", operatorToken, "")
	var grants struct {
		Grants []struct{ ID, By string }
	}
	if err := json.Unmarshal([]byte(body), &grants); code != 200 || err != nil || len(grants.Grants) != 1 {
		t.Fatalf("GET /api/grants = %d %s (%v), want one grant", code, body, err)
	}
	if by, want := grants.Grants[0].By, fmt.Sprintf("(uid %d, pid %d ", os.Getuid(), os.Getpid()); !strings.HasPrefix(by, "http:") || !strings.Contains(by, want) {
		t.Errorf("grant.By = %q, want http:<user> and %q", by, want)
	}
	if code, body := request("DELETE", "/api/grants/"+grants.Grants[0].ID, operatorToken, ""); code != 200 {
		t.Errorf("DELETE /api/grants/ID = %d %s, want 200", code, body)
	}
	if code, body := request("GET", "/api/grants", operatorToken, ""); code != 200 || strings.Contains(body, grants.Grants[0].ID) {
		t.Errorf("GET /api/grants after revoke = %d %s, want it gone", code, body)
	}
}

// TestOperatorEndpointsStayClosedWithoutAuth: --no-auth opens /mcp to local test clients, never
// the operator endpoints.
func TestOperatorEndpointsStayClosedWithoutAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the binary")
	}
	url := serveIn(t, t.TempDir(), t.TempDir(), "--no-auth")
	base := strings.TrimSuffix(url, "/mcp")
	for _, path := range []string{"/api/approvals", "/api/grants", "/api/approvals/x"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s under --no-auth = %d, want 401", path, resp.StatusCode)
		}
	}
}

// serveIn starts `serve` on a free loopback port with the given state and working directories
// and returns the URL it printed.
func serveIn(t *testing.T, state, work string, extra ...string) string {
	t.Helper()
	cmd := commandIn(t, state, work, append([]string{"serve", "--addr", "127.0.0.1:0"}, extra...)...)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	var url string
	for sc.Scan() {
		if i := strings.Index(sc.Text(), "serving http://"); i >= 0 {
			url = strings.Fields(sc.Text()[i+len("serving "):])[0]
			break
		}
	}
	if url == "" {
		t.Fatal("serve printed no URL")
	}
	go io.Copy(io.Discard, stdout)
	return url
}

func readToken(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestTwoServersShareState runs two real toolhost processes on one state directory at once, each
// writing 200 records (todos) through MCP: no call may fail and nothing may be lost.
func TestTwoServersShareState(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns two servers and makes 400 synced writes")
	}
	state, work := t.TempDir(), t.TempDir()
	errs := make(chan error, 2)
	halfway := make(chan struct{})
	var halfwayOnce sync.Once
	for _, conv := range []string{"a", "b"} {
		go func() {
			if conv == "a" {
				// Also on failure, so the reader below does not wait forever.
				defer halfwayOnce.Do(func() { close(halfway) })
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
				Connect(ctx, &mcp.CommandTransport{Command: commandIn(t, state, work, "stdio", "--conversation", conv)}, nil)
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			for i := 0; i < 200; i++ {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "todo_operations", Arguments: map[string]any{
					"operation": "add", "todos": []map[string]any{{"title": fmt.Sprintf("%s-%d", conv, i)}}}})
				if err != nil {
					errs <- err
					return
				}
				if res.IsError {
					errs <- fmt.Errorf("%s add %d: %s", conv, i, res.Content[0].(*mcp.TextContent).Text)
					return
				}
				if i == 100 && conv == "a" {
					halfwayOnce.Do(func() { close(halfway) })
				}
				// Reads between the writes keep this server's database handle busy, as a model's
				// think and list calls do.
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "think", Arguments: map[string]any{"thoughts": "next"}}); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	// A third process reads while both servers are busy: each keeps its handle only while nobody
	// waits, so the read gets in and sees what the servers acknowledged.
	<-halfway
	out, err := commandIn(t, state, work, "--conversation", "a", "call", "todo_operations", `{"operation":"read"}`).CombinedOutput()
	if err != nil {
		t.Fatalf("read while both servers write: %v %s", err, out)
	}
	if !strings.Contains(string(out), "a-100") {
		t.Errorf("read while both servers write misses the acknowledged todo a-100: %.300s", out)
	}
	for i := 0; i < 2; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, conv := range []string{"a", "b"} {
		out, err := commandIn(t, state, work, "--conversation", conv, "call", "todo_operations", `{"operation":"read"}`).Output()
		if err != nil {
			t.Fatalf("read %s: %v", conv, err)
		}
		var res struct {
			StructuredContent struct {
				Todos []struct {
					ID    int    `json:"id"`
					Title string `json:"title"`
				} `json:"todos"`
			} `json:"structuredContent"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatal(err)
		}
		todos := res.StructuredContent.Todos
		if len(todos) != 200 || todos[0].Title != conv+"-0" || todos[199].Title != conv+"-199" || todos[199].ID != 200 {
			t.Errorf("conversation %s has %d todos (first %+v), want 200 in order", conv, len(todos), todos[:min(1, len(todos))])
		}
	}
}

// TestKilledServerLosesNoAcknowledgedTodo streams todo updates to a real `toolhost stdio`, kills it
// with SIGKILL mid-stream, and reopens the state: every update the server acknowledged is there.
func TestKilledServerLosesNoAcknowledgedTodo(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	cmd := commandIn(t, state, work, "stdio", "--conversation", "crash")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := connectStdio(t, ctx, cmd)
	var todos []map[string]any
	for i := 1; i <= 40; i++ {
		todos = append(todos, map[string]any{"id": i, "title": fmt.Sprintf("step %d", i), "status": "not-started"})
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "todo_operations", Arguments: map[string]any{"operation": "write", "todos": todos}}); err != nil || res.IsError {
		t.Fatalf("write: %v %v", err, res)
	}
	acked := 0
	killed := make(chan struct{})
	for i := 1; i <= 40; i++ {
		if i == 15 {
			// Kill while the next update is in flight.
			go func() { time.Sleep(time.Millisecond); cmd.Process.Kill(); close(killed) }()
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "todo_operations", Arguments: map[string]any{
			"operation": "update", "updates": []map[string]any{{"id": i, "status": "completed"}}}})
		if err != nil || res.IsError {
			break
		}
		acked = i
	}
	<-killed
	if acked < 14 {
		t.Fatalf("only %d updates acknowledged before the kill", acked)
	}
	out, err := commandIn(t, state, work, "--conversation", "crash", "call", "todo_operations", `{"operation":"read"}`).Output()
	if err != nil {
		t.Fatalf("reopening the state after SIGKILL: %v %s", err, out)
	}
	var res struct {
		StructuredContent struct {
			Todos []struct {
				ID     int    `json:"id"`
				Status string `json:"status"`
			} `json:"todos"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	for _, td := range res.StructuredContent.Todos {
		if td.ID <= acked && td.Status != "completed" {
			t.Errorf("acknowledged update of todo %d lost after SIGKILL (status %s)", td.ID, td.Status)
		}
	}
	t.Logf("%d updates acknowledged before SIGKILL; all present after reopening", acked)
}

func TestApprovalsRefusedInsideToolhostTerminals(t *testing.T) {
	cmd := command(t, "approve", "r-anything")
	cmd.Env = append(cmd.Env, "TOOLHOST_TERMINAL_ID=s1")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "inside a toolhost terminal") {
		t.Fatalf("approve from a toolhost terminal = %v, %s; want a refusal", err, out)
	}
}

// TestRulesTestCLI runs `toolhost rules test` as a user would: the verdict on stdout, exit
// status 0 only when the line may run as it is, with configured rules before the defaults
// and a script the line sources read from the working directory.
func TestRulesTestCLI(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	cfg := filepath.Join(state, "config.toml")
	if err := os.WriteFile(cfg, []byte("[terminal]\nrules = [\"deny make deploy* # deploys go through CI\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "push.sh"), []byte("git push --force\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		line, stdout string
		code         int
	}{
		{"git status", "allow (no rule matched; commands no rule matches: allow)\n", 0},
		{"git push -f", `deny: git push -f (rule "force push rewrites shared history")` + "\n", 1},
		{`f() { git "$@"; }; f push -f`, `deny: git push -f (rule "force push rewrites shared history")` + "\n", 1},
		{"shopt -s expand_aliases\nalias g=git\ng push -f", `deny: git push -f (rule "force push rewrites shared history")` + "\n", 1},
		{"sudo ls", `deny: sudo ls (rule "runs as another user")` + "\n", 1},
		{"echo x > /dev/sda", `deny: > /dev/sda (rule "writes a block device")` + "\n", 1},
		{"make deploy-prod", `deny: make deploy-prod (rule "deploys go through CI")` + "\n", 1},
		{"source push.sh", `deny: git push --force (rule "force push rewrites shared history")` + "\n", 1},
	} {
		t.Run(c.line, func(t *testing.T) {
			cmd := commandIn(t, state, work, "rules", "test", c.line)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if stdout.String() != c.stdout || code != c.code {
				t.Errorf("toolhost rules test %q = %q, exit %d (stderr %q); want %q, exit %d", c.line, stdout.String(), code, stderr.String(), c.stdout, c.code)
			}
		})
	}
}

// TestRulesTestStrictPolicy: with [terminal] policy = "strict", the CLI's verdict is the
// allow-list's, naming the rule that decided or saying that none did.
func TestRulesTestStrictPolicy(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte("[terminal]\npolicy = \"strict\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ line, stdout string }{
		{"go test ./...", `allow: go test ./... (rule "Go builds and tests")` + "\n"},
		{"make server &", `deny: make server & (rule "runs in the background, beyond the command's reach")` + "\n"},
		{"my-tool --x", "deny: my-tool --x (no allow rule names it (allow-list))\n"},
	} {
		out, _ := commandIn(t, state, work, "rules", "test", c.line).Output()
		if string(out) != c.stdout {
			t.Errorf("rules test %q under strict = %q, want %q", c.line, out, c.stdout)
		}
	}
}

func TestStdioExitsCleanlyOnSIGTERM(t *testing.T) {
	cmd := command(t, "stdio")
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	if !bufio.NewScanner(stdout).Scan() {
		t.Fatal("no answer to initialize")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("toolhost stdio after SIGTERM: %v, want exit status 0", err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("toolhost stdio did not exit after SIGTERM")
	}
}

// TestStdioAnswersEachRequestOnce: a client that writes initialize, initialized, tools/list and
// a call at once, as soon as the binary starts, gets one answer per request, all from the one
// server: the handshake from the tools' tables while the engines open, the call once they are.
func TestStdioAnswersEachRequestOnce(t *testing.T) {
	cmd := command(t, "stdio")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n"+
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"think","arguments":{"thoughts":"plan"}}}`+"\n")
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 4<<20)
	seen := map[string]int{}
	var list, call string
	read := func(until string) {
		for sc.Scan() {
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
				t.Fatalf("line %q: %v", sc.Text(), err)
			}
			if msg.Method != "" {
				continue // the server's own requests and notifications
			}
			seen[string(msg.ID)]++
			switch string(msg.ID) {
			case "2":
				list = sc.Text()
			case "3":
				call = sc.Text()
			}
			if string(msg.ID) == until {
				return
			}
		}
	}
	read("3")
	// A second answer to any of them would come before the answer to a later ping.
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":4,"method":"ping"}`+"\n")
	read("4")
	stdin.Close()
	cmd.Wait()
	if seen["1"] != 1 || seen["2"] != 1 || seen["3"] != 1 || seen["4"] != 1 {
		t.Errorf("answers per id = %v, want one each for 1, 2, 3 and 4", seen)
	}
	var names []string
	var res struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	json.Unmarshal([]byte(list), &res)
	for _, tl := range res.Result.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); got != wantTools {
		t.Errorf("tools/list = %s, want %s", got, wantTools)
	}
	if !strings.Contains(call, "Thought recorded") {
		t.Errorf("the call = %.200s, want think's answer", call)
	}
}

// TestStdioFailedStartAnswersCalls: when the engines cannot open (here an embedder the
// configuration names wrongly), the server still answers the handshake, answers every call
// with why it could not start, logs it, and exits with the error once the client goes.
func TestStdioFailedStartAnswersCalls(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte("[memory]\nembedder = \"no-such-embedder\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := commandIn(t, state, work, "stdio")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &stdioRaw{t: t, in: stdin, lines: bufio.NewScanner(stdout)}
	s.lines.Buffer(nil, 4<<20)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if m := s.answer(1); m["result"] == nil {
		t.Fatalf("initialize = %v", m)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if m := s.answer(2); m["result"] == nil {
		t.Fatalf("tools/list = %v", m)
	}
	for id := 3; id <= 4; id++ {
		if got := s.call(id, "think", map[string]any{"thoughts": "plan"}); !strings.Contains(got, "toolhost could not start") || !strings.Contains(got, "memory.embedder") {
			t.Errorf("call %d = %s, want why toolhost could not start", id, got)
		}
	}
	stdin.Close()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("exit = %v, want status 1", err)
	}
	if !strings.Contains(stderr.String(), "memory.embedder") {
		t.Errorf("stderr = %q, want the cause", stderr.String())
	}
}
