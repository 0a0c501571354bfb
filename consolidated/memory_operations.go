package consolidated

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/engine"
	"toolhost/internal/memory"
)

type storeMemoryArgs struct {
	Content   string            `json:"content"`
	Tags      []string          `json:"tags,omitempty"`
	Metadata  map[string]string `json:"metadata,omitempty"`
	Scope     string            `json:"scope,omitempty" jsonschema:"conversation (default) or a shared topic name."`
	Kind      string            `json:"kind,omitempty" jsonschema:"fact (default) or instruction: a rule the user gave; scope user or project."`
	UserWords string            `json:"user_words,omitempty" jsonschema:"The user's words giving the instruction."`
}

type updateMemoryArgs struct {
	ID       int64             `json:"id"`
	Content  string            `json:"content,omitempty"`
	Tags     []string          `json:"tags,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

type searchMemoryArgs struct {
	Query     string   `json:"query,omitempty"`
	ID        int64    `json:"id,omitempty"`
	Limit     int      `json:"limit,omitempty" jsonschema:"Default 5."`
	Threshold float64  `json:"similarity_threshold,omitempty" alias:"threshold"`
	Tags      []string `json:"tags,omitempty"`
	Scope     string   `json:"scope,omitempty" jsonschema:"conversation (default) or a shared topic name."`
	Versions  bool     `json:"versions,omitempty" jsonschema:"Include earlier versions."`
}

type noArgs struct{}

type deleteMemoryArgs struct {
	ID    int64  `json:"id,omitempty"`
	Tag   string `json:"tag,omitempty"`
	Scope string `json:"scope,omitempty" jsonschema:"conversation (default) or a shared topic name."`
}

type importDocumentArgs struct {
	Path  string   `json:"path"`
	Tags  []string `json:"tags,omitempty"`
	Scope string   `json:"scope,omitempty" jsonschema:"conversation (default) or a shared topic name."`
}

// MemoryConfig is what memory_operations needs from the wiring.
type MemoryConfig struct {
	Service *memory.Service
	Guard   *authz.Guard
	// ImportYield is how long import_document waits for an import before answering with its
	// progress and letting it finish in the background; 0 means DefaultImportYield.
	ImportYield time.Duration
}

// DefaultImportYield matches run_command's yield: clients give up on calls at about 60 s.
const DefaultImportYield = 15 * time.Second

// MemoryTool is memory_operations: semantic memory stored in the state directory, searched by
// meaning with the configured embedder (offline by default).
func MemoryTool(cfg MemoryConfig) *Tool {
	if cfg.ImportYield <= 0 {
		cfg.ImportYield = DefaultImportYield
	}
	m := &memoryTool{svc: cfg.Service, guard: cfg.Guard, yield: cfg.ImportYield}
	return &Tool{
		Name:        "memory_operations",
		Title:       "Memory",
		Description: "Remember facts and find them later by meaning: " + OperationsPlaceholder + ". A scope other than conversation is a topic shared across conversations.",
		Operations: []Operation{
			Op("store_memory", "", RiskState, m.store).WithTimeout(time.Minute),
			Op("update_memory", "correct a memory by id; old version kept", RiskState, m.update).WithTimeout(time.Minute),
			Op("search_memory", "find memories by meaning, or read one by id", RiskRead, m.search).WithTimeout(time.Minute),
			Op("list_collections", "", RiskRead, m.collections),
			Op("delete_memory", "delete by id or by tag", RiskState, m.delete),
			Op("import_document", "chunk a text or Markdown file into memory", RiskState, m.importDocument).WithTimeout(cfg.ImportYield + time.Minute).WithTaskWait(),
		},
	}
}

type memoryTool struct {
	svc   *memory.Service
	guard *authz.Guard
	yield time.Duration
}

func (m *memoryTool) store(ctx context.Context, c *Call, a *storeMemoryArgs) (*Result, error) {
	var project string
	if c.Env != nil {
		project = c.Env.Workdir
	}
	r, err := m.svc.Store(ctx, memory.StoreRequest{Conversation: c.Conversation, Content: a.Content, Tags: a.Tags, Metadata: a.Metadata,
		Scope: a.Scope, Project: project, Kind: a.Kind, UserWords: a.UserWords})
	if err != nil {
		param := "content"
		if a.Kind != "" {
			param = "kind"
		}
		return nil, memoryError(err, param)
	}
	switch {
	case a.Kind == memory.KindInstruction && r.Duplicate == "":
		where := "this project"
		if r.Scope == memory.UserScope {
			where = "the user, everywhere"
		}
		return &Result{Text: fmt.Sprintf("Stored standing instruction %d for %s. Reminders repeat it; the user lists and removes instructions with `toolhost memory instructions` or in the console.",
			r.ID, where), Structured: r}, nil
	case r.Duplicate != "":
		return &Result{Text: fmt.Sprintf("Not stored: %s duplicate of memory %d in %s (similarity %.2f): %q. To change that memory, use update_memory with id %d.",
			r.Duplicate, r.ID, r.Scope, r.Similarity, r.Existing, r.ID), Structured: r}, nil
	case r.Superseded != 0:
		return &Result{Text: fmt.Sprintf("Stored memory %d in %s. It supersedes memory %d (%s), which no longer appears in searches: %q.",
			r.ID, r.Scope, r.Superseded, changeText(r.Change), r.Existing), Structured: r}, nil
	}
	return &Result{Text: fmt.Sprintf("Stored memory %d in %s.", r.ID, r.Scope), Structured: r}, nil
}

// changeText says what differs between a memory and the one it supersedes.
func changeText(c *memory.FactChange) string {
	switch {
	case c == nil || c.Kind == memory.ChangeUpdate:
		return "updated"
	case c.Kind == memory.ChangeRevert:
		return "the text of an earlier version again"
	}
	return fmt.Sprintf("%s changed: %s → %s", c.Kind, c.Old, c.New)
}

func (m *memoryTool) update(ctx context.Context, c *Call, a *updateMemoryArgs) (*Result, error) {
	if a.ID <= 0 {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "id", Message: "id is a positive memory id", Next: "search_memory shows the ids"}
	}
	r, err := m.svc.Update(ctx, memory.UpdateRequest{Conversation: c.Conversation, ID: uint64(a.ID), Content: a.Content, Tags: a.Tags, Metadata: a.Metadata})
	if err != nil {
		return nil, memoryError(err, "id")
	}
	var b strings.Builder
	if r.Head != 0 {
		fmt.Fprintf(&b, "Memory %d was superseded by %d; updated that instead. ", a.ID, r.Head)
	}
	switch {
	case r.Duplicate != 0:
		fmt.Fprintf(&b, "Not updated: memory %d in %s already has this content.", r.Duplicate, r.Scope)
	case r.Superseded != 0:
		fmt.Fprintf(&b, "Stored memory %d in %s as the new version of memory %d (%s); search_memory returns %d from now on.",
			r.ID, r.Scope, r.Superseded, changeText(r.Change), r.ID)
	default:
		fmt.Fprintf(&b, "Updated the tags and metadata of memory %d.", r.ID)
	}
	return &Result{Text: b.String(), Structured: r}, nil
}

func (m *memoryTool) search(ctx context.Context, c *Call, a *searchMemoryArgs) (*Result, error) {
	if a.ID != 0 {
		if a.Query != "" {
			return nil, &ToolError{Code: CodeInvalidValue, Param: "id", Message: "give either query (to search) or id (to read one memory), not both"}
		}
		return m.get(ctx, c, a.ID)
	}
	if strings.TrimSpace(a.Query) == "" {
		return nil, &ToolError{Code: CodeMissingParameter, Param: "query", Message: "search_memory needs a query, or an id to read one memory"}
	}
	req := memory.SearchRequest{Conversation: c.Conversation, Query: a.Query, Limit: a.Limit, Tags: a.Tags, Versions: a.Versions}
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
		if h.SupersededBy != 0 {
			fmt.Fprintf(&b, " (earlier version, superseded by #%d)", h.SupersededBy)
		} else if h.Supersedes != 0 {
			fmt.Fprintf(&b, " (supersedes #%d)", h.Supersedes)
		}
		if h.Kind == memory.KindInstruction {
			b.WriteString(" (standing instruction)")
		}
		b.WriteString("\n" + h.Content)
		if h.Truncated {
			b.WriteString(" …")
		}
		b.WriteString("\n\n")
	}
	return &Result{Text: strings.TrimRight(b.String(), "\n"), Structured: map[string]any{"hits": hits}}, nil
}

// get reads one memory by id, current or superseded, with its versions.
func (m *memoryTool) get(ctx context.Context, c *Call, id int64) (*Result, error) {
	if id < 0 {
		return nil, &ToolError{Code: CodeInvalidValue, Param: "id", Message: "id is a positive memory id"}
	}
	mem, err := m.svc.Get(ctx, c.Conversation, uint64(id))
	if err != nil {
		return nil, memoryError(err, "id")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s", mem.ID, mem.Scope, mem.Created.Format("2006-01-02"))
	if len(mem.Tags) > 0 {
		fmt.Fprintf(&b, " [%s]", strings.Join(mem.Tags, ", "))
	}
	if mem.Document != "" {
		fmt.Fprintf(&b, " (%s, chunk %d)", mem.Document, mem.Chunk)
	}
	if mem.SupersededBy != 0 {
		fmt.Fprintf(&b, " superseded by #%d on %s", mem.SupersededBy, mem.Replaced.Format("2006-01-02"))
	}
	b.WriteString("\n" + mem.Content)
	if len(mem.Versions) > 1 {
		vs := make([]string, len(mem.Versions))
		for i, v := range mem.Versions {
			vs[i] = fmt.Sprintf("#%d", v)
		}
		vs[len(vs)-1] += " (current)"
		b.WriteString("\nversions: " + strings.Join(vs, ", "))
	}
	return &Result{Text: b.String(), Structured: mem}, nil
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
		if col.Superseded > 0 {
			fmt.Fprintf(&b, " (+%d earlier versions)", col.Superseded)
		}
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
	name := t.Canonical
	if rel, err := filepath.Rel(m.guard.WorkDir(), t.Canonical); err == nil && !strings.HasPrefix(rel, "..") {
		name = filepath.ToSlash(rel)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &ToolError{Code: CodeInvalidPath, Param: "path", Message: "path is a directory; import one file at a time"}
	} else if err == nil {
		// The service's limit, before reading a file that is over it.
		if err := m.svc.CheckDocumentSize(name, st.Size()); err != nil {
			return nil, memoryError(err, "path")
		}
	}
	// A file that grew since is cut one byte past the limit, which the service refuses.
	data, err := io.ReadAll(io.LimitReader(f, int64(m.svc.MaxDocumentBytes())+1))
	if err != nil {
		return nil, err
	}
	job, attached, err := m.svc.StartImport(memory.ImportRequest{Conversation: c.Conversation, Name: name, Content: data, Scope: a.Scope, Tags: a.Tags})
	if err != nil {
		return nil, memoryError(err, "path")
	}
	if !m.waitImport(ctx, c, job) {
		if c.Task != "" {
			// A task waits for its import; a task cancelled (or past its deadline) ends it,
			// unless another call started it and still waits.
			if !attached {
				job.Cancel()
				<-job.Done()
			}
			return nil, ctx.Err()
		}
		if !attached {
			continueImport(c, job, a.Path)
		}
		done, total := job.Progress()
		verb := "Importing"
		if attached {
			verb = "Still importing"
		}
		counted := fmt.Sprintf("%d of %d chunks embedded", done, total)
		if total == 0 {
			counted = "chunking"
		}
		return &Result{Text: fmt.Sprintf("%s %s in the background (%s, %s so far). Call import_document with the same path to wait for it (up to %s) and get the result.",
			verb, job.Name, counted, time.Since(job.Started).Round(time.Second), m.yield),
			Structured: map[string]any{"name": job.Name, "scope": job.Scope, "status": "running", "done": done, "total": total}}, nil
	}
	r, err := job.Result()
	m.svc.Collect(job)
	c.Acknowledge("import:" + job.Name)
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

// continueImport keeps the execution that started an import running until the import ends in
// the background; cancelling the execution cancels the import.
func continueImport(c *Call, job *memory.ImportJob, path string) {
	x := c.Execution
	if x == nil {
		return
	}
	x.Continue(job.Cancel)
	go func() {
		<-job.Done()
		o := engine.Outcome{Status: engine.StatusSuccess}
		if _, err := job.Result(); errors.Is(err, context.Canceled) {
			o.Status = engine.StatusCancelled
		} else if err != nil {
			o.Status, o.ErrorCode, o.Error = engine.StatusFailed, "import_failed", err.Error()
		}
		rec := x.Finish(o)
		if c.Env != nil {
			c.Env.announce(c.Conversation, startedBy(c), Finished{Handle: "import:" + job.Name, What: "import_document " + job.Name,
				Status: rec.Status, Duration: time.Duration(rec.DurationMS * float64(time.Millisecond)),
				Read: "import_document path=" + path + " reads it", URIs: []string{ConversationURI(c.Conversation, "commands")}})
		}
	}()
}

// importProgressEvery bounds import progress notifications to four a second.
const importProgressEvery = 250 * time.Millisecond

// waitImport waits up to the yield for job to finish, sending MCP progress notifications
// (chunks embedded of the total) to a client that gave a progress token. It reports whether
// the job finished. The import goes on when the wait ends, the call's cancellation included.
func (m *memoryTool) waitImport(ctx context.Context, c *Call, job *memory.ImportJob) bool {
	yield := time.NewTimer(m.yield)
	defer yield.Stop()
	if c.Task != "" {
		yield.Stop() // a task's client polls for the result: no yield
	}
	var tick <-chan time.Time
	notify := importNotifier(ctx, c)
	if notify != nil {
		t := time.NewTicker(importProgressEvery)
		defer t.Stop()
		tick = t.C
	}
	last := -1
	for {
		select {
		case <-job.Done():
			// The last notification says it is complete, however fast the import was.
			if done, total := job.Progress(); notify != nil && total > 0 && done != last {
				notify(done, total)
			}
			return true
		case <-tick:
			if done, total := job.Progress(); total > 0 && done != last {
				last = done
				notify(done, total)
			}
		case <-yield.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// importNotifier returns a function that sends one progress notification, or nil when the
// client sent no progress token.
func importNotifier(ctx context.Context, c *Call) func(done, total int) {
	if c.Request == nil || c.Request.Session == nil || c.Request.Params == nil {
		return nil
	}
	tok := c.Request.Params.GetProgressToken()
	if tok == nil {
		return nil
	}
	return func(done, total int) {
		nctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_ = c.Request.Session.NotifyProgress(nctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
			Progress: float64(done), Total: float64(total), Message: fmt.Sprintf("embedded %d of %d chunks", done, total)})
	}
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
	case errors.Is(err, memory.ErrNoChange):
		code = CodeNoChange
	default:
		return err
	}
	return &ToolError{Code: code, Param: param, Message: err.Error(), Cause: err}
}
