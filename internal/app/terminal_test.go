package app

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/consolidated"
	"toolhost/internal/config"
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
			if diff := cmp.Diff(tc.want, a.scrubEnv()); diff != "" {
				t.Errorf("scrubEnv() for %q (-want +got):\n%s", tc.embedder, diff)
			}
		})
	}
}

// TestTerminalWiring builds terminal_operations the way Open will and checks that the token
// never reaches a child, that the resources attach to a server, and that Close ends sessions.
func TestTerminalWiring(t *testing.T) {
	t.Setenv("TOOLHOST_TOKEN", "th_secret_for_test")
	a := testApp(t)
	tool, err := a.terminalTool()
	if err != nil {
		t.Fatal(err)
	}
	reg := consolidated.NewRegistry(a.Env, []*consolidated.Tool{tool}, nil)
	ctx := context.Background()
	res := reg.Dispatch(ctx, "terminal_operations", []byte(`{"operation":"run_command","command":"echo token=${TOOLHOST_TOKEN:-none}"}`), nil)
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError || !strings.Contains(text, "token=none") {
		t.Errorf("run_command echo $TOOLHOST_TOKEN = %q (isError %v), want token=none", text, res.IsError)
	}
	sub, unsub := a.terminalSubscriptions()
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{SubscribeHandler: sub, UnsubscribeHandler: unsub})
	a.terminalSetup(s)
	res = reg.Dispatch(ctx, "terminal_operations", []byte(`{"operation":"create_session","session_id":"w"}`), nil)
	if res.IsError {
		t.Fatalf("create_session: %v", res.Content[0].(*mcp.TextContent).Text)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	res = reg.Dispatch(ctx, "terminal_operations", []byte(`{"operation":"list_sessions"}`), nil)
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "w session closed") && !strings.Contains(text, "w session ended") {
		t.Errorf("list_sessions after Close = %q, want w closed or ended", text)
	}
}
