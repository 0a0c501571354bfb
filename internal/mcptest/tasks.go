// Package mcptest holds a raw MCP client for tests of what the go-sdk client cannot speak: MCP
// Tasks over streamable HTTP, on a session (protocols before 2026-07-28) or statelessly (the
// Tasks extension of 2026-07-28); and the request a raw HTTP test posts. Only tests import it.
package mcptest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// statelessVersion is the first protocol version whose requests carry their own version,
// client and capabilities instead of a session.
const statelessVersion = "2026-07-28"

// TaskClient is a raw JSON-RPC client of one /mcp endpoint: it declares the tasks capability
// and answers a request with the JSON-RPC message whose id matches, from a JSON or SSE response.
type TaskClient struct {
	t       testing.TB
	url     string
	token   string
	version string
	session string
	id      int
	// Initialized is the result of initialize (nil on a stateless version).
	Initialized json.RawMessage
}

// NewTaskClient is a client of base+"/mcp" with the bearer token, speaking version; before
// 2026-07-28 it initializes a session first.
func NewTaskClient(t testing.TB, base, token, version string) *TaskClient {
	t.Helper()
	c := &TaskClient{t: t, token: token, version: version}
	c.SetBase(base)
	if !c.Stateless() {
		c.Initialized = c.Must("initialize", map[string]any{"protocolVersion": version, "capabilities": map[string]any{"tasks": map[string]any{}},
			"clientInfo": map[string]any{"name": "raw-client", "version": "1"}})
		c.Post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	}
	return c
}

// SetBase points the client at another server (base without "/mcp"), keeping its session.
func (c *TaskClient) SetBase(base string) { c.url = base + "/mcp" }

// Stateless reports whether the client speaks 2026-07-28 or later: no session, each request
// carrying its version, client and capabilities and the Mcp-Method and Mcp-Name headers.
func (c *TaskClient) Stateless() bool { return c.version >= statelessVersion }

// Post sends one message and returns the JSON-RPC answer in the response (JSON or SSE), or nil
// for a notification.
func (c *TaskClient) Post(msg map[string]any) map[string]any {
	c.t.Helper()
	method, _ := msg["method"].(string)
	if c.Stateless() {
		p, _ := msg["params"].(map[string]any)
		if p == nil {
			p = map[string]any{}
		}
		p["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": c.version,
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw-client", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}
		msg["params"] = p
	}
	body, _ := json.Marshal(msg)
	req := NewRequest(c.url, c.token, c.version, c.session, string(body))
	if c.Stateless() {
		req.Header.Set("Mcp-Method", method)
		if method == "tools/call" {
			req.Header.Set("Mcp-Name", msg["params"].(map[string]any)["name"].(string))
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.session = id
	}
	data, _ := io.ReadAll(resp.Body)
	if _, isCall := msg["id"]; !isCall {
		return nil
	}
	var answers []string
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(data), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok {
				answers = append(answers, d)
			}
		}
	} else {
		answers = append(answers, string(data))
	}
	for _, a := range answers {
		var m map[string]any
		if json.Unmarshal([]byte(a), &m) == nil && m["id"] == msg["id"] {
			return m
		}
	}
	c.t.Fatalf("%s: no answer in %d %s", method, resp.StatusCode, data)
	return nil
}

// Send sends a request and returns its JSON-RPC answer, error or result.
func (c *TaskClient) Send(method string, params map[string]any) map[string]any {
	c.t.Helper()
	c.id++
	return c.Post(map[string]any{"jsonrpc": "2.0", "id": float64(c.id), "method": method, "params": params})
}

// Must sends a request and returns its result; a JSON-RPC error fails the test.
func (c *TaskClient) Must(method string, params map[string]any) json.RawMessage {
	c.t.Helper()
	return Result(c.t, method, params, c.Send(method, params))
}

// Result returns the result of answer m to a request method with params; a JSON-RPC error
// fails the test.
func Result(t testing.TB, method string, params any, m map[string]any) json.RawMessage {
	t.Helper()
	if m["error"] != nil {
		t.Fatalf("%s %v: %v", method, params, m["error"])
	}
	b, _ := json.Marshal(m["result"])
	return b
}

// Status calls method (tasks/get, tasks/cancel) on task id and returns the status it answers.
func (c *TaskClient) Status(method, id string) string {
	c.t.Helper()
	var m struct {
		Status string `json:"status"`
	}
	json.Unmarshal(c.Must(method, map[string]any{"taskId": id}), &m)
	return m.Status
}
