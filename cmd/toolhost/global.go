package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"toolhost/internal/app"
	"toolhost/internal/config"
)

// globalFlags are accepted by every command, before or after it; they override the config file.
type globalFlags struct {
	config, workdir, stateDir, profile, tools, disable, conversation, logFile, logLevel string
	readOnly                                                                            bool
	budget                                                                              int
	// sandbox overrides [terminal] sandbox.
	sandbox string
}

// define declares the global flags on fs. Each definition's default is the value parsed so far,
// so that a second flag set (the command's) keeps what the first one read.
func (g *globalFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&g.config, "config", g.config, "read the TOML config from `FILE` (default $XDG_CONFIG_HOME/toolhost/config.toml)")
	fs.StringVar(&g.workdir, "workdir", g.workdir, "let the guard allow the working directory `DIR` (default: the current directory)")
	fs.StringVar(&g.stateDir, "state-dir", g.stateDir, "keep state in `DIR` (default $XDG_STATE_HOME/toolhost)")
	fs.StringVar(&g.profile, "profile", g.profile, "use profile `NAME`: full, read-only, small, or one from the config")
	fs.BoolVar(&g.readOnly, "read-only", g.readOnly, "enable only operations that read")
	fs.StringVar(&g.tools, "tools", g.tools, "comma-separated `LIST` of tools (or tool.operation) to enable; others are off")
	fs.StringVar(&g.disable, "disable", g.disable, "comma-separated `LIST` of tools (or tool.operation) to disable")
	fs.StringVar(&g.conversation, "conversation", g.conversation, "scope calls without conversation_id to `ID` (default: derived from the working directory)")
	fs.IntVar(&g.budget, "budget-tokens", g.budget, "cap one result at about `N` tokens (default: the client's own, else 25000)")
	fs.StringVar(&g.logFile, "log-file", g.logFile, "log to `FILE` instead of stderr")
	fs.StringVar(&g.logLevel, "log-level", g.logLevel, "log at `LEVEL`: debug, info, warn or error (default info)")
	fs.StringVar(&g.sandbox, "sandbox", g.sandbox, "confine terminal commands in sandbox `MODE`: workspace-write (default), read-only or off")
}

// apply sets what the flags give on cfg.
func (g *globalFlags) apply(cfg *config.Config) {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&cfg.Workdir, g.workdir)
	set(&cfg.StateDir, g.stateDir)
	set(&cfg.Profile, g.profile)
	set(&cfg.Conversation, g.conversation)
	set(&cfg.LogFile, g.logFile)
	set(&cfg.LogLevel, g.logLevel)
	set(&cfg.Terminal.Sandbox, g.sandbox)
	if g.budget > 0 {
		cfg.BudgetTokens = g.budget
	}
	if g.readOnly || g.tools != "" || g.disable != "" {
		name, p, err := cfg.ActiveProfile()
		if err != nil {
			return // app.Open reports the unknown profile
		}
		p.ReadOnly = p.ReadOnly || g.readOnly
		if g.tools != "" {
			p.Tools = splitList(g.tools)
		}
		p.Disable = append(p.Disable, splitList(g.disable)...)
		if cfg.Profiles == nil {
			cfg.Profiles = map[string]config.Profile{}
		}
		cfg.Profiles[name] = p
		cfg.Profile = name
	}
}

// openApp loads the configuration, applies the global flags and then adjust, and opens the app
// with its logger. The returned function closes both.
func openApp(ctx context.Context, g *globalFlags, stderr io.Writer, adjust ...func(*config.Config)) (*app.App, func(), error) {
	path, explicit := g.config, g.config != ""
	if !explicit {
		path = config.DefaultPath()
	}
	cfg, err := config.Load(path, explicit)
	if err != nil {
		return nil, nil, err
	}
	g.apply(cfg)
	for _, f := range adjust {
		f(cfg)
	}
	logOut, closeLog := stderr, func() {}
	if cfg.LogFile != "" {
		lf, err := os.OpenFile(cfg.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("log file: %w", err)
		}
		logOut, closeLog = lf, func() { lf.Close() }
	}
	logger, err := app.NewLogger(logOut, cfg.LogLevel)
	if err != nil {
		closeLog()
		return nil, nil, err
	}
	a, err := app.Open(ctx, cfg, logger)
	if err != nil {
		closeLog()
		return nil, nil, err
	}
	return a, func() { a.Close(); closeLog() }, nil
}
