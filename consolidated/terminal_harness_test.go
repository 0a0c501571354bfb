package consolidated

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/terminal"
	"toolhost/store"
)

// termHarness serves terminal_operations over the go-sdk in-memory transport with a real guard,
// store and terminal engine, and calls it as a client would.
type termHarness struct {
	t     testing.TB
	wd    string
	st    *store.Store
	guard *authz.Guard
	mgr   *terminal.Manager
	cs    *mcp.ClientSession

	mu       sync.Mutex
	progress []string
	updated  []string
}

type termOptions struct {
	st       *store.Store // reuse a store (restart tests); nil opens a new one
	protocol string       // client protocol version; "" = the SDK default
}

func newTermHarness(t testing.TB, o termOptions) *termHarness {
	t.Helper()
	ctx := context.Background()
	wd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &termHarness{t: t, wd: wd, st: o.st}
	if h.st == nil {
		if h.st, err = store.Open(ctx, t.TempDir(), store.Options{NoSync: true}); err != nil {
			t.Fatal(err)
		}
		st := h.st
		t.Cleanup(func() { st.Close() })
	}
	if h.guard, err = authz.New(ctx, authz.Config{WorkDir: wd, StateDir: h.st.Dir(), Store: h.st}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.guard.Close() })
	h.mgr, err = terminal.NewManager(terminal.Config{
		Store: h.st, CloseGrace: 500 * time.Millisecond,
		MaxWait: 20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.shutdown() })
	spill, err := NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Workdir: wd, DefaultConversation: testConversation, Spill: spill}
	reg := NewRegistry(env, []*Tool{TerminalTool(TerminalConfig{Manager: h.mgr, Guard: h.guard, MaxWait: 20 * time.Second})}, nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "toolhost", Version: "test"}, &mcp.ServerOptions{
		SubscribeHandler: reg.Subscribe, UnsubscribeHandler: reg.Unsubscribe,
	})
	reg.Register(s)
	sTrans, cTrans := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, sTrans, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			h.mu.Lock()
			h.progress = append(h.progress, req.Params.Message)
			h.mu.Unlock()
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			h.mu.Lock()
			h.updated = append(h.updated, req.Params.URI)
			h.mu.Unlock()
		},
	})
	var copts *mcp.ClientSessionOptions
	if o.protocol != "" {
		copts = &mcp.ClientSessionOptions{ProtocolVersion: o.protocol}
	}
	if h.cs, err = client.Connect(ctx, cTrans, copts); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.cs.Close() })
	return h
}

// shutdown ends every session, as the server does when it stops.
func (h *termHarness) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.mgr.Shutdown(ctx); err != nil {
		h.t.Errorf("Shutdown: %v", err)
	}
}

// callParams runs terminal_operations with the given params and returns its text, whether it
// is an error and its structured content decoded into a map.
func (h *termHarness) callParams(p *mcp.CallToolParams) (string, bool, map[string]any) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := h.cs.CallTool(ctx, p)
	if err != nil {
		h.t.Fatalf("CallTool(%v): %v", p.Arguments, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	var st map[string]any
	if res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(raw, &st)
	}
	return b.String(), res.IsError, st
}

func (h *termHarness) op(op string, args map[string]any) (string, bool, map[string]any) {
	h.t.Helper()
	m := map[string]any{"operation": op}
	for k, v := range args {
		m[k] = v
	}
	return h.callParams(&mcp.CallToolParams{Name: "terminal_operations", Arguments: m})
}

func (h *termHarness) mustOp(op string, args map[string]any) (string, map[string]any) {
	h.t.Helper()
	text, isErr, st := h.op(op, args)
	if isErr {
		h.t.Fatalf("terminal_operations %s %v failed:\n%s", op, args, text)
	}
	return text, st
}

// waitOutput polls get_output until re matches the accumulated output or the deadline passes.
func (h *termHarness) waitOutput(id string, re *regexp.Regexp, conv string) string {
	h.t.Helper()
	var all strings.Builder
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		args := map[string]any{"session_id": id, "wait_ms": 2000, "wait_for": re.String()}
		if conv != "" {
			args["conversation_id"] = conv
		}
		text, _ := h.mustOp("get_output", args)
		_, body, _ := strings.Cut(text, "\n")
		all.WriteString(body)
		if re.MatchString(all.String()) {
			return all.String()
		}
	}
	h.t.Fatalf("output of %s never matched %s; got:\n%s", id, re, all.String())
	return ""
}

// normalize replaces what changes between runs (durations, pids, temporary paths, cursors)
// so that the texts can be compared with golden files.
func (h *termHarness) normalize(s string) string {
	s = strings.ReplaceAll(s, h.wd, "$WD")
	s = regexp.MustCompile(`\b\d+(\.\d+)?(ms|µs|s|m\d+s)\b`).ReplaceAllString(s, "<dur>")
	s = regexp.MustCompile(`pid \d+`).ReplaceAllString(s, "pid <pid>")
	s = regexp.MustCompile(`cursor[ =]\d+`).ReplaceAllStringFunc(s, func(m string) string { return m[:len("cursor")+1] + "<n>" })
	s = regexp.MustCompile(`idle \S+`).ReplaceAllString(s, "idle <dur>")
	s = regexp.MustCompile(`/\S*/(bash|sh)\b`).ReplaceAllString(s, "<shell>")
	return s
}

// procsWithArgs lists pids whose command line is exactly args.
func procsWithArgs(t *testing.T, args ...string) []string {
	t.Helper()
	want := strings.Join(args, "\x00") + "\x00"
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && string(b) == want {
			stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if strings.Contains(string(stat), ") Z ") {
				continue // a zombie of some other parent is not ours to count
			}
			out = append(out, e.Name())
		}
	}
	return out
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
