package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMemoryAcrossConversationsByMeaning(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the built-in embedder")
	}
	a := testApp(t)
	cs := connect(t, a, nil, "")
	call := func(args map[string]any) (string, bool) {
		t.Helper()
		return callText(t, cs, "memory_operations", args)
	}
	got, isErr := call(map[string]any{"operation": "store_memory", "conversation_id": "alice", "scope": "billing-service",
		"content": "The billing service retries failed card payments three times with exponential backoff.", "tags": []string{"payments"}})
	if isErr || !strings.HasPrefix(got, "Stored memory") {
		t.Fatalf("store = %q, %v", got, isErr)
	}
	call(map[string]any{"operation": "store_memory", "conversation_id": "alice", "scope": "billing-service",
		"content": "Invoices are rendered as PDF by a nightly job."})
	// The same fact again is recognised, not stored twice.
	got, _ = call(map[string]any{"operation": "store_memory", "conversation_id": "alice", "scope": "billing-service",
		"content": "The billing service retries failed card payments three times with exponential backoff."})
	if !strings.HasPrefix(got, "Not stored: exact duplicate of memory") {
		t.Errorf("duplicate store = %q", got)
	}
	// Another conversation naming the topic finds it by meaning, with different words.
	got, isErr = call(map[string]any{"operation": "search_memory", "conversation_id": "bob", "scope": "billing-service",
		"query": "what happens when a credit card charge does not go through?"})
	if isErr || !strings.Contains(strings.SplitN(got, "\n\n", 2)[0], "retries failed card payments") {
		t.Errorf("search from another conversation = %q", got)
	}
	// Bob's own conversation scope does not see Alice's topic unless he names it.
	got, _ = call(map[string]any{"operation": "search_memory", "conversation_id": "bob", "query": "card payments retries"})
	if !strings.HasPrefix(got, "No memories matched") {
		t.Errorf("search of bob's own scope = %q", got)
	}
	got, _ = call(map[string]any{"operation": "list_collections", "conversation_id": "alice"})
	if !strings.Contains(got, "topic:billing-service: 2 memories") {
		t.Errorf("list_collections = %q", got)
	}
	got, isErr = call(map[string]any{"operation": "delete_memory", "conversation_id": "alice", "tag": "payments", "scope": "billing-service"})
	if isErr || got != "Deleted 1 memories." {
		t.Errorf("delete by tag = %q, %v", got, isErr)
	}
}

func TestImportDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the built-in embedder")
	}
	a := testApp(t)
	cs := connect(t, a, nil, "")
	doc := filepath.Join(a.Workdir, "GUIDE.md")
	os.WriteFile(doc, []byte("# Guide\n\n## Install\n\nRun make install as root.\n\n## Upgrade\n\nStop the service, then install the new package.\n"), 0o644)
	callText(t, cs, "todo_operations", map[string]any{"operation": "write", "todos": []map[string]any{{"id": 1, "title": "Read the guide", "status": "in-progress"}}})
	got, isErr := callText(t, cs, "memory_operations", map[string]any{"operation": "import_document", "path": "GUIDE.md"})
	if isErr || !strings.HasPrefix(got, "Imported GUIDE.md:") {
		t.Fatalf("import = %q, %v", got, isErr)
	}
	// The reminder channel lists the import so it is not imported twice.
	if !strings.Contains(got, "<system-reminder>") || !strings.Contains(got, "document GUIDE.md imported") {
		t.Errorf("import result carries no reminder naming the document: %q", got)
	}
	got, _ = callText(t, cs, "memory_operations", map[string]any{"operation": "import_document", "path": doc})
	if !strings.Contains(got, "unchanged since its last import") {
		t.Errorf("re-import = %q", got)
	}
	got, _ = callText(t, cs, "memory_operations", map[string]any{"operation": "search_memory", "query": "how do I upgrade?"})
	if !strings.Contains(got, "GUIDE.md") || !strings.Contains(got, "Upgrade") {
		t.Errorf("search after import = %q", got)
	}
	// Files the guard refuses stay unread.
	home, _ := os.UserHomeDir()
	got, isErr = callText(t, cs, "memory_operations", map[string]any{"operation": "import_document", "path": filepath.Join(home, ".ssh", "id_rsa")})
	if !isErr || !strings.Contains(got, "secret_path") {
		t.Errorf("import of a secret = %q, %v", got, isErr)
	}
}
