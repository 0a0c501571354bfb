package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/consolidated"
	clientconfig "toolhost/internal/connect"
	"toolhost/internal/server"
)

// clientCommands connect MCP clients to toolhost.
var clientCommands = group{title: "Clients", commands: []cliCommand{
	{
		name: "connect", args: "CLIENT", minArgs: 1, maxArgs: 1, operator: true,
		help: "write toolhost's entry into CLIENT's own MCP config (" + clientNames() + ")",
		flags: func(fs *flag.FlagSet) action {
			http := fs.Bool("http", false, "connect over HTTP to toolhost serve, with a new client token (default: the client starts toolhost stdio)")
			print := fs.Bool("print", false, "show the entry and where it goes; change nothing")
			remove := fs.Bool("remove", false, "take toolhost's entry out again")
			file := fs.String("file", "", "the client's config `FILE` (default: where the client reads it)")
			name := fs.String("name", "toolhost", "the entry's `NAME` in the client's config")
			url := fs.String("url", "", "serve's MCP `URL` for --http (default http://[http] addr/mcp)")
			tier := fs.String("tier", "admin", "the new token's `TIER` for --http: view_only, execute_basic, execute_advanced or admin")
			return func(inv *invocation) error {
				return runConnect(inv, connectOptions{http: *http, print: *print, remove: *remove, file: *file, name: *name, url: *url, tier: *tier})
			}
		},
	},
}}

func clientNames() string {
	names := make([]string, len(clientconfig.Clients))
	for i, c := range clientconfig.Clients {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

type connectOptions struct {
	http, print, remove   bool
	file, name, url, tier string
}

func runConnect(inv *invocation, o connectOptions) error {
	c, err := clientconfig.Lookup(inv.args[0])
	if err != nil {
		return err
	}
	path := o.file
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("connect: no home directory to find %s's config in: %w; pass --file", c.Title, err)
		}
		cfgDir := os.Getenv("XDG_CONFIG_HOME")
		if cfgDir == "" {
			cfgDir = filepath.Join(home, ".config")
		}
		path = c.DefaultPath(home, cfgDir, os.Getenv)
	}
	if o.remove {
		if o.print {
			fmt.Fprintf(inv.stdout, "would take %q out of %s\n", o.name, path)
			return nil
		}
		res, err := c.Write(path, o.name, nil)
		if err != nil {
			return err
		}
		report(inv, res, fmt.Sprintf("took %q out of %s", o.name, path), fmt.Sprintf("%s has no %q: nothing to take out", path, o.name))
		return nil
	}
	e, err := stdioEntry(inv)
	if err != nil {
		return err
	}
	if o.http {
		if e, err = httpEntry(inv, c, path, o); err != nil {
			return err
		}
	}
	if o.print {
		text, err := c.Apply(nil, o.name, &e)
		if err != nil {
			return err
		}
		fmt.Fprintf(inv.stdout, "# %s (%s)\n%s", path, c.Title, text)
		fmt.Fprintln(inv.stdout, budgetLine(inv, c))
		return nil
	}
	res, err := c.Write(path, o.name, &e)
	if err != nil {
		return err
	}
	how := "starts toolhost stdio"
	if e.HTTP() {
		how = "reaches " + e.URL
	}
	report(inv, res, fmt.Sprintf("%s %s now: entry %q in %s", c.Title, how, o.name, path),
		fmt.Sprintf("%s already has this entry %q: nothing changed", path, o.name))
	if c.Note != "" && res.Changed {
		fmt.Fprintf(inv.stdout, "(%s)\n", c.Note)
	}
	fmt.Fprintln(inv.stdout, budgetLine(inv, c))
	return nil
}

// budgetLine says how large toolhost keeps a result for the client: consolidated.ResultBudget,
// the one decision the server makes, for the configuration and the client's clientInfo name.
func budgetLine(inv *invocation, c clientconfig.Client) string {
	cfg, _, err := inv.setup()
	if err != nil {
		return ""
	}
	tokens := cfg.BudgetTokens
	var info *mcp.Implementation
	if c.ClientInfo != "" {
		info = &mcp.Implementation{Name: c.ClientInfo}
	}
	b := consolidated.ResultBudget(tokens, consolidated.OutputLimits{MaxResultChars: cfg.Output.MaxResultChars, MaxResultLines: cfg.Output.MaxResultLines}, info)
	what := fmt.Sprintf("%d bytes", b.Bytes)
	if b.JSON {
		what = fmt.Sprintf("%d characters of JSON", b.Bytes)
	}
	if b.Lines > 0 {
		what += fmt.Sprintf(" and %d lines", b.Lines)
	}
	why := "toolhost's default budget"
	switch l, ok := consolidated.LimitFor(info); {
	case cfg.Output.MaxResultChars > 0 || cfg.Output.MaxResultLines > 0:
		why = "your [output] limits"
	case ok:
		why = fmt.Sprintf("%s's own limit: %s", c.Title, l.Cut)
	}
	return fmt.Sprintf("results for %s: at most %s (%s)", c.Title, what, why)
}

func report(inv *invocation, res clientconfig.Result, changed, same string) {
	switch {
	case !res.Changed:
		fmt.Fprintln(inv.stdout, same)
	case res.Backup != "":
		fmt.Fprintf(inv.stdout, "%s (the file as it was: %s)\n", changed, res.Backup)
	default:
		fmt.Fprintln(inv.stdout, changed)
	}
}

// stdioEntry starts this toolhost binary's stdio server, with the global flags the user gave
// (a working directory, a state directory, a config or a profile), made absolute.
func stdioEntry(inv *invocation) (clientconfig.Entry, error) {
	exe, err := os.Executable()
	if err != nil {
		return clientconfig.Entry{}, fmt.Errorf("connect: where is this toolhost binary? %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	args := []string{"stdio"}
	g := inv.global
	for _, f := range []struct {
		flag, value string
		path        bool
	}{{"--workdir", g.workdir, true}, {"--state-dir", g.stateDir, true}, {"--config", g.config, true}, {"--profile", g.profile, false}} {
		if f.value == "" {
			continue
		}
		v := f.value
		if f.path {
			if v, err = filepath.Abs(v); err != nil {
				return clientconfig.Entry{}, err
			}
		}
		args = append(args, f.flag, v)
	}
	return clientconfig.Entry{Command: exe, Args: args}, nil
}

// httpEntry reaches serve at its URL with a client token: the one the entry already holds
// while it is valid (a second run changes nothing), else a new token named connect-CLIENT.
func httpEntry(inv *invocation, c clientconfig.Client, path string, o connectOptions) (clientconfig.Entry, error) {
	cfg, _, err := inv.setup()
	if err != nil {
		return clientconfig.Entry{}, err
	}
	url := o.url
	if url == "" {
		addr := cfg.HTTP.Addr
		if addr == "" {
			addr = server.DefaultAddr
		}
		url = "http://" + addr + "/mcp"
	}
	if o.print {
		return clientconfig.Entry{URL: url, Token: "TOKEN"}, nil // a new one is made when the entry is written
	}
	tier, err := authz.ParseTier(o.tier)
	if err != nil {
		return clientconfig.Entry{}, fmt.Errorf("--tier: %w", err)
	}
	a, err := operatorApp(inv)
	if err != nil {
		return clientconfig.Entry{}, err
	}
	if old, err := os.ReadFile(path); err == nil {
		cur, err := c.Current(old, o.name)
		var se *clientconfig.SyntaxError
		if errors.As(err, &se) {
			se.File = path
			return clientconfig.Entry{}, err
		}
		if tok := clientconfig.Token(cur); tok != "" {
			if p, err := a.Tokens.Resolve(inv.ctx, tok); err == nil && p.Tier == tier {
				return clientconfig.Entry{URL: url, Token: tok}, nil
			}
		}
	}
	name := "connect-" + c.Name
	secret, _, err := a.Tokens.Create(inv.ctx, name, tier, "")
	if errors.Is(err, authz.ErrTokenExists) {
		// The entry that held it is gone or changed: replace the token.
		if err := a.Tokens.Revoke(inv.ctx, name); err != nil {
			return clientconfig.Entry{}, err
		}
		secret, _, err = a.Tokens.Create(inv.ctx, name, tier, "")
	}
	if err != nil {
		return clientconfig.Entry{}, err
	}
	fmt.Fprintf(inv.stderr, "made client token %s (tier %s) for %s; `toolhost token revoke %s` ends it\n", name, tier, c.Title, name)
	return clientconfig.Entry{URL: url, Token: secret}, nil
}
