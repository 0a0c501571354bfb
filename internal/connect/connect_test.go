package connect

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"toolhost/internal/golden"
)

var (
	stdioEntry = Entry{Command: "/usr/local/bin/toolhost", Args: []string{"stdio", "--workdir", "/home/me/src/app"}}
	httpEntry  = Entry{URL: "http://127.0.0.1:8765/mcp", Token: "th_0123456789abcdef"}
)

// TestClientFiles: for every client, on a file of the client's real shape (testdata/NAME.before,
// with the user's other settings, comments and servers), connect writes toolhost's entry
// (pinned in NAME.stdio and NAME.http), a second run changes nothing, the entry reads back with
// its token, and removing it gives back the file byte for byte.
func TestClientFiles(t *testing.T) {
	for _, c := range Clients {
		before, err := os.ReadFile(filepath.Join("testdata", c.Name+".before"))
		if err != nil {
			t.Fatalf("%s: every client needs a file of its real shape: %v", c.Name, err)
		}
		for _, tc := range []struct {
			transport string
			e         Entry
		}{{"stdio", stdioEntry}, {"http", httpEntry}} {
			t.Run(c.Name+"/"+tc.transport, func(t *testing.T) {
				if tc.e.HTTP() && c.HTTP == nil {
					if _, err := c.Apply(before, "toolhost", &tc.e); err == nil || !strings.Contains(err.Error(), "without --http") {
						t.Errorf("Apply(http) = %v, want an error that says to connect without --http", err)
					}
					return
				}
				after, err := c.Apply(before, "toolhost", &tc.e)
				if err != nil {
					t.Fatalf("Apply: %v", err)
				}
				golden.Check(t, filepath.Join("testdata", c.Name+"."+tc.transport), after)
				if again, err := c.Apply(after, "toolhost", &tc.e); err != nil || !bytes.Equal(again, after) {
					t.Errorf("a second Apply changed the file (err %v):\n%s", err, again)
				}
				cur, err := c.Current(after, "toolhost")
				if err != nil || cur == nil {
					t.Fatalf("Current = %v, %v: the entry does not read back", cur, err)
				}
				if tc.e.HTTP() && Token(cur) != tc.e.Token {
					t.Errorf("Token(entry) = %q, want %q", Token(cur), tc.e.Token)
				}
				if other, _ := c.Current(after, "github"); other == nil && strings.Contains(string(before), `"github"`) {
					t.Errorf("the user's github server is gone")
				}
				removed, err := c.Apply(after, "toolhost", nil)
				if err != nil {
					t.Fatalf("remove: %v", err)
				}
				if !bytes.Equal(removed, before) && !(len(before) == 0 || bytes.Contains(before, []byte("{}"))) {
					t.Errorf("removing the entry did not give back the file byte for byte:\n--- before\n%s\n--- after remove\n%s", before, removed)
				}
				if cur, _ := c.Current(removed, "toolhost"); cur != nil {
					t.Errorf("after remove the entry is still there: %v", cur)
				}
				// The other transport replaces the entry in place.
				other := httpEntry
				if tc.e.HTTP() {
					other = stdioEntry
				}
				if c.HTTP != nil {
					swapped, err := c.Apply(after, "toolhost", &other)
					if err != nil {
						t.Fatalf("Apply(%s over %s): %v", other.URL, tc.transport, err)
					}
					back, _ := c.Apply(swapped, "toolhost", &tc.e)
					if !bytes.Equal(back, after) {
						t.Errorf("switching transports and back did not give the same file:\n%s", back)
					}
				}
			})
		}
	}
}

// TestBrokenFiles: a file that does not parse is never written over; the error names the file
// and the line.
func TestBrokenFiles(t *testing.T) {
	tests := []struct {
		client, text string
		line         int
	}{
		{"claude-code", "{\n  \"numStartups\": 3,\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"\n  }\n", 6},
		{"vscode", "{\n\t\"servers\": {\n\t\t\"a\": {\"type\": \"stdio\" \"command\": \"x\"}\n\t}\n}\n", 3},
		{"zed", "// settings\n{\n  \"theme\": \"One Dark\",\n  \"ui_font_size\": 16\n  \"buffer_font_size\": 15\n}\n", 5},
		{"codex", "model = \"gpt-5\"\n\n[mcp_servers.docs]\ncommand = npx\n", 4},
		{"continue", "name: a\nmodels:\n  - name: b\n    provider: \"ollama\n", 4},
		{"copilot", "{\"mcpServers\": [1, 2,}\n", 1},
		{"claude-desktop", "[1, 2]\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			c, err := Lookup(tt.client)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "config")
			if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = c.Write(path, "toolhost", &stdioEntry)
			var se *SyntaxError
			if !errors.As(err, &se) || se.File != path || se.Line != tt.line {
				t.Fatalf("Write = %v, want a syntax error at %s:%d", err, path, tt.line)
			}
			if got, _ := os.ReadFile(path); string(got) != tt.text {
				t.Errorf("the broken file was written over:\n%s", got)
			}
			if _, err := os.Stat(path + ".toolhost-backup"); err == nil {
				t.Error("a backup was written for a file left alone")
			}
		})
	}
}

// TestWrite: a new file is created with the entry alone; a changed file keeps a backup of what
// it was and its mode; an unchanged one is not touched; removing from a missing file does
// nothing.
func TestWrite(t *testing.T) {
	c, _ := Lookup("cursor")
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "mcp.json")
	res, err := c.Write(path, "toolhost", &stdioEntry)
	if err != nil || !res.Changed || res.Backup != "" {
		t.Fatalf("Write(new) = %+v, %v", res, err)
	}
	first, _ := os.ReadFile(path)
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	res, err = c.Write(path, "toolhost", &stdioEntry)
	if err != nil || res.Changed {
		t.Errorf("Write(same) = %+v, %v: want unchanged", res, err)
	}
	res, err = c.Write(path, "toolhost", &httpEntry)
	if err != nil || !res.Changed || res.Backup == "" {
		t.Fatalf("Write(http) = %+v, %v", res, err)
	}
	if b, _ := os.ReadFile(res.Backup); !bytes.Equal(b, first) {
		t.Errorf("the backup holds %q, want the file as it was", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v after the write, want the file's 0640", fi.Mode().Perm())
	}
	if res, err := c.Write(filepath.Join(dir, "none.json"), "toolhost", nil); err != nil || res.Changed {
		t.Errorf("remove from a missing file = %+v, %v", res, err)
	}
}

// TestDefaultPaths: each client's file where the client reads it, moved by its variable.
func TestDefaultPaths(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	for _, tt := range []struct{ client, want string }{
		{"claude-code", "/h/.claude.json"},
		{"codex", "/h/.codex/config.toml"},
		{"cursor", "/h/.cursor/mcp.json"},
		{"windsurf", "/h/.codeium/windsurf/mcp_config.json"},
		{"zed", "/c/zed/settings.json"},
		{"opencode", "/c/opencode/opencode.json"},
		{"qwen-code", "/h/.qwen/settings.json"},
		{"cline", "/h/.cline/data/settings/cline_mcp_settings.json"},
		{"kilo", "/c/kilo/kilo.json"},
		{"crush", "/c/crush/crush.json"},
		{"continue", "/h/.continue/config.yaml"},
		{"copilot", "/h/.copilot/mcp-config.json"},
		{"lm-studio", "/h/.lmstudio/mcp.json"},
	} {
		c, _ := Lookup(tt.client)
		if got := c.DefaultPath("/h", "/c", getenv); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.client, got, tt.want)
		}
	}
	env["CODEX_HOME"], env["COPILOT_HOME"] = "/x/codex", "/x/copilot"
	for _, tt := range []struct{ client, want string }{{"codex", "/x/codex/config.toml"}, {"copilot", "/x/copilot/mcp-config.json"}} {
		c, _ := Lookup(tt.client)
		if got := c.DefaultPath("/h", "/c", getenv); got != tt.want {
			t.Errorf("%s with its variable: %s, want %s", tt.client, got, tt.want)
		}
	}
	if _, err := Lookup("notepad"); err == nil || !strings.Contains(err.Error(), "claude-code") {
		t.Errorf("Lookup(notepad) = %v, want the list of clients", err)
	}
}
