package consolidated

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/embed"
	"toolhost/internal/memory"
	"toolhost/store"
)

// importHarness serves memory_operations with the built-in embedder over the in-memory transport
// and records the progress notifications the client receives.
type importHarness struct {
	t   *testing.T
	wd  string
	svc *memory.Service
	cs  *mcp.ClientSession

	mu       sync.Mutex
	progress []*mcp.ProgressNotificationParams
}

// newImportHarness serves a new memory service, or svc when given (a second server on the same
// service, as a second connection to one toolhost would be).
func newImportHarness(t *testing.T, yield time.Duration, svc *memory.Service) *importHarness {
	t.Helper()
	if !embed.BuiltinAvailable() {
		if os.Getenv("CI") != "" {
			t.Fatal("the built-in USE-Lite embedder is missing from this build")
		}
		t.Skip("the built-in USE-Lite embedder is not in this build")
	}
	// The file harness's working directory and guard, a memory store of its own.
	fh := newFileHarness(t, 0)
	h := &importHarness{t: t, wd: fh.wd, svc: svc}
	if svc == nil {
		st, err := store.Open(context.Background(), t.TempDir(), store.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		h.svc = memory.New(st, memory.Config{Embedder: embed.NewUSELite()})
		t.Cleanup(func() { h.svc.Close() })
	}
	tool := MemoryTool(MemoryConfig{Service: h.svc, Guard: fh.guard, ImportYield: yield})
	h.cs = connectTools(t, fh.env, []*Tool{tool}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			h.mu.Lock()
			h.progress = append(h.progress, req.Params)
			h.mu.Unlock()
		},
	})
	return h
}

// connectTools serves tools over the in-memory transport and returns a connected client.
func connectTools(t *testing.T, env *Env, tools []*Tool, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "toolhost", Version: "test"}, nil)
	NewRegistry(env, tools, nil).Register(s)
	sTrans, cTrans := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, sTrans, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, cTrans, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// importDoc calls import_document for path, with a progress token when token is not "".
func (h *importHarness) importDoc(path, token string) (string, map[string]any) {
	h.t.Helper()
	p := &mcp.CallToolParams{Name: "memory_operations", Arguments: map[string]any{"operation": "import_document", "path": path}}
	if token != "" {
		p.SetProgressToken(token)
	}
	res, err := h.cs.CallTool(context.Background(), p)
	if err != nil {
		h.t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		h.t.Fatalf("import_document(%s) failed: %s", path, text)
	}
	m, _ := res.StructuredContent.(map[string]any)
	return text, m
}

// bigDocument is a Markdown file of about 120 chunks (12 under the race detector, which makes
// the model about sixty times slower).
func bigDocument() string {
	paragraphs := 400
	if raceEnabled {
		paragraphs = 40
	}
	var b strings.Builder
	for i := range paragraphs {
		if i%20 == 0 {
			fmt.Fprintf(&b, "\n## Part %d\n\n", i/20)
		}
		fmt.Fprintf(&b, "Paragraph %d explains how the ingest service handles batch %d with retries, backoff and an audit trail that operators read later.\n\n", i, i)
	}
	return b.String()
}

// TestImportContinuesInTheBackground: an import that outlasts the yield answers with its
// progress and goes on; importing the same path again waits for it, with MCP progress
// notifications (chunks embedded of the total), and returns its result.
func TestImportContinuesInTheBackground(t *testing.T) {
	h := newImportHarness(t, time.Millisecond, nil)
	if err := os.WriteFile(filepath.Join(h.wd, "big.md"), []byte(bigDocument()), 0o644); err != nil {
		t.Fatal(err)
	}
	text, st := h.importDoc("big.md", "")
	if !strings.HasPrefix(text, "Importing big.md in the background (") || !strings.Contains(text, "Call import_document with the same path") || st["status"] != "running" {
		t.Fatalf("import past the yield = %q %v, want a background import and how to follow it", text, st)
	}
	// Follow it through a connection that waits long enough: the same job, not a second import.
	follow := newImportHarness(t, 10*time.Minute, h.svc)
	if err := os.WriteFile(filepath.Join(follow.wd, "big.md"), []byte(bigDocument()), 0o644); err != nil {
		t.Fatal(err)
	}
	final, st := follow.importDoc("big.md", "tok-1")
	if !strings.HasPrefix(final, "Imported big.md: ") {
		t.Fatalf("following the import = %q", final)
	}
	chunks := int(st["chunks"].(float64))
	if chunks < 10 {
		t.Fatalf("big.md gave %d chunks, want a large document", chunks)
	}
	// The client may handle notifications after the answer and in any order: wait for the one
	// that says the import is complete.
	var progress []*mcp.ProgressNotificationParams
	complete := false
	for deadline := time.Now().Add(10 * time.Second); !complete && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		follow.mu.Lock()
		progress = append(progress[:0], follow.progress...)
		follow.mu.Unlock()
		for _, p := range progress {
			if p.ProgressToken != "tok-1" || p.Total != float64(chunks) || p.Progress > p.Total {
				t.Fatalf("progress notification %+v, want token tok-1 and a total of %d chunks", p, chunks)
			}
			complete = complete || p.Progress == float64(chunks) && p.Message == fmt.Sprintf("embedded %d of %d chunks", chunks, chunks)
		}
	}
	if !complete {
		t.Errorf("progress notifications %d, none saying %d of %d chunks", len(progress), chunks, chunks)
	}
	// Done: the same file again is unchanged, and its text is searchable.
	if again, _ := h.importDoc("big.md", ""); !strings.Contains(again, "unchanged since its last import") {
		t.Errorf("re-import = %q", again)
	}
	res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_operations", Arguments: map[string]any{"operation": "search_memory", "query": "how is batch 250 handled"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "big.md") {
		t.Errorf("search after the import = %v %v", res, err)
	}
}
