package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// noWorkdirCommand runs the binary in dir with a state directory and a config, and no --workdir.
func noWorkdirCommand(t *testing.T, dir, config string, args ...string) *exec.Cmd {
	t.Helper()
	state := t.TempDir()
	cfg := filepath.Join(state, "config.toml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, append(args, "--state-dir", state, "--config", cfg)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+state)
	return cmd
}

func realDir(t *testing.T, parent, name string) string {
	t.Helper()
	d := filepath.Join(parent, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// TestRootsThroughBinary: started without --workdir, the binary works in the client's first
// root, over stdio (any directory) and over HTTP (only under [http] allowed_roots; a root
// outside them is refused with the reason).
func TestRootsThroughBinary(t *testing.T) {
	base := realDir(t, t.TempDir(), "projects")
	project, started := realDir(t, base, "app"), realDir(t, t.TempDir(), "started-here")
	outside := realDir(t, t.TempDir(), "outside")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	connect := func(t *testing.T, tr mcp.Transport, root string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		c.AddRoots(&mcp.Root{URI: "file://" + root})
		cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	pwd := func(t *testing.T, cs *mcp.ClientSession) (string, bool) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "terminal_operations", Arguments: map[string]any{"operation": "run_command", "command": "pwd"}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}

	t.Run("stdio", func(t *testing.T) {
		cs := connect(t, &mcp.CommandTransport{Command: noWorkdirCommand(t, started, "", "stdio")}, project)
		if text, isErr := pwd(t, cs); isErr || !strings.Contains(text, project) {
			t.Errorf("pwd over stdio with root %s = %q (isError %v)", project, text, isErr)
		}
	})

	t.Run("http", func(t *testing.T) {
		cmd := noWorkdirCommand(t, started, "[http]\nallowed_roots = [\""+base+"\"]\n", "serve", "--addr", "127.0.0.1:0", "--no-auth")
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() })
		sc := bufio.NewScanner(stdout)
		url := ""
		for url == "" && sc.Scan() {
			if i := strings.Index(sc.Text(), "serving http://"); i >= 0 {
				url = strings.Fields(sc.Text()[i+len("serving "):])[0]
			}
		}
		go io.Copy(io.Discard, stdout)
		if url == "" {
			t.Fatal("serve printed no URL")
		}
		transport := func() mcp.Transport {
			return &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{}}
		}
		if text, isErr := pwd(t, connect(t, transport(), project)); isErr || !strings.Contains(text, project) {
			t.Errorf("pwd over HTTP with root %s = %q (isError %v)", project, text, isErr)
		}
		if text, isErr := pwd(t, connect(t, transport(), outside)); !isErr || !strings.Contains(text, "not under [http] allowed_roots") {
			t.Errorf("pwd over HTTP with root %s outside allowed_roots = %q (isError %v), want refused", outside, text, isErr)
		}
	})
}
