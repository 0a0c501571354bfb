//go:build compat

package compat

import (
	"context"
	"encoding/json"
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

// backgroundCommand outlives its yield of one second and fails with a status of its own.
const backgroundCommand = "sleep 3; echo done; exit 4"

// noticeRE is the one-line notice toolhost puts on a later result of the conversation.
var noticeRE = regexp.MustCompile(`background: (cmd\d+) "` + regexp.QuoteMeta(backgroundCommand) + `" finished: exit 4 in [^;]+; get_output session_id=cmd\d+ reads it`)

// notifyReport is what a client received around a command handed back past its yield: the
// command resource it subscribed to, the resources/updated URIs and log messages it heard,
// run_command's answer and the next tool result.
type notifyReport struct {
	Protocol    string      `json:"protocol"`
	CommandsURI string      `json:"commandsURI"`
	Updated     []string    `json:"updated"`
	Logs        []notifyLog `json:"logs"`
	Run         string      `json:"run"`
	Next        string      `json:"next"`
}

type notifyLog struct {
	Level  string         `json:"level"`
	Logger string         `json:"logger"`
	Data   map[string]any `json:"data"`
}

// checkNotify holds a client's report to what toolhost sends when background work ends.
func checkNotify(t *testing.T, rep notifyReport) {
	t.Helper()
	if !strings.Contains(rep.Run, "still running") {
		t.Fatalf("run_command = %q, want the command handed back after its yield", excerpt(rep.Run, 300))
	}
	if !regexp.MustCompile(`^toolhost://conversations/[^/]+/commands$`).MatchString(rep.CommandsURI) {
		t.Errorf("resources/list named no command resource of the conversation (got %q)", rep.CommandsURI)
	} else if !slices.Contains(rep.Updated, rep.CommandsURI) {
		t.Errorf("resources/updated received for %v, want %s", rep.Updated, rep.CommandsURI)
	}
	var found *notifyLog
	for i, l := range rep.Logs {
		if l.Logger == "toolhost.background" {
			found = &rep.Logs[i]
		}
	}
	if found == nil {
		t.Errorf("no toolhost.background log message among %v", rep.Logs)
	} else {
		d := found.Data
		ms, _ := d["duration_ms"].(float64)
		if d["command"] != backgroundCommand || d["exit_code"] != float64(4) || ms < 2900 || found.Level != "warning" {
			t.Errorf("log message %s %v, want level warning, the command, exit_code 4 and duration_ms of at least 2900", found.Level, d)
		}
	}
	m := noticeRE.FindStringSubmatch(rep.Next)
	if m == nil || !strings.Contains(rep.Run, m[1]) {
		t.Errorf("next result = %q, want the notice about the command run_command handed back (%q)", excerpt(rep.Next, 400), excerpt(rep.Run, 200))
	}
}

// TestBackgroundNotifications checks, with the TypeScript SDK client and the mcp-go client over
// stdio and HTTP, what a client receives when a command handed back past its yield ends: the
// resources/updated notification of the conversation's command resource it subscribed to, the
// toolhost.background log message with the command, exit code and duration, and the one-line
// notice on the next tool result.
func TestBackgroundNotifications(t *testing.T) {
	s := newSuite(t)
	script := filepath.Join(s.dir, "ts", "notify-check.mjs")
	for _, tr := range []string{"stdio", "http"} {
		t.Run("ts-sdk/"+tr, func(t *testing.T) {
			f := s.newToolhost(t, tr)
			var rep notifyReport
			t.Logf("TS SDK over %s received: %s", tr, s.nodeCheck(t, f, 2*time.Minute, &rep, script, backgroundCommand))
			checkNotify(t, rep)
		})
		t.Run("mcp-go/"+tr, func(t *testing.T) {
			f := s.newToolhost(t, tr)
			rep := mcpGoNotify(t, f)
			b, _ := json.Marshal(rep)
			t.Logf("mcp-go over %s received: %s", tr, b)
			checkNotify(t, rep)
		})
	}
}

// mcpGoNotify drives the mcp-go client through the same steps as notify-check.mjs, on
// 2025-11-25 (2026-07-28 replaced resources/subscribe and logging/setLevel with
// subscriptions/listen and a level in _meta).
func mcpGoNotify(t *testing.T, f *fixture) notifyReport {
	t.Helper()
	var c *mcpgo.Client
	var err error
	if f.transport == "stdio" {
		c, err = mcpgo.NewStdioMCPClient(f.mcp.Command, nil, f.mcp.Args...)
	} else {
		// The standalone GET stream carries what the server sends outside a request.
		c, err = mcpgo.NewStreamableHttpClient(f.mcp.URL, transport.WithContinuousListening(),
			transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + f.mcp.Token}))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Start(ctx); err != nil && f.transport == "http" {
		t.Fatal(err)
	}
	var mu sync.Mutex
	rep := notifyReport{}
	c.OnNotification(func(n mcpgotypes.JSONRPCNotification) {
		mu.Lock()
		defer mu.Unlock()
		p := n.Params.AdditionalFields
		switch n.Method {
		case "notifications/resources/updated":
			uri, _ := p["uri"].(string)
			rep.Updated = append(rep.Updated, uri)
		case "notifications/message":
			l := notifyLog{}
			l.Level, _ = p["level"].(string)
			l.Logger, _ = p["logger"].(string)
			l.Data, _ = p["data"].(map[string]any)
			rep.Logs = append(rep.Logs, l)
		}
	})
	init := mcpgotypes.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcpgotypes.Implementation{Name: "mcp-go-compat", Version: "1.2.1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	rep.Protocol = res.ProtocolVersion
	lvl := mcpgotypes.SetLevelRequest{}
	lvl.Params.Level = mcpgotypes.LoggingLevelInfo
	if err := c.SetLevel(ctx, lvl); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	list, err := c.ListResources(ctx, mcpgotypes.ListResourcesRequest{})
	if err != nil {
		t.Fatalf("resources/list: %v", err)
	}
	for _, r := range list.Resources {
		if strings.HasPrefix(r.URI, "toolhost://conversations/") && strings.HasSuffix(r.URI, "/commands") {
			rep.CommandsURI = r.URI
		}
	}
	if rep.CommandsURI != "" {
		sub := mcpgotypes.SubscribeRequest{}
		sub.Params.URI = rep.CommandsURI
		if err := c.Subscribe(ctx, sub); err != nil {
			t.Fatalf("resources/subscribe %s: %v", rep.CommandsURI, err)
		}
	}
	call := func(tool string, args map[string]any) string {
		req := mcpgotypes.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		r, err := c.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("tools/call %s: %v", tool, err)
		}
		var texts []string
		for _, ct := range r.Content {
			if tc, ok := ct.(mcpgotypes.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		return strings.Join(texts, "\n")
	}
	rep.Run = call("terminal_operations", map[string]any{"operation": "run_command", "command": backgroundCommand, "yield_seconds": 1})
	announced := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.ContainsFunc(rep.Logs, func(l notifyLog) bool { return l.Logger == "toolhost.background" })
	}
	for deadline := time.Now().Add(20 * time.Second); !announced() && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	next := call("think", map[string]any{"thoughts": "after the background command"})
	mu.Lock()
	defer mu.Unlock()
	rep.Next = next
	return notifyReport{Protocol: rep.Protocol, CommandsURI: rep.CommandsURI, Updated: slices.Clone(rep.Updated), Logs: slices.Clone(rep.Logs), Run: rep.Run, Next: rep.Next}
}
