package app

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/consolidated"
	"toolhost/internal/terminal"
)

// terminalShutdownWait bounds closing every session when the app closes.
const terminalShutdownWait = 15 * time.Second

// terminalWiring links terminalTool (which runs in Open, before the server exists) and
// terminalSetup (which runs when the server is built).
type terminalWiring struct {
	res *consolidated.TerminalResources
	mgr *terminal.Manager
}

// terminalTool builds terminal_operations: the engine from the [terminal] configuration and the
// store (session metadata and history tails survive a restart), with toolhost's own secrets
// scrubbed from every child's environment. The manager is shut down when the app closes.
func (a *App) terminalTool() (*consolidated.Tool, error) {
	tc := a.Config.Terminal
	tg, err := a.openTerminalGuard()
	if err != nil {
		return nil, err
	}
	a.termGuard = tg
	res := consolidated.NewTerminalResources()
	mgr, err := terminal.NewManager(terminal.Config{
		Shell:                      tc.Shell,
		MaxSessionsPerConversation: tc.MaxSessionsPerConversation,
		MaxSessions:                tc.MaxSessions,
		IdleTimeout:                tc.IdleTimeout.Duration,
		HistoryBytes:               tc.HistoryBytes,
		DefaultYield:               tc.Yield.Duration,
		DefaultTimeout:             tc.DefaultTimeout.Duration,
		MaxTimeout:                 tc.MaxTimeout.Duration,
		ScrubEnv:                   a.scrubEnv(),
		Store:                      a.Store,
		OnUpdate:                   res.Updated,
		Sandbox:                    tg.policy,
		Check:                      tg.check,
		Env:                        tg.env,
	})
	if err != nil {
		return nil, err
	}
	a.terminal = &terminalWiring{res: res, mgr: mgr}
	a.closers = append(a.closers, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), terminalShutdownWait)
		defer cancel()
		return mgr.Shutdown(ctx)
	})
	return consolidated.TerminalTool(consolidated.TerminalConfig{Manager: mgr, Guard: a.Guard, DefaultYield: tc.Yield.Duration, Sandbox: tg}), nil
}

// terminalSetup serves the sessions' screens and histories as resources of s and sends
// resource-updated notifications to s's subscribers. It does nothing when terminalTool was not
// called (terminal_operations disabled).
func (a *App) terminalSetup(s *mcp.Server) {
	if a.terminal != nil {
		a.terminal.res.Serve(s, a.terminal.mgr)
	}
}

// terminalSubscriptions returns the handlers for mcp.ServerOptions.SubscribeHandler and
// UnsubscribeHandler; without them the SDK refuses resources/subscribe. Both accept every URI.
func (a *App) terminalSubscriptions() (func(context.Context, *mcp.SubscribeRequest) error, func(context.Context, *mcp.UnsubscribeRequest) error) {
	if a.terminal == nil {
		return func(context.Context, *mcp.SubscribeRequest) error { return nil },
			func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
	}
	return a.terminal.res.Subscribe, a.terminal.res.Unsubscribe
}

// scrubEnv names the variables kept out of terminals: the HTTP token and every TOOLHOST_*
// variable (the engine drops those anyway), and the API key variable a remote embedder reads.
func (a *App) scrubEnv() []string {
	vars := []string{"TOOLHOST_TOKEN", "TOOLHOST_*"}
	spec := a.Config.Memory.Embedder
	if strings.HasPrefix(spec, "openai:") || strings.HasPrefix(spec, "ollama:") {
		key := ""
		for _, opt := range strings.Split(spec, ",")[1:] {
			if k, v, ok := strings.Cut(opt, "="); ok && strings.TrimSpace(k) == "key_env" {
				key = strings.TrimSpace(v)
			}
		}
		if key == "" && strings.HasPrefix(spec, "openai:") {
			key = "OPENAI_API_KEY"
		}
		if key != "" {
			vars = append(vars, key)
		}
	}
	return vars
}
