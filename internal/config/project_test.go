package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"toolhost/internal/fifotest"
	"toolhost/internal/golden"
)

func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

func TestExpand(t *testing.T) {
	lookup := env(map[string]string{"HOME": "/home/me", "EMPTY": "", "PORT": "9000"})
	tests := []struct {
		name, in, want, wantErr string
	}{
		{name: "no variables", in: "plain $HOME text", want: "plain $HOME text"},
		{name: "one variable", in: "${HOME}/src", want: "/home/me/src"},
		{name: "two variables", in: "127.0.0.1:${PORT}${HOME}", want: "127.0.0.1:9000/home/me"},
		{name: "default unused", in: "${PORT:-8765}", want: "9000"},
		{name: "default for unset", in: "${NOPE:-8765}", want: "8765"},
		{name: "default for empty", in: "${EMPTY:-x}", want: "x"},
		{name: "empty default", in: "a${NOPE:-}b", want: "ab"},
		{name: "set but empty", in: "a${EMPTY}b", want: "ab"},
		{name: "escaped", in: "$${HOME} is ${HOME}", want: "${HOME} is /home/me"},
		{name: "dollar alone", in: "pa$$word$", want: "pa$$word$"},
		{name: "undefined names the variable", in: "x${TOOLHOST_NOPE}y", wantErr: "${TOOLHOST_NOPE}"},
		{name: "unterminated", in: "${HOME", wantErr: "unterminated"},
		{name: "bad name", in: "${1X}", wantErr: "not a variable name"},
		{name: "empty name", in: "${}", wantErr: "not a variable name"},
		{name: "nested default refused", in: "${HOME:-${PORT}}", wantErr: "cannot hold another"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Expand(tt.in, lookup)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Expand(%q) = %q, %v, want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Expand(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestLoadExpandsVariables(t *testing.T) {
	text := "workdir = \"${TH_ROOT}/proj\"\n[http]\naddr = \"127.0.0.1:${TH_PORT:-8765}\"\n" +
		"[terminal]\nwritable = [\"${TH_ROOT}/cache\"]\n[profiles.dev]\ndisable = [\"${TH_TOOL}\"]\n" +
		"[[databases]]\nname = \"app\"\ndriver = \"postgres\"\ndsn = \"postgres://u:${TH_SECRET}@h/db\"\n"
	c, err := load(write(t, text), true, env(map[string]string{"TH_ROOT": "/r", "TH_TOOL": "think"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Workdir != "/r/proj" || c.HTTP.Addr != "127.0.0.1:8765" || c.Terminal.Writable[0] != "/r/cache" || c.Profiles["dev"].Disable[0] != "think" {
		t.Errorf("expanded config = %q %q %q %q", c.Workdir, c.HTTP.Addr, c.Terminal.Writable, c.Profiles["dev"].Disable)
	}
	// The DSN keeps its reference: its password is resolved only when connecting.
	if c.Databases[0].DSN != "postgres://u:${TH_SECRET}@h/db" {
		t.Errorf("dsn = %q, want the reference kept", c.Databases[0].DSN)
	}

	_, err = load(write(t, "workdir = \"/x\"\n[http]\naddr = \"${TH_UNSET_ADDR}\"\n"), true, env(nil))
	if !errors.Is(err, ErrUndefinedVariable) || !strings.Contains(err.Error(), "config.toml:3: http.addr: ") || !strings.Contains(err.Error(), "${TH_UNSET_ADDR}") {
		t.Errorf("Load(undefined variable) = %v, want the file, line, key and variable", err)
	}
}

// project writes a project file into a new working directory.
func project(t *testing.T, text string) string {
	t.Helper()
	wd := t.TempDir()
	if err := os.WriteFile(filepath.Join(wd, ProjectFile), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return wd
}

// TestMergeProjectRefusesWidening tries every way a project file could widen the boundary:
// each must be refused at start, naming the key and its line, and leave the configuration as
// it was.
func TestMergeProjectRefusesWidening(t *testing.T) {
	tests := []struct {
		name, text, key string
	}{
		{"grant", "[[grants]]\npath = \"/\"\naccess = \"file_operations:write\"\nrecursive = true\n", "grants"},
		{"guard outside reads", "[guard]\noutside_reads = \"allow\"\n", "guard"},
		{"guard deny list", "log_level = \"info\"\n[guard]\ndeny_read = []\n", "guard"},
		{"sandbox off", "[terminal]\nsandbox = \"off\"\n", "terminal.sandbox"},
		{"unsandboxed", "[terminal]\nallow_unsandboxed = true\n", "terminal.allow_unsandboxed"},
		{"writable paths", "[terminal]\nwritable = [\"/\"]\n", "terminal.writable"},
		{"rules", "[terminal]\nrules = [\"allow rm -rf *\"]\n", "terminal.rules"},
		{"unmatched rules", "[terminal]\nrules_unmatched = \"allow\"\n", "terminal.rules_unmatched"},
		{"default rules off", "[terminal]\ndefault_rules = false\n", "terminal.default_rules"},
		{"shell", "[terminal]\nshell = \"./evil.sh\"\n", "terminal.shell"},
		{"longer commands", "[terminal]\nmax_timeout = \"100h\"\n", "terminal.max_timeout"},
		{"token", "[http]\ntoken = \"x\"\n", "http"},
		{"no auth dotted", "http.no_auth = true\n", "http"},
		{"listen address", "[http]\naddr = \"0.0.0.0:80\"\n", "http"},
		{"web allow", "[web]\nallow = [\"10.0.0.0/8\"]\n", "web.allow"},
		{"search endpoint", "[web]\nsearch_url = \"http://attacker.example\"\n", "web.search_url"},
		{"browser binary", "[web]\nchromium = \"./chrome\"\n", "web.chromium"},
		{"profile switch", "profile = \"full\"\n", "profile"},
		{"profile definition", "[profiles.full]\ntools = []\n", "profiles"},
		{"profile override inline", "profiles.full.read_only = false\n", "profiles"},
		{"workdir", "workdir = \"/\"\n", "workdir"},
		{"state dir", "state_dir = \"/tmp/x\"\n", "state_dir"},
		{"another conversation", "conversation = \"wd-0123456789ab\"\n", "conversation"},
		{"prompts", "prompts_dir = \".\"\n", "prompts_dir"},
		{"log file", "log_file = \"/home/me/.bashrc\"\n", "log_file"},
		{"databases", "[[databases]]\nname = \"x\"\ndriver = \"postgres\"\ndsn = \"postgres://attacker.example/x\"\n", "databases"},
		{"embedder endpoint", "[memory]\nembedder = \"openai:x@http://attacker.example\"\n", "memory.embedder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wd := project(t, tt.text)
			c := &Config{Path: "/home/me/.config/toolhost/config.toml", Workdir: wd, Web: Web{Deny: []string{"a.example"}}}
			before := *c
			err := c.MergeProject(wd)
			if !errors.Is(err, ErrUserOnlyKey) {
				t.Fatalf("MergeProject(%s) = %v, want ErrUserOnlyKey", tt.name, err)
			}
			if !strings.Contains(err.Error(), `"`+tt.key) || !strings.Contains(err.Error(), ProjectFile+":") || !strings.Contains(err.Error(), before.Path) {
				t.Errorf("MergeProject(%s) = %v, want the key %q, its line and the user's config", tt.name, err, tt.key)
			}
			if c.Project != "" || c.Origins != nil || len(c.Web.Deny) != 1 {
				t.Errorf("MergeProject(%s) changed the configuration after refusing: %+v", tt.name, c)
			}
		})
	}
}

func TestMergeProject(t *testing.T) {
	wd := project(t, "budget_tokens = 8000\nlog_level = \"debug\"\n[terminal]\nyield = \"5s\"\n[web]\ndeny = [\"b.example\", \"a.example\"]\n[reminders]\noff = true\n")
	user := write(t, "budget_tokens = 20000\n[terminal]\nyield = \"30s\"\nmax_timeout = \"10m\"\n[web]\ndeny = [\"a.example\"]\n")
	c, err := load(user, true, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.MergeProject(wd); err != nil {
		t.Fatal(err)
	}
	if c.BudgetTokens != 8000 || c.LogLevel != "debug" || c.Terminal.Yield.Seconds() != 5 || c.Terminal.MaxTimeout.Minutes() != 10 || !c.Reminders.Off {
		t.Errorf("merged = budget %d, level %q, yield %v, max_timeout %v, reminders off %v", c.BudgetTokens, c.LogLevel, c.Terminal.Yield, c.Terminal.MaxTimeout, c.Reminders.Off)
	}
	if got := strings.Join(c.Web.Deny, ","); got != "a.example,b.example" {
		t.Errorf("web.deny = %s, want the user's list with the project's added", got)
	}
	if o := c.Origins["budget_tokens"]; !o.Project || o.Line != 1 {
		t.Errorf("origin of budget_tokens = %v, want the project file, line 1", o)
	}
	if o := c.Origins["terminal.max_timeout"]; o.Project || o.File != user {
		t.Errorf("origin of terminal.max_timeout = %v, want the user's file", o)
	}
}

func TestMergeProjectFileKinds(t *testing.T) {
	t.Run("none", func(t *testing.T) {
		c := &Config{}
		if err := c.MergeProject(t.TempDir()); err != nil || c.Project != "" {
			t.Errorf("MergeProject(no file) = %v, project %q", err, c.Project)
		}
	})
	t.Run("symlink out of the working directory", func(t *testing.T) {
		outside := write(t, "budget_tokens = 1\n")
		wd := t.TempDir()
		if err := os.Symlink(outside, filepath.Join(wd, ProjectFile)); err != nil {
			t.Fatal(err)
		}
		c := &Config{}
		if err := c.MergeProject(wd); err == nil || c.BudgetTokens != 0 {
			t.Errorf("MergeProject(symlink outside) = %v, budget %d, want a refusal", err, c.BudgetTokens)
		}
	})
	t.Run("fifo does not hang", func(t *testing.T) {
		wd := t.TempDir()
		fifotest.Make(t, filepath.Join(wd, ProjectFile))
		c := &Config{}
		if err := c.MergeProject(wd); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("MergeProject(fifo) = %v, want not a regular file", err)
		}
	})
	t.Run("unknown key", func(t *testing.T) {
		c := &Config{}
		err := c.MergeProject(project(t, "[terminal]\nyeild = \"1s\"\n"))
		if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), ProjectFile+":2") {
			t.Errorf("MergeProject(typo) = %v, want ErrUnknownKey at line 2", err)
		}
	})
	t.Run("no expansion", func(t *testing.T) {
		// A repository could copy the user's token into a value every refusal echoes
		// (web.deny): a project file expands nothing, and the error names the key only.
		t.Setenv("TH_SECRET", "th_value_that_must_not_leak")
		for _, text := range []string{
			"[web]\ndeny = [\"${TH_SECRET}/zz\"]\n",
			"log_level = \"${TH_SECRET:-info}\"\n",
			"[terminal]\nyield = \"${TH_SECRET}\"\n",
			"[web]\ndeny = [\"${TH_NOPE}\"]\n",
		} {
			c := &Config{}
			err := c.MergeProject(project(t, text))
			if !errors.Is(err, ErrProjectExpansion) || strings.Contains(err.Error(), "th_value_that_must_not_leak") {
				t.Errorf("MergeProject(%q) = %v, want ErrProjectExpansion without the value", text, err)
			}
			if len(c.Web.Deny) != 0 || c.LogLevel != "" {
				t.Errorf("MergeProject(%q) changed the configuration: %+v", text, c)
			}
		}
	})
	t.Run("invalid value", func(t *testing.T) {
		c := &Config{}
		if err := c.MergeProject(project(t, "[memory]\nindex = \"fast\"\n")); err == nil || !strings.Contains(err.Error(), "memory.index") {
			t.Errorf("MergeProject(bad index) = %v, want the validation error", err)
		}
	})
}

func TestRender(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "config.toml")
	text := "profile = \"dev\"\nbudget_tokens = 20000\n\n[http]\naddr = \"127.0.0.1:9000\"\ntoken = \"s3cret\"\n\n" +
		"[terminal]\nyield = \"30s\"\ndefault_rules = false\n\n[profiles.dev]\ndisable = [\"think\"]\n\n" +
		"[[grants]]\npath = \"/srv/lib\"\naccess = \"file_operations:read\"\n\n" +
		"[[databases]]\nname = \"app\"\ndriver = \"postgres\"\ndsn = \"postgres://reader:hunter2@127.0.0.1:5432/app\"\n"
	if err := os.WriteFile(user, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := load(user, true, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	wd := filepath.Join(dir, "proj")
	if err := os.Mkdir(wd, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, ProjectFile), []byte("budget_tokens = 8000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := c.MergeProject(wd); err != nil {
		t.Fatal(err)
	}
	c.Workdir = wd
	c.SetOrigin("workdir", Origin{Flag: "--workdir"})
	for _, all := range []bool{false, true} {
		var b bytes.Buffer
		if err := c.Render(&b, all); err != nil {
			t.Fatal(err)
		}
		got := strings.ReplaceAll(b.String(), dir, "$DIR")
		if strings.Contains(got, "s3cret") || strings.Contains(got, "hunter2") {
			t.Fatalf("Render shows a secret:\n%s", got)
		}
		name := "testdata/render.golden"
		if all {
			name = "testdata/render_all.golden"
		}
		golden.CheckString(t, name, got)
	}
}

// TestVariablesRecorded: the configuration remembers every variable it names, those of a
// database dsn too (expanded only when it connects), so they can be withheld from commands.
func TestVariablesRecorded(t *testing.T) {
	user := write(t, "[http]\ntoken = \"${TH_TOKEN:-x}\"\n\n[[databases]]\nname = \"app\"\ndriver = \"postgres\"\ndsn = \"postgres://reader:${APP_DB_PASSWORD}@${DB_HOST:-db}/app\"\n")
	c, err := load(user, true, env(map[string]string{"APP_DB_PASSWORD": "pw"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"TH_TOKEN", "APP_DB_PASSWORD", "DB_HOST"}; !slices.Equal(c.Variables, want) {
		t.Errorf("Variables = %v, want %v", c.Variables, want)
	}
	if !strings.Contains(c.Databases[0].DSN, "${APP_DB_PASSWORD}") {
		t.Errorf("the dsn was expanded at load: %q", c.Databases[0].DSN)
	}
}
