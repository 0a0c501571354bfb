// Package config reads toolhost's TOML configuration, applies the built-in profiles and decides
// which tools and operations a profile enables. Flags override the file; the wiring in cmd/ does
// that by editing the loaded Config before use.
package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"toolhost/authz/cmdrules"
	"toolhost/internal/sandbox"
)

// Config is the whole configuration. Zero values mean "use the default".
type Config struct {
	// Workdir is the working directory the guard allows; default: the current directory.
	Workdir string `toml:"workdir"`
	// StateDir holds the bbolt file, the token and spilled results; default: XDG state dir.
	StateDir string `toml:"state_dir"`
	// Conversation pins every session to one conversation id; default: each session leases
	// its own (internal/conversation).
	Conversation string `toml:"conversation"`
	// Profile selects a built-in or configured profile; default "full".
	Profile  string `toml:"profile"`
	LogFile  string `toml:"log_file"`
	LogLevel string `toml:"log_level"`
	// BudgetTokens caps one result; overrides the profile's.
	BudgetTokens int `toml:"budget_tokens"`
	// ApprovalWait is how long user_collaboration check_request waits for a pending decision
	// (default 15s; clients abort calls at 60s).
	ApprovalWait Duration `toml:"approval_wait"`

	// PromptsDir holds the user's Markdown prompts; default: prompts/ beside the config file.
	PromptsDir string `toml:"prompts_dir"`

	HTTP      HTTP               `toml:"http"`
	Output    Output             `toml:"output"`
	Lists     Lists              `toml:"lists"`
	Reminders Reminders          `toml:"reminders"`
	Memory    Memory             `toml:"memory"`
	Terminal  Terminal           `toml:"terminal"`
	Profiles  map[string]Profile `toml:"profiles"`
	Guard     Guard              `toml:"guard"`
	Web       Web                `toml:"web"`
	// Index and LanguageServers configure code intelligence (file_operations' searches and
	// symbol operations).
	Index           Index           `toml:"index"`
	LanguageServers LanguageServers `toml:"language_servers"`
	Grants          []Grant         `toml:"grants"`
	Databases       []Database      `toml:"databases"`
	// Executions bounds the execution history; Limits rate-limits calls; Stdio sets the stdio
	// principal's tier.
	Executions Executions `toml:"executions"`
	Limits     Limits     `toml:"limits"`
	Stdio      Stdio      `toml:"stdio"`
	// Audit bounds the audit log.
	Audit Audit `toml:"audit"`

	// Serve is set by the commands that serve a model (stdio, serve), never by a file: their
	// start-up housekeeping waits until the first tools/list is answered (app.Serving); a
	// one-shot command's runs at once.
	Serve bool `toml:"-"`
	// Path is the file this configuration was read from, if any.
	Path string `toml:"-"`
	// Project is the project file merged over it (.toolhost.toml in the working directory), if any.
	Project string `toml:"-"`
	// Variables are the environment variables the configuration expands (${VAR}, also in a
	// database dsn, which is expanded only when it connects), in the order first seen: their
	// values are the user's secrets, withheld from every process toolhost starts.
	Variables []string `toml:"-"`
	// Origins says where each key that is set came from, by dotted key ("http.addr"); keys
	// not in it have their default. `toolhost config` prints it.
	Origins map[string]Origin `toml:"-"`
}

// HTTP configures `toolhost serve`.
type HTTP struct {
	Addr string `toml:"addr"`
	// Token is the bearer token; default: generated once and kept in the state dir.
	Token string `toml:"token"`
	// TokenFile names a file holding the bearer token (keep it 0600): unlike a token in the
	// environment or the config, no process reads it from the server, and the terminal sandbox
	// hides it from commands.
	TokenFile      string   `toml:"token_file"`
	NoAuth         bool     `toml:"no_auth"`
	Stateless      bool     `toml:"stateless"`
	AllowedHosts   []string `toml:"allowed_hosts"`
	SessionTimeout Duration `toml:"session_timeout"`
	// MaxSessions bounds the stateful sessions one serve holds (default 64), and
	// MaxSessionsPerPrincipal those of one token's principal (default 16). Past a bound the
	// least recently used idle session is closed (resumable, as after session_timeout); with
	// none idle a new session is refused with 503 and Retry-After.
	MaxSessions             int `toml:"max_sessions"`
	MaxSessionsPerPrincipal int `toml:"max_sessions_per_principal"`
	// AllowedRoots are the directories under which an HTTP client's root may set its
	// session's working directory (when no workdir is configured); without them, roots are
	// refused on serve. On stdio, when set, they bound roots too.
	AllowedRoots []string `toml:"allowed_roots"`
}

// Output describes the user's client when toolhost's table of clients does not (or not
// right): the most characters and lines of one tool result it passes to its model whole.
// Set, they replace the client's row; toolhost keeps every result below them.
type Output struct {
	MaxResultChars int `toml:"max_result_chars"`
	MaxResultLines int `toml:"max_result_lines"`
}

// Lists configures the lists clients may cache on protocol 2026-07-28.
type Lists struct {
	// TTL is the ttlMs of tools/list, prompts/list and resources/templates/list (default
	// 24h): the tool list is byte-identical across runs, and a change is announced at once.
	// "0s" turns caching off.
	TTL Duration `toml:"ttl"`
}

// Executions bounds the shared execution history: the last MaxRecords executions younger than
// MaxAge are kept (defaults 100,000 and 30 days).
type Executions struct {
	MaxRecords int      `toml:"max_records"`
	MaxAge     Duration `toml:"max_age"`
}

// Audit bounds the audit log (audit.jsonl in the state directory): it is rotated when it
// reaches MaxBytes or is MaxAge old (since the rotation that began it), rotated files are compressed and the newest
// Keep are kept (defaults 10 MiB, 168h and 10).
type Audit struct {
	MaxBytes int64    `toml:"max_bytes"`
	MaxAge   Duration `toml:"max_age"`
	Keep     int      `toml:"keep"`
}

// Limits are rate limits, each "N/s", "N/min" or "N/h" (empty: none). PerPrincipal bounds all
// calls of one principal (a token's own --rate replaces it); Safe, Moderate and Dangerous bound
// one principal's calls of that risk category.
type Limits struct {
	PerPrincipal string `toml:"per_principal"`
	Safe         string `toml:"safe"`
	Moderate     string `toml:"moderate"`
	Dangerous    string `toml:"dangerous"`
}

// Stdio configures the principal of stdio servers: the user who started them.
type Stdio struct {
	// Tier is view_only, execute_basic, execute_advanced or admin (default admin).
	Tier string `toml:"tier"`
}

// Reminders configures the <system-reminder> blocks appended to tool results.
type Reminders struct {
	// Off turns delivery off (the resource, the prompt and the Go API still work).
	Off bool `toml:"off"`
	// EveryNCalls repeats an unchanged reminder after this many calls without one (default 10).
	EveryNCalls int `toml:"every_n_calls"`
	// MaxTokens caps one block (default 300).
	MaxTokens int `toml:"max_tokens"`
}

// Memory configures memory_operations.
type Memory struct {
	// Embedder is "builtin" (default: USE-Lite, offline), "lexical", "ollama:MODEL[@URL]" or
	// "openai:MODEL[@URL]" (key from $OPENAI_API_KEY, or key_env=NAME after a comma).
	Embedder string `toml:"embedder"`
	// Index is "auto" (default: chromem-go collections, a scope moving to the brute-force slab
	// scan past 4,096 memories, where the scan is clearly faster), "chromem" (chromem-go at any
	// size) or "slab" (the scan at any size: measured faster than chromem-go at every size).
	Index string `toml:"index"`
}

// Terminal configures terminal_operations. Zero values mean the engine's defaults.
type Terminal struct {
	// Shell for sessions; default $SHELL when it is bash, else bash, else sh.
	Shell                      string   `toml:"shell"`
	MaxSessionsPerConversation int      `toml:"max_sessions_per_conversation"`
	MaxSessions                int      `toml:"max_sessions"`
	IdleTimeout                Duration `toml:"idle_timeout"`
	// Yield is how long a call waits before handing back a still-running command (default 15s).
	Yield          Duration `toml:"yield"`
	DefaultTimeout Duration `toml:"default_timeout"`
	MaxTimeout     Duration `toml:"max_timeout"`
	HistoryBytes   int      `toml:"history_bytes"`
	// Recording records each session as asciicast in the state directory (default on; "off"
	// stops it); RecordingBytes bounds one session's recording (default 16 MiB) and
	// RecordingsMaxBytes all of them (default 256 MiB).
	Recording          string `toml:"recording"`
	RecordingBytes     int64  `toml:"recording_bytes"`
	RecordingsMaxBytes int64  `toml:"recordings_max_bytes"`
	// KeepSessions keeps sessions and commands in a terminal host process of the state
	// directory, where they outlive the server: a restarted or killed server's conversation
	// finds them running (default on, Linux only; false keeps them in the server, where they
	// end with it; see docs/terminal-host.md).
	// KeepSessionsIdle closes those of a conversation no server has used for this long
	// (default 1h).
	KeepSessions     *bool    `toml:"keep_sessions"`
	KeepSessionsIdle Duration `toml:"keep_sessions_idle"`

	// Sandbox confines commands with Landlock: "workspace-write" (default), "read-only" or
	// "off". The --sandbox flag overrides it.
	Sandbox string `toml:"sandbox"`
	// AllowUnsandboxed accepts running commands unconfined where the kernel cannot enforce
	// the configured sandbox; without it, commands are refused there.
	AllowUnsandboxed bool `toml:"allow_unsandboxed"`
	// Writable adds paths commands may write under workspace-write ("~/" is the home
	// directory), beside the working directory, grants, temp dirs and build caches.
	Writable []string `toml:"writable"`
	// Rules are ordered command rules, "ACTION PATTERN [# NAME]" (allow, ask or deny), matched
	// before the shipped defaults.
	Rules []string `toml:"rules"`
	// RulesUnmatched is the action for commands no rule matches: "allow" (default), "ask",
	// or "deny" (an allow-list).
	RulesUnmatched string `toml:"rules_unmatched"`
	// DefaultRules keeps the shipped rules after the configured ones (default true).
	DefaultRules *bool `toml:"default_rules"`
	// Policy is "default" (the rules, then the shipped defaults; unmatched commands allowed)
	// or "strict" (an allow-list: reading, the project's builds and tests, git short of
	// pushing; everything else denied unless a rule allows it).
	Policy string `toml:"policy"`
	// PassEnv names environment variables commands get although they look like credentials
	// or the configuration expands them (a trailing * matches a prefix); TOOLHOST_* never.
	PassEnv []string `toml:"pass_env"`
}

// KeepSessionsOn reports whether sessions live in the terminal host ([terminal] keep_sessions).
func (t Terminal) KeepSessionsOn() bool { return t.KeepSessions == nil || *t.KeepSessions }

// UseDefaultRules reports whether the shipped command rules apply.
func (t Terminal) UseDefaultRules() bool { return t.DefaultRules == nil || *t.DefaultRules }

// Profile says which tools and operations are enabled.
type Profile struct {
	// Tools, if set, lists the only tools (or tool.operation) enabled.
	Tools []string `toml:"tools"`
	// Disable lists tools or tool.operation names turned off.
	Disable []string `toml:"disable"`
	// ReadOnly keeps only operations that read, or change nothing but toolhost's own state.
	ReadOnly     bool `toml:"read_only"`
	BudgetTokens int  `toml:"budget_tokens"`
	// OutsideReads is "allow" (default: reads outside the working directory are allowed except
	// secrets) or "grant" (every outside read needs a grant).
	OutsideReads string `toml:"outside_reads"`
}

// Guard configures the working-directory guard.
type Guard struct {
	// DenyRead replaces the default list of secret paths refused for outside reads.
	DenyRead []string `toml:"deny_read"`
	// OutsideReads overrides the profile's.
	OutsideReads string `toml:"outside_reads"`
	// AutoApprove grants whatever a model would have to ask the user for, for disposable
	// environments (CI, containers) where nobody answers; refused on the user's default state
	// directory (authz/autoapprove.go says what it grants and what it never does).
	AutoApprove bool `toml:"auto_approve"`
}

// Web configures web_operations and the network guard. Zero values mean the engines' defaults.
type Web struct {
	// Allow lists host patterns reachable although their addresses are refused by default
	// (loopback, private, link-local, ...): "intranet.example", "*.corp.example", "10.0.0.0/8",
	// "127.0.0.1:8080". A cloud metadata address needs a pattern naming it exactly.
	Allow []string `toml:"allow"`
	// Deny lists host patterns never reached, whatever is allowed or granted.
	Deny               []string `toml:"deny"`
	Timeout            Duration `toml:"timeout"`     // a request's default deadline (30s)
	MaxTimeout         Duration `toml:"max_timeout"` // the most a call may ask for (5m)
	MaxResponseBytes   int64    `toml:"max_response_bytes"`
	MaxDownloadBytes   int64    `toml:"max_download_bytes"`
	MaxRedirects       int      `toml:"max_redirects"` // at most 10
	PerHostConcurrency int      `toml:"per_host_concurrency"`
	UserAgent          string   `toml:"user_agent"`
	// Chromium is the browser binary; default: chromium (or chromium-browser, google-chrome) on PATH.
	Chromium           string   `toml:"chromium"`
	BrowserIdleTimeout Duration `toml:"browser_idle_timeout"` // default 10m
	MaxBrowsers        int      `toml:"max_browsers"`         // default 4
	// SearchURL is a SearXNG instance (with the json format enabled); setting it advertises
	// web_search. Its host is reachable even when its address is refused by default.
	SearchURL string `toml:"search_url"`
}

// Index configures the working-directory index that grep_search, file_search and the symbol
// operations use. Zero values mean the defaults.
type Index struct {
	// Mode is "auto" (default: built in the background once a search walks a tree of at
	// least min_files files, then kept current), "on" (built when the server starts) or "off"
	// (never built nor used; searches walk the tree).
	Mode     string `toml:"mode"`
	MinFiles int    `toml:"min_files"` // default 2000
	// MaxFiles and MaxBytes bound the tree indexed (defaults 1,000,000 files and 8 GiB of
	// text): a larger tree is not indexed. Files over MaxFileBytes (default 4 MiB) are not
	// indexed but read by every search.
	MaxFiles     int   `toml:"max_files"`
	MaxBytes     int64 `toml:"max_bytes"`
	MaxFileBytes int64 `toml:"max_file_bytes"`
}

// LanguageServers configures the language servers behind find_symbol, list_usages,
// go_to_definition, document_symbols and rename_symbol. Each language's command (a program and
// its arguments) replaces the default found on PATH; "off" leaves that language to the
// built-in parsers.
type LanguageServers struct {
	Off        bool     `toml:"off"`        // no language server at all
	Go         []string `toml:"go"`         // default: gopls
	Python     []string `toml:"python"`     // default: basedpyright-langserver or pyright-langserver --stdio
	TypeScript []string `toml:"typescript"` // default: typescript-language-server --stdio (also JavaScript)
	Rust       []string `toml:"rust"`       // default: rust-analyzer
	C          []string `toml:"c"`          // default: clangd (also C++)
	// IdleTimeout shuts a server down after this long unused (default 10m); Timeout bounds
	// one request (default 20s); StartTimeout bounds how long a call waits for a starting or
	// indexing server before answering from the built-in parsers (default 5s).
	IdleTimeout  Duration `toml:"idle_timeout"`
	Timeout      Duration `toml:"timeout"`
	StartTimeout Duration `toml:"start_timeout"`
}

// Grant is a standing grant from configuration.
type Grant struct {
	Path      string `toml:"path"`
	Access    string `toml:"access"`
	Recursive bool   `toml:"recursive"`
}

// Duration is a time.Duration written as "10m" in TOML.
type Duration struct {
	time.Duration
	// unexpanded holds text with a ${VAR} until Load expands it and parses the result.
	unexpanded string
}

func (d *Duration) UnmarshalText(b []byte) error {
	if strings.Contains(string(b), "${") {
		d.unexpanded = string(b)
		return nil
	}
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %q", b)
	}
	d.Duration = v
	return nil
}

// Builtin profiles exist without configuration; a configured profile of the same name replaces one.
var Builtin = map[string]Profile{
	"full":      {},
	"read-only": {ReadOnly: true},
	// small suits local models with short contexts: smaller results.
	"small": {BudgetTokens: 6000},
}

// ErrUnknownKey is wrapped by Load for keys the configuration does not define.
var ErrUnknownKey = errors.New("unknown configuration key")

// DefaultPath is $XDG_CONFIG_HOME/toolhost/config.toml (or ~/.config/...). Without
// XDG_CONFIG_HOME it uses the value noted from the user's shell (see [RememberXDGDirs]).
func DefaultPath() string {
	return filepath.Join(xdgHome("XDG_CONFIG_HOME"), "toolhost", "config.toml")
}

// DefaultStateDir is $XDG_STATE_HOME/toolhost (or ~/.local/state/toolhost). Without
// XDG_STATE_HOME it uses the value noted from the user's shell (see [RememberXDGDirs]).
func DefaultStateDir() string {
	return filepath.Join(xdgHome("XDG_STATE_HOME"), "toolhost")
}

// Load reads path. A missing file at the default path is an empty configuration; a missing file
// that was named explicitly is an error. Strings have ${VAR} and ${VAR:-default} expanded from
// the environment (see Expand).
func Load(path string, explicit bool) (*Config, error) {
	return load(path, explicit, os.LookupEnv)
}

func load(path string, explicit bool, lookup func(string) (string, bool)) (*Config, error) {
	c := &Config{}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	md, err := toml.Decode(string(data), c)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0].String()
		if near := suggestKey(k); near != "" {
			return nil, fmt.Errorf("config %s:%d: %w %q; did you mean %q?", path, keyLine(data, k), ErrUnknownKey, k, near)
		}
		return nil, fmt.Errorf("config %s:%d: %w %q", path, keyLine(data, k), ErrUnknownKey, k)
	}
	c.Path = path
	record := func(name string) (string, bool) {
		if !slices.Contains(c.Variables, name) {
			c.Variables = append(c.Variables, name)
		}
		return lookup(name)
	}
	if err := c.expandAll(record); err != nil {
		var ke *keyError
		errors.As(err, &ke)
		return nil, fmt.Errorf("config %s:%d: %w", path, keyLine(data, ke.key), err)
	}
	keys := indexKeys(data)
	for _, k := range md.Keys() {
		c.SetOrigin(k.String(), Origin{File: path, Line: keys.line(k.String())})
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	if err := c.checkRules(data); err != nil {
		return nil, fmt.Errorf("config %s:%w", path, err)
	}
	return c, nil
}

// checkRules parses [terminal] rules so a mistake stops the start with the line it is on.
func (c *Config) checkRules(data []byte) error {
	_, err := cmdrules.New(c.Terminal.Rules, c.Terminal.RulesUnmatched, false)
	var se *cmdrules.SyntaxError
	if !errors.As(err, &se) {
		if err != nil {
			return fmt.Errorf("%d: terminal.%w", keyLine(data, "terminal.rules_unmatched"), err)
		}
		return nil
	}
	return fmt.Errorf("%d: terminal.rules: %q: %s", ruleLine(data, c.Terminal.Rules, se.Index), se.Rule, se.Msg)
}

// ruleLine finds the line of the index-th entry of [terminal] rules: the entries are looked
// for in order after the key, each as written or TOML-escaped.
func ruleLine(data []byte, rules []string, index int) int {
	start := keyLine(data, "terminal.rules")
	lines := strings.Split(string(data), "\n")
	at := max(start-1, 0)
	for k := 0; k <= index && k < len(rules); k++ {
		escaped := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(rules[k])
		for i := at; i < len(lines); i++ {
			if strings.Contains(lines[i], rules[k]) || strings.Contains(lines[i], escaped) {
				at = i
				break
			}
		}
	}
	return at + 1
}

func (c *Config) validate() error {
	for name, p := range c.Profiles {
		for _, v := range []string{p.OutsideReads} {
			if v != "" && v != "allow" && v != "grant" {
				return fmt.Errorf("config: profile %s: outside_reads must be allow or grant", name)
			}
		}
	}
	if v := c.Memory.Index; v != "" && v != "slab" && v != "chromem" && v != "auto" {
		return fmt.Errorf("config: memory.index must be auto, chromem or slab")
	}
	if v := c.Guard.OutsideReads; v != "" && v != "allow" && v != "grant" {
		return fmt.Errorf("config: guard.outside_reads must be allow or grant")
	}
	if c.Web.MaxRedirects < 0 || c.Web.MaxRedirects > 10 {
		return fmt.Errorf("config: web.max_redirects must be between 0 and 10")
	}
	if c.Web.MaxResponseBytes < 0 || c.Web.MaxDownloadBytes < 0 || c.Web.PerHostConcurrency < 0 || c.Web.MaxBrowsers < 0 {
		return fmt.Errorf("config: web limits must not be negative")
	}
	if v := c.Index.Mode; v != "" && v != "auto" && v != "on" && v != "off" {
		return fmt.Errorf("config: index.mode %q: want auto, on or off", v)
	}
	if c.Index.MinFiles < 0 || c.Index.MaxFiles < 0 || c.Index.MaxBytes < 0 || c.Index.MaxFileBytes < 0 {
		return fmt.Errorf("config: index limits must not be negative")
	}
	if ls := c.LanguageServers; ls.IdleTimeout.Duration < 0 || ls.Timeout.Duration < 0 || ls.StartTimeout.Duration < 0 {
		return fmt.Errorf("config: language_servers timeouts must not be negative")
	}
	if _, err := sandbox.ParseMode(c.Terminal.Sandbox); err != nil {
		return fmt.Errorf("config: terminal.%w", err)
	}
	switch c.Terminal.Policy {
	case "", "default", "strict":
	default:
		return fmt.Errorf("config: terminal.policy %q: want default or strict", c.Terminal.Policy)
	}
	if c.Output.MaxResultChars < 0 || c.Output.MaxResultLines < 0 {
		return fmt.Errorf("config: output.max_result_chars and output.max_result_lines must not be negative")
	}
	if c.Output.MaxResultChars > 0 && c.Output.MaxResultChars < 1000 {
		return fmt.Errorf("config: output.max_result_chars %d: want at least 1000 (a cut result's notice alone takes about 300)", c.Output.MaxResultChars)
	}
	if c.Output.MaxResultLines > 0 && c.Output.MaxResultLines < 20 {
		return fmt.Errorf("config: output.max_result_lines %d: want at least 20", c.Output.MaxResultLines)
	}
	if c.HTTP.MaxSessions < 0 || c.HTTP.MaxSessionsPerPrincipal < 0 {
		return fmt.Errorf("config: http.max_sessions and http.max_sessions_per_principal must not be negative")
	}
	if c.Lists.TTL.Duration < 0 {
		return fmt.Errorf("config: lists.ttl must not be negative")
	}
	if v := c.Terminal.Recording; v != "" && v != "on" && v != "off" {
		return fmt.Errorf("config: terminal.recording %q: want on or off", v)
	}
	if c.Terminal.KeepSessionsIdle.Duration < 0 {
		return fmt.Errorf("config: terminal.keep_sessions_idle must not be negative")
	}
	if c.Terminal.RecordingBytes < 0 || c.Terminal.RecordingsMaxBytes < 0 {
		return fmt.Errorf("config: terminal.recording_bytes and terminal.recordings_max_bytes must not be negative")
	}
	if c.Executions.MaxRecords < 0 || c.Executions.MaxAge.Duration < 0 {
		return fmt.Errorf("config: executions.max_records and executions.max_age must not be negative")
	}
	if c.Audit.MaxBytes < 0 || c.Audit.MaxAge.Duration < 0 || c.Audit.Keep < 0 {
		return fmt.Errorf("config: audit.max_bytes, audit.max_age and audit.keep must not be negative")
	}
	for key, v := range map[string]string{"per_principal": c.Limits.PerPrincipal, "safe": c.Limits.Safe, "moderate": c.Limits.Moderate, "dangerous": c.Limits.Dangerous} {
		if !rateSyntax(strings.TrimSpace(v)) {
			return fmt.Errorf("config: limits.%s %q: want N/s, N/min or N/h, e.g. 60/min", key, v)
		}
	}
	if v := c.Stdio.Tier; v != "" && v != "view_only" && v != "execute_basic" && v != "execute_advanced" && v != "admin" {
		return fmt.Errorf("config: stdio.tier %q: want view_only, execute_basic, execute_advanced or admin", v)
	}
	return validateDatabases(c.Databases)
}

// rateSyntax reports whether s is a rate limit as engine.ParseRate reads it, or nothing:
// "", "0", "none" or digits, a slash and a unit, with spaces around the slash. Every start
// checks the four limits, so this is plain string work rather than a regular expression
// compiled for it.
func rateSyntax(s string) bool {
	switch s {
	case "", "0", "none":
		return true
	}
	num, unit, ok := strings.Cut(s, "/")
	num = strings.TrimRight(num, asciiSpace)
	if !ok || num == "" || strings.Trim(num, "0123456789") != "" {
		return false
	}
	switch strings.TrimLeft(unit, asciiSpace) {
	case "s", "sec", "second", "m", "min", "minute", "h", "hour":
		return true
	}
	return false
}

// asciiSpace is the white space a rate may have around its slash.
const asciiSpace = " \t\n\f\r"

// keyLine finds the line defining the dotted key k, for error messages; 0 if not found.
func keyLine(data []byte, k string) int { return indexKeys(data).line(k) }

// keyIndex lists the table headers and keys of a TOML file with their lines, in file order:
// read once per file, so that the origin of every key costs a lookup, not a scan of the file.
type keyIndex []keyEntry

type keyEntry struct {
	name  string // a table's name, or a key with its table's name before it
	table bool
	line  int
}

// indexKeys reads the table header or key that starts each line of data.
func indexKeys(data []byte) keyIndex {
	var idx keyIndex
	section := ""
	for n, line := range strings.Split(string(data), "\n") {
		if name, ok := tableHeader(line); ok {
			section = strings.ReplaceAll(name, `"`, "")
			idx = append(idx, keyEntry{name: section, table: true, line: n + 1})
			continue
		}
		if name, ok := keyBeforeEquals(line); ok {
			full := strings.Trim(name, `"`)
			if section != "" {
				full = section + "." + full
			}
			idx = append(idx, keyEntry{name: full, line: n + 1})
		}
	}
	return idx
}

// line returns the line of the first header naming the table k, or of the first key that is k
// or holds it (a dotted key or an inline table); 0 if there is none.
func (idx keyIndex) line(k string) int {
	for _, e := range idx {
		if e.name == k || !e.table && strings.HasPrefix(k, e.name+".") {
			return e.line
		}
	}
	return 0
}

// tableHeader reads a "[name]" or "[[name]]" header at the start of line.
func tableHeader(line string) (string, bool) {
	t := strings.TrimLeft(line, asciiSpace)
	if !strings.HasPrefix(t, "[") {
		return "", false
	}
	if strings.HasPrefix(t, "[[") {
		if name, ok := headerName(t[2:]); ok {
			return name, true
		}
	}
	return headerName(t[1:])
}

// headerName reads the name before the first "]" of a header, without the space around it; a
// name of spaces alone is its last one.
func headerName(t string) (string, bool) {
	end := strings.IndexByte(t, ']')
	if end <= 0 {
		return "", false
	}
	if name := strings.Trim(t[:end], asciiSpace); name != "" {
		return name, true
	}
	return t[end-1 : end], true
}

// keyBeforeEquals reads a bare or quoted key followed by "=" at the start of line, quotes
// included.
func keyBeforeEquals(line string) (string, bool) {
	t := strings.TrimLeft(line, asciiSpace)
	i := 0
	if i < len(t) && t[i] == '"' {
		i++
	}
	start := i
	for i < len(t) && (t[i] >= 'A' && t[i] <= 'Z' || t[i] >= 'a' && t[i] <= 'z' || t[i] >= '0' && t[i] <= '9' || t[i] == '_' || t[i] == '.' || t[i] == '-') {
		i++
	}
	if i == start {
		return "", false
	}
	if i < len(t) && t[i] == '"' {
		i++
	}
	if rest := strings.TrimLeft(t[i:], asciiSpace); !strings.HasPrefix(rest, "=") {
		return "", false
	}
	return t[:i], true
}

// ActiveProfile returns the selected profile: configured profiles first, then built-in ones.
func (c *Config) ActiveProfile() (string, Profile, error) {
	name := c.Profile
	if name == "" {
		name = "full"
	}
	if p, ok := c.Profiles[name]; ok {
		return name, p, nil
	}
	if p, ok := Builtin[name]; ok {
		return name, p, nil
	}
	var names []string
	for n := range Builtin {
		names = append(names, n)
	}
	for n := range c.Profiles {
		names = append(names, n)
	}
	slices.Sort(names)
	return "", Profile{}, fmt.Errorf("no profile %q (profiles: %s)", name, strings.Join(slices.Compact(names), ", "))
}

// Enabled reports whether the profile enables an operation of the given risk. Risks are the
// strings of consolidated.Risk: read, state, write, execute, network.
func (p Profile) Enabled(tool, op, risk string) bool {
	if p.ReadOnly && risk != "read" && risk != "state" {
		return false
	}
	if len(p.Tools) > 0 && !slices.Contains(p.Tools, tool) && !slices.Contains(p.Tools, tool+"."+op) {
		return false
	}
	return !slices.Contains(p.Disable, tool) && !slices.Contains(p.Disable, tool+"."+op)
}

// DefaultConversation derives a conversation id from the working directory, stable across
// restarts: "wd-" and the first 12 hex digits of the path's SHA-256.
func DefaultConversation(workdir string) string {
	sum := sha256.Sum256([]byte(workdir))
	return "wd-" + hex.EncodeToString(sum[:6])
}
