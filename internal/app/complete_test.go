package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/consolidated"
	"toolhost/reminders"
)

// TestCompletion asks completion/complete what a client's picker would: template variables
// (the caller's conversation, its session ids, paths toward and under the working directory)
// and prompt arguments that name paths. Nothing of another conversation is ever proposed.
func TestCompletion(t *testing.T) {
	a := testApp(t)
	cs := connect(t, a, nil, "")
	ctx := context.Background()
	conv := a.Env.DefaultConversation
	wd := strings.TrimPrefix(a.Workdir, "/") + "/"
	for _, p := range []string{"src/main.go", "src/maps/a.go", "README.md", ".env", ".git/config"} {
		full := filepath.Join(a.Workdir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// wx is a session of another chat (another MCP session, so another conversation).
	other := connect(t, a, nil, "")
	for _, s := range []struct {
		id string
		cs *mcp.ClientSession
	}{{"w", cs}, {"web", cs}, {"wx", other}} {
		if text, isErr := callText(t, s.cs, "terminal_operations", map[string]any{"operation": "create_session", "session_id": s.id}); isErr {
			t.Fatalf("create_session %s: %s", s.id, text)
		}
	}
	resource := func(uri string) *mcp.CompleteReference { return &mcp.CompleteReference{Type: "ref/resource", URI: uri} }
	prompt := func(name string) *mcp.CompleteReference {
		return &mcp.CompleteReference{Type: "ref/prompt", Name: name}
	}
	tests := []struct {
		name       string
		ref        *mcp.CompleteReference
		arg, value string
		chosen     map[string]string
		want       []string
	}{
		{"own conversation", resource(consolidated.TerminalScreenTemplate), "conversation", "", nil, []string{conv}},
		{"own conversation by prefix", resource(consolidated.TerminalScreenTemplate), "conversation", conv[:4], nil, []string{conv}},
		{"never another conversation", resource(consolidated.TerminalScreenTemplate), "conversation", "some", nil, nil},
		{"session ids of the caller", resource(consolidated.TerminalHistoryTemplate), "id", "w", nil, []string{"w", "web"}},
		{"session ids by prefix", resource(consolidated.TerminalScreenTemplate), "id", "we", map[string]string{"conversation": conv}, []string{"web"}},
		{"no session ids of another conversation", resource(consolidated.TerminalScreenTemplate), "id", "", map[string]string{"conversation": "someone-else"}, nil},
		{"todo list", resource(reminders.ResourceTemplate), "id", "", nil, []string{conv}},
		{"file path toward the working directory", resource(consolidated.FileTemplate), "path", wd[:3], nil, []string{wd}},
		{"file path inside", resource(consolidated.FileTemplate), "path", wd + "src/ma", nil, []string{wd + "src/main.go", wd + "src/maps/"}},
		{"hidden files once a dot is typed, .git never", resource(consolidated.FileTemplate), "path", wd + ".", nil, []string{wd + ".env"}},
		{"no escape upwards", resource(consolidated.FileTemplate), "path", wd + "../", nil, nil},
		{"nothing elsewhere", resource(consolidated.FileTemplate), "path", "etc/pa", nil, nil},
		{"prompt target", prompt("code_review"), "target", "", nil, []string{"README.md", "src/"}},
		{"prompt target inside", prompt("write_tests"), "target", "src/", nil, []string{"src/main.go", "src/maps/"}},
		{"prompt argument that names no path", prompt("fix_error"), "error", "x", nil, nil},
		{"unknown template", resource("toolhost://nope/{x}"), "x", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &mcp.CompleteParams{Ref: tt.ref, Argument: mcp.CompleteParamsArgument{Name: tt.arg, Value: tt.value}}
			if tt.chosen != nil {
				p.Context = &mcp.CompleteContext{Arguments: tt.chosen}
			}
			res, err := cs.Complete(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			got := slices.Sorted(slices.Values(res.Completion.Values))
			if !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("complete %s %s=%q = %v, want %v", tt.ref.URI+tt.ref.Name, tt.arg, tt.value, got, tt.want)
			}
		})
	}
}
