package consolidated

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
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
// Names of tools not built yet are simply absent from the list; a new tool goes before
// read_tool_result, and the relative order of existing tools never changes.
var Order = []string{
	"think",
	"user_collaboration",
	"todo_operations",
	"memory_operations",
	"file_operations",
	"terminal_operations",
	"build_and_version_control",
	"web_operations",
	"database_operations",
	"read_tool_result",
}

// Tool is one consolidated tool: a name, a short description and its table of operations, and
// the optional parts that belong to it. The server registers the parts from the tool list while
// the tool is advertised, and a profile that disables the tool drops them with it.
type Tool struct {
	Name string
	// Title is the tool's short human name (tools/list's title), which clients show in
	// approval prompts and tool pickers instead of the name.
	Title string
	// Description is the lead; the enabled operations' names go where OperationsPlaceholder
	// stands, else at the end of its first sentence, and a line per operation with a summary
	// follows.
	Description string
	// Single marks a tool with exactly one purpose: its schema has no operation field.
	Single     bool
	Operations []Operation

	// Resources are the resources and resource templates the tool serves (a terminal's screen,
	// a conversation's todo list).
	Resources []Resource
	// ListResources lists the resources of a conversation that resources/list shows to the
	// client working in it, besides the fixed Resources (the conversation's todo list). A
	// template among Resources serves their reads.
	ListResources func(ctx context.Context, conv string) []*mcp.Resource
	// Subscriptions, when set, learns of resources/subscribe and unsubscribe and is given each
	// server the registry is registered on, so that it can tell subscribers of changes.
	Subscriptions Subscriptions
	// AfterCall runs after every successful call of any advertised tool, and may append blocks
	// to the result (the todo tool's reminders).
	AfterCall func(ctx context.Context, c *Call, r *Result)
	// Close releases what the tool holds (an engine, its processes) when the registry closes,
	// advertised or not.
	Close func() error
	// ConversationEnded, when set, lets go of what the tool holds for a conversation whose
	// session ended (Registry.ConversationEnded, advertised or not): the web tool's browser.
	ConversationEnded func(conv string)
}

// Resource is one resource or resource template of a tool with the handler that reads it.
// Exactly one of Resource and Template is set.
type Resource struct {
	Resource *mcp.Resource
	Template *mcp.ResourceTemplate
	Read     mcp.ResourceHandler
	// Prefix, when set, sends every URI starting with it to Read. The go-sdk matches a
	// template variable only within one path segment, so file:///{path} alone would not
	// reach file:///src/main.go.
	Prefix string
	// Complete proposes values of the template's variables (completion/complete).
	Complete Completer
}

// Subscriptions receives the resources/subscribe and resources/unsubscribe requests of every
// client (each advertised tool sees every URI and ignores those that are not its own), and the
// servers to notify: Serve is called when the registry is registered on a server.
type Subscriptions interface {
	Subscribe(ctx context.Context, req *mcp.SubscribeRequest) error
	Unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error
	Serve(s *mcp.Server)
}

// Operation is one row of a tool's table.
type Operation struct {
	Name    string
	Summary string
	Risk    Risk
	// Category is the risk category tiers are judged by (WithCategory); empty means the one
	// Risk implies (see Category).
	Category authz.Category
	// Timeout is the deadline of one call (WithTimeout); zero means DefaultTimeout.
	Timeout time.Duration
	// NamesOnly declares that the operation's directory reads return names and metadata, never
	// file contents (a listing, a glob). Its guard requests (Call.GuardRequest) say so, and the
	// guard then lets it list a directory that holds a protected path.
	NamesOnly bool
	// RunsCommands declares that the operation starts shell commands or types into a shell
	// (WithRunsCommands): a write grant naming it, or its tool's write class, lets the
	// conversation's commands write where the grant says ([Tool.Runner], the terminal sandbox).
	RunsCommands bool
	// CallTimeout declares that the call's timeout_seconds argument is its deadline
	// (WithCallTimeout), at most Timeout.
	CallTimeout bool
	// TaskWait declares that the operation, run as an MCP task, waits for its work to end
	// instead of handing it back (WithTaskWait): its deadline is then taskDeadline. For a
	// client of the Tasks extension (2026-07-28), where the server decides, these are the
	// operations that run as tasks.
	TaskWait bool

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

// WithTaskWait returns a copy of op that waits for its work when it runs as a task.
func (op Operation) WithTaskWait() Operation {
	op.TaskWait = true
	return op
}

// WithCallTimeout returns a copy of op whose caller may shorten its deadline with the
// timeout_seconds argument (a field of its argument struct), up to its Timeout. Operations
// that give timeout_seconds a meaning of their own (a command's kill timer, which outlives the
// call) do not use it.
func (op Operation) WithCallTimeout() Operation {
	if _, ok := timeoutField(op.args); !ok {
		panic(fmt.Sprintf("consolidated: operation %s: WithCallTimeout needs a timeout_seconds field in %s", op.Name, op.args))
	}
	op.CallTimeout = true
	return op
}

// timeoutField finds the index of the timeout_seconds field in an argument struct (embedded
// structs included).
func timeoutField(t reflect.Type) ([]int, bool) {
	if t == nil || t.Kind() != reflect.Struct {
		return nil, false
	}
	for _, f := range reflect.VisibleFields(t) {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == "timeout_seconds" && f.Type.Kind() == reflect.Int {
			return f.Index, true
		}
	}
	return nil, false
}

// deadline is the call's deadline: the operation's, or the caller's timeout_seconds when the
// operation takes one (WithCallTimeout). A value that is negative or above the operation's
// deadline is an error the model can fix.
func (op Operation) deadline(args any) (time.Duration, error) {
	d := op.timeout()
	if !op.CallTimeout || args == nil {
		return d, nil
	}
	idx, ok := timeoutField(op.args)
	if !ok {
		return d, nil
	}
	v := reflect.ValueOf(args)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	secs := v.FieldByIndex(idx).Int()
	maxSecs := int64(d / time.Second)
	switch {
	case secs < 0 || secs > maxSecs:
		return 0, &ToolError{Code: CodeInvalidValue, Param: "timeout_seconds",
			Message: fmt.Sprintf("timeout_seconds is %d; %s takes 1 to %d", secs, op.Name, maxSecs), Next: fmt.Sprintf("call again with timeout_seconds at most %d, or without it", maxSecs)}
	case secs > 0:
		return time.Duration(secs) * time.Second, nil
	}
	return d, nil
}

// WithCategory returns a copy of op that declares its risk category explicitly, where its Risk
// does not say it exactly (a question to the user changes only toolhost's state, but it
// interrupts the user: dangerous).
func (op Operation) WithCategory(c authz.Category) Operation {
	op.Category = c
	return op
}

// RiskCategory is the category an operation's tier check uses: the declared one, else derived
// from Risk: read-only is safe; toolhost's own state and the network are moderate; the user's
// files and programs are dangerous.
func (op Operation) RiskCategory() authz.Category {
	if op.Category != "" {
		return op.Category
	}
	switch op.Risk {
	case RiskRead:
		return authz.CategorySafe
	case RiskState, RiskNetwork:
		return authz.CategoryModerate
	}
	return authz.CategoryDangerous
}

// WithNamesOnly returns a copy of op that reads names only (see Operation.NamesOnly).
func (op Operation) WithNamesOnly() Operation {
	op.NamesOnly = true
	return op
}

// WithRunsCommands returns a copy of op that runs commands (see Operation.RunsCommands).
func (op Operation) WithRunsCommands() Operation {
	op.RunsCommands = true
	return op
}

// Runner names the tool and its operations that run commands (RunsCommands), for what the
// terminal guard asks authz: command approvals and the paths write grants open to commands.
// authz knows no tool by name; the table says which these are.
func (t *Tool) Runner() authz.Runner {
	r := authz.Runner{Tool: t.Name}
	for _, op := range t.Operations {
		if op.RunsCommands {
			r.Operations = append(r.Operations, op.Name)
		}
	}
	return r
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
	if t.Single && t.Operations[0].Summary == "" {
		panic(fmt.Sprintf("consolidated: single-purpose tool %s has no summary", t.Name))
	}
	for _, r := range t.Resources {
		if (r.Resource == nil) == (r.Template == nil) || r.Read == nil {
			panic(fmt.Sprintf("consolidated: tool %s declares a resource without exactly one of Resource and Template, or without Read", t.Name))
		}
	}
	first := map[string]param{}
	for _, op := range t.Operations {
		for _, p := range paramsOf(op.args) {
			prev, ok := first[p.Name]
			if !ok {
				first[p.Name] = p
				continue
			}
			// The same Go type and enum give the same schema; only parameters that differ
			// there have their schemas rendered and compared.
			if (prev.typ != p.typ || !slices.Equal(prev.Enum, p.Enum)) && prev.typeKey() != p.typeKey() {
				panic(fmt.Sprintf("consolidated: tool %s declares parameter %s with two types", t.Name, p.Name))
			}
		}
	}
}
