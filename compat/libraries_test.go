//go:build compat

package compat

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgotypes "github.com/mark3labs/mcp-go/mcp"
)

// libraryCall is the one call the agent libraries make of each tool: harmless, and answered
// with a result (ok: not an error result) by a fresh toolhost in the suite's workspace.
type libraryCall struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
	OK   bool           `json:"ok"`
}

var libraryCalls = []libraryCall{
	{"think", map[string]any{"thoughts": "compat library check"}, true},
	{"user_collaboration", map[string]any{"operation": "check_request", "request_id": "req-none"}, false},
	{"todo_operations", map[string]any{"operation": "read"}, true},
	{"memory_operations", map[string]any{"operation": "list_collections"}, true},
	{"file_operations", map[string]any{"operation": "read_file", "path": "notes.txt"}, true},
	{"terminal_operations", map[string]any{"operation": "list_sessions"}, true},
	{"build_and_version_control", map[string]any{"operation": "git_status"}, false},
	{"web_operations", map[string]any{"operation": "http_request", "url": "http://127.0.0.1:9/"}, false},
	{"database_operations", map[string]any{"operation": "list_connections"}, true},
}

// cutCall makes a result over every budget: toolhost cuts it and names its id.
var cutCall = libraryCall{"file_operations", map[string]any{"operation": "grep_search", "pattern": "lorem", "path": "big.log", "max_results": 5000}, true}

var spillIDRE = regexp.MustCompile(`r[0-9a-f]{12}`)

// libraryReport is what a library check saw: the tools listed, each call's result, the cut
// result and the page read_tool_result gave of it.
type libraryReport struct {
	Protocol string                `json:"protocol"`
	Tools    []string              `json:"tools"`
	Calls    map[string]callReport `json:"calls"`
	Cut      callReport            `json:"cut"`
	Page     callReport            `json:"page"`
}

type callReport struct {
	IsError bool   `json:"isError"`
	Text    string `json:"text"`
}

// checkLibrary holds a library's report to the suite's expectations.
func checkLibrary(t *testing.T, s *suite, f *fixture, rep libraryReport) {
	t.Helper()
	if want := toolOrder(t, s); !slices.Equal(rep.Tools, want) {
		t.Errorf("tools/list = %v, want %v (the fixed order)", rep.Tools, want)
	}
	for _, c := range libraryCalls {
		got, ok := rep.Calls[c.Tool]
		switch {
		case !ok:
			t.Errorf("no result for %s", c.Tool)
		case c.OK && got.IsError:
			t.Errorf("%s %v: an error result: %s", c.Tool, c.Args, excerpt(got.Text, 300))
		case got.Text == "":
			t.Errorf("%s: an empty result", c.Tool)
		}
	}
	if !strings.Contains(rep.Calls["file_operations"].Text, "file-marker-"+f.marker) {
		t.Errorf("read_file: %s, want the file's marker", excerpt(rep.Calls["file_operations"].Text, 200))
	}
	id := spillIDRE.FindString(rep.Cut.Text)
	if id == "" || !strings.Contains(rep.Cut.Text, "read_tool_result") {
		t.Fatalf("the big result was not cut with a read_tool_result id: %s", excerpt(rep.Cut.Text, 300))
	}
	if rep.Page.IsError || !strings.HasPrefix(rep.Page.Text, "["+id+" bytes ") || !strings.Contains(rep.Page.Text, "of the big log") {
		t.Errorf("read_tool_result %s: %s", id, excerpt(rep.Page.Text, 300))
	}
}

// TestMCPGoClient drives toolhost with the mcp-go client (github.com/mark3labs/mcp-go), the
// Go library agent loops are built on, over stdio and HTTP, on both protocol eras: it lists the
// tools, calls one per tool, and pages a cut result.
func TestMCPGoClient(t *testing.T) {
	s := newSuite(t)
	for _, tr := range []string{"stdio", "http"} {
		for _, version := range []string{"2026-07-28", "2025-11-25"} {
			t.Run(tr+"/"+version, func(t *testing.T) {
				f := s.newToolhost(t, tr)
				var c *mcpgo.Client
				var err error
				if tr == "stdio" {
					c, err = mcpgo.NewStdioMCPClient(f.mcp.Command, nil, f.mcp.Args...)
				} else {
					c, err = mcpgo.NewStreamableHttpClient(f.mcp.URL, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + f.mcp.Token}))
				}
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				if err := c.Start(ctx); err != nil && tr == "http" {
					t.Fatal(err)
				}
				init := mcpgotypes.InitializeRequest{}
				init.Params.ProtocolVersion = version
				init.Params.ClientInfo = mcpgotypes.Implementation{Name: "mcp-go-compat", Version: "1.2.1"}
				res, err := c.Initialize(ctx, init)
				if err != nil {
					t.Fatalf("initialize: %v", err)
				}
				rep := libraryReport{Protocol: res.ProtocolVersion, Calls: map[string]callReport{}}
				tools, err := c.ListTools(ctx, mcpgotypes.ListToolsRequest{})
				if err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				for _, tl := range tools.Tools {
					rep.Tools = append(rep.Tools, tl.Name)
				}
				call := func(lc libraryCall) callReport {
					req := mcpgotypes.CallToolRequest{}
					req.Params.Name, req.Params.Arguments = lc.Tool, lc.Args
					r, err := c.CallTool(ctx, req)
					if err != nil {
						t.Errorf("tools/call %s: %v", lc.Tool, err)
						return callReport{IsError: true}
					}
					var texts []string
					for _, ct := range r.Content {
						if tc, ok := ct.(mcpgotypes.TextContent); ok {
							texts = append(texts, tc.Text)
						}
					}
					return callReport{IsError: r.IsError, Text: strings.Join(texts, "\n")}
				}
				for _, lc := range libraryCalls {
					rep.Calls[lc.Tool] = call(lc)
				}
				rep.Cut = call(cutCall)
				rep.Page = call(libraryCall{"read_tool_result", map[string]any{"id": spillIDRE.FindString(rep.Cut.Text), "offset": 0}, true})
				if rep.Protocol != version {
					t.Errorf("negotiated %s, asked for %s", rep.Protocol, version)
				}
				checkLibrary(t, s, f, rep)
				libraryResults.Store(fmt.Sprintf("mcp-go/%s/%s", tr, version), rep.Protocol)
			})
		}
	}
}

// TestAgentsSDK drives toolhost with the OpenAI Agents SDK's MCP server classes
// (MCPServerStdio, MCPServerStreamableHttp): the tools as its agents get them, one call per tool,
// and a cut result paged (ts/agents-check.mjs).
func TestAgentsSDK(t *testing.T) {
	s := newSuite(t)
	calls, _ := json.Marshal(map[string]any{"calls": libraryCalls, "cut": cutCall})
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			f := s.newToolhost(t, tr)
			var rep libraryReport
			s.nodeCheck(t, f, 2*time.Minute, &rep, filepath.Join(s.dir, "ts", "agents-check.mjs"), string(calls))
			rep.Protocol = f.session(t).Protocol
			checkLibrary(t, s, f, rep)
			libraryResults.Store("openai-agents/"+tr, rep.Protocol)
		})
	}
}

// libraryResults keeps each library run's negotiated protocol, for the record.
var libraryResults sync.Map

// libraryScript is what the scripted model makes an agent library do: one call per tool, a
// result toolhost cuts, and a page of it by the id it named.
func libraryScript() []Step {
	var steps []Step
	for _, c := range libraryCalls {
		steps = append(steps, Step{Name: "call_" + c.Tool, Tool: c.Tool, Args: c.Args})
	}
	return append(steps,
		Step{Name: "cut", Tool: cutCall.Tool, Args: cutCall.Args},
		Step{Name: "page", Tool: "read_tool_result", Args: map[string]any{"id": CutID, "offset": 0}})
}

// TestMCPUseAgent runs mcp-use's agent (MCPAgent) with toolhost over stdio and HTTP and the
// scripted model as its OpenAI-compatible LLM: every tool is offered to the model, each call's
// result reaches it, and the page of the cut result too (ts/mcpuse-agent.mjs).
func TestMCPUseAgent(t *testing.T) {
	s := newSuite(t)
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			f := s.newToolhost(t, tr)
			model := &Model{Script: libraryScript(), Final: "compat-done " + f.marker}
			ms := httptest.NewServer(model)
			t.Cleanup(ms.Close)
			args := append([]string{filepath.Join(s.dir, "ts", "mcpuse-agent.mjs"), ms.URL + "/v1", "Run the toolhost compatibility script " + f.marker + "."}, f.serverArgs()...)
			fin := s.runBounded(t, f, 3*time.Minute, []string{"OPENAI_API_KEY=" + dummyKey, "MCP_USE_ANONYMIZED_TELEMETRY=false"}, "node", args...)
			if fin.exitCode != 0 {
				t.Fatalf("mcpuse-agent exited %d (timed out %v); stderr: %s", fin.exitCode, fin.timedOut, tail(fin.stderr, 2000))
			}
			steps := libraryScript()
			mains := model.MainRequests()
			if len(mains) == 0 {
				t.Fatalf("the agent never offered toolhost's tools to the model; requests: %d, unserved %v", len(model.Requests()), model.Unknown())
			}
			last := mains[len(mains)-1]
			rep := libraryReport{Calls: map[string]callReport{}}
			for _, d := range last.Tools {
				for _, name := range toolOrder(t, s) {
					if n, _ := last.Tool(name); n.Name == d.Name {
						rep.Tools = append(rep.Tools, name)
					}
				}
			}
			fwd := forwardedResults(mains, len(steps))
			sess := f.session(t)
			sent := sentResults(sess, steps)
			for i, st := range steps {
				if fwd[i] == nil {
					t.Errorf("step %s: no result reached the model", st.Name)
					continue
				}
				cr := callReport{IsError: sent[i].Result.IsError, Text: fwd[i].Text()}
				switch st.Name {
				case "cut":
					rep.Cut = cr
				case "page":
					rep.Page = cr
				default:
					rep.Calls[st.Tool] = cr
				}
			}
			rep.Protocol = sess.Protocol
			checkLibrary(t, s, f, rep)
			libraryResults.Store("mcp-use/"+tr, rep.Protocol)
		})
	}
}
