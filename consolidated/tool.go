// Package consolidated is toolhost's MCP-facing layer. Each tool is declared once, as a table of
// operations; everything a client sees (the operation enum, the flat input schema, annotations, the
// description's operation list) and everything the server does with a call (validation, dispatch,
// result shaping) is derived from that table, so no operation name is ever written twice.
package consolidated

import (
	"context"
	"fmt"
	"reflect"
	"time"
)

// Risk classifies what an operation may touch. It drives MCP annotations and profile filtering
// (a read-only profile keeps only RiskRead and RiskState operations).
type Risk string

const (
	// RiskRead operations only look at files, processes or state.
	RiskRead Risk = "read"
	// RiskState operations change only toolhost's own state (todos, memories, grants requested).
	RiskState Risk = "state"
	// RiskWrite operations change files in the user's tree.
	RiskWrite Risk = "write"
	// RiskExecute operations run programs with the user's authority.
	RiskExecute Risk = "execute"
	// RiskNetwork operations talk to hosts outside this machine.
	RiskNetwork Risk = "network"
)

// Order is the fixed order of every tool toolhost can advertise. tools/list always follows it,
// whatever the SDK's own ordering, because clients cache the prompt prefix holding the list.
var Order = []string{
	"think",
	"user_collaboration",
	"todo_operations",
	"memory_operations",
	"file_operations",
	"terminal_operations",
	"build_and_version_control",
	"web_operations",
	"read_tool_result",
}

// Tool is one consolidated tool: a name, a short description and its table of operations.
type Tool struct {
	Name string
	// Description is the lead sentence; the operation list is appended from the table, and
	// OperationsPlaceholder in it stands for the enabled operations' names.
	Description string
	// Single marks a tool with exactly one purpose: its schema has no operation field.
	Single bool
	// Conversational tools accept conversation_id.
	Conversational bool
	Operations     []Operation
}

// Operation is one row of a tool's table.
type Operation struct {
	Name    string
	Summary string
	Risk    Risk
	// Timeout is the default deadline for one call; MaxTimeout caps a caller's timeout_seconds
	// where the operation accepts one. Zero means DefaultTimeout.
	Timeout time.Duration

	args   reflect.Type
	handle func(ctx context.Context, c *Call, args any) (*Result, error)
}

// DefaultTimeout bounds an operation that declares none.
const DefaultTimeout = 2 * time.Minute

// Op builds an operation row from a typed handler. A must be a struct whose json tags name the
// parameters (omitempty = optional) and whose jsonschema tags describe them.
func Op[A any](name, summary string, risk Risk, h func(ctx context.Context, c *Call, a *A) (*Result, error)) Operation {
	t := reflect.TypeFor[A]()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("consolidated: operation %s: argument type %s is not a struct", name, t))
	}
	return Operation{
		Name:    name,
		Summary: summary,
		Risk:    risk,
		args:    t,
		handle: func(ctx context.Context, c *Call, a any) (*Result, error) {
			return h(ctx, c, a.(*A))
		},
	}
}

// WithTimeout returns a copy of op with a different default deadline.
func (op Operation) WithTimeout(d time.Duration) Operation {
	op.Timeout = d
	return op
}

func (op Operation) timeout() time.Duration {
	if op.Timeout > 0 {
		return op.Timeout
	}
	return DefaultTimeout
}

// operation finds an operation by name.
func (t *Tool) operation(name string) (Operation, bool) {
	for _, op := range t.Operations {
		if op.Name == name {
			return op, true
		}
	}
	return Operation{}, false
}

// validate panics on a table that would produce an ambiguous surface: duplicate operations, or one
// parameter name declared with two different types.
func (t *Tool) validate() {
	seen := map[string]bool{}
	for _, op := range t.Operations {
		if seen[op.Name] {
			panic(fmt.Sprintf("consolidated: tool %s declares operation %s twice", t.Name, op.Name))
		}
		seen[op.Name] = true
	}
	if t.Single && len(t.Operations) != 1 {
		panic(fmt.Sprintf("consolidated: single-purpose tool %s must have exactly one operation", t.Name))
	}
	types := map[string]string{}
	for _, op := range t.Operations {
		for _, p := range paramsOf(op.args) {
			key := string(mustJSON(p.schema(false)))
			if prev, ok := types[p.Name]; ok && prev != key {
				panic(fmt.Sprintf("consolidated: tool %s declares parameter %s with two types", t.Name, p.Name))
			}
			types[p.Name] = key
		}
	}
}
