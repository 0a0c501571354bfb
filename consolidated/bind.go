package consolidated

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server is answering before its engines are open: tools/list is derived from the tools'
// tables alone, so a registry can be declared from tools built without engines, registered on
// a server that serves at once, and given the same tools with their engines later (Bind). The
// wiring holds every request that needs an engine until then; the registry refuses to run a
// handler of a declared tool (errNotBound) should one get through.

// Declare is NewRegistry for tools whose engines are not open yet: their tables decide what
// the registry advertises, and Bind gives it the same tools with their engines. It leaves the
// tables' validation (Tool.validate) to Bind, off the way to a server's first answers.
func Declare(env *Env, tools []*Tool, allow Allow) *Registry {
	r := &Registry{env: env, bound: make(chan struct{})}
	r.set.Store(&toolSet{tools: ordered(tools)})
	r.SetAllow(allow)
	return r
}

// errNotBound answers what reaches a declared registry before Bind.
var errNotBound = &ToolError{Code: CodeUnavailable, Message: "toolhost is still starting", Next: "try again in a moment"}

// isBound reports whether the registry's tools have their engines.
func (r *Registry) isBound() bool {
	select {
	case <-r.bound:
		return true
	default:
		return false
	}
}

// Bind gives a declared registry its tools with their engines. They must have the declared
// tables (Bind refuses others: clients were shown the declared ones), and keep the operations
// enabled as they are; the tools' subscriptions start serving the servers the registry is
// registered on. Nothing may call the registry's handlers before Bind returns.
func (r *Registry) Bind(tools []*Tool) error {
	if r.isBound() {
		return fmt.Errorf("consolidated: the registry's tools have their engines already")
	}
	bound := ordered(validated(tools))
	r.setMu.Lock()
	prev := r.current()
	if err := sameTables(prev.tools, bound); err != nil {
		r.setMu.Unlock()
		return err
	}
	next := &toolSet{tools: bound, on: map[string][]Operation{}}
	for _, t := range bound {
		if on, ok := prev.on[t.Name]; ok {
			next.on[t.Name] = slices.DeleteFunc(slices.Clone(t.Operations), func(op Operation) bool {
				return !slices.ContainsFunc(on, func(o Operation) bool { return o.Name == op.Name })
			})
		}
	}
	r.set.Store(next)
	// The same tables give the same lists: those built already serve on.
	r.lists.Range(func(k, v any) bool {
		if key := k.(listKey); key.set == prev {
			r.lists.Store(listKey{set: next, tier: key.tier}, v)
		}
		return true
	})
	r.setMu.Unlock()
	r.mu.Lock()
	r.served = nil
	servers := slices.Clone(r.registeredOn)
	r.mu.Unlock()
	r.serveOn(servers)
	close(r.bound)
	return nil
}

// sameTables returns an error naming the first difference between the declared tables and
// the bound ones in what clients are shown: the tools, their descriptions, operations and
// resources.
func sameTables(declared, bound []*Tool) error {
	names := func(ts []*Tool) []string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Name)
		}
		return out
	}
	if !slices.Equal(names(declared), names(bound)) {
		return fmt.Errorf("consolidated: tools %v were declared, %v bound", names(declared), names(bound))
	}
	for i, d := range declared {
		b := bound[i]
		if d.Description != b.Description {
			return fmt.Errorf("consolidated: tool %s: the bound description differs from the declared", d.Name)
		}
		if d.Single != b.Single {
			return fmt.Errorf("consolidated: tool %s: declared single-purpose %v, bound %v", d.Name, d.Single, b.Single)
		}
		if len(d.Operations) != len(b.Operations) {
			return fmt.Errorf("consolidated: tool %s: %d operations declared, %d bound", d.Name, len(d.Operations), len(b.Operations))
		}
		for j, op := range d.Operations {
			if !sameOperation(op, b.Operations[j]) {
				return fmt.Errorf("consolidated: tool %s: operation %s was declared as %s, bound as %s", d.Name, op.Name, describe(op), describe(b.Operations[j]))
			}
		}
		if !slices.EqualFunc(d.Resources, b.Resources, sameResource) {
			return fmt.Errorf("consolidated: tool %s: the bound resources differ from the declared", d.Name)
		}
	}
	return nil
}

// sameOperation compares what two rows of a table show clients, and what profiles and tiers
// filter them by: the name, summary, risk, category and arguments. How a call runs (its
// handler, deadline, guard flags) is the bound row's.
func sameOperation(a, b Operation) bool {
	return a.Name == b.Name && a.Summary == b.Summary && a.Risk == b.Risk && a.Category == b.Category && a.args == b.args
}

// describe is what sameOperation compares of a row, for an error message.
func describe(op Operation) string {
	return fmt.Sprintf("{%q, %q, risk %s, category %q, arguments %v}", op.Name, op.Summary, op.Risk, op.Category, op.args)
}

// sameResource compares two resources' descriptions (the handlers aside).
func sameResource(a, b Resource) bool {
	return reflect.DeepEqual(a.Resource, b.Resource) && reflect.DeepEqual(a.Template, b.Template) && a.Prefix == b.Prefix
}

// resourceReader is the handler registered for an advertised tool's resource: its own Read on
// a bound registry; on a declared one, the Read of the bound tool's resource of the same
// description, looked up when a client reads it.
func (r *Registry) resourceReader(tool string, res Resource) mcp.ResourceHandler {
	if r.isBound() {
		return res.Read
	}
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		if !r.isBound() {
			return nil, resourceError(errNotBound)
		}
		if t := r.current().declared(tool); t != nil {
			for _, x := range t.Resources {
				if sameResource(x, res) {
					return x.Read(ctx, req)
				}
			}
		}
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
}
