package terminal

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"toolhost/internal/gate"
	"toolhost/store"
)

// Config tunes a Manager. Zero values take the documented defaults, so a caller only sets
// what its configuration file overrides.
type Config struct {
	// Shell is the interactive shell for sessions. Empty means $SHELL when it is bash,
	// otherwise bash from PATH, otherwise sh. Exit statuses of session commands are only
	// known with bash (prompt markers).
	Shell string
	// MaxSessionsPerConversation and MaxSessions bound live PTY sessions (defaults 8 and 32).
	MaxSessionsPerConversation, MaxSessions int
	// MaxJobs bounds one-shot commands still running per conversation (default 16).
	MaxJobs int
	// IdleTimeout closes a session nobody has used for this long (default 1 hour).
	IdleTimeout time.Duration
	// HistoryBytes is the retained log per session or command (default 2 MiB).
	HistoryBytes int
	// DefaultYield is how long run_command waits before handing back a job id (default 15 s).
	DefaultYield time.Duration
	// MaxWait caps any single wait (yield, wait_ms) so no call blocks longer (default 60 s).
	MaxWait time.Duration
	// DefaultTimeout and MaxTimeout bound one-shot commands (defaults 120 s and 600 s).
	DefaultTimeout, MaxTimeout time.Duration
	// CloseGrace is the wait between SIGTERM and SIGKILL when closing (default 2 s).
	CloseGrace time.Duration
	// Settle is how long output must be quiet before a wait without wait_for returns
	// (default 300 ms).
	Settle time.Duration
	// Store persists session metadata and history tails; nil keeps everything in memory.
	Store *store.Store
	// OnUpdate is called (throttled to about four times a second per session, never on the
	// output path) when a session's screen or history changed, so the MCP layer can send
	// resource-updated notifications. It must not block for long. Manager.SetOnUpdate replaces it
	// on a running manager.
	OnUpdate func(conv, id string)
	// Gate decides every start: the command rules on a run_command's line and on each line
	// typed into a session, the Landlock policy of each command and session (asked at every
	// start, so grants made since the last one apply; a session keeps what it started with)
	// and the environment children inherit. nil starts everything unconfined, with every
	// line allowed and toolhost's variables removed.
	Gate Gate
	// RecordDir, when set, is where sessions are recorded as asciicast (record.go);
	// RecordSegmentBytes and RecordSegments bound one session's recording (defaults 4 MiB and
	// 4: at most about 16 MiB however much it prints) and RecordingsMaxBytes all of them
	// (default 256 MiB; recordings of ended sessions go, oldest first).
	RecordDir          string
	RecordSegmentBytes int64
	RecordSegments     int
	RecordingsMaxBytes int64
	// CleanupAfter, when set, holds back the cleanup of what dead toolhost processes left
	// (temporary directories, orphaned commands) until it closes. Listing a busy temp
	// directory and every process's environment costs more CPU than the rest of a server's
	// start; a server closes it once it has answered its first tools/list.
	CleanupAfter <-chan struct{}
	// Host, when set, keeps sessions and commands in the terminal host of a state directory,
	// where they outlive this process ([terminal] keep_sessions): see ServeHost.
	Host *HostOptions

	// persistCommands writes one-shot commands to the store with their output, as sessions
	// are: a terminal host's (ServeHost), whose crash must lose no record.
	persistCommands bool
	// commandOutputDir, when set (a terminal host), is where each command's output is
	// written as it comes, unbuffered: what a host killed mid-command printed is there for
	// the next reader of the command's record (recover.go).
	commandOutputDir string
}

// Gate decides what the engine starts; *gate.Gate is the one toolhost uses, and a nil
// *gate.Gate confines nothing.
type Gate interface {
	// Start decides a command (req.Line set) or a session's shell starting now.
	Start(ctx context.Context, req gate.Request) (*gate.Start, error)
	// Check decides a line typed into a session before it is typed.
	Check(ctx context.Context, conv string, l gate.Line) error
	// Withheld says whether no child may get the variable.
	Withheld(name string) bool
}

const (
	defaultCols, defaultRows = 120, 40
	maxCols, maxRows         = 1000, 500
	tailBytes                = 64 << 10 // history tail persisted and per-stream head/tail of commands
	vtPendingCap             = 256 << 10
	updateEvery              = 250 * time.Millisecond
	markerEnv                = "TOOLHOST_TERMINAL_ID"
	maxInputBytes            = 64 << 10 // text typed by one send_input
	// noTerminal is TERM for one-shot commands, which run without a terminal.
	noTerminal = "dumb"
)

func (c Config) withDefaults() Config {
	if c.Gate == nil {
		c.Gate = (*gate.Gate)(nil)
	}
	if c.MaxSessionsPerConversation <= 0 {
		c.MaxSessionsPerConversation = 8
	}
	if c.MaxSessions <= 0 {
		c.MaxSessions = 32
	}
	if c.MaxJobs <= 0 {
		c.MaxJobs = 16
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = time.Hour
	}
	if c.HistoryBytes <= 0 {
		c.HistoryBytes = 2 << 20
	}
	if c.DefaultYield <= 0 {
		c.DefaultYield = 15 * time.Second
	}
	if c.MaxWait <= 0 {
		c.MaxWait = 60 * time.Second
	}
	if c.DefaultTimeout <= 0 {
		c.DefaultTimeout = 120 * time.Second
	}
	if c.MaxTimeout <= 0 {
		c.MaxTimeout = 600 * time.Second
	}
	if c.DefaultTimeout > c.MaxTimeout {
		c.DefaultTimeout = c.MaxTimeout
	}
	if c.CloseGrace <= 0 {
		c.CloseGrace = 2 * time.Second
	}
	if c.Settle <= 0 {
		c.Settle = 300 * time.Millisecond
	}
	if c.RecordSegmentBytes <= 0 {
		c.RecordSegmentBytes = DefaultRecordSegmentBytes
	}
	if c.RecordSegments < 2 {
		c.RecordSegments = DefaultRecordSegments
	}
	if c.RecordingsMaxBytes <= 0 {
		c.RecordingsMaxBytes = DefaultRecordingsMaxBytes
	}
	return c
}

// resolveShell picks the session shell and whether it is bash (which gets prompt markers).
func resolveShell(configured string) (path string, bash bool) {
	isBash := func(p string) bool { return isBashName(filepath.Base(p), runtime.GOOS) }
	if configured != "" {
		if p, err := exec.LookPath(configured); err == nil {
			return p, isBash(p)
		}
	}
	if sh := os.Getenv("SHELL"); sh != "" && isBash(sh) {
		if p, err := exec.LookPath(sh); err == nil {
			return p, true
		}
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p, true
	}
	if p, err := exec.LookPath("sh"); err == nil {
		return p, false
	}
	return "/bin/sh", false
}

// isBashName says whether an executable's base name is bash's: "bash", and on Windows also
// "bash.exe" in any letter case (Git for Windows' bash).
func isBashName(name, goos string) bool {
	if goos == "windows" {
		name = strings.TrimSuffix(strings.ToLower(name), ".exe")
	}
	return name == "bash"
}

// defaultSignalPrefix returns a command prefix that restores default signal dispositions
// in a child, needed when toolhost itself runs with signals ignored (started in the
// background by a non-interactive shell, nohup, some launchers). Ignored dispositions are
// inherited across exec, and bash passes them on to every program it runs, so ctrl-c would
// never interrupt anything. Go offers no hook to reset them between fork and exec; GNU env
// does it with --default-signal. nil when nothing is ignored or env cannot help.
func defaultSignalPrefix() []string {
	ignored := false
	for _, sig := range jobSignals {
		if signal.Ignored(sig) {
			ignored = true
		}
	}
	if !ignored {
		return nil
	}
	p, err := exec.LookPath("env")
	if err == nil {
		err = exec.Command(p, "--default-signal", "true").Run()
	}
	if err != nil {
		slog.Warn("terminal: toolhost runs with ignored signals and env --default-signal is unavailable; ctrl-c may not interrupt programs in sessions", "err", err)
		return nil
	}
	return []string{p, "--default-signal"}
}

// childEnv builds a child's environment: the gate's (the server's own minus secrets), then
// the settings that keep programs from waiting on a terminal nobody reads, then the caller's
// extras (never a withheld name).
func childEnv(g Gate, base []string, term string, extra map[string]string, marker string) []string {
	drop := g.Withheld
	forced := map[string]string{
		"TERM":                term,
		"PAGER":               "cat",
		"GIT_PAGER":           "cat",
		"MANPAGER":            "cat",
		"SYSTEMD_PAGER":       "",
		"GIT_TERMINAL_PROMPT": "0",
		"GIT_ASKPASS":         "",
		"SSH_ASKPASS":         "",
		"DEBIAN_FRONTEND":     "noninteractive",
	}
	if term == noTerminal {
		// One-shot commands have no terminal: an editor (git commit without -m, crontab -e)
		// would wait for keys nobody can type until the timeout. Fail at once instead; git
		// then says to pass -m or -F.
		for _, name := range []string{"EDITOR", "VISUAL", "GIT_EDITOR"} {
			forced[name] = "false"
		}
	}
	var env []string
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := forced[name]; ok {
			continue
		}
		if _, ok := extra[name]; ok {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range forced {
		if _, ok := extra[k]; ok {
			continue
		}
		env = append(env, k+"="+v)
	}
	for k, v := range extra {
		if drop(k) {
			continue
		}
		env = append(env, k+"="+v)
	}
	if marker != "" {
		env = append(env, marker)
	}
	return env
}
