package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/config"
	"toolhost/internal/engine"
)

// TestStdioTier: [stdio] tier lowers what a stdio client sees and may call, and the calls are in
// the history under the stdio principal.
func TestStdioTier(t *testing.T) {
	a := testAppWith(t, func(c *config.Config) { c.Stdio.Tier = "execute_basic" })
	cs := connect(t, a, nil, "")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Tools)
	if strings.Contains(string(b), `"run_command"`) || !strings.Contains(string(b), `"read_file"`) {
		t.Errorf("execute_basic stdio tools/list: run_command shown or read_file missing")
	}
	cr, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "terminal_operations", Arguments: map[string]any{"operation": "run_command", "command": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := cr.Content[0].(*mcp.TextContent).Text; !cr.IsError || !strings.Contains(text, "forbidden") {
		t.Errorf("run_command as execute_basic = %q, want forbidden", text)
	}
	page, err := a.Executions.List(context.Background(), engine.Filter{Viewer: authz.StdioPrincipal, Principal: "stdio"})
	if err != nil || len(page.Executions) != 1 || page.Executions[0].Status != engine.StatusDenied || page.Executions[0].Client != "test" {
		t.Errorf("history = %+v, %v; want the denied run_command of client test", page, err)
	}
}
