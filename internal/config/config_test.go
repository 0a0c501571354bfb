package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		wantErr string
	}{
		{"empty", "", ""},
		{"full", "workdir = \"/tmp\"\nprofile = \"dev\"\n[http]\naddr = \"127.0.0.1:9000\"\nsession_timeout = \"10m\"\n[profiles.dev]\ndisable = [\"terminal_operations\"]\n", ""},
		{"unknown top-level key", "workdir = \"/tmp\"\nworkdri = \"/x\"\n", `config.toml:2: unknown configuration key "workdri"`},
		{"duplicate table", "[http]\naddr = \"x\"\n\n[http]\n", "line 4"},
		{"unknown key in table", "[http]\naddr = \"x\"\ntokn = \"y\"\n", `config.toml:3: unknown configuration key "http.tokn"`},
		{"unknown key in profile", "[profiles.dev]\nread_only = true\nreadonly = true\n", `config.toml:3: unknown configuration key "profiles.dev.readonly"`},
		{"bad duration", "[http]\nsession_timeout = \"soon\"\n", "invalid duration"},
		{"bad outside_reads", "[guard]\noutside_reads = \"maybe\"\n", "outside_reads must be allow or grant"},
		{"syntax error", "workdir = \n", "config"},
		{"web", "[web]\nallow = [\"10.0.0.0/8\", \"intranet.example:8080\"]\ndeny = [\"*.ads.example\"]\nmax_redirects = 5\nbrowser_idle_timeout = \"2m\"\n", ""},
		{"unknown key in web", "[web]\nallow = []\nalow = []\n", `config.toml:3: unknown configuration key "web.alow"`},
		{"too many redirects", "[web]\nmax_redirects = 11\n", "web.max_redirects must be between 0 and 10"},
		{"negative web limit", "[web]\nmax_browsers = -1\n", "web limits must not be negative"},
		{"negative result chars", "[output]\nmax_result_chars = -1\n", "output.max_result_chars and output.max_result_lines must not be negative"},
		{"result chars too few for a cut", "[output]\nmax_result_chars = 999\n", "output.max_result_chars 999: want at least 1000"},
		{"result lines too few", "[output]\nmax_result_lines = 19\n", "output.max_result_lines 19: want at least 20"},
		{"negative session bound", "[http]\nmax_sessions_per_principal = -2\n", "http.max_sessions and http.max_sessions_per_principal must not be negative"},
		{"negative list ttl", "[lists]\nttl = \"-1s\"\n", "lists.ttl must not be negative"},
		{"client limits and bounds at their least", "[output]\nmax_result_chars = 1000\nmax_result_lines = 20\n[http]\nmax_sessions = 1\nmax_sessions_per_principal = 1\n[lists]\nttl = \"0s\"\n", ""},
		{"terminal sandbox", "[terminal]\nsandbox = \"read-only\"\nallow_unsandboxed = true\nwritable = [\"~/.cache/x\"]\n", ""},
		{"bad sandbox mode", "[terminal]\nsandbox = \"strict\"\n", "want workspace-write, read-only or off"},
		{"rules", "[terminal]\nrules_unmatched = \"deny\"\ndefault_rules = false\nrules = [\n  \"allow git status\",\n  \"deny git push --force* # force\",\n]\n", ""},
		{"rule with a bad action names its line", "[terminal]\nrules = [\n  \"allow git status\",\n  \"deny ls\",\n  \"permit rm\",\n]\n", `config.toml:5: terminal.rules: "permit rm"`},
		{"rule with a bad pattern names its line", "[terminal]\nrules = [\"allow ls\", \"deny a; b\"]\n", `config.toml:2: terminal.rules: "deny a; b": a pattern is one command`},
		{"bad unmatched action", "[terminal]\nrules_unmatched = \"maybe\"\n", "config.toml:2: terminal.rules_unmatched"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(write(t, tt.text), true)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Load() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Load() = %v, want error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestLoadUnknownKeyIsTyped(t *testing.T) {
	_, err := Load(write(t, "nope = 1\n"), true)
	if !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("Load() = %v, want ErrUnknownKey", err)
	}
}

// TestUnknownKeySuggests checks the "did you mean" of an unknown key, at the top level, in a
// table and under a map (a profile's name is kept as written).
func TestUnknownKeySuggests(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"top level", "worksdir = \"/tmp\"\n", `did you mean "workdir"?`},
		{"table", "[memory]\nembeder = \"x\"\n", `did you mean "memory.embedder"?`},
		{"profile", "[profiles.mine]\ndisabel = [\"think\"]\n", `did you mean "profiles.mine.disable"?`},
		{"nothing close", "zzzzzzzzzzzzzzzz = 1\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(write(t, tt.file), true)
			if !errors.Is(err, ErrUnknownKey) {
				t.Fatalf("Load(%q) = %v, want ErrUnknownKey", tt.file, err)
			}
			if got := err.Error(); tt.want == "" && strings.Contains(got, "did you mean") || !strings.Contains(got, tt.want) {
				t.Errorf("Load(%q) = %q, want it to contain %q", tt.file, got, tt.want)
			}
		})
	}
}

func TestLoadMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "absent.toml")
	if _, err := Load(missing, false); err != nil {
		t.Errorf("Load(default missing) = %v, want an empty config", err)
	}
	if _, err := Load(missing, true); err == nil {
		t.Errorf("Load(explicit missing) = nil, want an error")
	}
}

func TestProfiles(t *testing.T) {
	c := &Config{Profile: "box", Profiles: map[string]Profile{"box": {Tools: []string{"file_operations", "terminal_operations.run_command"}, Disable: []string{"file_operations.delete_file"}}}}
	name, p, err := c.ActiveProfile()
	if err != nil || name != "box" {
		t.Fatalf("ActiveProfile() = %s, %v", name, err)
	}
	tests := []struct {
		tool, op, risk string
		want           bool
	}{
		{"file_operations", "read_file", "read", true},
		{"file_operations", "delete_file", "write", false},
		{"terminal_operations", "run_command", "execute", true},
		{"terminal_operations", "create_session", "execute", false},
		{"think", "think", "read", false},
	}
	for _, tt := range tests {
		if got := p.Enabled(tt.tool, tt.op, tt.risk); got != tt.want {
			t.Errorf("Enabled(%s, %s, %s) = %v, want %v", tt.tool, tt.op, tt.risk, got, tt.want)
		}
	}
	ro := Builtin["read-only"]
	for _, tt := range []struct {
		risk string
		want bool
	}{{"read", true}, {"state", true}, {"write", false}, {"execute", false}, {"network", false}} {
		if got := ro.Enabled("x", "y", tt.risk); got != tt.want {
			t.Errorf("read-only Enabled(risk %s) = %v, want %v", tt.risk, got, tt.want)
		}
	}
	if _, _, err := (&Config{Profile: "nope"}).ActiveProfile(); err == nil || !strings.Contains(err.Error(), "full, read-only, small") {
		t.Errorf("ActiveProfile(nope) = %v, want the list of profiles", err)
	}
}

func TestDefaultConversationIsStable(t *testing.T) {
	a, b := DefaultConversation("/w/proj"), DefaultConversation("/w/proj")
	if a != b || a == DefaultConversation("/w/proj2") || !strings.HasPrefix(a, "wd-") {
		t.Errorf("DefaultConversation = %s, %s", a, b)
	}
}

// TestConfigDocExampleParses keeps the configuration example of docs/configuration.md valid.
func TestConfigDocExampleParses(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "```toml\nworkdir =")
	if start < 0 {
		t.Fatal("docs/configuration.md has no configuration example starting with workdir")
	}
	body := text[start+len("```toml\n"):]
	body = body[:strings.Index(body, "```")]
	c, err := Load(write(t, body), true)
	if err != nil {
		t.Fatalf("docs/configuration.md configuration example: %v", err)
	}
	if _, _, err := c.ActiveProfile(); err != nil {
		t.Fatal(err)
	}
}

func TestExecutionsLimitsAndStdio(t *testing.T) {
	tests := []struct {
		name, body, wantErr string
	}{
		{"all set", "[executions]\nmax_records = 10\nmax_age = \"1h\"\n[limits]\nper_principal = \"60/min\"\ndangerous = \"5 / s\"\n[stdio]\ntier = \"execute_basic\"\n", ""},
		{"empty limits", "[limits]\nsafe = \"\"\nmoderate = \"0\"\n", ""},
		{"negative records", "[executions]\nmax_records = -1\n", "executions.max_records"},
		{"audit set", "[audit]\nmax_bytes = 1048576\nmax_age = \"24h\"\nkeep = 3\n", ""},
		{"negative audit keep", "[audit]\nkeep = -1\n", "audit.keep"},
		{"audit key misspelt", "[audit]\nkept = 3\n", "audit.keep"},
		{"limit without unit", "[limits]\nper_principal = \"60\"\n", "limits.per_principal"},
		{"limit with a bad unit", "[limits]\ndangerous = \"3/day\"\n", "limits.dangerous"},
		{"limit spelled out", "[limits]\nsafe = \"none\"\nmoderate = \" 12\t/\thour \"\n", ""},
		{"limit with a sign", "[limits]\nsafe = \"+5/min\"\n", "limits.safe"},
		{"limit with two numbers", "[limits]\nsafe = \"5 5/min\"\n", "limits.safe"},
		{"limit with two slashes", "[limits]\nsafe = \"5/min/s\"\n", "limits.safe"},
		{"limit without a number", "[limits]\nsafe = \"/min\"\n", "limits.safe"},
		{"unknown tier", "[stdio]\ntier = \"root\"\n", "stdio.tier"},
		{"unknown key", "[limits]\nburst = 3\n", "burst"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(write(t, tt.body), true)
			if tt.wantErr == "" && err != nil {
				t.Fatalf("Load = %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Load = %v, want an error naming %s", err, tt.wantErr)
			}
		})
	}
}

// TestKeyLine pins the lines that errors and origins name for keys of every shape a file may
// write them in.
func TestKeyLine(t *testing.T) {
	data := []byte("# comment\r\nprofile = \"full\"\r\n[ limits ]\r\nsafe = \"1/s\"\r\n\"moderate\" = \"2/s\"\r\n" +
		"[[grants]]\r\npath = \"/a\"\r\n[terminal]\r\nrules = [\r\n  \"allow git *\",\r\n]\r\n" +
		"web.deny = [\"x\"]\r\ndatabases = { app = \"sqlite:x\" }\r\n[\"http\"]\r\naddr = \"127.0.0.1:1\"\r\nnot a key\r\n")
	tests := []struct {
		key  string
		want int
	}{
		{"profile", 2},
		{"limits", 3},
		{"limits.safe", 4},
		{"limits.moderate", 5},
		{"grants", 6},
		{"grants.path", 7},
		{"terminal", 8},
		{"terminal.rules", 9},
		{"terminal.web.deny", 12},
		{"terminal.databases.app", 13},
		{"http", 14},
		{"http.addr", 15},
		{"limits.dangerous", 0},
		{"missing", 0},
	}
	for _, tt := range tests {
		if got := keyLine(data, tt.key); got != tt.want {
			t.Errorf("keyLine(%q) = %d, want %d", tt.key, got, tt.want)
		}
	}
}
