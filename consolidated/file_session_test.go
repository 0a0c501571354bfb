package consolidated

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"toolhost/authz"
)

// TestFileOutsideWorkdir: reads outside are allowed, writes need a grant that only a human
// creates; the refusal names the user_collaboration call that asks for it.
func TestFileOutsideWorkdir(t *testing.T) {
	h := newFileHarness(t, 0)
	h.write(map[string]string{"in.txt": "inside\n"})
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "a.txt"), []byte("outside a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "b.txt"), []byte("outside b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(outside, "new.txt")

	got, _ := h.mustOp("read_file", map[string]any{"path": filepath.Join(outside, "a.txt")})
	if !strings.HasPrefix(got, filepath.Join(outside, "a.txt")+": lines 1-1 of 1\noutside a") {
		t.Errorf("read_file outside = %q, want the absolute path in the header", got)
	}
	got, _ = h.mustOp("file_search", map[string]any{"pattern": "*.txt", "path": outside, "sort": "path"})
	if !strings.Contains(got, "\n"+filepath.Join(outside, "a.txt")+"\n"+filepath.Join(outside, "b.txt")) {
		t.Errorf("file_search outside = %q, want absolute paths", got)
	}

	got, isErr, _ := h.op("create_file", map[string]any{"path": target, "content": "hi\n"})
	if !isErr || !strings.Contains(got, "error outside_workdir") || !strings.Contains(got, "user_collaboration") ||
		!strings.Contains(got, "request_authorization") {
		t.Fatalf("create_file outside = %q (isError %v), want outside_workdir naming user_collaboration request_authorization", got, isErr)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the refused write created the file")
	}

	// The user approves (elicitation, CLI): a grant on the directory.
	if _, err := h.guard.CreateGrant(context.Background(), authz.GrantSpec{Conversation: testConversation, Access: "file_operations:write",
		Path: outside, Recursive: true, By: "test"}); err != nil {
		t.Fatal(err)
	}
	got, _ = h.mustOp("create_file", map[string]any{"path": target, "content": "hi\n"})
	if want := "created " + target; !strings.HasPrefix(got, want) {
		t.Errorf("create_file after grant = %q, want prefix %q", got, want)
	}
	if b, _ := os.ReadFile(target); string(b) != "hi\n" {
		t.Errorf("%s = %q, want %q", target, b, "hi\n")
	}
	// Another conversation has no grant.
	got, _, _ = h.call("file_operations", map[string]any{"operation": "create_file", "path": target, "content": "x", "conversation_id": "other"})
	if !strings.Contains(got, "error outside_workdir") {
		t.Errorf("create_file from another conversation = %q, want outside_workdir", got)
	}

	// Several files under the one granted root: one engine call, all or nothing.
	got, _ = h.mustOp("multi_replace_string", map[string]any{"edits": []any{
		map[string]any{"path": filepath.Join(outside, "a.txt"), "old_string": "outside a", "new_string": "A"},
		map[string]any{"path": filepath.Join(outside, "b.txt"), "old_string": "outside b", "new_string": "B"},
	}})
	if !strings.Contains(got, "2 edits in 2 file(s)\n1. "+filepath.Join(outside, "a.txt")) {
		t.Errorf("multi_replace_string outside = %q", got)
	}

	// A patch spanning the working directory and the granted directory is refused before
	// anything is written.
	patch := fmt.Sprintf("*** Begin Patch\n*** Update File: in.txt\n@@\n-inside\n+INSIDE\n*** Update File: %s\n@@\n-A\n+AA\n*** End Patch\n", filepath.Join(outside, "a.txt"))
	got, isErr, _ = h.op("apply_patch", map[string]any{"patch": patch})
	if !isErr || !strings.Contains(got, "error multiple_roots") {
		t.Errorf("apply_patch across roots = %q, want multiple_roots", got)
	}
	if got := h.read("in.txt"); got != "inside\n" {
		t.Errorf("in.txt = %q after a refused patch", got)
	}
	// The same patch for the outside file alone applies.
	patch = fmt.Sprintf("*** Begin Patch\n*** Update File: %s\n@@\n-A\n+AA\n*** End Patch\n", filepath.Join(outside, "a.txt"))
	h.mustOp("apply_patch", map[string]any{"patch": patch})
	if b, _ := os.ReadFile(filepath.Join(outside, "a.txt")); string(b) != "AA\n" {
		t.Errorf("a.txt = %q, want %q", b, "AA\n")
	}
}

// TestFileStaleWrite: an edit of a file that changed since the model read it is refused; after a
// new read, or for a conversation that never read it, the edit goes through.
func TestFileStaleWrite(t *testing.T) {
	h := newFileHarness(t, 0)
	h.write(map[string]string{"a.txt": "one\ntwo\n", "b.txt": "x\n"})
	replace := map[string]any{"path": "a.txt", "old_string": "two", "new_string": "2"}

	h.mustOp("read_file", map[string]any{"path": "a.txt"})
	h.write(map[string]string{"a.txt": "one\ntwo\nthree\n"}) // behind the model's back
	got, isErr, _ := h.op("replace_string", replace)
	if !isErr || !strings.Contains(got, "error stale") || !strings.Contains(got, "a.txt changed since you last read it") {
		t.Fatalf("replace_string after an outside change = %q, want stale", got)
	}
	if got := h.read("a.txt"); got != "one\ntwo\nthree\n" {
		t.Errorf("a.txt = %q after a refused stale edit", got)
	}
	// Stale checks apply to every write kind, including apply_patch and multi_replace_string.
	for _, c := range []struct {
		op   string
		args map[string]any
	}{
		{"insert_edit", map[string]any{"path": "a.txt", "line": 1, "content": "zero"}},
		{"create_file", map[string]any{"path": "a.txt", "content": "new"}},
		{"multi_replace_string", map[string]any{"edits": []any{map[string]any{"path": "a.txt", "old_string": "one", "new_string": "1"}}}},
		{"apply_patch", map[string]any{"patch": "--- a/a.txt\n+++ b/a.txt\n@@\n-one\n+1\n"}},
	} {
		if got, _, _ := h.op(c.op, c.args); !strings.Contains(got, "error stale") {
			t.Errorf("%s after an outside change = %q, want stale", c.op, got)
		}
	}
	// Another conversation never read the file: its edit is allowed.
	got, isErr, _ = h.call("file_operations", map[string]any{"operation": "replace_string", "path": "a.txt", "old_string": "three", "new_string": "3", "conversation_id": "other"})
	if isErr {
		t.Fatalf("replace_string from a conversation that never read the file: %s", got)
	}
	// That write changed the file behind this conversation's back too.
	if got, _, _ := h.op("replace_string", replace); !strings.Contains(got, "error stale") {
		t.Errorf("replace_string after another conversation's edit = %q, want stale", got)
	}
	// Reading again refreshes the picture; the model's own successive edits then pass.
	h.mustOp("read_file", map[string]any{"path": "a.txt", "start_line": 2, "end_line": 2})
	h.mustOp("replace_string", replace)
	h.mustOp("replace_string", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "1"})
	h.mustOp("insert_edit", map[string]any{"path": "a.txt", "line": 1, "content": "0"})
	if got := h.read("a.txt"); got != "0\n1\n2\n3\n" {
		t.Errorf("a.txt = %q, want %q", got, "0\n1\n2\n3\n")
	}
	// A file never read is edited without a check.
	h.write(map[string]string{"b.txt": "y\n"})
	h.mustOp("replace_string", map[string]any{"path": "b.txt", "old_string": "y", "new_string": "z"})
	// After a delete, recreating the file is not stale.
	h.mustOp("read_file", map[string]any{"path": "b.txt"})
	h.mustOp("delete_file", map[string]any{"path": "b.txt"})
	h.mustOp("create_file", map[string]any{"path": "b.txt", "content": "again\n"})
	// A file deleted behind the model's back is reported as such.
	h.mustOp("read_file", map[string]any{"path": "b.txt"})
	os.Remove(filepath.Join(h.wd, "b.txt"))
	if got, _, _ := h.op("create_file", map[string]any{"path": "b.txt", "content": "x"}); !strings.Contains(got, "deleted since you last read it") {
		t.Errorf("create_file after an outside delete = %q, want the stale deletion named", got)
	}
	// Once told, the model can recreate it: the refusal is not repeated forever.
	h.mustOp("create_file", map[string]any{"path": "b.txt", "content": "x"})
	// Nor after read_file found it missing.
	h.mustOp("read_file", map[string]any{"path": "b.txt"})
	os.Remove(filepath.Join(h.wd, "b.txt"))
	if _, isErr, _ := h.op("read_file", map[string]any{"path": "b.txt"}); !isErr {
		t.Fatalf("read_file of a removed file succeeded")
	}
	h.mustOp("apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Add File: b.txt\n+y\n*** End Patch\n"})
}

// TestFileApplyPatchAllOrNothing: a patch whose second file does not apply writes nothing.
func TestFileApplyPatchAllOrNothing(t *testing.T) {
	h := newFileHarness(t, 0)
	h.write(map[string]string{"a.txt": "a1\na2\n", "b.txt": "b1\nb2\n"})
	patch := "--- a/a.txt\n+++ b/a.txt\n@@\n-a1\n+A1\n--- a/b.txt\n+++ b/b.txt\n@@\n-b9\n+B9\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+c\n"
	got, isErr, _ := h.op("apply_patch", map[string]any{"patch": patch})
	if !isErr || !strings.Contains(got, "error not_found") || !strings.Contains(got, "b.txt") {
		t.Fatalf("apply_patch with a failing hunk = %q, want not_found naming b.txt", got)
	}
	if a := h.read("a.txt"); a != "a1\na2\n" {
		t.Errorf("a.txt = %q, want it untouched", a)
	}
	if h.exists("c.txt") {
		t.Error("c.txt was created by a failed patch")
	}
	// Fixed, the same patch applies whole.
	h.mustOp("apply_patch", map[string]any{"patch": strings.Replace(patch, "-b9\n+B9", "-b2\n+B2", 1)})
	if a, b, c := h.read("a.txt"), h.read("b.txt"), h.read("c.txt"); a != "A1\na2\n" || b != "b1\nB2\n" || c != "c\n" {
		t.Errorf("after apply_patch: a=%q b=%q c=%q", a, b, c)
	}
}

// TestFileResultOverBudget: a listing larger than the budget is cut, and the whole text can be
// paged with read_tool_result; read_file instead stops at the budget and says where to go on.
func TestFileResultOverBudget(t *testing.T) {
	h := newFileHarness(t, 300) // 900 bytes
	files := map[string]string{}
	var big strings.Builder
	for i := range 120 {
		files[fmt.Sprintf("dir/file-%03d.txt", i)] = "x\n"
		fmt.Fprintf(&big, "line %04d of a long file\n", i+1)
	}
	files["big.txt"] = big.String()
	h.write(files)

	got, _ := h.mustOp("list_dir", map[string]any{"path": "dir"})
	if len(got) > 900 {
		t.Errorf("list_dir result is %d bytes, over the 900-byte budget", len(got))
	}
	m := regexp.MustCompile(`^\[result cut .*the read_tool_result tool pages the rest: \{"id":"(r[0-9a-f]{12})"`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("list_dir over budget = %q, want a read_tool_result notice first", got)
	}
	id := m[1]
	var all strings.Builder
	for off := 0; ; {
		page, isErr, _ := h.call("read_tool_result", map[string]any{"id": id, "offset": off})
		if isErr {
			t.Fatalf("read_tool_result: %s", page)
		}
		head, body, _ := strings.Cut(page, "\n")
		all.WriteString(body)
		if strings.HasSuffix(head, "; end]") {
			break
		}
		if _, err := fmt.Sscanf(head[strings.Index(head, "next offset "):], "next offset %d]", &off); err != nil {
			t.Fatalf("page header %q: %v", head, err)
		}
	}
	for _, want := range []string{"dir/: 120 entries", "\nfile-000.txt 2B", "\nfile-119.txt 2B"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("paged result lacks %q", want)
		}
	}

	got, _ = h.mustOp("read_file", map[string]any{"path": "big.txt"})
	if strings.Contains(got, "read_tool_result") || len(got) > 900 {
		t.Errorf("read_file over budget was spilled or too long (%d bytes): %q", len(got), got)
	}
	if !strings.Contains(got, "truncated, continue with start_line ") {
		t.Errorf("read_file over budget = %q, want the line to continue from", got)
	}
}

// TestFileOneTimeGrantCoversOneCall: a rename checks two paths, yet a one-time grant on their
// directory is one use for the whole call; the next call needs a new grant.
func TestFileOneTimeGrantCoversOneCall(t *testing.T) {
	h := newFileHarness(t, 0)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := h.guard.CreateGrant(context.Background(), authz.GrantSpec{Conversation: testConversation, Access: "file_operations:write",
		Path: outside, Recursive: true, Once: true, By: "test"}); err != nil {
		t.Fatal(err)
	}
	h.mustOp("rename_file", map[string]any{"path": filepath.Join(outside, "a.txt"), "new_path": filepath.Join(outside, "b.txt")})
	if _, err := os.Stat(filepath.Join(outside, "b.txt")); err != nil {
		t.Fatalf("rename under a one-time grant did not happen: %v", err)
	}
	got, isErr, _ := h.op("delete_file", map[string]any{"path": filepath.Join(outside, "b.txt")})
	if !isErr || !strings.Contains(got, "outside_workdir") {
		t.Errorf("a second call under a used one-time grant = %q (isError %v), want outside_workdir", got, isErr)
	}
}
