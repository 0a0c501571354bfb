package consolidated

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/embed"
	"toolhost/internal/engine"
	"toolhost/internal/memory"
)

// newImportHarness serves memory_operations with the built-in embedder and the given import
// yield: on a new memory service, or on svc (a second connection to the same toolhost).
func newImportHarness(t *testing.T, yield time.Duration, svc *memory.Service) (*harness, *memory.Service) {
	t.Helper()
	if !embed.BuiltinAvailable() {
		if os.Getenv("CI") != "" {
			t.Fatal("the built-in USE-Lite embedder is missing from this build")
		}
		t.Skip("the built-in USE-Lite embedder is not in this build")
	}
	h := newHarness(t, harnessOptions{tools: func(h *harness) []*Tool {
		if svc == nil {
			svc = memory.New(h.st, memory.Config{Embedder: embed.NewUSELite()})
			t.Cleanup(func() { svc.Close() })
		}
		return []*Tool{MemoryTool(MemoryConfig{Service: svc, Guard: h.guard, ImportYield: yield})}
	}})
	return h, svc
}

// importDoc calls import_document for path, with a progress token when token is not "".
func importDoc(h *harness, path, token string) (string, map[string]any) {
	h.t.Helper()
	p := &mcp.CallToolParams{Name: "memory_operations", Arguments: map[string]any{"operation": "import_document", "path": path}}
	if token != "" {
		p.SetProgressToken(token)
	}
	text, isErr, st := h.callParams(p)
	if isErr {
		h.t.Fatalf("import_document(%s) failed: %s", path, text)
	}
	return text, st
}

// bigDocument is a Markdown file of about 140 chunks (14 under the race detector, which makes
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
	h, svc := newImportHarness(t, time.Millisecond, nil)
	h.write(map[string]string{"big.md": bigDocument()})
	text, st := importDoc(h, "big.md", "")
	if !strings.HasPrefix(text, "Importing big.md in the background (") || !strings.Contains(text, "Call import_document with the same path") || st["status"] != "running" {
		t.Fatalf("import past the yield = %q %v, want a background import and how to follow it", text, st)
	}
	// Follow it through a connection that waits long enough: the same job, not a second import.
	follow, _ := newImportHarness(t, 10*time.Minute, svc)
	follow.write(map[string]string{"big.md": bigDocument()})
	final, st := importDoc(follow, "big.md", "tok-1")
	if !strings.HasPrefix(final, "Imported big.md: ") {
		t.Fatalf("following the import = %q", final)
	}
	chunks := int(st["chunks"].(float64))
	if chunks < 10 {
		t.Fatalf("big.md gave %d chunks, want a large document", chunks)
	}
	// The client may handle notifications after the answer and in any order: wait for the one
	// that says the import is complete.
	want := fmt.Sprintf("embedded %d of %d chunks", chunks, chunks)
	var progress []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		follow.mu.Lock()
		progress = append(progress[:0], follow.progress...)
		follow.mu.Unlock()
		if len(progress) > 0 && strings.Contains(strings.Join(progress, "\n"), want) {
			break
		}
	}
	for _, p := range progress {
		var done, total int
		if _, err := fmt.Sscanf(p, "embedded %d of %d chunks", &done, &total); err != nil || total != chunks || done > total {
			t.Errorf("progress notification %q, want chunks embedded of %d", p, chunks)
		}
	}
	if !strings.Contains(strings.Join(progress, "\n"), want) {
		t.Errorf("progress notifications %q, none saying %q", progress, want)
	}
	// Done: the same file again is unchanged, and its text is searchable.
	if again, _ := importDoc(follow, "big.md", ""); !strings.Contains(again, "unchanged since its last import") {
		t.Errorf("re-import = %q", again)
	}
	got, isErr, _ := follow.call("memory_operations", map[string]any{"operation": "search_memory", "query": "how is batch 250 handled"})
	if isErr || !strings.Contains(got, "big.md") {
		t.Errorf("search after the import = %q", got)
	}
}

// TestImportIsOneExecution: the call that starts a background import stays one running
// execution until the import ends; cancelling that execution cancels the import.
func TestImportIsOneExecution(t *testing.T) {
	h, _ := newImportHarness(t, time.Millisecond, nil)
	e := openTestEngine(t, h)
	h.env.Executions = e
	h.write(map[string]string{"big.md": bigDocument(), "other.md": bigDocument() + "\nmore\n"})
	running := func() []engine.Record {
		return e.Active(context.Background(), authz.StdioPrincipal)
	}
	if _, st := importDoc(h, "big.md", ""); st["status"] != "running" {
		t.Skip("the import finished within the yield; nothing runs in the background")
	}
	if r := running(); len(r) != 1 || r[0].Operation != "import_document" {
		t.Fatalf("running after the call = %+v, want the import's execution", r)
	}
	eventually(t, 2*time.Minute, "the import's execution to end", func() bool { return len(running()) == 0 })
	page, _ := e.List(context.Background(), engine.Filter{Viewer: authz.StdioPrincipal, Tool: "memory_operations"})
	if len(page.Executions) != 1 || page.Executions[0].Status != engine.StatusSuccess {
		t.Errorf("import's execution = %+v, want one success", page.Executions)
	}

	if _, st := importDoc(h, "other.md", ""); st["status"] != "running" {
		t.Skip("the second import finished within the yield")
	}
	r := running()
	if len(r) != 1 {
		t.Fatalf("running = %+v", r)
	}
	got, err := e.Cancel(context.Background(), authz.StdioPrincipal, r[0].ID)
	if err != nil || got.Status != engine.StatusCancelled {
		t.Errorf("Cancel(import) = %+v, %v; want cancelled", got, err)
	}
}

// TestImportDocumentSizeBothSides: import_document takes a file up to the memory service's
// limit and refuses a longer one with the limit named, before reading it.
func TestImportDocumentSizeBothSides(t *testing.T) {
	const limit = 200
	h := newHarness(t, harnessOptions{tools: func(h *harness) []*Tool {
		emb, err := embed.New("lexical")
		if err != nil {
			t.Fatal(err)
		}
		svc := memory.New(h.st, memory.Config{Embedder: emb, MaxDocumentBytes: limit})
		t.Cleanup(func() { svc.Close() })
		return []*Tool{MemoryTool(MemoryConfig{Service: svc, Guard: h.guard, ImportYield: 10 * time.Second})}
	}})
	for _, tt := range []struct {
		name string
		size int
		ok   bool
	}{
		{"just under", limit - 1, true},
		{"at", limit, true},
		{"just over", limit + 1, false},
		{"far over", 1000 * limit, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := strings.ReplaceAll(tt.name, " ", "-") + ".md"
			h.write(map[string]string{path: strings.Repeat("word ", tt.size)[:tt.size]})
			text, isErr, _ := h.call("memory_operations", map[string]any{"operation": "import_document", "path": path})
			if tt.ok && (isErr || !strings.Contains(text, "chunk")) {
				t.Errorf("a document of %d bytes (limit %d) = %s, want it imported", tt.size, limit, text)
			}
			if !tt.ok && (!isErr || !strings.Contains(text, "too_large") || !strings.Contains(text, fmt.Sprintf("the import limit is %d", limit))) {
				t.Errorf("a document of %d bytes (limit %d) = %s, want too_large naming the limit", tt.size, limit, text)
			}
		})
	}
}
