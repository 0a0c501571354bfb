package consolidated

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SetAllow decides again which operations are enabled, while the server runs: the operator
// console switches operations with it. Calls already dispatched finish under the old set; the
// next call, tools/list and Sync see the new one. It reports whether the advertised set changed.
func (r *Registry) SetAllow(allow Allow) bool {
	next := map[string][]Operation{}
	for _, t := range r.tools {
		var ops []Operation
		for _, op := range t.Operations {
			if allow == nil || allow(t.Name, op.Name, op.Risk) {
				ops = append(ops, op)
			}
		}
		if len(ops) > 0 {
			next[t.Name] = ops
		}
	}
	prev := r.on.Swap(&next)
	if prev == nil {
		return true
	}
	if len(*prev) != len(next) {
		return true
	}
	for name, ops := range next {
		if !slices.EqualFunc((*prev)[name], ops, func(a, b Operation) bool { return a.Name == b.Name }) {
			return true
		}
	}
	return false
}

// enabled is the current snapshot of advertised tools and their enabled operations; callers
// must not change it.
func (r *Registry) enabled() map[string][]Operation { return *r.on.Load() }

// Declared returns every tool the registry was given, advertised or not, in the fixed order.
// The console lists them with their operations and risks; callers must not change them.
func (r *Registry) Declared() []*Tool { return slices.Clone(r.tools) }

// Enabled reports whether an operation is currently enabled.
func (r *Registry) Enabled(tool, op string) bool {
	return slices.ContainsFunc(r.enabled()[tool], func(o Operation) bool { return o.Name == op })
}

// Sync brings the tools registered on s in line with the current set, after SetAllow: tools
// switched off are removed, the others are added again with their new schema. The go-sdk
// sends notifications/tools/list_changed to the connected clients on each change, and the
// order middleware keeps tools/list in the fixed order.
func (r *Registry) Sync(s *mcp.Server) {
	advertised := r.advertised()
	var gone []string
	for _, t := range r.tools {
		if !slices.Contains(advertised, t) {
			gone = append(gone, t.Name)
		}
	}
	if len(gone) > 0 {
		s.RemoveTools(gone...)
	}
	for _, t := range advertised {
		r.addTool(s, t.Name)
	}
}

// addTool registers one advertised tool on s, dispatched through the registry. The SDK gets
// a placeholder schema (dispatchOnly); tools/list is answered from ToolsFor.
func (r *Registry) addTool(s *mcp.Server, name string) {
	s.AddTool(&mcp.Tool{Name: name, InputSchema: dispatchOnly}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		reg, err := r.route(ctx, req.Session)
		if err != nil {
			return errorResult(err), nil
		}
		return reg.Dispatch(ctx, name, req.Params.Arguments, req), nil
	})
}
