// Command toolhost serves toolhost's consolidated MCP tools over stdio or streamable HTTP, and
// offers a few commands for people: listing the tools, calling one, and answering approvals.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"time"

	"toolhost/authz"
	"toolhost/consolidated"
	"toolhost/internal/app"
	"toolhost/internal/config"
	"toolhost/internal/server"
)

const usage = `toolhost — a small, stable set of MCP tools for coding agents: files, terminals,
todos, memory and more, behind a working-directory guard.

Usage:
  toolhost [flags] COMMAND [command flags]

Commands:
  stdio                 serve MCP over stdin/stdout (what editors and agent CLIs spawn)
  serve                 serve MCP over streamable HTTP at http://ADDR/mcp (loopback, bearer token)
  tools [--json]        print the tools this configuration advertises, in order, with token estimates
  call TOOL 'JSON'      run one tool call in-process and print the result
  approvals             list pending authorization requests
  approve ID [--for 10m] [--once]
                        approve a model's authorization request (creates a time-limited grant)
  deny ID               deny an authorization request
  grants                list active grants
  revoke ID             revoke a grant
  rules test 'CMD'      print the verdict of the terminal command rules on a shell line
  rules list            print the command rules in the order they apply
  doctor                print what the terminal sandbox and the operator checks enforce here
  memory reembed        re-embed stored memories after changing [memory] embedder
  version               print the version

Flags (also accepted after the command; they override the config file):
  --config FILE         TOML config (default: $XDG_CONFIG_HOME/toolhost/config.toml)
  --workdir DIR         working directory the guard allows (default: current directory)
  --state-dir DIR       state directory (default: $XDG_STATE_HOME/toolhost)
  --profile NAME        profile: full, read-only, small, or one from the config
  --read-only           enable only operations that read
  --tools LIST          comma-separated tools (or tool.operation) to enable; others are off
  --disable LIST        comma-separated tools (or tool.operation) to disable
  --conversation ID     default conversation id (default: derived from the working directory)
  --budget-tokens N     cap one result at about N tokens (default 25000)
  --log-file FILE       log there instead of stderr
  --log-level LEVEL     debug, info, warn or error (default info)
  --sandbox MODE        terminal sandbox: workspace-write (default), read-only or off

serve flags:
  --addr HOST:PORT      listen address (default 127.0.0.1:8765); non-loopback needs a configured token
  --token TOKEN         bearer token (default: generated once, kept in the state dir, mode 0600)
  --no-auth             no token; loopback only; for test clients that cannot send one
  --stateless           serve every request without sessions

Examples:
  toolhost stdio --workdir ~/src/project
  toolhost serve --addr 127.0.0.1:8765
  toolhost call think '{"thoughts":"plan the refactor"}'
  toolhost tools --json
`

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "toolhost:", err)
		os.Exit(1)
	}
}

// options holds every flag; global and command flags share one set so that they may come before
// or after the command.
type options struct {
	config, workdir, stateDir, profile, tools, disable, conversation, logFile, logLevel string
	readOnly                                                                            bool
	budget                                                                              int
	// terminal sandbox mode (overrides [terminal] sandbox)
	sandbox string
	// serve
	addr, token       string
	noAuth, stateless bool
	// tools
	json bool
	// approve
	approveFor time.Duration
	once       bool
}

func (o *options) flags(name string, errOut io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() { fmt.Fprint(errOut, usage) }
	fs.StringVar(&o.config, "config", o.config, "")
	fs.StringVar(&o.workdir, "workdir", o.workdir, "")
	fs.StringVar(&o.stateDir, "state-dir", o.stateDir, "")
	fs.StringVar(&o.profile, "profile", o.profile, "")
	fs.BoolVar(&o.readOnly, "read-only", o.readOnly, "")
	fs.StringVar(&o.tools, "tools", o.tools, "")
	fs.StringVar(&o.disable, "disable", o.disable, "")
	fs.StringVar(&o.conversation, "conversation", o.conversation, "")
	fs.IntVar(&o.budget, "budget-tokens", o.budget, "")
	fs.StringVar(&o.logFile, "log-file", o.logFile, "")
	fs.StringVar(&o.logLevel, "log-level", o.logLevel, "")
	fs.StringVar(&o.sandbox, "sandbox", o.sandbox, "")
	switch name {
	case "serve":
		fs.StringVar(&o.addr, "addr", o.addr, "")
		fs.StringVar(&o.token, "token", o.token, "")
		fs.BoolVar(&o.noAuth, "no-auth", o.noAuth, "")
		fs.BoolVar(&o.stateless, "stateless", o.stateless, "")
	case "tools":
		fs.BoolVar(&o.json, "json", o.json, "")
	case "approve":
		fs.DurationVar(&o.approveFor, "for", o.approveFor, "")
		fs.BoolVar(&o.once, "once", o.once, "")
	}
	return fs
}

func run(args []string, stdout, stderr io.Writer) error {
	o := &options{}
	global := o.flags("toolhost", stderr)
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	rest := global.Args()
	if len(rest) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("missing command")
	}
	cmd, rest := rest[0], rest[1:]
	switch cmd {
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	case "version":
		fmt.Fprintf(stdout, "toolhost %s\n", app.Version)
		return nil
	}
	rest, err := parseInterspersed(o.flags(cmd, stderr), rest)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch cmd {
	case "stdio":
		return withApp(ctx, o, stderr, func(a *app.App) error {
			if err := a.MarkServer(); err != nil {
				return err
			}
			a.Logger.Info("serving stdio", "workdir", a.Workdir, "profile", a.ProfileName, "tools", strings.Join(a.Registry.Names(), ","))
			err := server.ServeStdio(ctx, a.Server(), os.Stdin, stdout, a.Logger)
			if errors.Is(err, context.Canceled) && ctx.Err() != nil {
				return nil // SIGINT or SIGTERM: a normal shutdown, sessions closed by a.Close
			}
			return err
		})
	case "serve":
		return withApp(ctx, o, stderr, func(a *app.App) error {
			if err := a.MarkServer(); err != nil {
				return err
			}
			return serve(ctx, a, o, stdout)
		})
	case "tools":
		return withApp(ctx, o, stderr, func(a *app.App) error { return printTools(a, o.json, stdout) })
	case "call":
		if len(rest) < 1 || len(rest) > 2 {
			return errors.New("usage: toolhost call TOOL ['JSON arguments']")
		}
		argJSON := "{}"
		if len(rest) == 2 {
			argJSON = rest[1]
		}
		if !json.Valid([]byte(argJSON)) {
			return errors.New("call: arguments are not valid JSON")
		}
		return withApp(ctx, o, stderr, func(a *app.App) error { return callTool(ctx, a, rest[0], argJSON, stdout) })
	case "memory":
		if len(rest) != 1 || rest[0] != "reembed" {
			return errors.New("usage: toolhost memory reembed")
		}
		return withApp(ctx, o, stderr, func(a *app.App) error {
			last := time.Time{}
			err := a.Memory.Reembed(ctx, func(done, total int) {
				if time.Since(last) > time.Second || done == total {
					fmt.Fprintf(stdout, "re-embedded %d/%d with %s\n", done, total, a.Memory.Embedder().ID())
					last = time.Now()
				}
			})
			if err == nil {
				fmt.Fprintln(stdout, "memories are all embedded with", a.Memory.Embedder().ID())
			}
			return err
		})
	case "approvals", "grants":
		return withApp(ctx, o, stderr, func(a *app.App) error { return listAuthority(ctx, a, cmd, stdout) })
	case "approve", "deny", "revoke":
		if os.Getenv("TOOLHOST_TERMINAL_ID") != "" {
			// A toolhost terminal runs commands a model typed; a grant must come from the user.
			return fmt.Errorf("refusing to %s from inside a toolhost terminal session: run it in your own terminal", cmd)
		}
		if len(rest) != 1 {
			return fmt.Errorf("usage: toolhost %s ID", cmd)
		}
		return withApp(ctx, o, stderr, func(a *app.App) error {
			// However it was started (env -i, a copied binary, setsid), a process below a
			// toolhost server is a model's command: decisions come from the user.
			if err := authz.CheckOperator(a.StateDir); err != nil {
				return fmt.Errorf("refusing to %s: %w; run it in your own terminal", cmd, err)
			}
			return decide(ctx, a, cmd, rest[0], o, stdout)
		})
	case "rules":
		if len(rest) == 1 && rest[0] == "list" || len(rest) == 2 && rest[0] == "test" {
			return withApp(ctx, o, stderr, func(a *app.App) error { return rulesCommand(a, rest, stdout) })
		}
		return errors.New("usage: toolhost rules test 'CMD' | toolhost rules list")
	case "doctor":
		return withApp(ctx, o, stderr, func(a *app.App) error { return doctor(a, stdout) })
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

func listAuthority(ctx context.Context, a *app.App, what string, stdout io.Writer) error {
	if what == "approvals" {
		list, err := a.Guard.Approvals().List(ctx, "", authz.StatusPending)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			fmt.Fprintln(stdout, "no pending authorization requests")
		}
		for _, ap := range list {
			fmt.Fprintf(stdout, "%s  %s on %s%s  conversation %s  expires %s\n", ap.ID, ap.Access, ap.Path, recursiveMark(ap.Recursive), ap.Conversation, ap.Expires.Wall.Format(time.TimeOnly))
			if ap.Command != "" {
				fmt.Fprintf(stdout, "    command: %q\n", ap.Command)
			}
			if ap.Reason != "" {
				fmt.Fprintf(stdout, "    reason: %s\n", ap.Reason)
			}
		}
		return nil
	}
	list, err := a.Guard.Grants().List(ctx, "")
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "no active grants")
	}
	for _, g := range list {
		uses := "unlimited uses"
		if g.Uses > 0 {
			uses = fmt.Sprintf("%d use(s) left", g.Uses)
		}
		exp := "never expires"
		if !g.Expires.Wall.IsZero() {
			exp = "expires " + g.Expires.Wall.Format(time.TimeOnly)
		}
		fmt.Fprintf(stdout, "%s  %s on %s%s  %s, %s, by %s\n", g.ID, g.Access, g.Path, recursiveMark(g.Recursive), exp, uses, g.By)
	}
	return nil
}

func recursiveMark(r bool) string {
	if r {
		return "/**"
	}
	return ""
}

func decide(ctx context.Context, a *app.App, cmd, id string, o *options, stdout io.Writer) error {
	// Who decided, from the kernel's view rather than the environment ($USER is whatever the
	// caller set).
	by := fmt.Sprintf("cli:uid %d pid %d", os.Getuid(), os.Getpid())
	if u, err := user.LookupId(strconv.Itoa(os.Getuid())); err == nil {
		by = fmt.Sprintf("cli:%s (uid %d, pid %d)", u.Username, os.Getuid(), os.Getpid())
	}
	switch cmd {
	case "approve":
		ap, g, err := a.Guard.Approve(ctx, id, o.approveFor, o.once, by)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "approved %s: grant %s for %s on %s%s until %s\n", ap.ID, g.ID, g.Access, g.Path, recursiveMark(g.Recursive), g.Expires.Wall.Format(time.TimeOnly))
	case "deny":
		ap, err := a.Guard.Deny(ctx, id, by)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "denied %s (%s on %s)\n", ap.ID, ap.Access, ap.Path)
	case "revoke":
		if err := a.Guard.Grants().Revoke(ctx, id); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "revoked %s\n", id)
	}
	return nil
}

// withApp loads the configuration, applies the flags, opens the app and runs f.
func withApp(ctx context.Context, o *options, stderr io.Writer, f func(*app.App) error) error {
	path, explicit := o.config, o.config != ""
	if !explicit {
		path = config.DefaultPath()
	}
	cfg, err := config.Load(path, explicit)
	if err != nil {
		return err
	}
	applyFlags(cfg, o)
	logOut := stderr
	if cfg.LogFile != "" {
		lf, err := os.OpenFile(cfg.LogFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("log file: %w", err)
		}
		defer lf.Close()
		logOut = lf
	}
	logger, err := app.NewLogger(logOut, cfg.LogLevel)
	if err != nil {
		return err
	}
	a, err := app.Open(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer a.Close()
	return f(a)
}

func applyFlags(cfg *config.Config, o *options) {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&cfg.Workdir, o.workdir)
	set(&cfg.StateDir, o.stateDir)
	set(&cfg.Profile, o.profile)
	set(&cfg.Conversation, o.conversation)
	set(&cfg.LogFile, o.logFile)
	set(&cfg.LogLevel, o.logLevel)
	set(&cfg.HTTP.Addr, o.addr)
	set(&cfg.HTTP.Token, o.token)
	set(&cfg.Terminal.Sandbox, o.sandbox)
	if o.budget > 0 {
		cfg.BudgetTokens = o.budget
	}
	if o.noAuth {
		cfg.HTTP.NoAuth = true
	}
	if o.stateless {
		cfg.HTTP.Stateless = true
	}
	if o.readOnly || o.tools != "" || o.disable != "" {
		name, p, err := cfg.ActiveProfile()
		if err != nil {
			return // app.Open reports the unknown profile
		}
		p.ReadOnly = p.ReadOnly || o.readOnly
		if o.tools != "" {
			p.Tools = splitList(o.tools)
		}
		p.Disable = append(p.Disable, splitList(o.disable)...)
		if cfg.Profiles == nil {
			cfg.Profiles = map[string]config.Profile{}
		}
		cfg.Profiles[name] = p
		cfg.Profile = name
	}
}

// parseInterspersed parses flags wherever they stand among the positional arguments, so that
// "toolhost call think '{}' --workdir x" works as a newcomer expects.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func serve(ctx context.Context, a *app.App, o *options, stdout io.Writer) error {
	addr := a.Config.HTTP.Addr
	if addr == "" {
		addr = "127.0.0.1:8765"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	loopback := server.IsLoopbackHost(host)
	hopts := server.HTTPOptions{
		NoAuth:         a.Config.HTTP.NoAuth,
		Stateless:      a.Config.HTTP.Stateless,
		SessionTimeout: a.Config.HTTP.SessionTimeout.Duration,
		AllowedHosts:   a.Config.HTTP.AllowedHosts,
		Logger:         a.Logger,
		Routes: map[string]http.Handler{
			"/api/approvals":  server.OperatorPeer(server.ApprovalsHandler(a.Guard), a.Logger),
			"/api/approvals/": server.OperatorPeer(server.ApprovalsHandler(a.Guard), a.Logger),
		},
	}
	if !loopback {
		if hopts.NoAuth {
			return errors.New("--no-auth is allowed only on a loopback address")
		}
		if a.Config.HTTP.Token == "" && os.Getenv("TOOLHOST_TOKEN") == "" {
			return fmt.Errorf("refusing to listen on non-loopback %s without an explicit token (--token, http.token or TOOLHOST_TOKEN)", addr)
		}
		hopts.AllowedHosts = append(hopts.AllowedHosts, host)
	}
	if o.token != "" {
		a.Logger.Warn("--token puts the token on the command line, readable by every local process (ps); prefer TOOLHOST_TOKEN or the generated token file")
	}
	source := ""
	if !hopts.NoAuth {
		if hopts.Token, source, err = a.Token(); err != nil {
			return err
		}
	} else {
		a.Logger.Warn("serving without a bearer token (--no-auth): any local process can call tools")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := server.NewHTTPServer(server.NewHTTPHandler(a.Server(), hopts))
	url := fmt.Sprintf("http://%s/mcp", ln.Addr())
	fmt.Fprintf(stdout, "toolhost %s serving %s (workdir %s, profile %s)\n", app.Version, url, a.Workdir, a.ProfileName)
	if hopts.NoAuth {
		fmt.Fprintf(stdout, "no bearer token (--no-auth)\n\nClient config:\n{\"mcpServers\":{\"toolhost\":{\"type\":\"http\",\"url\":%q}}}\n", url)
	} else {
		fmt.Fprintf(stdout, "bearer token from %s\n\nClient config (paste into your client's MCP settings):\n", source)
		fmt.Fprintf(stdout, "{\"mcpServers\":{\"toolhost\":{\"type\":\"http\",\"url\":%q,\"headers\":{\"Authorization\":\"Bearer %s\"}}}}\n", url, hopts.Token)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

func printTools(a *app.App, asJSON bool, stdout io.Writer) error {
	tools := a.Registry.Tools()
	if asJSON {
		b, err := json.MarshalIndent(map[string]any{"profile": a.ProfileName, "tools": tools}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, string(b))
		return err
	}
	total := 0
	fmt.Fprintf(stdout, "profile %s, workdir %s\n", a.ProfileName, a.Workdir)
	for i, t := range tools {
		b, _ := json.Marshal(t)
		n := consolidated.EstimateTokens(string(b))
		total += n
		first, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(stdout, "%d. %-26s ~%5d tokens  %s\n", i+1, t.Name, n, first)
	}
	b, _ := json.Marshal(map[string]any{"tools": tools})
	fmt.Fprintf(stdout, "total ~%d tokens (%d bytes minified; estimate: bytes/4)\n", total, len(b))
	return nil
}

func callTool(ctx context.Context, a *app.App, name, args string, stdout io.Writer) error {
	tool, raw, ok := a.Registry.Resolve(name, json.RawMessage(args))
	if !ok {
		return fmt.Errorf("no tool %q (tools: %s)", name, strings.Join(a.Registry.Names(), ", "))
	}
	res := a.Registry.Dispatch(ctx, tool, raw, nil)
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, string(b))
	if res.IsError {
		return errors.New("the call returned an error result")
	}
	return nil
}
