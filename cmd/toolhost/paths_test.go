package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolhost/internal/filetest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPathWalkAroundsOverStdio replays the path walk-arounds of issue 12 against the real binary
// over stdio, with a home directory holding an SSH key and a project with a .env file: a
// separator the guard did not see, a search from the home directory, a symlink and a hard link
// in the working directory. No answer may contain a secret.
func TestPathWalkAroundsOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the binary")
	}
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state, work := t.TempDir(), filepath.Join(home, "work")
	filetest.WritePrivate(t, home, map[string]string{
		".ssh/id_ed25519": "KEYMATERIAL", "project/.env": "ENVSECRET", "notes.txt": "plain", "work/main.go": "package main",
	})
	if err := os.Symlink(filepath.Join(home, "project"), filepath.Join(work, "proj")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(home, ".ssh/id_ed25519"), filepath.Join(work, "key.txt")); err != nil {
		t.Fatal(err)
	}
	cmd := commandIn(t, state, work, "stdio")
	cmd.Env = append(cmd.Env, "HOME="+home)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs := connectStdio(t, ctx, cmd)
	defer cs.Close()
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"read the key with backslashes", map[string]any{"operation": "read_file", "path": home + `\.ssh\id_ed25519`}, "not_found"},
		{"read the key with ~ and backslashes", map[string]any{"operation": "read_file", "path": `~\.ssh\id_ed25519`}, "not_found"},
		{"grep the key directory with backslashes", map[string]any{"operation": "grep_search", "path": home + `\.ssh`, "pattern": "KEY"}, "not_found"},
		{"grep .env outside with include_hidden", map[string]any{"operation": "grep_search", "path": filepath.Join(home, "project"), "pattern": "SECRET", "include_hidden": true}, "withheld"},
		{"grep .env outside through a symlink", map[string]any{"operation": "grep_search", "path": "proj", "pattern": "SECRET", "include_hidden": true}, "withheld"},
		{"file_search from the home directory", map[string]any{"operation": "file_search", "path": "~", "pattern": "**/*", "include_hidden": true}, "withheld"},
		{"read a hard link to the key", map[string]any{"operation": "read_file", "path": "key.txt"}, "hard_link"},
		{"grep a working directory holding the hard link", map[string]any{"operation": "grep_search", "path": ".", "pattern": "KEY"}, "withheld"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "file_operations", Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			got := textOf(res, "")
			if strings.Contains(got, "KEYMATERIAL") || strings.Contains(got, "ENVSECRET") || strings.Contains(got, "id_ed25519\n") {
				t.Fatalf("file_operations %v revealed a secret:\n%s", tt.args, got)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("file_operations %v = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}
