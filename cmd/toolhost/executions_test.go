package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/mcptest"
	"toolhost/internal/proctest"
)

// serveExec runs `toolhost serve` on a state directory the test also drives with the CLI, and
// returns the base URL (without /mcp) and the default token.
func serveExec(t *testing.T, state, work, config string) (base, token string) {
	t.Helper()
	os.WriteFile(filepath.Join(state, "config.toml"), []byte(config), 0o600)
	url, token := runServe(t, commandIn(t, state, work, "serve", "--addr", "127.0.0.1:0"))
	if token == "" {
		t.Fatal("serve printed no token")
	}
	return strings.TrimSuffix(url, "/mcp"), token
}

// cli runs a toolhost command on the state directory and returns stdout, stderr and its error.
func cli(t *testing.T, state, work string, args ...string) (string, string, error) {
	t.Helper()
	cmd := commandIn(t, state, work, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func createToken(t *testing.T, state, work, name string, flags ...string) string {
	t.Helper()
	out, errOut, err := cli(t, state, work, append([]string{"token", "create", name}, flags...)...)
	if err != nil {
		t.Fatalf("token create %s: %v: %s", name, err, errOut)
	}
	return strings.TrimSpace(out)
}

func connectHTTP(t *testing.T, base, token string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return connectHTTPVersion(t, base, token, opts, "")
}

// connectHTTPVersion connects on a protocol version: before 2026-07-28 a client is a session,
// with a conversation of its own.
func connectHTTPVersion(t *testing.T, base, token string, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "exec-test", Version: "1"}, opts).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res := callWithin(t, cs, 90*time.Second, tool, args)
	return textOf(res, ""), res.IsError
}

// tryCall is callText for goroutines: it reports failures in the text instead of failing.
func tryCall(cs *mcp.ClientSession, tool string, args map[string]any) string {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "call error: " + err.Error()
	}
	return textOf(res, "")
}

// send does one HTTP request with body and the bearer token (none when "") and returns the
// response with its body read.
func send(t *testing.T, method, url, token, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// api does one operator API request and decodes the JSON answer into v (if not nil).
func api(t *testing.T, method, url, token string, v any) (int, http.Header) {
	t.Helper()
	resp, b := send(t, method, url, token, "")
	if v != nil {
		if err := json.Unmarshal([]byte(b), v); err != nil {
			t.Fatalf("%s %s: %d %s: %v", method, url, resp.StatusCode, b, err)
		}
	}
	return resp.StatusCode, resp.Header
}

type execRecord struct {
	ID        string  `json:"id"`
	Tool      string  `json:"tool"`
	Operation string  `json:"operation"`
	Principal string  `json:"principal"`
	Status    string  `json:"status"`
	Command   string  `json:"command"`
	ExitCode  *int    `json:"exit_code"`
	Duration  float64 `json:"duration_ms"`
	ErrorCode string  `json:"error_code"`
	Args      any     `json:"args"`
}

type execPage struct {
	Executions []execRecord `json:"executions"`
	More       bool         `json:"more"`
}

// waitRunning polls the history for a running execution of principal until one appears.
func waitRunning(t *testing.T, base, token string, n int) []execRecord {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var p execPage
		api(t, "GET", base+"/api/executions?status=running&limit=100", token, &p)
		if len(p.Executions) >= n {
			return p.Executions
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("fewer than %d running executions after 60s", n)
	return nil
}

// TestTiersTokensAndLimitsOverHTTP drives the real binary with tokens of each tier.
func TestTiersTokensAndLimitsOverHTTP(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	basic := createToken(t, state, work, "basic", "--tier", "execute_basic")
	viewer := createToken(t, state, work, "viewer", "--tier", "view_only")
	limited := createToken(t, state, work, "limited", "--tier", "execute_advanced", "--rate", "2/min")
	for _, bad := range [][]string{
		{"token", "create", "x", "--tier", "root"},
		{"token", "create", "basic", "--tier", "admin"},
		{"token", "create", "stdio", "--tier", "admin"},
		{"token", "create", "y", "--tier", "admin", "--rate", "lots"},
		{"token", "revoke", "nobody"},
	} {
		if out, errOut, err := cli(t, state, work, bad...); err == nil {
			t.Errorf("%v succeeded: %s", bad, out)
		} else if errOut == "" {
			t.Errorf("%v failed without a message", bad)
		}
	}
	out, _, err := cli(t, state, work, "token", "list")
	if err != nil || !strings.Contains(out, "basic") || !strings.Contains(out, "execute_basic") || strings.Contains(out, basic) {
		t.Errorf("token list = %q, %v (must list names and tiers, never tokens)", out, err)
	}
	base, admin := serveExec(t, state, work, "")

	t.Run("view_only sees no tools and calls nothing", func(t *testing.T) {
		cs := connectHTTP(t, base, viewer, nil)
		if names := toolNames(t, cs); len(names) != 0 {
			t.Errorf("view_only tools = %v, want none", names)
		}
		text, isErr := callText(t, cs, "think", map[string]any{"thoughts": "x"})
		if !isErr || !strings.Contains(text, "forbidden") || !strings.Contains(text, "execute_basic") {
			t.Errorf("view_only think = %q, want forbidden naming execute_basic", text)
		}
		// The names models get wrong resolve to the same check, not around it.
		for _, name := range []string{"file_operations.read_file", "read_file"} {
			text, isErr := callText(t, cs, name, map[string]any{"path": "x"})
			if !isErr || !strings.Contains(text, "forbidden") {
				t.Errorf("view_only %s = %q, want forbidden", name, text)
			}
		}
		var p execPage
		if code, _ := api(t, "GET", base+"/api/executions", viewer, &p); code != 200 || len(p.Executions) != 3 || p.Executions[0].Status != "denied" {
			t.Errorf("view_only history = %d %+v, want its three denied calls", code, p)
		}
	})
	t.Run("execute_basic sees and runs only safe and moderate operations", func(t *testing.T) {
		cs := connectHTTP(t, base, basic, nil)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.Tools)
		for _, hidden := range []string{`"run_command"`, `"create_file"`, `"ask"`, `"git_commit"`} {
			if strings.Contains(string(b), hidden) {
				t.Errorf("execute_basic tools/list advertises %s", hidden)
			}
		}
		for _, shown := range []string{`"read_file"`, `"store_memory"`, `"http_request"`} {
			if !strings.Contains(string(b), shown) {
				t.Errorf("execute_basic tools/list lacks %s", shown)
			}
		}
		res2, _ := cs.ListTools(context.Background(), nil)
		b2, _ := json.Marshal(res2.Tools)
		if string(b) != string(b2) {
			t.Error("execute_basic tools/list differs between two calls")
		}
		text, isErr := callText(t, cs, "file_operations", map[string]any{"operation": "create_file", "path": "a.txt", "content": "x"})
		if !isErr || !strings.Contains(text, "forbidden") || !strings.Contains(text, "execute_advanced") {
			t.Errorf("execute_basic create_file = %q, want forbidden naming execute_advanced", text)
		}
		if _, err := os.Stat(filepath.Join(work, "a.txt")); err == nil {
			t.Error("a forbidden create_file wrote the file")
		}
		if text, isErr := callText(t, cs, "file_operations", map[string]any{"operation": "list_dir", "path": "."}); isErr {
			t.Errorf("execute_basic list_dir = %q", text)
		}
	})
	t.Run("rate limit per token", func(t *testing.T) {
		cs := connectHTTP(t, base, limited, nil)
		for i := range 2 {
			if text, isErr := callText(t, cs, "think", map[string]any{"thoughts": "x"}); isErr {
				t.Fatalf("call %d = %q", i, text)
			}
		}
		text, isErr := callText(t, cs, "think", map[string]any{"thoughts": "x"})
		if !isErr || !strings.Contains(text, "rate_limited") || !strings.Contains(text, "retry in") {
			t.Errorf("third call = %q, want rate_limited with the wait", text)
		}
		// The operator API has its own bucket at the token's rate, and refuses a whole request
		// over it, with the headers.
		for i := range 2 {
			code, h := api(t, "GET", base+"/api/stats", limited, nil)
			if code != 200 || h.Get("RateLimit-Limit") != "2" || h.Get("RateLimit-Remaining") != fmt.Sprint(1-i) || h.Get("RateLimit-Policy") != "2;w=60" {
				t.Fatalf("API request within the rate = %d %v, want 200 with its quota", code, h)
			}
		}
		code, h := api(t, "GET", base+"/api/stats", limited, nil)
		if code != 429 || h.Get("Retry-After") == "" || h.Get("RateLimit-Remaining") != "0" || h.Get("RateLimit-Policy") != "2;w=60" {
			t.Errorf("rate-limited API request = %d %v, want 429 with Retry-After and RateLimit-*", code, h)
		}
	})
	t.Run("isolation", func(t *testing.T) {
		var mine execPage
		api(t, "GET", base+"/api/executions?limit=100", admin, &mine)
		var adminID string
		for _, r := range mine.Executions {
			if r.Principal == "basic" {
				continue
			}
			if r.Principal == "default" {
				adminID = r.ID
			}
		}
		cs := connectHTTP(t, base, admin, nil)
		callThink(t, cs)
		api(t, "GET", base+"/api/executions?principal=default&limit=1", admin, &mine)
		if len(mine.Executions) != 1 {
			t.Fatalf("admin's own history: %+v", mine)
		}
		adminID = mine.Executions[0].ID
		var p execPage
		api(t, "GET", base+"/api/executions?limit=100", basic, &p)
		for _, r := range p.Executions {
			if r.Principal != "basic" {
				t.Errorf("basic sees %s's execution %s", r.Principal, r.ID)
			}
		}
		// Stats too count only the caller's own, the operator's and admin's everyone's.
		type stats struct {
			Total  int `json:"total"`
			Active int `json:"active"`
			TopOps []struct {
				Operation string `json:"operation"`
			} `json:"top_operations"`
		}
		var own, everyone, op stats
		api(t, "GET", base+"/api/stats", basic, &own)
		api(t, "GET", base+"/api/stats", admin, &everyone)
		api(t, "GET", base+"/api/stats", readToken(t, filepath.Join(state, "operator-token")), &op)
		if own.Total != len(p.Executions) || everyone.Total <= own.Total || op.Total != everyone.Total {
			t.Errorf("stats totals: basic %d (its history %d), admin %d, operator %d", own.Total, len(p.Executions), everyone.Total, op.Total)
		}
		for _, o := range own.TopOps {
			if o.Operation == "think" {
				t.Errorf("basic's stats count think, which only others called: %+v", own.TopOps)
			}
		}
		if code, _ := api(t, "GET", base+"/api/executions/"+adminID, basic, nil); code != 404 {
			t.Errorf("basic GET admin's execution = %d, want 404", code)
		}
		if code, _ := api(t, "POST", base+"/api/executions/"+adminID+"/cancel", basic, nil); code != 404 {
			t.Errorf("basic cancels admin's execution = %d, want 404", code)
		}
		if code, _ := api(t, "GET", base+"/api/approvals", admin, nil); code != 401 {
			t.Errorf("a client token (even admin) lists approvals = %d, want 401: only the operator token decides", code)
		}
		var all execPage
		api(t, "GET", base+"/api/executions?limit=100", admin, &all)
		seen := map[string]bool{}
		for _, r := range all.Executions {
			seen[r.Principal] = true
		}
		if !seen["basic"] || !seen["viewer"] || !seen["default"] {
			t.Errorf("admin history principals = %v, want basic, viewer and default", seen)
		}
	})
	t.Run("a session stays with the token that opened it", func(t *testing.T) {
		post := func(tok, session, body string) *http.Response {
			resp, err := http.DefaultClient.Do(mcptest.NewRequest(base+"/mcp", tok, "2025-06-18", session, body))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp
		}
		resp := post(admin, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
		session := resp.Header.Get("Mcp-Session-Id")
		if session == "" {
			t.Fatalf("initialize gave no session: %d", resp.StatusCode)
		}
		if resp := post(basic, session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); resp.StatusCode != 403 {
			t.Errorf("basic token on admin's session = %d, want 403", resp.StatusCode)
		}
	})
	t.Run("revoked token refused on its next request", func(t *testing.T) {
		if code, _ := api(t, "GET", base+"/api/stats", basic, nil); code != 200 {
			t.Fatalf("basic before revoke: %d", code)
		}
		if _, errOut, err := cli(t, state, work, "token", "revoke", "basic"); err != nil {
			t.Fatalf("revoke: %v %s", err, errOut)
		}
		if code, _ := api(t, "GET", base+"/api/stats", basic, nil); code != 401 {
			t.Errorf("revoked token: %d, want 401", code)
		}
		req := mcptest.NewRequest(base+"/mcp", basic, "", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 401 {
			t.Errorf("revoked token on /mcp: %v %v, want 401", resp.StatusCode, err)
		}
	})
}

// TestOperatorAPIOverHTTP: history, one record, cancel with the tree killed, stats, metrics and
// the probes, with their bad input.
func TestOperatorAPIOverHTTP(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	base, token := serveExec(t, state, work, "")
	cs := connectHTTP(t, base, token, nil)
	callThink(t, cs)

	for _, probe := range []struct{ path, body string }{{"/healthz", "ok\n"}, {"/readyz", "ready\n"}} {
		resp, err := http.Get(base + probe.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != probe.body {
			t.Errorf("GET %s without credentials = %d %q, want 200 %q", probe.path, resp.StatusCode, b, probe.body)
		}
	}
	if code, _ := api(t, "GET", base+"/api/executions", "", nil); code != 401 {
		t.Errorf("history without a token = %d, want 401", code)
	}
	if code, _ := api(t, "GET", base+"/metrics", "", nil); code != 401 {
		t.Errorf("metrics without a token = %d, want 401", code)
	}
	// The operator token opens the same routes, as the admin operator.
	var opPage execPage
	if code, _ := api(t, "GET", base+"/api/executions", readToken(t, filepath.Join(state, "operator-token")), &opPage); code != 200 || len(opPage.Executions) != 1 {
		t.Errorf("history with the operator token = %d %+v, want the think call", code, opPage)
	}

	// A command that sleeps, cancelled through the API: the call says so, the tree is gone.
	marker := fmt.Sprintf("sleep 3%d", time.Now().UnixNano()%1000+100)
	done := make(chan string, 1)
	go func() {
		done <- tryCall(cs, "terminal_operations", map[string]any{"operation": "run_command",
			"command": "sh -c '" + marker + "' & " + marker + "; echo never", "yield_seconds": 60, "timeout_seconds": 120})
	}()
	running := waitRunning(t, base, token, 1)
	id := running[0].ID
	if running[0].Command == "" || !strings.Contains(running[0].Command, marker) {
		t.Errorf("running record command = %q", running[0].Command)
	}
	waitProcs(t, marker, 2)
	var rec execRecord
	start := time.Now()
	if code, _ := api(t, "POST", base+"/api/executions/"+id+"/cancel", token, &rec); code != 200 || rec.Status != "cancelled" {
		t.Fatalf("cancel = %d %+v", code, rec)
	}
	if n := countProcs(marker); n != 0 {
		t.Errorf("%d processes of the cancelled command left after %s", n, time.Since(start))
	}
	got := <-done
	if !strings.Contains(got, "cancelled") || !strings.Contains(got, "exit ") || strings.Contains(got, "never") {
		t.Errorf("cancelled call's result = %q, want it to say cancelled with the exit status", got)
	}
	if rec.ExitCode == nil {
		t.Errorf("cancelled record has no exit code: %+v", rec)
	}
	var one execRecord
	if code, _ := api(t, "GET", base+"/api/executions/"+id, token, &one); code != 200 || one.Status != "cancelled" || one.Tool != "terminal_operations" {
		t.Errorf("GET %s = %d %+v", id, code, one)
	}
	var conflict map[string]any
	if code, _ := api(t, "POST", base+"/api/executions/"+id+"/cancel", token, &conflict); code != 409 || !strings.Contains(fmt.Sprint(conflict["error"]), "already finished") {
		t.Errorf("cancel of a finished execution = %d %v, want 409 already finished", code, conflict)
	}
	bad := []struct {
		path  string
		code  int
		param string
	}{
		{"/api/executions?limit=0", 400, "limit"},
		{"/api/executions?limit=101", 400, "limit"},
		{"/api/executions?limit=ten", 400, "limit"},
		{"/api/executions?offset=-1", 400, "offset"},
		{"/api/executions?status=done", 400, "status"},
		{"/api/executions?category=risky", 400, "category"},
		{"/api/executions?since=yesterday", 400, "since"},
		{"/api/executions?since=1h&until=2h", 400, "since"},
		{"/api/executions?tol=x", 400, "tol"},
		{"/api/executions/exec_20260101T000000.000000_0123456789", 404, "id"},
		{"/api/executions/../../etc/passwd", 404, ""},
	}
	for _, b := range bad {
		var body map[string]any
		var into any = &body
		if b.param == "" {
			into = nil // the mux's own 404 is plain text
		}
		code, _ := api(t, "GET", base+b.path, token, into)
		if code != b.code || (b.param != "" && body["param"] != b.param) {
			t.Errorf("GET %s = %d %v, want %d naming %q", b.path, code, body, b.code, b.param)
		}
	}
	var p execPage
	api(t, "GET", base+"/api/executions?tool=think&status=success&since=1h", token, &p)
	if len(p.Executions) != 1 || p.Executions[0].Tool != "think" {
		t.Errorf("filtered history = %+v", p)
	}
	var stats struct {
		Total int `json:"total"`
		Tools []struct {
			Name string  `json:"name"`
			P50  float64 `json:"p50_ms"`
		} `json:"tools"`
		Categories []struct{ Name string }      `json:"categories"`
		TopOps     []struct{ Operation string } `json:"top_operations"`
	}
	if code, _ := api(t, "GET", base+"/api/stats", token, &stats); code != 200 || stats.Total < 2 || len(stats.Tools) < 2 || len(stats.TopOps) < 2 {
		t.Errorf("stats = %d %+v", code, stats)
	}
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	mb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{`toolhost_executions_total{category="dangerous",operation="run_command",status="cancelled",tool="terminal_operations"} 1`,
		"toolhost_execution_duration_seconds_bucket", "toolhost_executions_active 0"} {
		if !strings.Contains(string(mb), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// countProcs counts the running processes whose command line contains marker.
func countProcs(marker string) int { return len(proctest.Matching(marker)) }

func waitProcs(t *testing.T, marker string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for countProcs(marker) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the command's %d processes did not start", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHundredConcurrentExecutions: 100 sleeping commands across 10 HTTP clients are all
// tracked as running, and all cancelled.
func TestHundredConcurrentExecutions(t *testing.T) {
	if testing.Short() {
		t.Skip("100 commands")
	}
	state, work := t.TempDir(), t.TempDir()
	base, token := serveExec(t, state, work, "[terminal]\nsandbox = \"off\"\n")
	marker := fmt.Sprintf("sleep 4%d", time.Now().UnixNano()%1000+100)
	var wg sync.WaitGroup
	results := make(chan string, 100)
	for range 10 {
		// Each client is a session with a conversation of its own (a conversation runs at most
		// 16 commands at once).
		cs := connectHTTPVersion(t, base, token, nil, "2025-11-25")
		for range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results <- tryCall(cs, "terminal_operations", map[string]any{"operation": "run_command", "command": marker,
					"yield_seconds": 60, "timeout_seconds": 120})
			}()
		}
	}
	running := waitRunning(t, base, token, 100)
	if len(running) != 100 {
		t.Fatalf("running = %d, want 100", len(running))
	}
	waitProcs(t, marker, 100)
	var cwg sync.WaitGroup
	for _, r := range running {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			var rec execRecord
			if code, _ := api(t, "POST", base+"/api/executions/"+r.ID+"/cancel", token, &rec); code != 200 || rec.Status != "cancelled" {
				t.Errorf("cancel %s = %d %+v", r.ID, code, rec)
			}
		}()
	}
	cwg.Wait()
	wg.Wait()
	close(results)
	n := 0
	for text := range results {
		if !strings.Contains(text, "cancelled") {
			t.Errorf("a call's result = %q, want cancelled", text)
		}
		n++
	}
	if n != 100 {
		t.Errorf("%d results, want 100", n)
	}
	if left := countProcs(marker); left != 0 {
		t.Errorf("%d sleeping processes left after every cancel returned", left)
	}
	var p execPage
	api(t, "GET", base+"/api/executions?status=cancelled&limit=100", token, &p)
	if len(p.Executions) != 100 {
		t.Errorf("cancelled in history = %d, want 100", len(p.Executions))
	}
	if a := waitRunningNone(t, base, token); a != 0 {
		t.Errorf("still running = %d", a)
	}
}

func waitRunningNone(t *testing.T, base, token string) int {
	var p execPage
	api(t, "GET", base+"/api/executions?status=running&limit=100", token, &p)
	return len(p.Executions)
}

// TestExecutionsOverStdio: a stdio server's calls are in the history the CLI reads; the CLI
// sees its running command and cancels it from another process; the client hears lifecycle log
// messages and reads its recent executions as a resource.
func TestExecutionsOverStdio(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	var mu sync.Mutex
	var logs []string
	cmd := commandIn(t, state, work, "stdio")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-exec-test", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			b, _ := json.Marshal(r.Params)
			mu.Lock()
			logs = append(logs, string(b))
			mu.Unlock()
		}}).Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	callThink(t, cs)
	if text, isErr := callText(t, cs, "file_operations", map[string]any{"operation": "read_file", "path": "missing.txt"}); !isErr {
		t.Fatalf("read of a missing file = %q", text)
	}
	marker := fmt.Sprintf("sleep 5%d", time.Now().UnixNano()%1000+100)
	done := make(chan string, 1)
	go func() {
		done <- tryCall(cs, "terminal_operations", map[string]any{"operation": "run_command", "command": marker, "yield_seconds": 60, "timeout_seconds": 120})
	}()
	waitProcs(t, marker, 1)
	var active struct {
		Executions []execRecord `json:"executions"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(active.Executions) == 0 && time.Now().Before(deadline) {
		out, errOut, err := cli(t, state, work, "active", "--json")
		if err != nil {
			t.Fatalf("active: %v %s", err, errOut)
		}
		json.Unmarshal([]byte(out), &active)
	}
	if len(active.Executions) != 1 || active.Executions[0].Principal != "stdio" || !strings.Contains(active.Executions[0].Command, marker) {
		t.Fatalf("active = %+v", active)
	}
	id := active.Executions[0].ID
	out, errOut, err := cli(t, state, work, "cancel", id)
	if err != nil || !strings.Contains(out, "cancelled") {
		t.Fatalf("cancel %s = %q %q %v", id, out, errOut, err)
	}
	if text := <-done; !strings.Contains(text, "cancelled") {
		t.Errorf("cancelled command's result = %q", text)
	}
	if n := countProcs(marker); n != 0 {
		t.Errorf("%d processes left after cancel", n)
	}
	if _, errOut, err := cli(t, state, work, "cancel", id); err == nil || !strings.Contains(errOut, "already finished") {
		t.Errorf("second cancel = %v %q, want already finished", err, errOut)
	}
	if _, errOut, err := cli(t, state, work, "cancel", "exec_bogus"); err == nil || !strings.Contains(errOut, "no execution") {
		t.Errorf("cancel of a bad id = %v %q", err, errOut)
	}
	if _, errOut, err := cli(t, state, work, "history", "--limit", "0"); err == nil || !strings.Contains(errOut, "--limit") {
		t.Errorf("history --limit 0 = %v %q, want an error naming --limit", err, errOut)
	}
	var page execPage
	out, _, err = cli(t, state, work, "history", "--json", "--limit", "10")
	if err != nil || json.Unmarshal([]byte(out), &page) != nil {
		t.Fatalf("history --json = %q %v", out, err)
	}
	var statuses []string
	for _, r := range page.Executions {
		statuses = append(statuses, r.Tool+":"+r.Status)
	}
	for _, want := range []string{"think:success", "file_operations:failed", "terminal_operations:cancelled"} {
		if !slices.Contains(statuses, want) {
			t.Errorf("history = %v, lacks %s", statuses, want)
		}
	}
	if out, _, err := cli(t, state, work, "stats"); err != nil || !strings.Contains(out, "terminal_operations") {
		t.Errorf("stats = %q %v", out, err)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "toolhost://executions/recent"})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, id) {
		t.Errorf("recent executions resource = %+v, %v", res, err)
	}
	// On 2026-07-28 the level travels in each request's _meta.
	logs2 := make(chan string, 8)
	cs2, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-exec-test-new", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			b, _ := json.Marshal(r.Params)
			logs2 <- string(b)
		}}).Connect(ctx, &mcp.CommandTransport{Command: commandIn(t, state, work, "stdio")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	if _, err := cs2.CallTool(ctx, &mcp.CallToolParams{Name: "think", Arguments: map[string]any{"thoughts": "x"},
		Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-logs2:
		if !strings.Contains(m, `"event":"finished"`) || strings.Contains(m, `"event":"started"`) {
			t.Errorf("new-protocol log message at info = %s, want only the finish", m)
		}
	case <-time.After(10 * time.Second):
		t.Error("no log message on the new protocol with _meta level info")
	}
	mu.Lock()
	defer mu.Unlock()
	joined := strings.Join(logs, "\n")
	for _, want := range []string{`"event":"started"`, `"event":"finished"`, `"status":"cancelled"`, `"level":"warning"`} {
		if !strings.Contains(joined, want) {
			t.Errorf("client log messages lack %s:\n%s", want, joined)
		}
	}
}

// TestSIGKILLedServerLeavesNoRunningExecution: a server killed with calls in flight leaves every
// acknowledged call in the history, and the next process marks the unfinished ones failed.
func TestSIGKILLedServerLeavesNoRunningExecution(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	cmd := commandIn(t, state, work, "stdio")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "kill-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	acked := 0
	for range 30 {
		callThink(t, cs)
		acked++
	}
	go tryCall(cs, "terminal_operations", map[string]any{"operation": "run_command", "command": "sleep 60", "yield_seconds": 60})
	deadline := time.Now().Add(20 * time.Second)
	for {
		out, _, _ := cli(t, state, work, "active", "--json")
		if strings.Contains(out, "sleep 60") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the running command never showed in toolhost active")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cs.Close() // the transport reaps the killed server; Wait here would race with it
	waitGone(t, cmd.Process.Pid)
	out, errOut, err := cli(t, state, work, "history", "--json", "--limit", "100")
	if err != nil {
		t.Fatalf("history: %v %s", err, errOut)
	}
	var page execPage
	json.Unmarshal([]byte(out), &page)
	think, orphans := 0, 0
	for _, r := range page.Executions {
		switch {
		case r.Tool == "think" && r.Status == "success":
			think++
		case r.Tool == "terminal_operations" && r.Status == "failed" && r.ErrorCode == "orphaned":
			orphans++
		}
	}
	if think != acked || orphans != 1 {
		t.Errorf("after SIGKILL: %d of %d acknowledged calls recorded, %d orphans (want 1)", think, acked, orphans)
	}
	if out, _, _ := cli(t, state, work, "active"); !strings.Contains(out, "no running executions") {
		t.Errorf("active after restart = %q", out)
	}
}

// TestClientCancelEndsTree: an MCP client over stdio cancels its run_command call (the go-sdk
// sends notifications/cancelled when the call's context ends) while the command sleeps in the
// foreground and a child of it sleeps in the background. The server ends the whole tree, the
// history (`toolhost history --json`, another process) records the call as cancelled with the
// command's exit status, and the same session goes on answering. On both protocol generations.
func TestClientCancelEndsTree(t *testing.T) {
	for _, version := range []string{"2025-06-18", ""} {
		name := version
		if name == "" {
			name = "latest"
		}
		t.Run(name, func(t *testing.T) {
			state, work := t.TempDir(), t.TempDir()
			cmd := commandIn(t, state, work, "stdio")
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "cancel-test", Version: "1"}, nil).
				Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			// A sleep argument no other process has: /proc finds exactly this command's tree.
			marker := fmt.Sprintf("sleep 7%d.25", time.Now().UnixNano()%100000+1000)
			callCtx, cancelCall := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "terminal_operations", Arguments: map[string]any{
					"operation": "run_command", "command": "sh -c '" + marker + "' & " + marker + "; echo never",
					"yield_seconds": 60, "timeout_seconds": 120}})
				done <- err
			}()
			waitProcs(t, marker, 2)
			cancelCall()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled call = %v, want context.Canceled", err)
			}
			// The notification reaches the server after the client has let go of the call: wait
			// for the tree to end, within a bound.
			for deadline := time.Now().Add(30 * time.Second); countProcs(marker) > 0; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("%d processes of the cancelled command still run", countProcs(marker))
				}
			}
			var rec *execRecord
			for deadline := time.Now().Add(30 * time.Second); rec == nil || rec.Status == "running"; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the history never showed the cancelled call finished: %+v", rec)
				}
				out, errOut, err := cli(t, state, work, "history", "--json", "--tool", "terminal_operations")
				if err != nil {
					t.Fatalf("history: %v %s", err, errOut)
				}
				var page execPage
				if err := json.Unmarshal([]byte(out), &page); err != nil {
					t.Fatalf("history --json: %v\n%s", err, out)
				}
				for i, r := range page.Executions {
					if strings.Contains(r.Command, marker) {
						rec = &page.Executions[i]
					}
				}
			}
			if rec.Status != "cancelled" || rec.ExitCode == nil {
				t.Errorf("history record of the cancelled call = status %q, exit code %v; want cancelled with an exit status", rec.Status, rec.ExitCode)
			}
			callThink(t, cs)
		})
	}
}
