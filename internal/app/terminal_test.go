package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/consolidated"
	"toolhost/internal/config"
	"toolhost/internal/todo"
	"toolhost/reminders"
)

func TestTerminalScrubEnv(t *testing.T) {
	base := []string{"TOOLHOST_TOKEN", "TOOLHOST_*"}
	cases := []struct {
		name     string
		embedder string
		want     []string
	}{
		{"builtin", "", base},
		{"openai default key", "openai:text-embedding-3-small", append(base, "OPENAI_API_KEY")},
		{"openai key_env", "openai:e5@http://127.0.0.1:8080/v1,key_env=LOCAL_KEY,dim=1024", append(base, "LOCAL_KEY")},
		{"ollama without key", "ollama:nomic-embed-text", base},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := &App{Config: &config.Config{Memory: config.Memory{Embedder: tc.embedder}}}
			if diff := cmp.Diff(tc.want, a.withheldEnv()); diff != "" {
				t.Errorf("withheldEnv() for %q (-want +got):\n%s", tc.embedder, diff)
			}
		})
	}
}

// TestTerminalWiring builds the app as the binary does and checks that the token never reaches a
// child, that the terminal resources are served and accept subscriptions, and that Close ends
// sessions.
func TestTerminalWiring(t *testing.T) {
	t.Setenv("TOOLHOST_TOKEN", "th_secret_for_test")
	a := testApp(t)
	ctx := context.Background()
	res := a.Registry.Dispatch(ctx, "terminal_operations", []byte(`{"operation":"run_command","command":"echo token=${TOOLHOST_TOKEN:-none}"}`), nil)
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.Contains(text, "token=none") {
		t.Errorf("run_command echo $TOOLHOST_TOKEN = %q (isError %v), want token=none", text, res.IsError)
	}
	cs := connect(t, a, nil, "")
	if got, want := templateNames(t, cs), []string{"commands", "file", "log", "terminal-history", "terminal-screen", "todos"}; !slices.Equal(got, want) {
		t.Errorf("resource templates = %v, want %v", got, want)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: consolidated.TerminalURI(a.Env.DefaultConversation, "w", "screen")}); err != nil {
		t.Errorf("subscribe to a terminal screen: %v", err)
	}
	if text, isErr := callText(t, cs, "terminal_operations", map[string]any{"operation": "create_session", "session_id": "w"}); isErr {
		t.Fatalf("create_session: %s", text)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	res = a.Registry.Dispatch(ctx, "terminal_operations", []byte(`{"operation":"list_sessions"}`), nil)
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "w session closed") && !strings.Contains(text, "w session ended") {
		t.Errorf("list_sessions after Close = %q, want w closed or ended", text)
	}
}

// TestDisabledToolDropsItsParts: a profile that disables a tool drops its resources and its
// after-call hook with it.
func TestDisabledToolDropsItsParts(t *testing.T) {
	a := testAppWith(t, func(cfg *config.Config) {
		cfg.Profiles = map[string]config.Profile{"lean": {Disable: []string{"terminal_operations", "todo_operations"}}}
		cfg.Profile = "lean"
	})
	ctx := context.Background()
	// A plan exists (another process wrote it), so a reminder would be due on the first call.
	if _, err := todo.Write(ctx, a.Store, a.Env.DefaultConversation, []todo.Todo{{ID: 1, Title: "Ship it", Status: todo.StatusInProgress}}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, a, nil, "")
	if got := templateNames(t, cs); !slices.Equal(got, []string{"file", "log"}) {
		t.Errorf("resource templates with terminal and todo disabled = %v, want file_operations' and the call log", got)
	}
	for i := range reminders.DefaultEveryNCalls + 2 {
		got, _ := contents(t, cs, "think", map[string]any{"thoughts": "work"})
		if len(got) != 1 {
			t.Fatalf("call %d with todo_operations disabled carries %d blocks (%q), want no reminder", i, len(got), got)
		}
	}
}

// templateNames lists the resource templates a client sees, sorted.
func templateNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	if cs.InitializeResult().Capabilities.Resources == nil {
		return nil
	}
	res, err := cs.ListResourceTemplates(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, rt := range res.ResourceTemplates {
		names = append(names, rt.Name)
	}
	slices.Sort(names)
	return names
}
