//go:build compat

package compat

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestStrippedEnvironment starts `toolhost stdio` the way Codex and hosts on the TS SDK do: the
// TS SDK client with its default environment, which passes on only HOME, PATH and a few names
// (no XDG_*), and no --state-dir or --config in the server's arguments. The user's own shell
// has moved both directories with XDG_STATE_HOME and XDG_CONFIG_HOME; a toolhost command run
// there (on a terminal, as toolhost requires before it notes them) and the server the client
// started must use the same config and state.
func TestStrippedEnvironment(t *testing.T) {
	s := newSuite(t)
	f := s.newToolhost(t, "stdio") // for its home, workspace and recorder log; its flags are not used
	userState, userConfig := filepath.Join(f.dir, "my-state"), filepath.Join(f.dir, "my-config")
	// The user's config disables a tool: the client must not be offered it.
	writeFile(t, filepath.Join(userConfig, "toolhost", "config.toml"),
		"profile = \"compat\"\n[profiles.compat]\ndisable = [\"web_operations\"]\n")
	userShell := []string{"HOME=" + f.home, "PATH=" + os.Getenv("PATH"), "USER=compat", "LANG=C.UTF-8",
		"XDG_STATE_HOME=" + userState, "XDG_CONFIG_HOME=" + userConfig}

	// The user runs a toolhost command in their shell.
	var before struct{ Executions []json.RawMessage }
	if out := inUserShell(t, s, f.work, userShell, "history", "--json"); json.Unmarshal([]byte(out), &before) != nil {
		t.Fatalf("toolhost history --json printed %q", out)
	}

	// A host on the TS SDK starts the server. Its own environment is the user's (XDG_* moved);
	// the SDK passes on only its default names.
	script := filepath.Join(s.dir, "ts", "sdk-check.mjs")
	server := []string{"mcp-record", f.mcpLog, "--", s.toolhost, "stdio", "--workdir", f.work}
	fin := s.runBounded(t, f, 2*time.Minute, userShell[4:], "node", append([]string{script, "stdio", s.self}, server...)...)
	if fin.timedOut || fin.exitCode != 0 {
		t.Fatalf("sdk-check: exit %d (timed out: %v); stderr: %s", fin.exitCode, fin.timedOut, tail(fin.stderr, 2000))
	}
	var got struct {
		Tools []string `json:"tools"`
		Call  struct {
			IsError bool   `json:"isError"`
			Text    string `json:"text"`
		} `json:"call"`
	}
	if err := json.Unmarshal([]byte(lastLine(fin.stdout)), &got); err != nil {
		t.Fatalf("sdk-check output %q: %v", tail(fin.stdout, 500), err)
	}

	// The premise: the server got no XDG_* (else this tests nothing).
	b, err := os.ReadFile(f.mcpLog + ".env")
	if err != nil {
		t.Fatalf("the recorder left no environment: %v", err)
	}
	env := strings.Fields(string(b))
	t.Logf("the TS SDK started the server with %v", env)
	if slices.ContainsFunc(env, func(k string) bool { return strings.HasPrefix(k, "XDG_") }) || !slices.Contains(env, "HOME") {
		t.Fatalf("the server's environment is %v: want HOME and no XDG_* (the TS SDK's default)", env)
	}

	// Same config: the tool the user's config disables is not offered.
	if slices.Contains(got.Tools, "web_operations") || !slices.Contains(got.Tools, "file_operations") {
		t.Errorf("the server offered %v: want file_operations and not web_operations, which the user's config (%s) disables",
			got.Tools, userConfig)
	}
	if got.Call.IsError || !strings.Contains(got.Call.Text, "file-marker-"+f.marker) {
		t.Errorf("read_file: isError=%v text %q, want the file's marker", got.Call.IsError, got.Call.Text)
	}

	// Same state: the user's shell sees the server's call in the execution history.
	var after struct {
		Executions []struct{ Tool, Operation, Principal, Client string }
	}
	out := inUserShell(t, s, f.work, userShell, "history", "--json")
	if err := json.Unmarshal([]byte(out), &after); err != nil {
		t.Fatalf("toolhost history --json printed %q: %v", out, err)
	}
	if !slices.ContainsFunc(after.Executions, func(e struct{ Tool, Operation, Principal, Client string }) bool {
		return e.Tool == "file_operations" && e.Operation == "read_file" && strings.HasPrefix(e.Client, "toolhost-compat-ts-sdk")
	}) {
		t.Errorf("toolhost history in the user's shell (state %s) lists %+v: want the TS SDK's read_file", userState, after.Executions)
	}
	// And nothing went to the default directories but the note itself.
	defaultState := filepath.Join(f.home, ".local", "state", "toolhost")
	entries, _ := os.ReadDir(defaultState)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"xdg-dirs.json"}) {
		t.Errorf("the default state dir %s holds %v: want only the note xdg-dirs.json", defaultState, names)
	}
}

// inUserShell runs the toolhost binary as the user would in their own terminal: stdin on a
// PTY, the given environment, cwd dir. It returns stdout and fails t on a non-zero exit.
func inUserShell(t *testing.T, s *suite, dir string, env []string, args ...string) string {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open a PTY: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	cmd := exec.Command(s.toolhost, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, tty
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("toolhost %s in the user's shell: %v; stderr: %s", strings.Join(args, " "), err, tail(stderr.String(), 1000))
	}
	return stdout.String()
}
