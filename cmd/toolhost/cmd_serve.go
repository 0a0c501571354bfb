package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"toolhost/authz"
	"toolhost/internal/app"
	"toolhost/internal/config"
	"toolhost/internal/console"
	"toolhost/internal/server"
)

// serveCommands serve MCP to clients.
var serveCommands = group{title: "Serving", commands: []cliCommand{
	{
		name: "stdio",
		help: "serve MCP over stdin/stdout (what editors and agent CLIs spawn)",
		run:  serveStdio,
	},
	{
		name: "serve",
		help: "serve MCP over streamable HTTP at http://ADDR/mcp (loopback, bearer token), the operator API, and the console at /",
		flags: func(fs *flag.FlagSet) action {
			addr := fs.String("addr", "", "listen on `HOST:PORT` (default "+server.DefaultAddr+"); off loopback it needs a token you set")
			token := fs.String("token", "", "bearer `TOKEN` (default: generated once, kept in the state dir, mode 0600); ps shows it to every local user")
			tokenFile := fs.String("token-file", "", "read the bearer token from `FILE` (keep it 0600); better than a token in the environment")
			noAuth := fs.Bool("no-auth", false, "no token; loopback only; for test clients that cannot send one")
			stateless := fs.Bool("stateless", false, "serve every request without sessions")
			return func(inv *invocation) error {
				return serveHTTP(inv, func(cfg *config.Config) {
					if *addr != "" {
						cfg.HTTP.Addr = *addr
					}
					if *token != "" {
						cfg.HTTP.Token = *token
					}
					if *tokenFile != "" {
						cfg.HTTP.TokenFile = *tokenFile
					}
					cfg.HTTP.NoAuth = cfg.HTTP.NoAuth || *noAuth
					cfg.HTTP.Stateless = cfg.HTTP.Stateless || *stateless
				}, *token != "")
			}
		},
	},
}}

// openAfter bounds how long a stdio server waits for its client's handshake before it opens
// the engines.
const openAfter = 50 * time.Millisecond

func serveStdio(inv *invocation) error {
	// The go-sdk's first tool registration is cold work: done on the other core meanwhile.
	go server.Warm()
	cfg, logger, err := inv.setup(func(cfg *config.Config) { cfg.Serve = true })
	if err != nil {
		return err
	}
	// The server is the real one from the start, built from the tools' tables (app.Declare):
	// it answers initialize and tools/list at once, and holds what needs an engine until
	// OpenEngines has bound them. A configuration error stops the start here.
	a, err := app.Declare(cfg, logger)
	if err != nil {
		return err
	}
	inv.app, inv.closeApp = a, func() { a.Close() }
	// The client's tools/list comes right after initialize: its list is built meanwhile.
	go a.Registry.ToolsFor(a.StdioPrincipal.Tier)
	if cfg.Workdir == "" {
		a.UseRoots(false) // no --workdir: the client's first root chooses it
	}
	a.Serving()
	srv := a.Server()
	// A client that has an answer may stop the server with a signal and see it exit cleanly.
	// The handlers were being installed while the configuration loaded and the server was
	// built (notifyContext).
	<-inv.signalsHandled
	ctx, cancel := context.WithCancelCause(inv.ctx)
	defer cancel(nil)
	opened := make(chan struct{})
	var openErr error // why the engines did not open, read once opened closes
	go func() {
		defer close(opened)
		// The engines open once the server has answered tools/list (Settled), or a request
		// needs them, or after openAfter: a client's model can do nothing before the list,
		// nor sends a call for a while after it, and opening alongside took the other core
		// from the server (and the client) on a two-core machine.
		select {
		case <-a.Settled():
		case <-a.Needed():
		case <-time.After(openAfter):
		case <-ctx.Done():
			return // the client left before needing anything
		}
		err := a.OpenEngines(ctx)
		// The engines are what the raised start-up GC target was for (gc.go).
		go func() { <-a.Settled(); restoreGC() }()
		if err != nil {
			if ctx.Err() == nil {
				// Every request that needs an engine is answered with this error (app.Opened).
				a.Logger.Error("toolhost could not start; every call answers why", "err", err)
				openErr = err
			}
			return
		}
		a.Logger.Info("serving stdio", "workdir", a.Workdir, "profile", a.ProfileName, "tools", strings.Join(a.Registry.Names(), ","))
		a.CheckStateLater()
		// The start-up preparation (edit journal recovery, the server mark: app.Prepared)
		// runs once the first tools/list is answered; if it fails, serving ends.
		select {
		case <-a.Settled():
		case <-ctx.Done():
			return
		}
		if err := a.Prepared(ctx); err != nil && ctx.Err() == nil {
			cancel(err)
		}
	}()
	err = server.ServeStdio(ctx, srv, os.Stdin, a.SettleOnWrite(inv.stdout), logger)
	cancel(nil)
	<-opened
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause // the preparation failed
	}
	if errors.Is(err, context.Canceled) && inv.ctx.Err() != nil {
		return nil // SIGINT or SIGTERM: a normal shutdown, sessions closed with the app
	}
	if err == nil && openErr != nil {
		// The client has gone; a server that could not start ends with why.
		return fmt.Errorf("could not start: %w", openErr)
	}
	return err
}

// operatorRoutes are the operator endpoints of `serve`: behind the operator token and the
// peer-process check (server.Operator), never behind the MCP client token.
func operatorRoutes(a *app.App) map[string]http.Handler {
	approvals, grants := server.ApprovalsHandler(a.Guard), server.GrantsHandler(a.Guard)
	return map[string]http.Handler{
		"/api/approvals":  approvals,
		"/api/approvals/": approvals,
		"/api/grants":     grants,
		"/api/grants/":    grants,
	}
}

// operatorCredential is the secret console sessions are bound to and the sign-in form
// accepts: the operator token, read from its file each time, so that replacing the file
// signs every browser out.
func operatorCredential(stateDir string) func() (string, error) {
	return func() (string, error) { return authz.ReadOperatorToken(stateDir) }
}

// serveHTTP serves the app over streamable HTTP where the exposure policy allows it.
func serveHTTP(inv *invocation, flags func(*config.Config), tokenOnCommandLine bool) error {
	a, err := inv.App(flags, func(cfg *config.Config) { cfg.Serve = true })
	if err != nil {
		return err
	}
	if err := a.Prepared(inv.ctx); err != nil {
		return err
	}
	a.CheckStateLater()
	a.Serving()
	if a.Config.Workdir == "" {
		a.UseRoots(true) // no --workdir: each session's first root, under [http] allowed_roots
	}
	hc := a.Config.HTTP
	listen, err := server.Exposure{Addr: hc.Addr, NoAuth: hc.NoAuth, ExplicitToken: a.ExplicitToken(), AllowedHosts: hc.AllowedHosts}.Check()
	if err != nil {
		return err
	}
	operatorToken, operatorFile, err := authz.OperatorToken(a.StateDir)
	if err != nil {
		return err
	}
	hopts := server.HTTPOptions{
		NoAuth:         hc.NoAuth,
		Stateless:      hc.Stateless,
		SessionTimeout: hc.SessionTimeout.Duration,
		SessionLimits:  server.SessionLimits{Max: hc.MaxSessions, PerPrincipal: hc.MaxSessionsPerPrincipal},
		SessionDir:     filepath.Join(a.StateDir, "http-sessions"),
		AllowedHosts:   listen.AllowedHosts,
		Logger:         a.Logger,
		Resolve:        a.Tokens.Resolve,
		Health:         a.Ready,
		OperatorToken:  operatorToken,
		OperatorRoutes: operatorRoutes(a),
	}
	if a.Executions != nil {
		metrics := server.NewMetrics(a.Executions.ActiveCount)
		a.OnFinish(metrics.Observe)
		hopts.PrincipalRoutes = server.ExecutionRoutes(server.ExecutionAPI{Executions: a.Executions, Limits: a.Limits, Metrics: metrics.Handler()})
	}
	if tokenOnCommandLine {
		a.Logger.Warn("--token puts the token on the command line, readable by every local process (ps); prefer --token-file or the generated token file")
	}
	source := ""
	if !hopts.NoAuth {
		if hopts.Token, source, err = a.Token(); err != nil {
			return err
		}
	} else {
		a.Logger.Warn("serving without a bearer token (--no-auth): any local process can call tools")
	}
	ln, err := net.Listen("tcp", listen.Addr)
	if err != nil {
		return err
	}
	// No tool or browser page may reach this server, whatever [web] allow says.
	if _, err := a.RegisterListener(ln.Addr().String()); err != nil {
		return err
	}
	principal := server.DefaultPrincipal
	if hopts.NoAuth {
		principal = server.AnonymousPrincipal
	}
	mcpServer := a.ServerAs(principal)
	con, err := a.Console(operatorCredential(a.StateDir), ln.Addr().String())
	if err != nil {
		return err
	}
	hopts.Console = con
	// Typing into terminals (toolhost attach): the operator token, or a client token that is
	// refused and audited there.
	if hopts.PrincipalRoutes == nil {
		hopts.PrincipalRoutes = map[string]http.Handler{}
	}
	hopts.PrincipalRoutes["/api/terminals/"] = con.TerminalAPI()
	hopts.Sessions = a.CountSessionsWith // the console's health page shows them
	if a.Leases != nil {
		hopts.Evicted = a.Leases.Keep // a session closed for the limits keeps its conversation
	}
	// A model asking for approval tells the user to answer on this console.
	a.Env.Approvals.SetConsole("http://" + ln.Addr().String() + "/")
	// ... and so does a model of a stdio server on the same state directory.
	defer a.AnnounceConsole("http://" + ln.Addr().String() + "/")()
	srv := server.NewHTTPServer(server.NewHTTPHandler(mcpServer, hopts))
	srv.RegisterOnShutdown(con.Close)
	srv.ConnContext = console.ConnContext
	url := fmt.Sprintf("http://%s/mcp", ln.Addr())
	out := inv.stdout
	fmt.Fprintf(out, "toolhost %s serving %s (workdir %s, profile %s)\n", app.Version, url, a.Workdir, a.ProfileName)
	fmt.Fprintln(out, a.SandboxStatus().Summary())
	fmt.Fprintf(out, "console: open %s (one-time sign-in link)\n", con.SignInURL("http://"+ln.Addr().String()))
	if hopts.NoAuth {
		fmt.Fprintf(out, "no bearer token (--no-auth)\n\nClient config:\n{\"mcpServers\":{\"toolhost\":{\"type\":\"http\",\"url\":%q}}}\n", url)
	} else {
		fmt.Fprintf(out, "bearer token from %s\n\nClient config (paste into your client's MCP settings):\n", source)
		fmt.Fprintf(out, "{\"mcpServers\":{\"toolhost\":{\"type\":\"http\",\"url\":%q,\"headers\":{\"Authorization\":\"Bearer %s\"}}}}\n", url, hopts.Token)
	}
	base := strings.TrimSuffix(url, "/mcp")
	fmt.Fprintf(out, "\nOperator API (approvals, grants; not for MCP clients), with the operator token in %s:\n", operatorFile)
	fmt.Fprintf(out, "  curl -H \"Authorization: Bearer $(cat %s)\" %s/api/approvals\n", operatorFile, base)
	fmt.Fprintf(out, "Executions (/api/executions, /api/stats, /metrics) take the operator token or a client token (its own only).\n")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-inv.ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
