package app

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolhost/internal/config"
	"toolhost/internal/server"
	"toolhost/internal/server/stdiotest"
)

// TestHandshakeAnswersAsTheServer runs stdio sessions as serveStdio does: the front answers
// initialize and tools/list from Handshake before the app opens, then serves the app's server,
// which answers both again; the front compares every byte and logs a difference. Each case is
// a configuration that shapes the list (profiles, their tool and disable lists, the console's
// switches, web_search, the stdio tier), so the declared tables are held to the engines' ones.
func TestHandshakeAnswersAsTheServer(t *testing.T) {
	tests := []struct {
		name     string
		edit     func(t *testing.T, cfg *config.Config)
		want     []string // tools the list shows
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
			[]string{"tools\":[]"}, []string{"think"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := &config.Config{Path: filepath.Join(dir, "config.toml"), Workdir: t.TempDir(), StateDir: t.TempDir(),
				PromptsDir: filepath.Join(dir, "prompts"), Serve: true}
			if tt.edit != nil {
				tt.edit(t, cfg)
			}
			hs, err := Handshake(cfg)
			if err != nil {
				t.Fatal(err)
			}
			log := &stdiotest.Log{}
			logger := slog.New(slog.NewTextHandler(log, nil))
			c := stdiotest.New(t)
			front := server.StartStdio(c.ServerIn, c.ServerOut, logger, hs)
			c.Send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			if l := c.Recv(20 * time.Second); !strings.Contains(l, `"id":1,"result"`) {
				t.Fatalf("initialize answered %s", l)
			}
			c.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			c.Send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			list := c.Recv(20 * time.Second)
			for _, w := range tt.want {
				if !strings.Contains(list, `"`+w) {
					t.Errorf("early list lacks %s: %s", w, list)
				}
			}
			for _, w := range tt.wantNone {
				if strings.Contains(list, `"`+w+`"`) {
					t.Errorf("early list shows %s", w)
				}
			}

			a, err := Open(context.Background(), cfg, logger)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- front.Serve(ctx, a.Server()) }()
			defer func() { c.CloseInput(); cancel(); <-served; a.Close() }()
			select {
			case <-front.EarlyChecked():
			case <-time.After(20 * time.Second):
				t.Fatal("the server did not answer the handshake within 20s")
			}
			if l := log.String(); strings.Contains(l, "differed") {
				t.Errorf("the server's answers differ from the handshake's:\n%s", l)
			}
		})
	}
}

// TestHandshakeRefusesWhatOpenRefuses: a configuration Open would refuse because of the tool
// list stops the start before anything is answered, with the same message.
func TestHandshakeRefusesWhatOpenRefuses(t *testing.T) {
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
			dir := t.TempDir()
			cfg := &config.Config{Path: filepath.Join(dir, "config.toml"), Workdir: t.TempDir(), StateDir: t.TempDir(), PromptsDir: filepath.Join(dir, "prompts")}
			tt.edit(cfg)
			_, herr := Handshake(cfg)
			a, oerr := Open(context.Background(), cfg, nil)
			if oerr == nil {
				a.Close()
			}
			if herr == nil || oerr == nil {
				t.Fatalf("Handshake = %v, Open = %v; want both to refuse", herr, oerr)
			}
			if !strings.Contains(oerr.Error(), strings.TrimPrefix(herr.Error(), "working directory: ")) {
				t.Errorf("Handshake says %q, Open %q", herr, oerr)
			}
		})
	}
}
