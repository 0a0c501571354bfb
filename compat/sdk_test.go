//go:build compat

package compat

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolOrder is the fixed order toolhost advertises (ARCHITECTURE.md §1), as this build's
// default profile enables it.
func toolOrder(t *testing.T, s *suite) []string {
	t.Helper()
	out, err := exec.Command(s.toolhost, "tools", "--json").Output()
	if err != nil {
		t.Fatalf("toolhost tools --json: %v", err)
	}
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("toolhost tools --json: %v", err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// node runs a program from compat/node_modules with the suite's environment, bounded by a
// timeout (which fails the test), and returns its stdout, stderr and exit code.
func (s *suite) node(t *testing.T, f *fixture, timeout time.Duration, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	fin := s.runBounded(t, f, timeout, nil, bin, args...)
	if fin.timedOut {
		t.Fatalf("%s %s: timed out after %s; stderr: %s", bin, strings.Join(args, " "), timeout, tail(fin.stderr, 1000))
	}
	return fin.stdout, fin.stderr, fin.exitCode
}

// nodeCheck runs the client script (one of ts/*.mjs) with args and then f.serverArgs, bounded
// by timeout, and decodes the JSON of its last line of output into got; it fails the test
// unless the script exits 0 and that line decodes. It returns the line.
func (s *suite) nodeCheck(t *testing.T, f *fixture, timeout time.Duration, got any, script string, args ...string) string {
	t.Helper()
	name := strings.TrimSuffix(filepath.Base(script), ".mjs")
	out, errOut, code := s.node(t, f, timeout, "node", append(append([]string{script}, args...), f.serverArgs()...)...)
	if code != 0 {
		t.Fatalf("%s exited %d; stderr: %s", name, code, tail(errOut, 2000))
	}
	if err := json.Unmarshal([]byte(lastLine(out)), got); err != nil {
		t.Fatalf("%s output %q: %v", name, tail(out, 500), err)
	}
	return lastLine(out)
}

// TestTypeScriptSDK drives toolhost with the TypeScript SDK client over stdio and HTTP, checks
// every tool's input schema under ajv strict mode and the model APIs' portability rules, and
// calls a tool.
func TestTypeScriptSDK(t *testing.T) {
	s := newSuite(t)
	want := toolOrder(t, s)
	pin := pinned(t, "@modelcontextprotocol/sdk")
	checkInstalled(t, s, pin.pkg)
	script := filepath.Join(s.dir, "ts", "sdk-check.mjs")
	t.Run("portability_rules", func(t *testing.T) {
		out, errOut, code := s.node(t, s.newToolhost(t, "stdio"), time.Minute, "node", script, "selftest")
		var got struct{ Missed, FalseAlarms []string }
		if code != 0 || json.Unmarshal([]byte(lastLine(out)), &got) != nil {
			t.Fatalf("selftest exit %d: %s %s", code, out, errOut)
		}
		if len(got.Missed) > 0 || len(got.FalseAlarms) > 0 {
			t.Errorf("portability rules missed %v and flagged a good schema with %v", got.Missed, got.FalseAlarms)
		}
	})
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			f := s.newToolhost(t, tr)
			var got struct {
				Protocol *string  `json:"protocol"`
				Tools    []string `json:"tools"`
				Problems []string `json:"problems"`
				Call     struct {
					IsError    bool            `json:"isError"`
					Text       string          `json:"text"`
					Structured json.RawMessage `json:"structured"`
				} `json:"call"`
			}
			s.nodeCheck(t, f, 2*time.Minute, &got, script)
			sess := f.session(t)
			t.Logf("TS SDK over %s: protocol %s (client %s)", tr, sess.Protocol, sess.Client)
			if !slices.Equal(got.Tools, want) {
				t.Errorf("tools/list = %v, want %v (the fixed order)", got.Tools, want)
			}
			for _, p := range got.Problems {
				t.Errorf("schema: %s", p)
			}
			if got.Call.IsError || !strings.Contains(got.Call.Text, "file-marker-"+f.marker) {
				t.Errorf("read_file: isError=%v text %q, want the file's marker", got.Call.IsError, got.Call.Text)
			}
			if sess.Protocol != pin.protocol {
				t.Errorf("negotiated protocol %q; the suite's table (and docs/client-configuration.md's) says %s", sess.Protocol, pin.protocol)
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// TestInspectorCLI lists the tools with the MCP Inspector CLI (its --strict schema portability
// check included) and calls one, over stdio and HTTP.
func TestInspectorCLI(t *testing.T) {
	s := newSuite(t)
	want := toolOrder(t, s)
	pin := pinned(t, "@modelcontextprotocol/inspector")
	checkInstalled(t, s, pin.pkg)
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			f := s.newToolhost(t, tr)
			// Options first; the server command goes after "--" so that its own flags
			// (--config, --workdir) are not read as the Inspector's.
			inspector := func(opts ...string) []string {
				if tr == "http" { // --header takes several values: last
					args := append([]string{"--cli", f.mcp.URL, "--transport", "http"}, opts...)
					return append(args, "--header", "Authorization: Bearer "+f.mcp.Token)
				}
				args := append([]string{"--cli"}, opts...)
				return append(append(args, "--", f.mcp.Command), f.mcp.Args...)
			}
			list := inspector("--method", "tools/list", "--strict")
			out, errOut, code := s.node(t, f, 2*time.Minute, "inspector", list...)
			if code != 0 {
				t.Fatalf("inspector tools/list --strict exited %d (6: a schema portability error); stderr: %s\nstdout: %s", code, tail(errOut, 2000), tail(out, 1000))
			}
			var listed struct {
				Tools []struct{ Name string } `json:"tools"`
			}
			if err := json.Unmarshal([]byte(out), &listed); err != nil {
				t.Fatalf("inspector tools/list output %q: %v", tail(out, 300), err)
			}
			var names []string
			for _, tl := range listed.Tools {
				names = append(names, tl.Name)
			}
			if !slices.Equal(names, want) {
				t.Errorf("inspector tools/list = %v, want %v", names, want)
			}
			if strings.TrimSpace(errOut) != "" {
				t.Logf("inspector --strict said: %s", tail(errOut, 1000))
			}
			call := inspector("--method", "tools/call", "--tool-name", "file_operations", "--tool-arg", "operation=read_file", "--tool-arg", "path=notes.txt")
			out, errOut, code = s.node(t, f, 2*time.Minute, "inspector", call...)
			if code != 0 || !strings.Contains(out, "file-marker-"+f.marker) {
				t.Errorf("inspector tools/call read_file: exit %d, stdout %s, stderr %s; want the file's marker", code, tail(out, 600), tail(errOut, 600))
			}
			sess := f.session(t)
			t.Logf("Inspector over %s: protocol %s (client %s)", tr, sess.Protocol, sess.Client)
			if sess.Protocol != pin.protocol {
				t.Errorf("negotiated protocol %q; the suite's table (and docs/client-configuration.md's) says %s", sess.Protocol, pin.protocol)
			}
		})
	}
}

// bearer adds the token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestGoSDK connects with the go-sdk client on protocol 2026-07-28 (stateless: server/discover,
// no session) and 2025-06-18 (initialize and a session), over stdio and HTTP, and checks the
// negotiated version, the tool order and a call.
func TestGoSDK(t *testing.T) {
	s := newSuite(t)
	want := toolOrder(t, s)
	for _, proto := range []string{"2026-07-28", "2025-06-18"} {
		for _, tr := range []string{"stdio", "http"} {
			t.Run(proto+"/"+tr, func(t *testing.T) {
				f := s.newToolhost(t, tr)
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				var transport mcp.Transport
				if tr == "stdio" {
					cmd := exec.Command(f.mcp.Command, f.mcp.Args...)
					cmd.Dir = f.work
					transport = &mcp.CommandTransport{Command: cmd}
				} else {
					transport = &mcp.StreamableClientTransport{Endpoint: f.mcp.URL, DisableStandaloneSSE: true,
						HTTPClient: &http.Client{Transport: bearer{f.mcp.Token, http.DefaultTransport}}}
				}
				client := mcp.NewClient(&mcp.Implementation{Name: "toolhost-compat-go-sdk", Version: "1.0.0"}, nil)
				cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: proto})
				if err != nil {
					t.Fatalf("connect on %s: %v", proto, err)
				}
				defer cs.Close()
				if got := cs.InitializeResult().ProtocolVersion; got != proto {
					t.Errorf("negotiated %s, want %s", got, proto)
				}
				lr, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				var names []string
				for _, tl := range lr.Tools {
					names = append(names, tl.Name)
				}
				if !slices.Equal(names, want) {
					t.Errorf("tools/list = %v, want %v", names, want)
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "file_operations",
					Arguments: map[string]any{"operation": "read_file", "path": "notes.txt"}})
				if err != nil {
					t.Fatalf("tools/call: %v", err)
				}
				var text strings.Builder
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						text.WriteString(tc.Text)
					}
				}
				if res.IsError || !strings.Contains(text.String(), "file-marker-"+f.marker) {
					t.Errorf("read_file: isError=%v text %q, want the file's marker", res.IsError, text.String())
				}
				cs.Close()
				sess := f.session(t)
				if sess.Protocol != proto {
					t.Errorf("recording says protocol %q, want %q", sess.Protocol, proto)
				}
				if tr == "http" {
					sessions := sess.SessionIDs
					if proto >= "2026-07-28" && len(sessions) > 0 {
						t.Errorf("2026-07-28 is stateless, but toolhost issued session ids %v", sessions)
					}
					if proto < "2026-07-28" && len(sessions) == 0 {
						t.Errorf("%s needs a session, but toolhost issued no Mcp-Session-Id", proto)
					}
				}
				t.Logf("go-sdk %s over %s: %s", proto, tr, fmt.Sprint(sess.Protocol))
			})
		}
	}
}
