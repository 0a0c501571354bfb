package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/logtest"
	"toolhost/store/storetest"
)

// These tests give the real binary a state directory that is damaged, read-only or full, and
// check that the server answers every call: file and terminal operations work, state operations
// say what is wrong and where, and nothing acknowledged is lost.

// toolCall calls tool with args within 30 seconds (a hang fails the test) and returns the text
// of the result and whether it is an error result.
func toolCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res := callWithin(t, cs, 30*time.Second, tool, args)
	return textOf(res, "\n"), res.IsError
}

// mustCall is toolCall for calls that must succeed.
func mustCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	text, isErr := toolCall(t, cs, tool, args)
	if isErr {
		t.Fatalf("%s %v = error %s", tool, args, text)
	}
	return text
}

// statelessWorks checks the operations that need no state: think, a file written and listed, and
// a command that reads it.
func statelessWorks(t *testing.T, cs *mcp.ClientSession, name string) {
	t.Helper()
	mustCall(t, cs, "think", map[string]any{"thoughts": "still here"})
	mustCall(t, cs, "file_operations", map[string]any{"operation": "create_file", "path": name, "content": "written\n"})
	if out := mustCall(t, cs, "file_operations", map[string]any{"operation": "list_dir", "path": "."}); !strings.Contains(out, name) {
		t.Errorf("list_dir misses %s: %s", name, out)
	}
	if out := mustCall(t, cs, "terminal_operations", map[string]any{"operation": "run_command", "command": "cat " + name}); !strings.Contains(out, "written") {
		t.Errorf("run_command cat %s = %s", name, out)
	}
}

// TestDamagedStateThroughBinary damages the page of the state file that holds a memory: memory
// calls answer (twice: the first must not leave a lock held), other calls work, `toolhost doctor`
// names the file and the fix, and `toolhost doctor --repair` makes memory work again.
func TestDamagedStateThroughBinary(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	cs := stdioClient(t, state, work)
	mustCall(t, cs, "todo_operations", map[string]any{"operation": "write", "todos": []map[string]any{{"id": 1, "title": "survive the damage", "status": "in-progress"}}})
	for i := range 8 {
		mustCall(t, cs, "memory_operations", map[string]any{"operation": "store_memory",
			"content": fmt.Sprintf("fact number %d: service %d listens on port %d %s", i, i, 8000+i, strings.Repeat("detail ", 40))})
	}
	cs.Close()
	db := filepath.Join(state, "toolhost.db")
	storetest.Damage(t, db, "fact number 5:")

	cmd := commandIn(t, state, work, "stdio")
	stderr := &logtest.Buffer{}
	cmd.Stderr = stderr
	cs = connectCmd(t, cmd)
	for i := range 2 {
		text, isErr := toolCall(t, cs, "memory_operations", map[string]any{"operation": "search_memory", "query": "which port"})
		if !isErr || !strings.Contains(text, "state_unavailable") || !strings.Contains(text, "doctor --repair") {
			t.Errorf("search_memory %d on a damaged state file = %v %s; want state_unavailable naming doctor --repair", i, isErr, text)
		}
	}
	statelessWorks(t, cs, "after-damage.txt")
	// The check a server runs on its own shortly after the start finds the damage too, and logs
	// it naming the file and the fix.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		log := stderr.String()
		if line := logLine(log, "state file damaged"); line != "" {
			if !strings.Contains(line, db) || !strings.Contains(line, "doctor --repair") {
				t.Errorf("the start-up check's log line = %q, want it to name %s and doctor --repair", line, db)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never logged the damaged state file:\n%s", log)
		}
	}
	cs.Close()

	out, err := commandIn(t, state, work, "doctor").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "FIX  state") || !strings.Contains(string(out), filepath.Join(state, "toolhost.db")) || !strings.Contains(string(out), "doctor --repair") {
		t.Errorf("toolhost doctor on a damaged file = %v:\n%s\nwant a FIX state line naming the file and --repair", err, out)
	}
	out, err = commandIn(t, state, work, "doctor", "--repair").CombinedOutput()
	if !strings.Contains(string(out), "kept the damaged file as") || !strings.Contains(string(out), "ok   state") || !strings.Contains(string(out), "ok   memory") {
		t.Fatalf("toolhost doctor --repair = %v:\n%s", err, out)
	}
	t.Logf("toolhost doctor --repair:\n%s", out)
	// The damaged page held the memories; the plan, in another bucket, is carried over, and
	// memory works again.
	cs = stdioClient(t, state, work)
	if text := mustCall(t, cs, "todo_operations", map[string]any{"operation": "read"}); !strings.Contains(text, "survive the damage") {
		t.Errorf("todo read after repair = %s, want the plan carried over", text)
	}
	mustCall(t, cs, "memory_operations", map[string]any{"operation": "store_memory", "content": "the repaired state accepts memories again"})
	if text := mustCall(t, cs, "memory_operations", map[string]any{"operation": "search_memory", "query": "repaired state accepts memories"}); !strings.Contains(text, "accepts memories again") {
		t.Errorf("search_memory after repair = %s", text)
		t.Log(mustCall(t, cs, "memory_operations", map[string]any{"operation": "list_collections"}))
		t.Log(toolCall(t, cs, "memory_operations", map[string]any{"operation": "search_memory", "query": "the repaired state accepts memories again", "similarity_threshold": 0.01}))
	}
}

// unshareMount returns the command that runs script with sh in a new user and mount namespace
// (root inside, so it may mount), or skips the test where namespaces are not available; under CI
// that is a failure.
func unshareMount(t *testing.T, script string, args ...string) *exec.Cmd {
	t.Helper()
	if out, err := exec.Command("unshare", "-rm", "true").CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("unshare -rm (user and mount namespaces, from util-linux) is needed: %v %s", err, out)
		}
		t.Skipf("no user and mount namespaces here (unshare -rm: %v %s)", err, out)
	}
	return exec.Command("unshare", append([]string{"-rm", "sh", "-c", script, "sh"}, args...)...)
}

// connectCmd connects an MCP client to the server cmd runs, closed when the test ends. A cmd
// without its own environment gets a config home of its own.
func connectCmd(t *testing.T, cmd *exec.Cmd) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if cmd.Env == nil {
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
	}
	cs := connectStdio(t, ctx, cmd)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestReadOnlyStateThroughBinary starts the server on a state directory bind-mounted read-only:
// the plan can be read, a change to it is refused naming EROFS and the directory, and file and
// terminal operations work.
func TestReadOnlyStateThroughBinary(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, nil, 0o600)
	out, err := exec.Command(binary, "--state-dir", state, "--workdir", work, "--config", cfg, "--conversation", "ro",
		"call", "todo_operations", `{"operation":"write","todos":[{"id":1,"title":"read me back","status":"in-progress"}]}`).CombinedOutput()
	if err != nil {
		t.Fatalf("write the plan: %v %s", err, out)
	}
	cs := connectCmd(t, unshareMount(t, `mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && exec "$4" stdio --state-dir "$1" --workdir "$2" --config "$3" --conversation ro`,
		state, work, cfg, binary))
	if text := mustCall(t, cs, "todo_operations", map[string]any{"operation": "read"}); !strings.Contains(text, "read me back") {
		t.Errorf("todo read on a read-only state directory = %s", text)
	}
	text, isErr := toolCall(t, cs, "todo_operations", map[string]any{"operation": "add", "todos": []map[string]any{{"title": "cannot"}}})
	if !isErr || !strings.Contains(text, "state_unavailable") || !strings.Contains(text, "EROFS") || !strings.Contains(text, state) {
		t.Errorf("todo add on a read-only state directory = %v %s; want state_unavailable naming EROFS and %s", isErr, text, state)
	}
	statelessWorks(t, cs, "ro.txt")
}

// TestFullStateThroughBinary fills a small tmpfs state directory with todos and memories until
// writes fail: each failure names ENOSPC and the directory, file and terminal operations go on,
// and every acknowledged todo and memory is in the state file, in the running server and after it
// exits.
func TestFullStateThroughBinary(t *testing.T) {
	state, work, saved := t.TempDir(), t.TempDir(), t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	os.WriteFile(cfg, nil, 0o600)
	// 640 KiB of tmpfs, 400 KiB of it taken: room for the empty file and a few dozen writes.
	script := `mount -t tmpfs -o size=640k tmpfs "$1" && head -c 409600 /dev/zero > "$1/filler" &&
"$4" stdio --state-dir "$1" --workdir "$2" --config "$3" --conversation full; cp "$1/toolhost.db" "$5/"`
	cs := connectCmd(t, unshareMount(t, script, state, work, cfg, binary, saved))

	todos, memories := 0, 0
	var todoErr, memErr string
	for i := 0; i < 400 && (todoErr == "" || memErr == ""); i++ {
		if todoErr == "" {
			text, isErr := toolCall(t, cs, "todo_operations", map[string]any{"operation": "add",
				"todos": []map[string]any{{"title": fmt.Sprintf("todo %d", i), "description": strings.Repeat("d", 400)}}})
			if isErr {
				todoErr = text
			} else {
				todos++
			}
		}
		if memErr == "" && i%4 == 0 {
			text, isErr := toolCall(t, cs, "memory_operations", map[string]any{"operation": "store_memory",
				"content": fmt.Sprintf("memory %d says %s", i, strings.Repeat("m", 200))})
			if isErr {
				memErr = text
			} else {
				memories++
			}
		}
	}
	t.Logf("%d todos and %d memories acknowledged before the state directory was full", todos, memories)
	for what, text := range map[string]string{"todo add": todoErr, "store_memory": memErr} {
		if !strings.Contains(text, "state_unavailable") || !strings.Contains(text, "ENOSPC") {
			t.Errorf("%s on a full state directory = %q; want state_unavailable naming ENOSPC", what, text)
		}
	}
	if todos == 0 || memories == 0 {
		t.Fatalf("nothing acknowledged before the disk was full (%d todos, %d memories): the test proves nothing", todos, memories)
	}
	statelessWorks(t, cs, "full.txt")
	// A result over the budget cannot be kept for read_tool_result either (1.3 MB, more than the
	// whole tmpfs): the cut result says why, as the state errors do.
	if err := os.WriteFile(filepath.Join(work, "big.txt"), []byte(strings.Repeat(strings.Repeat("x", 99)+"\n", 12000)), 0o600); err != nil {
		t.Fatal(err)
	}
	cutText := mustCall(t, cs, "file_operations", map[string]any{"operation": "grep_search", "pattern": "x", "path": "big.txt", "max_results": 20000})
	if !strings.HasPrefix(cutText, "[result cut to ") || !strings.Contains(cutText, "the full text was not kept: the state directory is full (ENOSPC)") {
		t.Errorf("a cut result on a full state directory = %.400s\n...\nwant the notice to say the state directory is full (ENOSPC)", cutText)
	}
	if text := mustCall(t, cs, "todo_operations", map[string]any{"operation": "read"}); !strings.Contains(text, fmt.Sprintf("todo %d", todos-1)) {
		t.Errorf("running server lost acknowledged todos: %.300s", text)
	}
	cs.Close()

	// The file the server left, reopened by a fresh process.
	readSaved := func(tool, args string) string {
		t.Helper()
		out, err := exec.Command(binary, "--state-dir", saved, "--workdir", work, "--config", cfg, "--conversation", "full", "call", tool, args).CombinedOutput()
		if err != nil {
			t.Fatalf("read %s from the saved state: %v %s", tool, err, out)
		}
		return string(out)
	}
	text := readSaved("todo_operations", `{"operation":"read"}`)
	for i := range todos {
		if !strings.Contains(text, fmt.Sprintf(`"todo %d"`, i)) {
			t.Errorf("acknowledged todo %d lost after the disk was full", i)
		}
	}
	text = readSaved("memory_operations", `{"operation":"list_collections"}`)
	if !strings.Contains(text, fmt.Sprintf("%d memor", memories)) && !strings.Contains(text, fmt.Sprintf(`"count":%d`, memories)) {
		t.Errorf("acknowledged memories: want %d in list_collections, got %s", memories, text)
	}
}

// TestUnreadableStateReportedAtStart gives the server a state file bbolt cannot open at all: the
// start logs the path and the fix, the server runs, and state operations say the file could not
// be opened while the others work.
func TestUnreadableStateReportedAtStart(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	db := filepath.Join(state, "toolhost.db")
	if err := os.WriteFile(db, []byte(strings.Repeat("not a bbolt file ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := commandIn(t, state, work, "stdio")
	stderr := &logtest.Buffer{}
	cmd.Stderr = stderr
	cs := connectCmd(t, cmd)
	text, isErr := toolCall(t, cs, "todo_operations", map[string]any{"operation": "read"})
	if !isErr || !strings.Contains(text, "state_unavailable") || !strings.Contains(text, "toolhost doctor") {
		t.Errorf("todo read with an unreadable state file = %v %s; want state_unavailable pointing to toolhost doctor", isErr, text)
	}
	statelessWorks(t, cs, "unreadable.txt")
	if log := stderr.String(); !strings.Contains(log, "state unavailable") || !strings.Contains(log, db) {
		t.Errorf("start log does not report the unreadable state file %s:\n%s", db, log)
	}
}

// logLine returns the first line of log that contains s, or "".
func logLine(log, s string) string {
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}
