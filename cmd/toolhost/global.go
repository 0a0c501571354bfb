package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"log/slog"
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
	fs.StringVar(&g.config, "config", g.config, "read the TOML config from `FILE` (default $XDG_CONFIG_HOME/toolhost/config.toml, as your shell sets it)")
	fs.StringVar(&g.workdir, "workdir", g.workdir, "let the guard allow the working directory `DIR` (default: the current directory)")
	fs.StringVar(&g.stateDir, "state-dir", g.stateDir, "keep state in `DIR` (default $XDG_STATE_HOME/toolhost, as your shell sets it)")
	fs.StringVar(&g.profile, "profile", g.profile, "use profile `NAME`: full, read-only, small, or one from the config")
	fs.BoolVar(&g.readOnly, "read-only", g.readOnly, "enable only operations that read")
	fs.StringVar(&g.tools, "tools", g.tools, "comma-separated `LIST` of tools (or tool.operation) to enable; others are off")
	fs.StringVar(&g.disable, "disable", g.disable, "comma-separated `LIST` of tools (or tool.operation) to disable")
	fs.StringVar(&g.conversation, "conversation", g.conversation, "pin every session to conversation `ID` (default: each session leases its own; toolhost call uses the working directory's first)")
	fs.IntVar(&g.budget, "budget-tokens", g.budget, "cap one result at about `N` tokens (default: the client's own, else 25000)")
	fs.StringVar(&g.logFile, "log-file", g.logFile, "log to `FILE` instead of stderr")
	fs.StringVar(&g.logLevel, "log-level", g.logLevel, "log at `LEVEL`: debug, info, warn or error (default info)")
	fs.StringVar(&g.sandbox, "sandbox", g.sandbox, "confine terminal commands, and git with its hooks, in sandbox `MODE`: workspace-write (default), read-only or off")
}

// apply sets what the flags give on cfg, recording each as the value's origin.
func (g *globalFlags) apply(cfg *config.Config) {
	set := func(dst *string, v, key, flag string) {
		if v != "" {
			*dst = v
			cfg.SetOrigin(key, config.Origin{Flag: flag})
		}
	}
	set(&cfg.Workdir, g.workdir, "workdir", "--workdir")
	set(&cfg.StateDir, g.stateDir, "state_dir", "--state-dir")
	set(&cfg.Profile, g.profile, "profile", "--profile")
	set(&cfg.Conversation, g.conversation, "conversation", "--conversation")
	set(&cfg.LogFile, g.logFile, "log_file", "--log-file")
	set(&cfg.LogLevel, g.logLevel, "log_level", "--log-level")
	set(&cfg.Terminal.Sandbox, g.sandbox, "terminal.sandbox", "--sandbox")
	if g.budget > 0 {
		cfg.BudgetTokens = g.budget
		cfg.SetOrigin("budget_tokens", config.Origin{Flag: "--budget-tokens"})
	}
	if g.readOnly || g.tools != "" || g.disable != "" {
		name, p, err := cfg.ActiveProfile()
		if err != nil {
			return // app.Open reports the unknown profile
		}
		key := "profiles." + name + "."
		if g.readOnly {
			p.ReadOnly = true
			cfg.SetOrigin(key+"read_only", config.Origin{Flag: "--read-only"})
		}
		if g.tools != "" {
			p.Tools = splitList(g.tools)
			cfg.SetOrigin(key+"tools", config.Origin{Flag: "--tools"})
		}
		if g.disable != "" {
			p.Disable = append(p.Disable, splitList(g.disable)...)
			cfg.SetOrigin(key+"disable", config.Origin{Flag: "--disable"})
		}
		if cfg.Profiles == nil {
			cfg.Profiles = map[string]config.Profile{}
		}
		cfg.Profiles[name] = p
		cfg.Profile = name
	}
}

// loadConfig builds the effective configuration: the user's file, then the project file
// (.toolhost.toml in the working directory, which may only narrow), then the flags.
func loadConfig(g *globalFlags) (*config.Config, error) {
	path, explicit := g.config, g.config != ""
	if !explicit {
		path = config.DefaultPath()
	}
	cfg, err := config.Load(path, explicit)
	if err != nil {
		return nil, err
	}
	// The working directory is never a project key, so the flag or the user's file decides
	// where the project file is.
	wd := cmp.Or(g.workdir, cfg.Workdir)
	if wd == "" {
		if wd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
	}
	if err := cfg.MergeProject(wd); err != nil {
		return nil, err
	}
	g.apply(cfg)
	return cfg, nil
}

// loadSetup loads the configuration, applies the global flags and then adjust, and opens the
// log it names. The returned function closes the log.
func loadSetup(g *globalFlags, stderr io.Writer, adjust ...func(*config.Config)) (*config.Config, *slog.Logger, func(), error) {
	cfg, err := loadConfig(g)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, f := range adjust {
		f(cfg)
	}
	logOut, closeLog := stderr, func() {}
	if cfg.LogFile != "" {
		lf, err := os.OpenFile(cfg.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("log file: %w", err)
		}
		logOut, closeLog = lf, func() { lf.Close() }
	}
	logger, err := app.NewLogger(logOut, cfg.LogLevel)
	if err != nil {
		closeLog()
		return nil, nil, nil, err
	}
	return cfg, logger, closeLog, nil
}
