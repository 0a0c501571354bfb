package consolidated

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
)

// engineTool is partsTool whose handler and resource answer with text: the same table with
// another engine behind it.
func engineTool(name, text string, log *callLog) *Tool {
	t := partsTool(name, log)
	t.Operations = []Operation{Op(name, "do it", RiskRead, func(ctx context.Context, c *Call, a *struct{}) (*Result, error) {
		return &Result{Text: text}, nil
	})}
	t.Resources[0].Read = func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: text}}}, nil
	}
	return t
}

// TestBind: a declared registry serves its list from the tables while its tools have no
// engines, and refuses calls and resource reads; once bound, the same list (the same bytes,
// the operations enabled before kept) and the engines' handlers, resources and subscriptions.
func TestBind(t *testing.T) {
	declaredLog, boundLog := &callLog{}, &callLog{}
	allow := func(tool, op string, risk Risk) bool { return tool != "read_tool_result" }
	reg := Declare(&Env{}, []*Tool{engineTool("think", "declared", declaredLog), engineTool("read_tool_result", "declared", declaredLog)}, allow)
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	reg.Register(s)
	_, cs := connectInMemory(t, s, mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil), nil)
	listed := func() string {
		t.Helper()
		b, err := json.Marshal(reg.ToolsFor(authz.TierAdmin))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	before := listed()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "think", Arguments: map[string]any{}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "still starting") {
		t.Errorf("call before Bind = %v, %v; want an unavailable error", res, err)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://think/1"}); err == nil || !strings.Contains(err.Error(), "still starting") {
		t.Errorf("resource read before Bind = %v, want an unavailable error", err)
	}

	if err := reg.Bind([]*Tool{engineTool("read_tool_result", "bound", boundLog), engineTool("think", "bound", boundLog)}); err != nil {
		t.Fatal(err)
	}
	if after := listed(); after != before {
		t.Errorf("tools/list after Bind = %s\nbefore = %s", after, before)
	}
	if got := reg.Names(); strings.Join(got, ",") != "think" {
		t.Errorf("advertised after Bind = %v, want think alone (the profile's choice kept)", got)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "think", Arguments: map[string]any{}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "bound" {
		t.Errorf("call after Bind = %v, %v; want the bound handler's answer", res, err)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://think/1"})
	if err != nil || rr.Contents[0].Text != "bound" {
		t.Errorf("resource read after Bind = %v, %v; want the bound resource's", rr, err)
	}
	if got := strings.Join(boundLog.get(), ";"); !strings.Contains(got, "serve think") {
		t.Errorf("bound tools' log = %q, want the advertised one given the server", got)
	}
	if err := reg.Bind([]*Tool{engineTool("think", "again", boundLog)}); err == nil {
		t.Error("a second Bind succeeded")
	}
}

// TestBindRefusesOtherTables: the tools bound must have the declared tables, in all that
// clients were shown of them; Bind names the difference.
func TestBindRefusesOtherTables(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Tool)
		want string
	}{
		{"another description", func(t *Tool) { t.Description = "other" }, "description"},
		{"another summary", func(t *Tool) { t.Operations[0].Summary = "other" }, "operation think"},
		{"another risk", func(t *Tool) { t.Operations[0].Risk = RiskWrite }, "operation think"},
		{"another argument type", func(t *Tool) {
			t.Operations[0] = Op("think", "do it", RiskRead, func(context.Context, *Call, *struct{ X int }) (*Result, error) { return nil, nil })
		}, "operation think"},
		{"an operation more", func(t *Tool) {
			t.Single = false
			t.Operations = append(t.Operations, Op("also", "", RiskRead, func(context.Context, *Call, *struct{}) (*Result, error) { return nil, nil }))
		}, "single-purpose"},
		{"another resource", func(t *Tool) {
			t.Resources[0].Template = &mcp.ResourceTemplate{Name: "x", URITemplate: "test://x/{id}"}
		}, "resources"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &callLog{}
			reg := Declare(&Env{}, []*Tool{engineTool("think", "declared", log)}, nil)
			bound := engineTool("think", "bound", log)
			tt.edit(bound)
			err := reg.Bind([]*Tool{bound})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Bind(%s) = %v, want an error naming %q", tt.name, err, tt.want)
			}
		})
	}
	t.Run("another tool", func(t *testing.T) {
		log := &callLog{}
		reg := Declare(&Env{}, []*Tool{engineTool("think", "declared", log)}, nil)
		if err := reg.Bind([]*Tool{engineTool("read_tool_result", "bound", log)}); err == nil || !strings.Contains(err.Error(), "read_tool_result") {
			t.Errorf("Bind(another tool) = %v, want an error naming the tools", err)
		}
	})
}
