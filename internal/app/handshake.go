package app

import (
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/consolidated"
	"toolhost/internal/config"
	"toolhost/internal/server"
)

// Handshake is what a stdio server answers before Open has run (server.StartStdio): initialize,
// and the tools/list the stdio principal gets, built from the tools' tables alone. An editor
// waits for both before the model can do anything, and Open (the state, the guard, the
// engines) is most of a start: the front answers while Open runs on the other core. The
// front checks the server's own answers against these and logs a difference; a test holds
// the two together for the configurations that shape the list.
//
// Configuration errors that Open would report about the tool list (a misspelt tool in a
// profile, an unknown tier, an unreadable switches file) are reported here, before anything
// is answered.
func Handshake(cfg *config.Config) (*server.Handshake, error) {
	name, profile, err := cfg.ActiveProfile()
	if err != nil {
		return nil, err
	}
	principal, err := stdioPrincipal(cfg)
	if err != nil {
		return nil, err
	}
	switches, err := config.LoadSwitches(config.SwitchesPath(cfg.Path))
	if err != nil {
		return nil, err
	}
	if cfg.Workdir != "" {
		if _, err := canonicalDir(cfg.Workdir); err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
	}
	tools := declaredTools(cfg)
	if err := checkProfileNames(name, profile, cfg.Profiles, tools); err != nil {
		return nil, err
	}
	// The front builds the list once it has answered initialize, while the client reads the
	// answer (built on another goroutine from here, it measured no faster).
	list := sync.OnceValue(func() *mcp.ListToolsResult {
		reg := consolidated.NewRegistry(&consolidated.Env{}, tools, allowed(profile, switches))
		res := &mcp.ListToolsResult{Tools: reg.ToolsFor(principal.Tier)}
		res.CacheScope = "public" // what the go-sdk puts in an answer that sets none
		return res
	})
	return server.NewHandshake(server.Options{Name: Name, Version: Version, Instructions: instructions}, list), nil
}

// declaredTools are toolhost's tools with their tables and nothing behind them: what
// tools/list shows depends on the tables, the profile and the switches, never on an engine.
// Open builds the same tools with their engines; TestHandshakeAnswersAsTheServer holds the
// lists of the two together.
func declaredTools(cfg *config.Config) []*consolidated.Tool {
	return []*consolidated.Tool{
		consolidated.ThinkTool(),
		consolidated.UserCollaborationTool(consolidated.CollaborationConfig{}),
		consolidated.TodoTool(nil, nil),
		consolidated.MemoryTool(consolidated.MemoryConfig{}),
		consolidated.FileTool(consolidated.FileConfig{}),
		consolidated.TerminalTool(consolidated.TerminalConfig{}),
		consolidated.BuildTool(consolidated.BuildConfig{}),
		consolidated.WebTool(consolidated.WebConfig{SearchURL: cfg.Web.SearchURL}),
		consolidated.DatabaseTool(consolidated.DatabaseConfig{}),
		consolidated.ReadToolResultTool(),
	}
}
