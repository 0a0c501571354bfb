package server

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/consolidated"
)

// The seam is exercised with a small table of test operations under a real tool name, served by the
// real server and called by the go-sdk client over its in-memory transport.

type echoArgs struct {
	Text  string   `json:"text" jsonschema:"Text to echo."`
	Count int      `json:"count,omitempty" jsonschema:"Times to repeat."`
	Tags  []string `json:"tags,omitempty" jsonschema:"Tags."`
	Mode  string   `json:"mode,omitempty" enum:"upper,lower" jsonschema:"Case."`
}

type emptyArgs struct{}

type waitArgs struct {
	Millis int `json:"millis,omitempty" jsonschema:"How long to wait."`
}

// thinkServer is the real server with think as its only tool, for tests of the transports and
// sessions, where the tools do not matter.
func thinkServer() *mcp.Server {
	return New(Options{Name: "toolhost", Version: "test",
		Registry: consolidated.NewRegistry(&consolidated.Env{DefaultConversation: "c"}, []*consolidated.Tool{consolidated.ThinkTool()}, nil)})
}

func seamTools() []*consolidated.Tool {
	return []*consolidated.Tool{
		consolidated.ThinkTool(),
		consolidated.ReadToolResultTool(),
		{
			Name:        "file_operations",
			Description: "Test operations.",
			Operations: []consolidated.Operation{
				consolidated.Op("echo", "echo text", consolidated.RiskRead, func(ctx context.Context, c *consolidated.Call, a *echoArgs) (*consolidated.Result, error) {
					n := max(a.Count, 1)
					out := strings.Repeat(a.Text, n)
					switch a.Mode {
					case "upper":
						out = strings.ToUpper(out)
					case "lower":
						out = strings.ToLower(out)
					}
					return &consolidated.Result{Text: out + "|" + strings.Join(a.Tags, ",") + "|" + c.Conversation}, nil
				}),
				consolidated.Op("boom", "panic", consolidated.RiskRead, func(ctx context.Context, c *consolidated.Call, a *emptyArgs) (*consolidated.Result, error) {
					panic("kaboom")
				}),
				consolidated.Op("wait", "wait for ctx", consolidated.RiskRead, func(ctx context.Context, c *consolidated.Call, a *waitArgs) (*consolidated.Result, error) {
					select {
					case <-ctx.Done():
						return nil, ctx.Err()
					case <-time.After(time.Duration(a.Millis) * time.Millisecond):
						return consolidated.Text("waited"), nil
					}
				}),
				consolidated.Op("stuck", "ignore ctx", consolidated.RiskRead, func(ctx context.Context, c *consolidated.Call, a *emptyArgs) (*consolidated.Result, error) {
					time.Sleep(2 * time.Second) // deliberately deaf to ctx: the seam must still answer
					return consolidated.Text("late"), nil
				}).WithTimeout(100 * time.Millisecond),
				consolidated.Op("write_it", "a write", consolidated.RiskWrite, func(ctx context.Context, c *consolidated.Call, a *emptyArgs) (*consolidated.Result, error) {
					return consolidated.Text("written"), nil
				}),
			},
		},
	}
}

type harness struct {
	t      *testing.T
	env    *consolidated.Env
	client *mcp.ClientSession
}

func newHarness(t *testing.T, allow consolidated.Allow, clientOpts *mcp.ClientSessionOptions) *harness {
	t.Helper()
	spill, err := consolidated.NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := &consolidated.Env{DefaultConversation: "conv-default", Profile: "test", BudgetTokens: 1000, Spill: spill}
	reg := consolidated.NewRegistry(env, seamTools(), allow)
	s := New(Options{Name: "toolhost", Version: "test", Registry: reg})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, clientOpts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &harness{t: t, env: env, client: cs}
}

func (h *harness) call(name string, args any) (string, bool) {
	h.t.Helper()
	res, err := h.client.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		h.t.Fatalf("CallTool(%s): %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func TestSeamValidation(t *testing.T) {
	h := newHarness(t, nil, nil)
	tests := []struct {
		name    string
		tool    string
		args    any
		want    string
		wantErr bool
	}{
		{"ok", "file_operations", map[string]any{"operation": "echo", "text": "hi"}, "hi||conv-default", false},
		{"conversation is not the model's", "file_operations", map[string]any{"operation": "echo", "text": "hi", "conversation_id": "c1"}, "error unexpected_parameter: conversation_id is not a parameter: the connection chooses the conversation", true},
		{"empty conversation is ignored", "file_operations", map[string]any{"operation": "echo", "text": "hi", "conversation_id": ""}, "hi||conv-default", false},
		{"missing operation", "file_operations", map[string]any{"text": "hi"}, "error missing_parameter: file_operations requires operation\nparameter: operation\nnext: operations: echo, boom, wait, stuck, write_it", true},
		{"unknown operation", "file_operations", map[string]any{"operation": "ecko", "text": "hi"}, "error unknown_operation: file_operations has no operation \"ecko\"\nparameter: operation\nnext: did you mean echo?", true},
		{"missing parameter", "file_operations", map[string]any{"operation": "echo"}, "error missing_parameter: echo requires text\nparameter: text\nnext: valid parameters: text string (required), count integer, tags array, mode string", true},
		{"extra parameter", "file_operations", map[string]any{"operation": "echo", "text": "a", "millis": 5}, "a||conv-default\n\nNote: echo does not take millis; ignored.", false},
		{"extra parameter, text missing", "file_operations", map[string]any{"operation": "echo", "millis": 5}, "error unexpected_parameter: echo does not take millis, and requires text", true},
		{"client-injected keys", "file_operations", map[string]any{"operation": "echo", "text": "a", "wait_for_previous": true, "_hint": 1}, "a||conv-default", false},
		{"extra but empty parameter is ignored", "file_operations", map[string]any{"operation": "echo", "text": "a", "millis": 0, "path": ""}, "a||conv-default", false},
		{"wrong type", "file_operations", map[string]any{"operation": "echo", "text": 5}, "error invalid_type: text must be a string", true},
		{"number as string is coerced", "file_operations", map[string]any{"operation": "echo", "text": "a", "count": "3"}, "aaa||conv-default", false},
		{"list as JSON text is coerced", "file_operations", map[string]any{"operation": "echo", "text": "a", "tags": `["x","y"]`}, "a|x,y|conv-default", false},
		{"single string for list", "file_operations", map[string]any{"operation": "echo", "text": "a", "tags": "x"}, "a|x|conv-default", false},
		{"enum enforced", "file_operations", map[string]any{"operation": "echo", "text": "a", "mode": "title"}, "error invalid_value: mode must be one of upper, lower", true},
		{"camelCase conversation", "file_operations", map[string]any{"operation": "echo", "text": "a", "conversationId": "c2"}, "error unexpected_parameter: conversation_id", true},
		{"dotted name", "file_operations.echo", map[string]any{"text": "dot"}, "dot||conv-default", false},
		{"colon name", "file_operations:echo", map[string]any{"text": "colon"}, "colon||conv-default", false},
		{"operation as tool", "echo", map[string]any{"text": "bare"}, "bare||conv-default", false},
		{"arguments not an object", "think", []any{1, 2}, "error invalid_arguments", true},
		{"panic becomes error", "file_operations", map[string]any{"operation": "boom"}, "error internal: file_operations.boom failed inside toolhost", true},
		{"timeout of a deaf handler", "file_operations", map[string]any{"operation": "stuck"}, "error timeout: file_operations.stuck did not finish within 100ms", true},
		{"think", "think", map[string]any{"thoughts": "plan"}, "Thought recorded.", false},
		{"think empty", "think", map[string]any{"thoughts": "  "}, "error invalid_value: thoughts is empty", true},
		{"think takes no conversation", "think", map[string]any{"thoughts": "x", "conversation_id": "c"}, "error unexpected_parameter", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, isErr := h.call(tt.tool, tt.args)
			if isErr != tt.wantErr || !strings.HasPrefix(got, tt.want) {
				t.Errorf("call(%s, %v) = %q (isError %v), want prefix %q (isError %v)", tt.tool, tt.args, got, isErr, tt.want, tt.wantErr)
			}
		})
	}
}

func TestUnknownToolIsProtocolError(t *testing.T) {
	h := newHarness(t, nil, nil)
	_, err := h.client.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	if err == nil {
		t.Fatal("CallTool(no_such_tool) succeeded, want a protocol error")
	}
}

func TestDisabled(t *testing.T) {
	allow := func(tool, op string, risk consolidated.Risk) bool {
		return tool != "think" && risk != consolidated.RiskWrite
	}
	h := newHarness(t, allow, nil)
	got, isErr := h.call("think", map[string]any{"thoughts": "x"})
	if !isErr || !strings.Contains(got, "think is disabled in profile test") {
		t.Errorf("call(think) = %q, %v; want disabled error", got, isErr)
	}
	got, isErr = h.call("file_operations", map[string]any{"operation": "write_it"})
	if !isErr || !strings.Contains(got, "file_operations.write_it is disabled in profile test") {
		t.Errorf("call(write_it) = %q, %v; want disabled error", got, isErr)
	}
	res, err := h.client.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Name == "file_operations" {
			b, _ := json.Marshal(tl.InputSchema)
			if strings.Contains(string(b), "write_it") {
				t.Errorf("disabled operation write_it is in the schema: %s", b)
			}
		}
	}
	if got, want := strings.Join(names, ","), "file_operations,read_tool_result"; got != want {
		t.Errorf("tools = %s, want %s", got, want)
	}
}

func TestFixedOrder(t *testing.T) {
	for _, version := range []string{"", "2025-11-25", "2025-06-18"} {
		t.Run("protocol "+version, func(t *testing.T) {
			h := newHarness(t, nil, &mcp.ClientSessionOptions{ProtocolVersion: version})
			res, err := h.client.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range res.Tools {
				names = append(names, tl.Name)
			}
			// The SDK alone would sort these by name: file_operations, read_tool_result, think.
			if got, want := strings.Join(names, ","), "think,file_operations,read_tool_result"; got != want {
				t.Errorf("tools/list order = %s, want %s", got, want)
			}
		})
	}
}

func TestBudgetSpillAndPaging(t *testing.T) {
	h := newHarness(t, nil, nil)
	line := strings.Repeat("0123456789", 9) + "\n" // 91 bytes
	text := strings.Repeat(line, 200)              // 18,200 bytes, budget is 3,000
	got, isErr := h.call("file_operations", map[string]any{"operation": "echo", "text": text})
	if isErr {
		t.Fatalf("echo: %s", got)
	}
	if len(got) > 3000 {
		t.Errorf("cut result is %d bytes, want at most the 3000-byte budget", len(got))
	}
	// The notice with the id comes first and a summary last, where a client's own cut of a
	// long result (head, or head and tail) keeps them; the head and tail lines sit in between.
	notice, rest, _ := strings.Cut(got, "\n")
	m := regexp.MustCompile(`the read_tool_result tool pages the rest: \{"id":"(r[0-9a-f]{12})","offset":\d+\}\]$`).FindStringSubmatch(notice)
	if m == nil {
		t.Fatalf("the cut result does not start with a read_tool_result notice: %q", got)
	}
	id := m[1]
	body, summary, _ := strings.Cut(rest, "\n[end of a cut result: ")
	if !strings.Contains(summary, id) || !strings.HasPrefix(body, line) || !strings.HasSuffix(body, line+"||conv-default") {
		t.Errorf("cut result does not keep head and tail lines between the notice and a summary naming %s: %q", id, got)
	}
	// Page through the whole spilled text and compare.
	var all strings.Builder
	offset := 0
	for pages := 0; pages < 50; pages++ {
		page, isErr := h.call("read_tool_result", map[string]any{"id": id, "offset": offset, "length": 5000})
		if isErr {
			t.Fatalf("read_tool_result: %s", page)
		}
		head, body, _ := strings.Cut(page, "\n")
		all.WriteString(body)
		offset += len(body)
		if strings.HasSuffix(head, "; end]") {
			break
		}
	}
	if want := text + "||conv-default"; all.String() != want {
		t.Errorf("paged text is %d bytes, want the %d-byte original", all.Len(), len(want))
	}
}

func TestCancellation(t *testing.T) {
	h := newHarness(t, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.client.CallTool(ctx, &mcp.CallToolParams{Name: "file_operations", Arguments: map[string]any{"operation": "wait", "millis": 60000}})
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("cancelled call returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelled call did not return")
	}
	// The session is still usable.
	if got, isErr := h.call("think", map[string]any{"thoughts": "after"}); isErr {
		t.Fatalf("think after cancel: %s", got)
	}
}
