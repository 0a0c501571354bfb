package app

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"toolhost/authz"
	"toolhost/consolidated"
	"toolhost/internal/config"
	"toolhost/internal/gate"
	"toolhost/internal/sandbox"
)

// openGate builds the gate every process toolhost starts passes (internal/gate) from the
// [terminal] configuration and the paths this app owns: toolhost's state, config, switches,
// token, prompts and log are never writable; the state directory and the token file are
// unreadable too.
func (a *App) openGate() (*gate.Gate, error) {
	tc := a.Config.Terminal
	mode, err := sandbox.ParseMode(tc.Sandbox)
	if err != nil {
		return nil, err
	}
	home, _ := os.UserHomeDir()
	var writable []string
	for _, w := range tc.Writable {
		p, err := canonicalPath(w)
		if err != nil {
			return nil, fmt.Errorf("terminal.writable %s: %w", w, err)
		}
		writable = append(writable, p)
	}
	cfgFile := a.configFile()
	protected := []string{a.StateDir, cfgFile, a.SwitchesFile(), a.TokenFile(), a.PromptsDir}
	if a.Config.LogFile != "" {
		if p, err := canonicalPath(a.Config.LogFile); err == nil {
			protected = append(protected, p)
		}
	}
	// The state directory holds the token and the store; the config file may hold a token.
	hidden := []string{a.StateDir, a.TokenFile()}
	if strings.TrimSpace(a.Config.HTTP.Token) != "" {
		hidden = append(hidden, cfgFile)
	}
	g, err := gate.New(gate.Config{
		Mode: mode, AllowUnsandboxed: tc.AllowUnsandboxed,
		Workdir: a.Workdir, Writable: writable, Home: home,
		Protected: protected, Hidden: hidden,
		Rules: tc.Rules, Unmatched: tc.RulesUnmatched, DefaultRules: tc.UseDefaultRules(), Strict: tc.Policy == "strict",
		Withhold: a.withheldEnv(), PassEnv: tc.PassEnv,
		Guard: a.Guard,
		// The rules ask authz about the commands of the operations the table marks.
		Runner: consolidated.TerminalRunner(),
	})
	if err != nil {
		return nil, err
	}
	a.onClose(g.Close)
	return g, nil
}

// credentialFiles are the files holding this server's credentials: its HTTP token file, the
// operator token, and the configuration file when it holds a token.
func (a *App) credentialFiles() []string {
	files := []string{a.TokenFile(), a.OperatorTokenFile()}
	if strings.TrimSpace(a.Config.HTTP.Token) != "" {
		files = append(files, a.configFile())
	}
	return files
}

// configFile is the configuration file in use (the default path when none was named).
func (a *App) configFile() string {
	if a.Config.Path != "" {
		return a.Config.Path
	}
	return config.DefaultPath()
}

// withheldEnv names the variables kept out of every process toolhost starts besides every
// TOOLHOST_* one and those that look like credentials: every variable the configuration
// expands (a dsn's password included), every database's dsn_env, and the API key variable a
// remote embedder reads.
func (a *App) withheldEnv() []string {
	vars := []string{"TOOLHOST_TOKEN", "TOOLHOST_*"}
	add := func(name string) {
		if name != "" && !slices.Contains(vars, name) {
			vars = append(vars, name)
		}
	}
	for _, v := range a.Config.Variables {
		add(v)
	}
	for _, db := range a.Config.Databases {
		add(strings.TrimSpace(db.DSNEnv))
		for _, v := range config.Variables(db.DSN) {
			add(v)
		}
	}
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
		add(key)
	}
	return vars
}

// SandboxStatus says what the terminal sandbox enforces here, for the startup line and
// `toolhost doctor`.
func (a *App) SandboxStatus() sandbox.Status { return a.Gate.Status() }

// markServer marks this process as a toolhost server for the operator checks (child
// subreaper, not dumpable, named and recorded in the state directory; see authz) and logs
// what the terminal sandbox enforces. OpenEngines calls it for an app that serves a model
// (config.Config.Serve: stdio, serve); the record is removed when the app closes. The marking
// waits until the server has answered its first tools/list (which needs none of it) or a
// request needs it; every call waits for it, so no call starts a child before, and a failure
// is what Prepared returns: the server must stop.
func (a *App) markServer() {
	var release func()
	a.prepare(func() error {
		var err error
		if release, err = authz.MarkServer(a.StateDir, a.Logger); err != nil {
			return err
		}
		// Every process on the state directory protects this server's credential files,
		// whichever configuration named them.
		if err := authz.AnnounceCredentials(context.Background(), a.Store, a.credentialFiles()...); err != nil {
			a.Logger.Warn("the token files of this server are not announced to other processes", "err", err)
		}
		if err := authz.ScrubEnviron(a.Gate.WithheldHere()); err != nil {
			a.Logger.Warn("secret variables stay readable in /proc/PID/environ by root", "err", err)
		}
		return nil
	})
	a.onClose(func() error {
		if a.prepared(context.Background()); release != nil {
			release()
		}
		return nil
	})
	// The Landlock self-test behind the status line waits until the server has answered
	// its first tools/list (a command before that runs it at once).
	a.afterSettled(func(context.Context) {
		a.logTerminals()
		st := a.SandboxStatus()
		if st.Refusing || st.Mode != sandbox.ModeOff && st.Effective == sandbox.ModeOff {
			a.Logger.Warn(st.Summary())
		} else {
			a.Logger.Info(st.Summary())
		}
	})
}
