package app

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/config"
	"toolhost/internal/server"
)

// declaredConfig is a configuration on fresh directories.
func declaredConfig(t *testing.T) *config.Config {
	dir := t.TempDir()
	return &config.Config{Path: filepath.Join(dir, "config.toml"), Workdir: t.TempDir(), StateDir: t.TempDir(), PromptsDir: filepath.Join(dir, "prompts")}
}

// listBytes is the tool list a client reads, as JSON.
func listBytes(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDeclaredServerAnswersFromTheTables: the server of a declared app answers initialize and
// tools/list before any engine is open, and once OpenEngines has bound them the list is the
// same bytes and calls work. Each case is a configuration that shapes the list (profiles,
// their tool and disable lists, the console's switches, web_search, the stdio tier), so the
// declared tables are held to the engines' (Bind refuses tables that differ).
func TestDeclaredServerAnswersFromTheTables(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(t *testing.T, cfg *config.Config)
		want     []string // tools and operations the list shows
		wantNone []string // tools or operations it must not show
	}{
		{"defaults", nil, []string{"think", "terminal_operations", "database_operations"}, []string{"web_search"}},
		{"read-only profile", func(t *testing.T, cfg *config.Config) { cfg.Profile = "read-only" },
			[]string{"file_operations"}, []string{"create_file", "run_command"}},
		{"profile with a tool list and a disable list", func(t *testing.T, cfg *config.Config) {
			cfg.Profiles = map[string]config.Profile{"mine": {Tools: []string{"think", "file_operations", "web_operations"}, Disable: []string{"web_operations.download"}}}
			cfg.Profile = "mine"
		}, []string{"think", "file_operations", "fetch_page"}, []string{"todo_operations", "download"}},
		{"console switches", func(t *testing.T, cfg *config.Config) {
			if err := (config.Switches{Disable: []string{"terminal_operations", "file_operations.delete_file"}}).Write(config.SwitchesPath(cfg.Path)); err != nil {
				t.Fatal(err)
			}
		}, []string{"file_operations"}, []string{"terminal_operations", "delete_file"}},
		{"web search", func(t *testing.T, cfg *config.Config) { cfg.Web.SearchURL = "http://127.0.0.1:8888/search" },
			[]string{"web_search"}, nil},
		{"execute-basic stdio tier", func(t *testing.T, cfg *config.Config) { cfg.Stdio.Tier = "execute_basic" },
			[]string{"file_operations", "query"}, []string{"create_file", "run_command"}},
		{"view-only stdio tier", func(t *testing.T, cfg *config.Config) { cfg.Stdio.Tier = "view_only" },
			nil, []string{"think"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := declaredConfig(t)
			if tt.edit != nil {
				tt.edit(t, cfg)
			}
			a, err := Declare(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			cs := connect(t, a, nil, "2025-06-18")
			before := listBytes(t, cs)
			for _, w := range tt.want {
				if !strings.Contains(before, `"`+w) {
					t.Errorf("the declared list lacks %s: %s", w, before)
				}
			}
			for _, w := range tt.wantNone {
				if strings.Contains(before, `"`+w+`"`) {
					t.Errorf("the declared list shows %s", w)
				}
			}
			if err := a.OpenEngines(context.Background()); err != nil {
				t.Fatal(err)
			}
			if after := listBytes(t, cs); after != before {
				t.Errorf("tools/list once the engines are bound:\n%s\nbefore:\n%s", after, before)
			}
			if strings.Contains(before, `"think"`) {
				if text, isErr := callText(t, cs, "think", map[string]any{"thoughts": "plan"}); isErr || !strings.HasPrefix(text, "Thought recorded") {
					t.Errorf("think once bound = %q (error %v)", text, isErr)
				}
			}
		})
	}
}

// TestCallsWaitForTheEngines: a call that comes before the engines are open waits for them,
// and is answered once they are; a waiting request whose context ends stops waiting.
func TestCallsWaitForTheEngines(t *testing.T) {
	a, err := Declare(declaredConfig(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	cs := connect(t, a, nil, "")
	type answer struct {
		text  string
		isErr bool
	}
	answered := make(chan answer, 1)
	go func() {
		text, isErr := callText(t, cs, "think", map[string]any{"thoughts": "early"})
		answered <- answer{text, isErr}
	}()
	select {
	case got := <-answered:
		t.Fatalf("a call was answered before the engines were open: %+v", got)
	case <-time.After(100 * time.Millisecond):
	}
	select {
	case <-a.Needed():
	default:
		t.Error("a waiting call did not say the engines are needed")
	}
	if err := a.OpenEngines(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-answered:
		if got.isErr || !strings.HasPrefix(got.text, "Thought recorded") {
			t.Errorf("the waiting call = %+v, want think's answer", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting call was not answered once the engines were open")
	}

	t.Run("cancelled while waiting", func(t *testing.T) {
		a, err := Declare(declaredConfig(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		reached := false
		handler := a.prepareMiddleware()(func(context.Context, string, mcp.Request) (mcp.Result, error) {
			reached = true
			return nil, nil
		})
		if _, err := handler(ctx, "tools/call", &mcp.CallToolRequest{}); err != context.Canceled || reached {
			t.Errorf("a cancelled call waiting for the engines = %v (handler reached %v), want context.Canceled", err, reached)
		}
	})
}

// TestFailedOpenAnswersEveryCall: when the engines cannot open, every request that waits for
// them, and every later one, is answered with why; what the tables answer still is.
func TestFailedOpenAnswersEveryCall(t *testing.T) {
	cfg := declaredConfig(t)
	cfg.Memory.Embedder = "no-such-embedder"
	a, err := Declare(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	cs := connect(t, a, nil, "")
	waiting := make(chan string, 1)
	go func() {
		text, _ := callText(t, cs, "think", map[string]any{"thoughts": "early"})
		waiting <- text
	}()
	<-a.Needed()
	if err := a.OpenEngines(context.Background()); err == nil || !strings.Contains(err.Error(), "memory.embedder") {
		t.Fatalf("OpenEngines = %v, want the embedder's error", err)
	}
	later, _ := callText(t, cs, "file_operations", map[string]any{"operation": "list_dir", "path": "."})
	for _, got := range []string{<-waiting, later} {
		if !strings.Contains(got, "error unavailable: toolhost could not start") || !strings.Contains(got, "memory.embedder") {
			t.Errorf("a call after the failed open = %q, want why toolhost did not start", got)
		}
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "toolhost://workdir"}); err == nil || !strings.Contains(err.Error(), "memory.embedder") {
		t.Errorf("resources/read after the failed open = %v, want why toolhost did not start", err)
	}
	if !strings.Contains(listBytes(t, cs), `"think"`) {
		t.Error("tools/list is not answered after the failed open")
	}
}

// TestDeclareRefusesConfiguration: a configuration that Open refuses because of the tool list or
// the working directory is refused by Declare, before a server answers anything, with the same
// message.
func TestDeclareRefusesConfiguration(t *testing.T) {
	for _, tt := range []struct {
		name string
		edit func(cfg *config.Config)
	}{
		{"misspelt tool in the profile", func(cfg *config.Config) {
			cfg.Profiles = map[string]config.Profile{"p": {Tools: []string{"file_operation"}}}
			cfg.Profile = "p"
		}},
		{"unknown profile", func(cfg *config.Config) { cfg.Profile = "nope" }},
		{"missing working directory", func(cfg *config.Config) { cfg.Workdir = filepath.Join(cfg.Workdir, "gone") }},
		{"unreadable switches", func(cfg *config.Config) {
			os.WriteFile(config.SwitchesPath(cfg.Path), []byte("disable = 3\n"), 0o600)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := declaredConfig(t)
			tt.edit(cfg)
			_, derr := Declare(cfg, nil)
			a, oerr := Open(context.Background(), cfg, nil)
			if oerr == nil {
				a.Close()
			}
			if derr == nil || oerr == nil || derr.Error() != oerr.Error() {
				t.Errorf("Declare = %v, Open = %v; want both to refuse alike", derr, oerr)
			}
		})
	}
}

// TestSettlesOnceTheListIsWritten: over stdio the start-up work waits until the answer to the
// first tools/list is written, not only computed (SettleOnWrite): while the client has not
// read the answer (the pipe holds the write), the app has not settled.
func TestSettlesOnceTheListIsWritten(t *testing.T) {
	cfg := declaredConfig(t)
	cfg.Serve = true // settled by the first tools/list; OpenEngines is not called
	a, err := Declare(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- server.ServeStdio(ctx, a.Server(), inR, a.SettleOnWrite(outW), nil) }()
	defer func() { inW.Close(); outR.Close(); cancel(); <-served }()
	out := bufio.NewReader(outR)
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	if l, err := out.ReadString('\n'); err != nil || !strings.Contains(l, `"id":1,"result"`) {
		t.Fatalf("answer to initialize = %.80s, %v", l, err)
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	select {
	case <-a.Settled():
		t.Fatal("settled before the answer to tools/list was written")
	case <-time.After(100 * time.Millisecond):
	}
	if l, err := out.ReadString('\n'); err != nil || !strings.Contains(l, `"id":2,"result":{`) {
		t.Fatalf("answer to tools/list = %.80s, %v", l, err)
	}
	select {
	case <-a.Settled():
	case <-time.After(10 * time.Second):
		t.Fatal("not settled once the answer to tools/list was written")
	}
}
