package consolidated

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"toolhost/authz"
	"toolhost/internal/memory"
)

type storeMemoryArgs struct {
	Content  string            `json:"content"`
	Tags     []string          `json:"tags,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
	Scope    string            `json:"scope,omitempty" jsonschema:"conversation (default) or a shared topic name."`
}

type searchMemoryArgs struct {
	Query     string   `json:"query"`
	Limit     int      `json:"limit,omitempty" jsonschema:"Default 5."`
	Threshold float64  `json:"similarity_threshold,omitempty" alias:"threshold"`
	Tags      []string `json:"tags,omitempty"`
	Scope     string   `json:"scope,omitempty" jsonschema:"conversation (default) or a shared topic name."`
}

type noArgs struct{}

type deleteMemoryArgs struct {
	ID    int64  `json:"id,omitempty" jsonschema:"Memory id, or tag+scope."`
	Tag   string `json:"tag,omitempty"`
	Scope string `json:"scope,omitempty" jsonschema:"conversation (default) or a shared topic name."`
}

type importDocumentArgs struct {
	Path  string   `json:"path"`
	Tags  []string `json:"tags,omitempty"`
	Scope string   `json:"scope,omitempty" jsonschema:"conversation (default) or a shared topic name."`
}

// MemoryTool is memory_operations: semantic memory stored in the state directory, searched by
// meaning with the configured embedder (offline by default).
func MemoryTool(svc *memory.Service, guard *authz.Guard) *Tool {
	m := &memoryTool{svc: svc, guard: guard}
	return &Tool{
		Name:           "memory_operations",
		Description:    "Remember facts and find them later by meaning. A scope other than conversation is a topic shared across conversations.",
		Conversational: true,
		Operations: []Operation{
			Op("store_memory", "remember content", RiskState, m.store).WithTimeout(time.Minute),
			Op("search_memory", "find memories by meaning", RiskRead, m.search).WithTimeout(time.Minute),
			Op("list_collections", "scopes with counts", RiskRead, m.collections),
			Op("delete_memory", "delete by id or by tag", RiskState, m.delete),
			Op("import_document", "chunk a text or Markdown file into memory", RiskState, m.importDocument).WithTimeout(10 * time.Minute),
		},
	}
}

type memoryTool struct {
	svc   *memory.Service
	guard *authz.Guard
}

func (m *memoryTool) store(ctx context.Context, c *Call, a *storeMemoryArgs) (*Result, error) {
	r, err := m.svc.Store(ctx, memory.StoreRequest{Conversation: c.Conversation, Content: a.Content, Tags: a.Tags, Metadata: a.Metadata, Scope: a.Scope})
	if err != nil {
		return nil, memoryError(err, "content")
	}
	switch r.Duplicate {
	case "":
		return &Result{Text: fmt.Sprintf("Stored memory %d in %s.", r.ID, r.Scope), Structured: r}, nil
	default:
		return &Result{Text: fmt.Sprintf("Not stored: %s duplicate of memory %d in %s (similarity %.2f): %q", r.Duplicate, r.ID, r.Scope, r.Similarity, r.Existing), Structured: r}, nil
	}
}

func (m *memoryTool) search(ctx context.Context, c *Call, a *searchMemoryArgs) (*Result, error) {
	req := memory.SearchRequest{Conversation: c.Conversation, Query: a.Query, Limit: a.Limit, Tags: a.Tags}
	if a.Scope != "" {
		req.Scopes = []string{a.Scope}
	}
	if a.Threshold != 0 {
		th := float32(a.Threshold)
		req.Threshold = &th
	}
	hits, err := m.svc.Search(ctx, req)
	if err != nil {
		return nil, memoryError(err, "query")
	}
	if len(hits) == 0 {
		return &Result{Text: "No memories matched. Try other words, a lower similarity_threshold, or scope \"all\"."}, nil
	}
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "#%d score %.2f %s %s", h.ID, h.Score, h.Scope, h.Created.Format("2006-01-02"))
		if len(h.Tags) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(h.Tags, ", "))
		}
		if h.Document != "" {
			fmt.Fprintf(&b, " (%s, chunk %d)", h.Document, h.Chunk)
		}
		b.WriteString("\n" + h.Content)
		if h.Truncated {
			b.WriteString(" …")
		}
		b.WriteString("\n\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Structured: map[string]any{"hits": hits}}, nil
}

func (m *memoryTool) collections(ctx context.Context, c *Call, _ *noArgs) (*Result, error) {
	cols, err := m.svc.Collections(ctx, c.Conversation)
	if err != nil {
		return nil, memoryError(err, "")
	}
	if len(cols) == 0 {
		return &Result{Text: "No memories yet. Embedder: " + m.svc.Embedder().ID()}, nil
	}
	var b strings.Builder
	for _, col := range cols {
		fmt.Fprintf(&b, "%s: %d memories", col.Scope, col.Count)
		if col.Documents > 0 {
			fmt.Fprintf(&b, ", %d documents", col.Documents)
		}
		fmt.Fprintf(&b, ", %d bytes, %s/%d", col.Bytes, col.Embedder, col.Dim)
		if col.Stale > 0 {
			fmt.Fprintf(&b, ", %d embedded by another embedder (run: toolhost memory reembed)", col.Stale)
		}
		b.WriteByte('\n')
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Structured: map[string]any{"collections": cols}}, nil
}

func (m *memoryTool) delete(ctx context.Context, c *Call, a *deleteMemoryArgs) (*Result, error) {
	if (a.ID == 0) == (a.Tag == "") {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "id", Message: "give either id, or tag (with scope)"}
	}
	if a.ID < 0 {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "id", Message: "id is a positive memory id"}
	}
	n, err := m.svc.Delete(ctx, memory.DeleteRequest{Conversation: c.Conversation, ID: uint64(a.ID), Tag: a.Tag, Scope: a.Scope})
	if err != nil {
		return nil, memoryError(err, "id")
	}
	return &Result{Text: fmt.Sprintf("Deleted %d memories.", n), Structured: map[string]any{"deleted": n}}, nil
}

func (m *memoryTool) importDocument(ctx context.Context, c *Call, a *importDocumentArgs) (*Result, error) {
	t, err := m.guard.Open(ctx, c.GuardRequest(authz.ClassRead, a.Path))
	if err != nil {
		return nil, GuardError(err, "path")
	}
	defer t.Close()
	f, err := t.OpenRead()
	if err != nil {
		return nil, GuardError(err, "path")
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &ToolError{Code: CodeInvalidPath, Param: "path", Message: "path is a directory; import one file at a time"}
	}
	data, err := io.ReadAll(io.LimitReader(f, memory.DefaultMaxDocumentSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > memory.DefaultMaxDocumentSize {
		return nil, &ToolError{Code: CodeTooLarge, Param: "path", Message: fmt.Sprintf("document is over %d MiB", memory.DefaultMaxDocumentSize>>20)}
	}
	name := t.Canonical
	if rel, err := filepath.Rel(m.guard.WorkDir(), t.Canonical); err == nil && !strings.HasPrefix(rel, "..") {
		name = filepath.ToSlash(rel)
	}
	r, err := m.svc.Import(ctx, memory.ImportRequest{Conversation: c.Conversation, Name: name, Content: data, Scope: a.Scope, Tags: a.Tags})
	if err != nil {
		return nil, memoryError(err, "path")
	}
	switch {
	case r.Unchanged:
		return &Result{Text: fmt.Sprintf("%s is unchanged since its last import (%d chunks in %s); nothing to do.", r.Name, r.Chunks, r.Scope), Structured: r}, nil
	case r.Replaced > 0:
		return &Result{Text: fmt.Sprintf("Re-imported %s: %d chunks replace %d in %s.", r.Name, r.Chunks, r.Replaced, r.Scope), Structured: r}, nil
	}
	return &Result{Text: fmt.Sprintf("Imported %s: %d chunks in %s.", r.Name, r.Chunks, r.Scope), Structured: r}, nil
}

// memoryError maps the memory service's errors to model-fixable ones.
func memoryError(err error, param string) error {
	var code ErrorCode
	var ec *memory.EmbedderChangedError
	switch {
	case errors.As(err, &ec):
		return &ToolError{Code: CodeEmbedderChanged, Message: err.Error(), Next: "ask the user to run: toolhost memory reembed", Cause: err}
	case errors.Is(err, memory.ErrEmptyContent):
		code = CodeInvalidValue
	case errors.Is(err, memory.ErrTooLarge):
		code = CodeTooLarge
	case errors.Is(err, memory.ErrNotFound):
		code = CodeNotFound
	case errors.Is(err, memory.ErrBadRequest):
		code = CodeInvalidValue
	case errors.Is(err, memory.ErrNotText):
		code = CodeNotText
	default:
		return err
	}
	return &ToolError{Code: code, Param: param, Message: err.Error(), Cause: err}
}
