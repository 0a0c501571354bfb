package consolidated

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/edit"
	"toolhost/store"
)

// fileHarness serves file_operations (and read_tool_result) over the go-sdk in-memory transport
// with a real guard and store, and calls it as a client would.
type fileHarness struct {
	t     testing.TB
	wd    string
	guard *authz.Guard
	env   *Env
	cs    *mcp.ClientSession
}

const testConversation = "conv-test"

func newFileHarness(t testing.TB, budgetTokens int) *fileHarness {
	t.Helper()
	ctx := context.Background()
	wd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, t.TempDir(), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	g, err := authz.New(ctx, authz.Config{WorkDir: wd, StateDir: st.Dir(), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	spill, err := NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Workdir: wd, DefaultConversation: testConversation, BudgetTokens: budgetTokens, Spill: spill}
	j, _, err := edit.OpenJournal(filepath.Join(st.Dir(), "journal"), nil)
	if err != nil {
		t.Fatal(err)
	}
	// list_dir ages are measured from a clock 400 days ahead, so every file the test writes is
	// "13mo" old however long the test takes.
	later := time.Now().Add(400 * 24 * time.Hour)
	reg := NewRegistry(env, []*Tool{FileTool(FileConfig{Guard: g, Journal: j, Now: func() time.Time { return later }}), ReadToolResultTool()}, nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "toolhost", Version: "test"}, nil)
	reg.Register(s)
	sTrans, cTrans := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, sTrans, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, cTrans, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &fileHarness{t: t, wd: wd, guard: g, env: env, cs: cs}
}

// call runs a tool and returns its text (all blocks), whether it is an error, and its structured
// content.
func (h *fileHarness) call(tool string, args map[string]any) (string, bool, any) {
	h.t.Helper()
	res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		h.t.Fatalf("CallTool(%s, %v): %v", tool, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError, res.StructuredContent
}

// op calls file_operations with operation op; args may be nil.
func (h *fileHarness) op(op string, args map[string]any) (string, bool) {
	h.t.Helper()
	m := map[string]any{"operation": op}
	for k, v := range args {
		m[k] = v
	}
	text, isErr, _ := h.call("file_operations", m)
	return text, isErr
}

// mustOp fails the test when the call is an error.
func (h *fileHarness) mustOp(op string, args map[string]any) string {
	h.t.Helper()
	text, isErr := h.op(op, args)
	if isErr {
		h.t.Fatalf("file_operations %s %v failed:\n%s", op, args, text)
	}
	return text
}

// write creates files under the working directory: path -> content.
func (h *fileHarness) write(files map[string]string) {
	h.t.Helper()
	for p, content := range files {
		full := filepath.Join(h.wd, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			h.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			h.t.Fatal(err)
		}
	}
}

func (h *fileHarness) read(p string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.wd, filepath.FromSlash(p)))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

func (h *fileHarness) exists(p string) bool {
	_, err := os.Lstat(filepath.Join(h.wd, filepath.FromSlash(p)))
	return err == nil
}
