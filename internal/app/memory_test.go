package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/config"
)

func TestMemoryAcrossConversationsByMeaning(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the built-in embedder")
	}
	a := testApp(t)
	// Two sessions, two conversations: alice's and bob's chats on one project.
	sessions := map[string]*mcp.ClientSession{"alice": connect(t, a, nil, ""), "bob": connect(t, a, nil, "")}
	call := func(args map[string]any) (string, bool) {
		t.Helper()
		cs := sessions[args["conversation"].(string)]
		delete(args, "conversation")
		return callText(t, cs, "memory_operations", args)
	}
	got, isErr := call(map[string]any{"operation": "store_memory", "conversation": "alice", "scope": "billing-service",
		"content": "The billing service retries failed card payments three times with exponential backoff.", "tags": []string{"payments"}})
	if isErr || !strings.HasPrefix(got, "Stored memory") {
		t.Fatalf("store = %q, %v", got, isErr)
	}
	call(map[string]any{"operation": "store_memory", "conversation": "alice", "scope": "billing-service",
		"content": "Invoices are rendered as PDF by a nightly job."})
	// The same fact again is recognised, not stored twice.
	got, _ = call(map[string]any{"operation": "store_memory", "conversation": "alice", "scope": "billing-service",
		"content": "The billing service retries failed card payments three times with exponential backoff."})
	if !strings.HasPrefix(got, "Not stored: exact duplicate of memory") {
		t.Errorf("duplicate store = %q", got)
	}
	// Another conversation naming the topic finds it by meaning, with different words.
	got, isErr = call(map[string]any{"operation": "search_memory", "conversation": "bob", "scope": "billing-service",
		"query": "what happens when a credit card charge does not go through?"})
	if isErr || !strings.Contains(strings.SplitN(got, "\n\n", 2)[0], "retries failed card payments") {
		t.Errorf("search from another conversation = %q", got)
	}
	// Bob's own conversation scope does not see Alice's topic unless he names it.
	got, _ = call(map[string]any{"operation": "search_memory", "conversation": "bob", "query": "card payments retries"})
	if !strings.HasPrefix(got, "No memories matched") {
		t.Errorf("search of bob's own scope = %q", got)
	}
	got, _ = call(map[string]any{"operation": "list_collections", "conversation": "alice"})
	if !strings.Contains(got, "topic:billing-service: 2 memories") {
		t.Errorf("list_collections = %q", got)
	}
	got, isErr = call(map[string]any{"operation": "delete_memory", "conversation": "alice", "tag": "payments", "scope": "billing-service"})
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

// TestMemoryFollowsTheTruth: the model corrects a fact by storing it again with the new value
// (stored as a newer version, which search returns), reads both versions by id, and corrects a
// memory by id with update_memory.
func TestMemoryFollowsTheTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the built-in embedder")
	}
	// A pinned conversation (config conversation = "c"): every session works in it.
	a := testAppWith(t, func(c *config.Config) { c.Conversation = "c" })
	cs := connect(t, a, nil, "")
	call := func(args map[string]any) string {
		t.Helper()
		got, isErr := callText(t, cs, "memory_operations", args)
		if isErr {
			t.Fatalf("%v = error %q", args, got)
		}
		body, _, _ := strings.Cut(got, "<system-reminder>")
		return body
	}
	got := call(map[string]any{"operation": "store_memory", "content": "the API server listens on port 8080"})
	if got != "Stored memory 1 in conversation:c." {
		t.Fatalf("store = %q", got)
	}
	got = call(map[string]any{"operation": "store_memory", "content": "the API server listens on port 9090"})
	if want := `Stored memory 2 in conversation:c. It supersedes memory 1 (number changed: 8080 → 9090), which no longer appears in searches: "the API server listens on port 8080".`; got != want {
		t.Errorf("store of the new port = %q\nwant %q", got, want)
	}
	got = call(map[string]any{"operation": "search_memory", "query": "API server port"})
	if !strings.HasPrefix(got, "#2 ") || !strings.Contains(got, "(supersedes #1)\nthe API server listens on port 9090") || strings.Contains(got, "#1 ") {
		t.Errorf("search = %q, want only memory 2, naming the one it supersedes", got)
	}
	got = call(map[string]any{"operation": "search_memory", "id": 1})
	if !strings.Contains(got, "superseded by #2 on ") || !strings.Contains(got, "\nthe API server listens on port 8080\nversions: #1, #2 (current)") {
		t.Errorf("search by id 1 = %q", got)
	}
	got = call(map[string]any{"operation": "store_memory", "content": "the API server listens on port 9090"})
	if !strings.HasPrefix(got, "Not stored: exact duplicate of memory 2") || !strings.Contains(got, "use update_memory with id 2") {
		t.Errorf("exact duplicate = %q", got)
	}
	got = call(map[string]any{"operation": "update_memory", "id": 2, "content": "the API server listens on port 443 behind the proxy"})
	if want := "Stored memory 3 in conversation:c as the new version of memory 2 (updated); search_memory returns 3 from now on."; got != want {
		t.Errorf("update_memory = %q\nwant %q", got, want)
	}
	got = call(map[string]any{"operation": "update_memory", "id": 1, "tags": []string{"infra"}})
	if want := "Memory 1 was superseded by 3; updated that instead. Updated the tags and metadata of memory 3."; got != want {
		t.Errorf("update_memory of an old version = %q\nwant %q", got, want)
	}
	got = call(map[string]any{"operation": "list_collections"})
	if !strings.HasPrefix(got, "conversation:c: 1 memories (+2 earlier versions)") {
		t.Errorf("list_collections = %q", got)
	}
	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"operation": "update_memory", "id": 3, "tags": []string{"infra"}}, "error no_change"},
		{map[string]any{"operation": "update_memory", "id": 99, "content": "x"}, "error not_found"},
		{map[string]any{"operation": "search_memory"}, "error missing_parameter"},
		{map[string]any{"operation": "search_memory", "id": 3, "query": "port"}, "error invalid_value"},
		{map[string]any{"operation": "search_memory", "id": 99}, "error not_found"},
	} {
		if got, isErr := callText(t, cs, "memory_operations", tt.args); !isErr || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%v = %q (error %v), want %s", tt.args, got, isErr, tt.want)
		}
	}
	got = call(map[string]any{"operation": "delete_memory", "id": 1})
	if got != "Deleted 3 memories." {
		t.Errorf("delete of the first version = %q, want the whole chain deleted", got)
	}
}
