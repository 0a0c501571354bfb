package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConnect: `toolhost connect` writes toolhost's entry into the client's file where the
// client reads it (under HOME), a second run changes nothing, --http makes a client token once
// and the entry it writes reaches serve, --print changes nothing, --remove takes the entry out,
// and a file that does not parse is left alone with an error naming the file and the line.
func TestConnect(t *testing.T) {
	sv := startServeFull(t, "")
	home := t.TempDir()
	run := func(args ...string) (string, string, error) {
		t.Helper()
		cmd := commandIn(t, sv.state, sv.work, args...)
		cmd.Env = append(cmd.Env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}
	file := filepath.Join(home, ".cursor", "mcp.json")
	read := func() string {
		b, _ := os.ReadFile(file)
		return string(b)
	}

	if out, errOut, err := run("connect", "cursor"); err != nil || !strings.Contains(out, "Cursor starts toolhost stdio now") {
		t.Fatalf("connect cursor: %v\n%s%s", err, out, errOut)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(read()), &cfg); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	e := cfg.MCPServers["toolhost"]
	if e.Command != binary && !strings.HasSuffix(e.Command, "/toolhost") || len(e.Args) == 0 || e.Args[0] != "stdio" || !strings.Contains(strings.Join(e.Args, " "), "--state-dir "+sv.state) {
		t.Errorf("stdio entry = %+v, want this binary's stdio with the given --state-dir", e)
	}
	first := read()
	if out, _, err := run("connect", "cursor"); err != nil || !strings.Contains(out, "nothing changed") || read() != first {
		t.Errorf("a second connect: %v %q, the file changed: %v", err, out, read() != first)
	}

	// --print shows and writes nothing.
	if out, _, err := run("connect", "cursor", "--http", "--print"); err != nil || !strings.Contains(out, "Bearer TOKEN") || read() != first {
		t.Errorf("connect --print: %v %q; file changed: %v", err, out, read() != first)
	}
	// The budget line is the server's own decision for the client.
	if out, _, err := run("connect", "cline", "--print"); err != nil || !strings.Contains(out, "results for Cline: at most 6500 characters of JSON (Cline's own limit") {
		t.Errorf("connect cline --print: %v %q", err, out)
	}

	// Over HTTP: a token, once; the entry reaches serve.
	_, errOut, err := run("connect", "cursor", "--http", "--url", sv.url)
	if err != nil || !strings.Contains(errOut, "made client token connect-cursor") {
		t.Fatalf("connect --http: %v %s", err, errOut)
	}
	if _, err := os.Stat(file + ".toolhost-backup"); err != nil {
		t.Errorf("no backup of the file connect changed: %v", err)
	}
	withToken := read()
	if _, errOut, err := run("connect", "cursor", "--http", "--url", sv.url); err != nil || strings.Contains(errOut, "made client token") || read() != withToken {
		t.Errorf("a second connect --http made a new token or changed the file: %v %s", err, errOut)
	}
	cfg.MCPServers = nil
	json.Unmarshal([]byte(withToken), &cfg)
	e = cfg.MCPServers["toolhost"]
	token, _ := strings.CutPrefix(e.Headers["Authorization"], "Bearer ")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: e.URL, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cursor", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("the entry connect wrote does not reach serve: %v", err)
	}
	if names := toolNames(t, cs); len(names) == 0 {
		t.Error("no tools over the entry connect wrote")
	}
	cs.Close()

	if out, _, err := run("connect", "cursor", "--remove"); err != nil || !strings.Contains(out, "took") || strings.Contains(read(), "toolhost") {
		t.Errorf("connect --remove: %v %q\n%s", err, out, read())
	}

	// A file that does not parse: left alone.
	broken := "{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"y\",,}\n  }\n}\n"
	os.WriteFile(file, []byte(broken), 0o600)
	if _, errOut, err := run("connect", "cursor"); err == nil || !strings.Contains(errOut, file+":3:") || read() != broken {
		t.Errorf("connect on a broken file: %v %q; file changed: %v", err, errOut, read() != broken)
	}
	if _, errOut, err := run("connect", "notepad"); err == nil || !strings.Contains(errOut, "connect knows claude-code") {
		t.Errorf("connect notepad: %v %q", err, errOut)
	}
}
