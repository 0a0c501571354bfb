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
	r.setMu.Lock()
	defer r.setMu.Unlock()
	prev := r.current()
	tools := prev.tools
	next := &toolSet{tools: tools, on: map[string][]Operation{}}
	for _, t := range tools {
		var ops []Operation
		for _, op := range t.Operations {
			if allow == nil || allow(t.Name, op.Name, op.Risk) {
				ops = append(ops, op)
			}
		}
		if len(ops) > 0 {
			next.on[t.Name] = ops
		}
	}
	r.set.Store(next)
	return !sameOperations(prev.on, next.on)
}

// sameOperations reports whether two snapshots enable the same operations by name.
func sameOperations(a, b map[string][]Operation) bool {
	if len(a) != len(b) {
		return false
	}
	for name, ops := range b {
		if !slices.EqualFunc(a[name], ops, func(x, y Operation) bool { return x.Name == y.Name }) {
			return false
		}
	}
	return true
}

// Declared returns every tool the registry was given, advertised or not, in the fixed order.
// The console lists them with their operations and risks; callers must not change them.
func (r *Registry) Declared() []*Tool { return slices.Clone(r.current().tools) }

// Enabled reports whether an operation is currently enabled.
func (r *Registry) Enabled(tool, op string) bool {
	return slices.ContainsFunc(r.current().on[tool], func(o Operation) bool { return o.Name == op })
}

// Sync brings the tools registered on s in line with the current set, after SetAllow: tools
// switched off are removed, the others are added again with their new schema. The go-sdk
// sends notifications/tools/list_changed to the connected clients on each change, and the
// order middleware keeps tools/list in the fixed order.
func (r *Registry) Sync(s *mcp.Server) {
	set := r.current()
	advertised := set.advertised()
	var gone []string
	for _, t := range set.tools {
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
