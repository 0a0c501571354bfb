package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"toolhost/internal/golden"
)

// TestCommandTable checks the rows: unique names, one action each, and help for every flag,
// since usage and --help are printed from them.
func TestCommandTable(t *testing.T) {
	seen := map[string]bool{}
	for _, g := range groups {
		if g.title == "" || len(g.commands) == 0 {
			t.Errorf("group %+v has no title or no commands", g)
		}
		for _, c := range g.commands {
			if seen[c.name] {
				t.Errorf("command %q is declared twice", c.name)
			}
			seen[c.name] = true
			if (c.flags == nil) == (c.run == nil) {
				t.Errorf("command %q sets %s; set exactly one of flags and run", c.name, map[bool]string{true: "neither", false: "both"}[c.flags == nil])
			}
			if c.help == "" {
				t.Errorf("command %q has no help line", c.name)
			}
			if c.maxArgs >= 0 && c.maxArgs < c.minArgs {
				t.Errorf("command %q takes %d to %d arguments", c.name, c.minArgs, c.maxArgs)
			}
			if fs := commandFlagSet(c); fs != nil {
				fs.VisitAll(func(f *flag.Flag) {
					if f.Usage == "" {
						t.Errorf("flag --%s of %q has no help", f.Name, c.name)
					}
					if globalFlagSet().Lookup(f.Name) != nil {
						t.Errorf("flag --%s of %q shadows a global flag", f.Name, c.name)
					}
				})
			}
		}
	}
	globalFlagSet().VisitAll(func(f *flag.Flag) {
		if f.Usage == "" {
			t.Errorf("global flag --%s has no help", f.Name)
		}
	})
}

// TestUsageGolden pins `toolhost help`: every command, its flags and the global flags, as
// printed from the table.
func TestUsageGolden(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := run([]string{"help"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	golden.CheckString(t, "testdata/usage.golden", out.String())
	for _, g := range groups {
		for _, c := range g.commands {
			if !strings.Contains(out.String(), "  "+strings.TrimPrefix(usageLine(c), "toolhost ")) {
				t.Errorf("usage lacks %q", usageLine(c))
			}
		}
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		args     []string
		wantName string
		wantRest []string
		wantErr  string
	}{
		{[]string{"serve"}, "serve", []string{}, ""},
		{[]string{"approve", "r1"}, "approve", []string{"r1"}, ""},
		{[]string{"memory", "reembed"}, "memory reembed", []string{}, ""},
		{[]string{"memory", "reembed", "extra"}, "memory reembed", []string{"extra"}, ""},
		{[]string{"memory", "forget", "7"}, "memory forget", []string{"7"}, ""},
		{[]string{"memory"}, "", nil, `no command "memory"; commands: memory reembed, memory instructions, memory forget`},
		{[]string{"memory", "purge"}, "", nil, `no command "memory purge"; commands: memory reembed, memory instructions, memory forget`},
		{[]string{"serv"}, "", nil, `unknown command "serv"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			c, rest, err := lookup(tt.args)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("lookup(%q) error = %v, want %q", tt.args, err, tt.wantErr)
				}
				return
			}
			if err != nil || c.name != tt.wantName || !slices.Equal(rest, tt.wantRest) {
				t.Errorf("lookup(%q) = %q, %q, %v; want %q, %q", tt.args, c.name, rest, err, tt.wantName, tt.wantRest)
			}
		})
	}
}

// TestRunRefusals: commands that must not start (wrong arguments, a decision from inside a
// toolhost terminal) are refused before the app opens: the state directory is never touched.
func TestRunRefusals(t *testing.T) {
	state := t.TempDir() + "/state"
	tests := []struct {
		name     string
		args     []string
		terminal bool
		want     string
	}{
		{"missing command", nil, false, "missing command"},
		{"unknown command", []string{"frobnicate"}, false, `unknown command "frobnicate"`},
		{"too few arguments", []string{"approve"}, false, "usage: toolhost approve ID [--for DURATION] [--once]"},
		{"too many arguments", []string{"deny", "a", "b"}, false, "usage: toolhost deny ID"},
		{"call without a tool", []string{"call"}, false, "usage: toolhost call TOOL ['JSON']"},
		{"call with bad JSON", []string{"call", "think", "{"}, false, "call: arguments are not valid JSON"},
		{"unknown flag", []string{"grants", "--for", "1m"}, false, "flag provided but not defined: -for"},
		{"two formats", []string{"tools", "--json", "--markdown"}, false, "choose one of --json and --markdown"},
		{"approve from a terminal", []string{"approve", "r1", "--once"}, true, "refusing toolhost approve from inside a toolhost terminal session"},
		{"revoke from a terminal", []string{"revoke", "g1"}, true, "refusing toolhost revoke from inside a toolhost terminal session"},
		{"cancel from a terminal", []string{"cancel", "exec_20260102T150405.000000_0123456789"}, true, "refusing toolhost cancel from inside a toolhost terminal session"},
		// Every principal's executions are the operator's to read.
		{"history from a terminal", []string{"history", "--json"}, true, "refusing toolhost history from inside a toolhost terminal session"},
		{"active from a terminal", []string{"active"}, true, "refusing toolhost active from inside a toolhost terminal session"},
		{"stats from a terminal", []string{"stats"}, true, "refusing toolhost stats from inside a toolhost terminal session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.terminal {
				t.Setenv("TOOLHOST_TERMINAL_ID", "s1")
			}
			var out, errOut bytes.Buffer
			err := run(append(tt.args, "--state-dir", state), &out, &errOut)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("run(%q) = %v, want %q", tt.args, err, tt.want)
			}
			if out.Len() > 0 {
				t.Errorf("run(%q) wrote to stdout: %q", tt.args, out.String())
			}
		})
	}
	if _, err := os.Stat(state); err == nil {
		t.Errorf("a refused command created the state directory %s", state)
	}
}

// TestHelpFlags: --help after any command prints its usage from the table and succeeds.
func TestHelpFlags(t *testing.T) {
	for _, g := range groups {
		for _, c := range g.commands {
			var out, errOut bytes.Buffer
			if err := run(append(strings.Fields(c.name), "--help"), &out, &errOut); err != nil {
				t.Errorf("%s --help: %v", c.name, err)
			}
			if !strings.HasPrefix(errOut.String(), "Usage: "+usageLine(c)+"\n") {
				t.Errorf("%s --help printed %q, want its usage line", c.name, errOut.String())
			}
		}
	}
}

// TestToolsMarkdown: `toolhost tools --markdown` prints the registry's table, one row per tool.
func TestToolsMarkdown(t *testing.T) {
	dir := t.TempDir()
	cfg := dir + "/config.toml"
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if err := run([]string{"tools", "--markdown", "--config", cfg, "--state-dir", dir + "/state", "--workdir", dir, "--disable", "memory_operations"}, &out, &errOut); err != nil {
		t.Fatalf("tools --markdown: %v\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) < 3 || lines[0] != "| # | tool | operations |" || !strings.HasPrefix(lines[2], "| 1 | `think` | ") {
		t.Errorf("tools --markdown = %q, want the table starting with think", out.String())
	}
	if strings.Contains(out.String(), "memory_operations") || !strings.Contains(out.String(), "| 10 | `read_tool_result` |") {
		t.Errorf("tools --markdown with memory_operations disabled = %q, want it absent and places kept", out.String())
	}
}

// TestToolsNamesTheProfileInForce: the header of `toolhost tools` (and its JSON) names the
// profile as the flags left it, not the profile they narrowed.
func TestToolsNamesTheProfileInForce(t *testing.T) {
	dir := t.TempDir()
	cfg := dir + "/config.toml"
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		flags []string
		want  string
	}{
		{nil, "profile full; workdir "},
		{[]string{"--read-only"}, "profile full, narrowed by --read-only; workdir "},
		{[]string{"--profile", "small", "--disable", "think"}, "profile small, narrowed by --disable; workdir "},
		{[]string{"--json", "--read-only"}, `"profile": "full, narrowed by --read-only"`},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		args := append([]string{"tools", "--config", cfg, "--state-dir", dir + "/state", "--workdir", dir}, tt.flags...)
		if err := run(args, &out, &errOut); err != nil {
			t.Fatalf("tools %v: %v\n%s", tt.flags, err, errOut.String())
		}
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("tools %v printed:\n%s\nwant it to contain %q", tt.flags, out.String(), tt.want)
		}
	}
}

// TestMisspeltToolNamesStopTheStart: a tool or operation name in --disable or --tools that
// names nothing stops the server before it serves (so a typo cannot leave on what the user
// meant to turn off), with the name it most likely meant. Through the real binary, on both
// transports.
func TestMisspeltToolNamesStopTheStart(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"stdio --disable", []string{"stdio", "--disable", "file_operation"}, `no tool or operation "file_operation"; did you mean "file_operations"?`},
		{"stdio --tools", []string{"stdio", "--tools", "think,todo_operations.raed"}, `no tool or operation "todo_operations.raed"; did you mean "todo_operations.read"?`},
		{"serve --tools", []string{"serve", "--addr", "127.0.0.1:0", "--tools", "todo_operations.raed"}, `did you mean "todo_operations.read"?`},
		{"serve --disable", []string{"serve", "--addr", "127.0.0.1:0", "--disable", "terminal_operations.run_comand"}, `did you mean "terminal_operations.run_command"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := command(t, tt.args...)
			cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
			cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
			var stdout, stderr bytes.Buffer
			cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(""), &stdout, &stderr
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("toolhost %s still ran after 30s; want it to stop at start", strings.Join(tt.args, " "))
			}
			if err == nil || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("toolhost %s = %v, stderr:\n%s\nwant a failed start saying %s", strings.Join(tt.args, " "), err, stderr.String(), tt.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("toolhost %s wrote to stdout: %q", strings.Join(tt.args, " "), stdout.String())
			}
		})
	}
}
