package consolidated

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// callLog records what the registry does with tools' parts; handlers run on server goroutines.
type callLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *callLog) add(s string) {
	l.mu.Lock()
	l.lines = append(l.lines, s)
	l.mu.Unlock()
}

func (l *callLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// partsTool is a test tool carrying every optional part, recording what the registry does with
// them into log.
func partsTool(name string, log *callLog) *Tool {
	return &Tool{
		Name:        name,
		Description: "test tool",
		Single:      true,
		Operations: []Operation{Op(name, "do it", RiskRead, func(ctx context.Context, c *Call, a *struct{}) (*Result, error) {
			return Text("done"), nil
		})},
		Resources: []Resource{{
			Template: &mcp.ResourceTemplate{Name: name + "-tpl", URITemplate: "test://" + name + "/{id}"},
			Read: func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: name}}}, nil
			},
		}},
		Subscriptions: &recordingSubs{name: name, log: log},
		AfterCall: func(ctx context.Context, c *Call, r *Result) {
			log.add("after " + name + " of " + c.Tool)
			r.Extra = append(r.Extra, "from "+name)
		},
		Close: func() error {
			log.add("close " + name)
			if name == "think" {
				return errors.New("stuck")
			}
			return nil
		},
	}
}

type recordingSubs struct {
	name string
	log  *callLog
}

func (s *recordingSubs) Subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	s.log.add("subscribe " + s.name + " " + req.Params.URI)
	return nil
}

func (s *recordingSubs) Unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.log.add("unsubscribe " + s.name + " " + req.Params.URI)
	return nil
}

func (s *recordingSubs) Serve(*mcp.Server) { s.log.add("serve " + s.name) }

// TestRegistryToolParts: the registry registers the parts of advertised tools only, in the fixed
// order, and closes every tool, the last first.
func TestRegistryToolParts(t *testing.T) {
	log := &callLog{}
	// read_tool_result is disabled by the profile; think and todo_operations are advertised.
	allow := func(tool, op string, risk Risk) bool { return tool != "read_tool_result" }
	reg := NewRegistry(&Env{}, []*Tool{partsTool("read_tool_result", log), partsTool("todo_operations", log), partsTool("think", log)}, allow)
	ctx := context.Background()

	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{SubscribeHandler: reg.Subscribe, UnsubscribeHandler: reg.Unsubscribe})
	reg.Register(s)
	// On 2026-07-28 a subscription is a long-lived listen request that an unsubscribe cancels
	// asynchronously; the older protocol answers both at once, which keeps this record ordered.
	_, cs := connectInMemory(t, s, mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	tpls, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, rt := range tpls.ResourceTemplates {
		names = append(names, rt.Name)
	}
	slices.Sort(names)
	if want := []string{"think-tpl", "todo_operations-tpl"}; !slices.Equal(names, want) {
		t.Errorf("resource templates = %v, want %v (the disabled tool's dropped)", names, want)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://think/1"}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://think/1"}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "think", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, c := range res.Content {
		blocks = append(blocks, c.(*mcp.TextContent).Text)
	}
	if want := []string{"done", "from think", "from todo_operations"}; !slices.Equal(blocks, want) {
		t.Errorf("result blocks = %q, want %q (hooks of advertised tools, in order)", blocks, want)
	}
	// A failed call runs no hook.
	if res := reg.Dispatch(ctx, "think", []byte(`[1]`), nil); !res.IsError || len(res.Content) != 1 {
		t.Errorf("failed call = %+v, want one error block", res.Content)
	}
	err = reg.Close()
	if err == nil || !strings.Contains(err.Error(), "close think: stuck") {
		t.Errorf("Close() = %v, want the failing Close named", err)
	}
	want := []string{
		"serve think", "serve todo_operations",
		"subscribe think test://think/1", "subscribe todo_operations test://think/1",
		"unsubscribe think test://think/1", "unsubscribe todo_operations test://think/1",
		"after think of think", "after todo_operations of think",
		"close read_tool_result", "close todo_operations", "close think",
	}
	if diff := cmp.Diff(want, log.get()); diff != "" {
		t.Errorf("what the registry did (-want +got):\n%s", diff)
	}
}

func TestResourceDeclarationIsChecked(t *testing.T) {
	read := func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil }
	tests := []struct {
		name string
		res  Resource
	}{
		{"neither", Resource{Read: read}},
		{"both", Resource{Resource: &mcp.Resource{URI: "test://x"}, Template: &mcp.ResourceTemplate{URITemplate: "test://{x}"}, Read: read}},
		{"no handler", Resource{Resource: &mcp.Resource{URI: "test://x"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("NewRegistry with a resource declaring %s did not panic", tt.name)
				}
			}()
			tool := ThinkTool()
			tool.Resources = []Resource{tt.res}
			NewRegistry(&Env{}, []*Tool{tool}, nil)
		})
	}
}

// TestParameterTypesAreChecked: two operations of one tool share a parameter only with one
// schema (type and enum; descriptions may differ), since the tool's flat input schema has one
// property per name. Tool.validate renders and compares the schemas only where the Go types or
// enums differ; these cases pin that it tells apart exactly what the schemas tell apart.
func TestParameterTypesAreChecked(t *testing.T) {
	type str struct {
		X string `json:"x" jsonschema:"one description"`
	}
	type strOther struct {
		X string `json:"x,omitempty" jsonschema:"another description"`
	}
	type strPtr struct {
		X *string `json:"x,omitempty"`
	}
	type integer struct {
		X int `json:"x"`
	}
	type integer64 struct {
		X int64 `json:"x"`
	}
	type enumAB struct {
		X string `json:"x" enum:"a,b"`
	}
	type enumBA struct {
		X string `json:"x" enum:"b,a"`
	}
	type list struct {
		X []string `json:"x"`
	}
	type listInt struct {
		X []int `json:"x"`
	}
	op := func(name string, args reflect.Type) Operation { return Operation{Name: name, args: args} }
	tests := []struct {
		name      string
		a, b      reflect.Type
		wantPanic bool
	}{
		{"same type, other description and optionality", reflect.TypeFor[str](), reflect.TypeFor[strOther](), false},
		{"pointer to the same type", reflect.TypeFor[str](), reflect.TypeFor[strPtr](), false},
		{"int and int64 are both integer", reflect.TypeFor[integer](), reflect.TypeFor[integer64](), false},
		{"string and integer", reflect.TypeFor[str](), reflect.TypeFor[integer](), true},
		{"enum and none", reflect.TypeFor[str](), reflect.TypeFor[enumAB](), true},
		{"enum in another order", reflect.TypeFor[enumAB](), reflect.TypeFor[enumBA](), true},
		{"same enum", reflect.TypeFor[enumAB](), reflect.TypeFor[enumAB](), false},
		{"array items differ", reflect.TypeFor[list](), reflect.TypeFor[listInt](), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			panicked := func() (p bool) {
				defer func() { p = recover() != nil }()
				tool := &Tool{Name: "think", Operations: []Operation{op("one", tt.a), op("two", tt.b)}}
				tool.validate()
				return false
			}()
			if panicked != tt.wantPanic {
				t.Errorf("validate(x: %s, x: %s) panicked = %v, want %v", tt.a, tt.b, panicked, tt.wantPanic)
			}
		})
	}
}
