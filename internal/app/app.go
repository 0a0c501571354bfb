// Package app wires toolhost together from a configuration: the working directory, the state
// directory, the engines, the tool registry and the MCP server. cmd/toolhost parses flags and calls
// it; tests call it to get the same server the binary serves.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/consolidated"
	"toolhost/internal/codeindex"
	"toolhost/internal/config"
	"toolhost/internal/conversation"
	"toolhost/internal/edit"
	"toolhost/internal/embed"
	"toolhost/internal/engine"
	"toolhost/internal/fsread"
	"toolhost/internal/gate"
	"toolhost/internal/memory"
	"toolhost/internal/secret"
	"toolhost/internal/server"
	"toolhost/internal/terminal"
	"toolhost/reminders"
	"toolhost/store"
)

// Name is the server name clients see.
const Name = "toolhost"

// Version is set at build time with -ldflags "-X toolhost/internal/app.Version=...".
var Version = defaultVersion

// instructions are the server's instructions at initialize.
const instructions = "toolhost: files, terminals, todos, memory and more behind a working-directory guard. Call think before complex steps; page cut results with the read_tool_result tool."

// App is a configured toolhost: everything a transport needs to serve it.
type App struct {
	// countSessions counts serve's live HTTP sessions (CountSessionsWith).
	sessionsMu    sync.Mutex
	countSessions func() server.SessionCounts

	Config      *config.Config
	ProfileName string
	Profile     config.Profile
	Workdir     string
	StateDir    string
	Logger      *slog.Logger
	Env         *consolidated.Env
	Registry    *consolidated.Registry
	Store       *store.Store
	Guard       *authz.Guard
	// NetGuard decides every outgoing connection of web_operations and the browser.
	NetGuard  *authz.NetGuard
	Reminders *reminders.Builder
	Memory    *memory.Service
	// Journal makes multi-file edits crash-atomic; Open recovers what a crashed process left.
	Journal *edit.Journal
	// Index is the working directory's index (nil: [index] mode off).
	Index      *codeindex.Index
	PromptsDir string
	// Terminals is the terminal engine (the console shows its sessions).
	Terminals *terminal.Manager
	// Typed is what the user typed into sessions on the console or with toolhost attach,
	// kept for the model's next read of the session.
	Typed *terminal.UserInputs
	// Gate decides every process toolhost starts: rules, sandbox, environment.
	Gate *gate.Gate
	// Started is when Open ran, for uptime.
	Started time.Time
	// switches are the operations the console switched off (config.Switches), as the managed
	// file said when switchStamp was taken (switches.go), and servers the MCP servers built
	// by Server, which a switch updates at once.
	switchMu    sync.Mutex
	switches    config.Switches
	switchStamp fileStamp
	servers     []*mcp.Server
	// Executions records every call; Limits rate-limits them; StdioPrincipal is who calls
	// over stdio (admin unless [stdio] tier lowers it).
	Executions *engine.Engine
	// ExecutionsErr says why Executions is nil (the state directory could not hold history).
	ExecutionsErr  error
	Tokens         *authz.Tokens
	Limits         *engine.Limits
	StdioPrincipal authz.Principal
	finishHooks    []func(engine.Record)
	// Leases are the conversations leased to live sessions; nil when a configured
	// conversation pins every session.
	Leases *conversation.Leases
	// roots are the workspaces clients' roots opened (UseRoots).
	roots workspaces
	// settling holds back start-up housekeeping until the server answered its first
	// tools/list (see startup.go); workspaces share their parent's.
	settling *settling
	// preparing is the start-up work a server holds back until it has answered tools/list
	// and every call waits for (startup.go).
	preparing *preparing

	// opening is set when OpenEngines starts, opened closed when it has returned, openErr
	// saying why it failed.
	opening atomic.Bool
	opened  chan struct{}
	openErr error
	// needed closes when a request waits for the engines (Needed).
	needed   chan struct{}
	needOnce sync.Once

	closeMu sync.Mutex
	closers []func() error
}

// Open resolves the configuration into a running set of engines and the tool registry. It does
// no work that only some calls need (the embedder, terminals): those start on first use.
func Open(ctx context.Context, cfg *config.Config, logger *slog.Logger) (*App, error) {
	return open(ctx, cfg, logger, nil)
}

// open is Open; a workspace opened for a client's root passes the app that opened it, whose
// execution history, tokens and rate limits it shares (one principal, one set of buckets).
func open(ctx context.Context, cfg *config.Config, logger *slog.Logger, parent *App) (*App, error) {
	a, err := declare(cfg, logger, parent)
	if err != nil {
		return nil, err
	}
	if err := a.openEngines(ctx, parent); err != nil {
		return nil, err
	}
	return a, nil
}

// Declare resolves what a server answers from before any engine is open: the configuration,
// the working directory, the profile, the console's switches, the stdio principal, and the
// registry of the tools' tables (tools/list shows the tables and nothing behind them). Its
// server (Server) serves at once; OpenEngines opens the rest and binds it, and every request
// that needs an engine waits for that (prepareMiddleware). The configuration errors Open would
// report about the tool list or the working directory are Declare's, before anything is
// answered.
func Declare(cfg *config.Config, logger *slog.Logger) (*App, error) {
	return declare(cfg, logger, nil)
}

func declare(cfg *config.Config, logger *slog.Logger, parent *App) (*App, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	a := &App{Config: cfg, Logger: logger, Started: time.Now(), settling: newSettling(), preparing: newPreparing(),
		opened: make(chan struct{}), needed: make(chan struct{})}
	if parent != nil {
		a.settling = parent.settling
	} else if !cfg.Serve {
		a.settling.settle() // a one-shot command: nothing to answer first
	}
	name, profile, err := cfg.ActiveProfile()
	if err != nil {
		return nil, err
	}
	a.ProfileName, a.Profile = name, profile
	wd := cfg.Workdir
	if wd == "" {
		if wd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
	}
	if a.Workdir, err = canonicalDir(wd); err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	a.StateDir = cfg.StateDir
	if a.StateDir == "" {
		a.StateDir = config.DefaultStateDir()
	}
	if a.StateDir, err = filepath.Abs(a.StateDir); err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	if parent != nil {
		a.StdioPrincipal = parent.StdioPrincipal
	} else if a.StdioPrincipal, err = stdioPrincipal(cfg); err != nil {
		return nil, err
	}
	if err := a.loadSwitches(); err != nil {
		return nil, err
	}
	tools := declaredTools(cfg, a.Workdir)
	if err := checkProfileNames(name, profile, cfg.Profiles, tools); err != nil {
		return nil, err
	}
	// A configured conversation pins every session to it; otherwise each session leases its
	// own (openConversations), and the working directory's first conversation serves calls
	// without a session (toolhost call).
	conv := cfg.Conversation
	if conv == "" {
		conv = config.DefaultConversation(a.Workdir)
	}
	budget := cfg.BudgetTokens
	if budget == 0 {
		budget = profile.BudgetTokens
	}
	a.Env = &consolidated.Env{
		Workdir:             a.Workdir,
		StateDir:            a.StateDir,
		DefaultConversation: conv,
		Profile:             name,
		BudgetTokens:        budget,
		Output:              consolidated.OutputLimits{MaxResultChars: cfg.Output.MaxResultChars, MaxResultLines: cfg.Output.MaxResultLines},
		Logger:              logger,
	}
	a.PromptsDir = cfg.PromptsDir
	if a.PromptsDir == "" {
		base := cfg.Path
		if base == "" {
			base = config.DefaultPath()
		}
		a.PromptsDir = filepath.Join(filepath.Dir(base), "prompts")
	}
	if err := a.checkAutoApprove(); err != nil {
		return nil, err
	}
	a.Registry = consolidated.Declare(a.Env, tools, a.allow)
	return a, nil
}

// declaredTools are toolhost's tools with their tables and nothing behind them: what
// tools/list shows depends on the tables, the profile and the switches, never on an engine.
// OpenEngines builds the same tools with their engines, and the registry refuses them if
// their tables differ (consolidated.Registry.Bind).
func declaredTools(cfg *config.Config, workdir string) []*consolidated.Tool {
	return []*consolidated.Tool{
		consolidated.ThinkTool(),
		consolidated.UserCollaborationTool(consolidated.CollaborationConfig{}),
		consolidated.TodoTool(nil, nil),
		consolidated.MemoryTool(consolidated.MemoryConfig{}),
		consolidated.FileTool(consolidated.FileConfig{}),
		consolidated.TerminalTool(consolidated.TerminalConfig{}),
		consolidated.BuildTool(consolidated.BuildConfig{Workdir: workdir}),
		consolidated.WebTool(consolidated.WebConfig{SearchURL: cfg.Web.SearchURL}),
		consolidated.DatabaseTool(consolidated.DatabaseConfig{}),
		consolidated.ReadToolResultTool(),
	}
}

// errEnginesOpened: OpenEngines runs once per app.
var errEnginesOpened = errors.New("app: the engines are open already")

// OpenEngines opens what the declared tools need (the state, the guard, the execution history,
// memory, terminals, the web and database engines), builds the tools with them and binds them
// to the registry. A server's app also marks the process as a server and recovers the edit
// journal, once the first tools/list is answered or a request needs it (startup.go). Requests
// held for the engines go on when it returns; if it fails, they and every later one are
// answered with its error (Opened).
func (a *App) OpenEngines(ctx context.Context) error { return a.openEngines(ctx, nil) }

func (a *App) openEngines(ctx context.Context, parent *App) (err error) {
	if !a.opening.CompareAndSwap(false, true) {
		return errEnginesOpened
	}
	defer func() {
		if err != nil {
			// Nothing started may outlive a failed open: the preparation it began, what
			// it opened, and a state file still being created.
			a.prepared(context.Background())
			a.runClosers()
			if a.Store != nil {
				a.Store.Close()
			}
		}
		a.openErr = err
		close(a.opened)
	}()
	cfg, profile := a.Config, a.Profile
	if parent != nil {
		// The parent's journal recovery and server mark come before any work of a workspace.
		if err := parent.Prepared(ctx); err != nil {
			return err
		}
	}
	a.Env.Spill = a.openSpill()
	if err := a.openState(ctx); err != nil {
		return err
	}
	if a.Guard, err = a.openGuard(ctx, profile); err != nil {
		return err
	}
	a.onClose(a.Guard.Close)
	// The start-up preparation ends before the guard closes (closers run in reverse order).
	a.onClose(func() error { a.prepared(context.Background()); return nil })
	serving := cfg.Serve && parent == nil
	a.openJournal(serving)
	waitEngine := func() {}
	if parent != nil {
		a.Executions, a.Limits, a.Tokens = parent.Executions, parent.Limits, parent.Tokens
	} else {
		wait, err := a.openExecutions(ctx)
		if err != nil {
			return err
		}
		waitEngine = sync.OnceFunc(wait)
		defer waitEngine() // before the store closes on a failed open
	}
	a.Env.Limits = a.Limits
	// Where the user answers authorization requests: one place for the app and the
	// workspaces its clients' roots open (serve sets the console's address on it).
	a.Env.Approvals = &consolidated.ApprovalPlace{Elsewhere: consoleElsewhere(a.StateDir)}
	if parent != nil {
		a.Env.Approvals = parent.Env.Approvals
	}
	rcfg := reminders.DefaultConfig()
	rcfg.Enabled = !cfg.Reminders.Off
	rcfg.EveryNCalls = cfg.Reminders.EveryNCalls
	rcfg.MaxTokens = cfg.Reminders.MaxTokens
	rcfg.Project = a.Workdir // whose standing instructions the reminders repeat
	embedder, err := embed.New(cfg.Memory.Embedder)
	if err != nil {
		return fmt.Errorf("memory.embedder: %w", err)
	}
	a.Memory = memory.New(a.Store, memory.Config{Embedder: embedder, Index: memory.IndexKind(cfg.Memory.Index)})
	a.onClose(a.Memory.Close) // background imports
	a.Reminders = reminders.New(a.Store, rcfg, a.Memory)
	terminals, err := a.terminalManager()
	if err != nil {
		return err
	}
	a.Terminals = terminals
	a.Typed = terminal.NewUserInputs()
	web, err := a.webTool()
	if err != nil {
		return err
	}
	a.Index = a.openIndex()
	terminal := consolidated.TerminalTool(consolidated.TerminalConfig{Manager: terminals, Guard: a.Guard, DefaultYield: cfg.Terminal.Yield.Duration, Sandbox: a.Gate, Typed: a.Typed})
	// The tool list: one constructor per tool, in any order (the registry orders them by
	// consolidated.Order). Each tool carries its resources, hooks and Close.
	tools := []*consolidated.Tool{
		consolidated.ThinkTool(),
		consolidated.UserCollaborationTool(consolidated.CollaborationConfig{Guard: a.Guard, MaxWait: cfg.ApprovalWait.Duration, PromptsDir: a.PromptsDir, Logger: a.Logger}),
		consolidated.TodoTool(a.Store, a.Reminders),
		consolidated.MemoryTool(consolidated.MemoryConfig{Service: a.Memory, Guard: a.Guard}),
		// The read engine's line-index cache lives inside the tool, so repeated range reads of
		// a large file seek instead of rescanning; the journal makes every write crash-atomic.
		consolidated.FileTool(consolidated.FileConfig{Guard: a.Guard, Reader: fsread.NewReader(fsread.DefaultIndexEntries), Journal: a.Journal,
			Index: a.Index, IndexMinFiles: a.indexMinFiles(), Code: a.codeEngine(a.Index)}),
		terminal,
		a.buildTool(terminals),
		web,
		a.databaseTool(),
		consolidated.ReadToolResultTool(),
	}
	waitEngine()
	a.Env.Executions = a.Executions
	if err := a.Registry.Bind(tools); err != nil {
		for _, t := range tools {
			if t.Close != nil {
				t.Close()
			}
		}
		return err
	}
	a.onClose(a.Registry.Close)
	if cfg.Conversation == "" {
		if err := a.openConversations(a.Env.DefaultConversation); err != nil {
			return err
		}
	}
	if serving {
		a.markServer() // last: what it runs once settled reads the engines
	}
	return nil
}

// Opened waits until OpenEngines has run and returns its error, as every request that needs an
// engine gives it to the client: a server whose engines did not open says why.
func (a *App) Opened(ctx context.Context) error {
	select {
	case <-a.opened:
	case <-ctx.Done():
		return ctx.Err()
	}
	if a.openErr != nil {
		return fmt.Errorf("toolhost could not start: %w", a.openErr)
	}
	return nil
}

// openConversations gives each MCP session a conversation of its own, leased in the store so
// that the sessions of every process on this state directory stay apart; base names them.
func (a *App) openConversations(base string) error {
	leases, err := conversation.New(a.Store, conversation.Options{Workdir: a.Workdir, Base: base})
	if err != nil {
		return err
	}
	a.Leases = leases
	a.Env.Conversations = consolidated.NewSessions(leases, a.Logger)
	a.Env.Conversations.OnConversationEnded(a.Registry.ConversationEnded)
	a.onClose(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return a.Env.Conversations.Close(ctx)
	})
	return nil
}

// openGuard builds the working-directory guard: toolhost's own files are protected, configured
// grants are standing grants, and the profile decides whether outside reads need a grant.
func (a *App) openGuard(ctx context.Context, profile config.Profile) (*authz.Guard, error) {
	cfgFile := a.Config.Path
	if cfgFile == "" {
		cfgFile = config.DefaultPath()
	}
	outside := profile.OutsideReads
	if a.Config.Guard.OutsideReads != "" {
		outside = a.Config.Guard.OutsideReads
	}
	var static []authz.GrantSpec
	for _, g := range a.Config.Grants {
		p, err := canonicalPath(g.Path)
		if err != nil {
			return nil, fmt.Errorf("config grant %s: %w", g.Path, err)
		}
		static = append(static, authz.GrantSpec{Access: g.Access, Path: p, Recursive: g.Recursive, By: "config"})
	}
	// The user's prompts become instructions to every agent, and the log holds what calls did:
	// neither may be written by a model.
	protected := []string{a.PromptsDir, a.SwitchesFile()}
	if a.Config.LogFile != "" {
		if p, err := canonicalPath(a.Config.LogFile); err == nil {
			protected = append(protected, p)
		}
	}
	return authz.New(ctx, authz.Config{
		WorkDir:               a.Workdir,
		ConfigFile:            cfgFile,
		Protected:             protected,
		StateDir:              a.StateDir,
		TokenFile:             a.TokenFile(),
		SecretPaths:           a.Config.Guard.DenyRead,
		OutsideReadsNeedGrant: outside == "grant",
		Store:                 a.Store,
		StaticGrants:          static,
		Logger:                a.Logger,
		Ask:                   consolidated.AskCall(),
		AutoApprove:           a.Config.Guard.AutoApprove,
	})
}

// canonicalPath resolves symlinks of an existing path, or makes a missing one absolute.
func canonicalPath(p string) (string, error) {
	if strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		p = filepath.Join(home, p[2:])
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return abs, nil
}

// Server builds the MCP server for this configuration: the registry's tools with their
// resources, and the prompts. Requests without a token act as the stdio principal.
func (a *App) Server() *mcp.Server { return a.ServerAs(a.StdioPrincipal) }

// ServerAs is Server with the principal of requests that carry no token.
func (a *App) ServerAs(p authz.Principal) *mcp.Server {
	s := server.New(server.Options{
		Principal:    p,
		Name:         Name,
		Version:      Version,
		Instructions: instructions,
		Registry:     a.Registry,
		Logger:       a.Logger,
		ListTTL:      a.ListTTL,
		Middleware:   []mcp.Middleware{a.prepareMiddleware(), a.switchesMiddleware(), a.settleMiddleware(), consolidated.PromptsMiddleware(a.PromptsDir, func() *store.Store { return a.Store }, a.Registry, a.Logger)},
	})
	a.switchMu.Lock()
	a.servers = append(a.servers, s)
	a.switchMu.Unlock()
	return s
}

// Close releases the engines, once OpenEngines has returned.
func (a *App) Close() error {
	if a.opening.Load() {
		<-a.opened
	}
	return a.runClosers()
}

// onClose adds f to what Close runs, the last added first.
func (a *App) onClose(f func() error) {
	a.closeMu.Lock()
	a.closers = append(a.closers, f)
	a.closeMu.Unlock()
}

// runClosers runs what onClose added, once.
func (a *App) runClosers() error {
	a.closeMu.Lock()
	closers := a.closers
	a.closers = nil
	a.closeMu.Unlock()
	var errs []error
	for i := len(closers) - 1; i >= 0; i-- {
		errs = append(errs, closers[i]())
	}
	return errors.Join(errs...)
}

func canonicalDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s is not a directory", abs)
	}
	return real, nil
}

// NewLogger logs with slog to w (stderr or a file) at level ("debug", "info", "warn", "error").
func NewLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(orDefault(level, "info")))); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", level)
	}
	// Every line is masked as secret.Text masks text: no log call needs to remember it.
	return slog.New(secret.LogHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l}))), nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// TokenFile is the file holding the bearer token: [http] token_file when set, else where
// `toolhost serve` keeps its generated token in the state directory. The guard protects it and
// the terminal sandbox hides it.
func (a *App) TokenFile() string {
	if f := strings.TrimSpace(a.Config.HTTP.TokenFile); f != "" {
		if p, err := canonicalPath(f); err == nil {
			return p
		}
		return f
	}
	return filepath.Join(a.StateDir, "token")
}

// OperatorTokenFile is the file holding the operator credential (authz.OperatorToken).
func (a *App) OperatorTokenFile() string { return authz.OperatorTokenPath(a.StateDir) }

// ExplicitToken reports whether the user chose the HTTP bearer token (config, token file or
// TOOLHOST_TOKEN) rather than leaving Token to generate one into the state directory.
func (a *App) ExplicitToken() bool {
	return strings.TrimSpace(a.Config.HTTP.Token) != "" || strings.TrimSpace(a.Config.HTTP.TokenFile) != "" ||
		strings.TrimSpace(os.Getenv("TOOLHOST_TOKEN")) != ""
}

// Token returns the HTTP bearer token: the configured one, else the configured token file's,
// else TOOLHOST_TOKEN, else the one kept in the state dir, generated (0600) on first use.
func (a *App) Token() (token string, source string, err error) {
	if t := strings.TrimSpace(a.Config.HTTP.Token); t != "" {
		return t, "config", nil
	}
	if strings.TrimSpace(a.Config.HTTP.TokenFile) != "" {
		b, err := os.ReadFile(a.TokenFile())
		if err != nil {
			return "", "", fmt.Errorf("http.token_file: %w", err)
		}
		if t := strings.TrimSpace(string(b)); len(t) >= 16 {
			return t, a.TokenFile(), nil
		}
		return "", "", fmt.Errorf("http.token_file %s: the token must be at least 16 characters", a.TokenFile())
	}
	if t := strings.TrimSpace(os.Getenv("TOOLHOST_TOKEN")); t != "" {
		return t, "TOOLHOST_TOKEN", nil
	}
	b, err := os.ReadFile(a.TokenFile())
	if err == nil && len(strings.TrimSpace(string(b))) >= 16 {
		return strings.TrimSpace(string(b)), a.TokenFile(), nil
	}
	t := randomToken()
	f, err := os.OpenFile(a.TokenFile(), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", "", fmt.Errorf("write token: %w", err)
	}
	if _, err := f.WriteString(t + "\n"); err != nil {
		f.Close()
		return "", "", fmt.Errorf("write token: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", "", fmt.Errorf("write token: %w", err)
	}
	return t, a.TokenFile() + " (new)", nil
}
