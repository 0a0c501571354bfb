package app

import (
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/consolidated"
	"toolhost/internal/config"
	"toolhost/internal/fifotest"
	"toolhost/internal/golden"
	"toolhost/reminders"
)

// events collects the resource notifications one client receives.
type events struct {
	listChanged chan struct{}
	updated     chan string
}

func newEvents() (*events, *mcp.ClientOptions) {
	e := &events{listChanged: make(chan struct{}, 64), updated: make(chan string, 64)}
	return e, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { e.listChanged <- struct{}{} },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			e.updated <- req.Params.URI
		},
	}
}

// wait waits for something on ch; the bound is generous because it only ends a broken test.
func wait[T any](t *testing.T, ch chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("no %s", what)
		var zero T
		return zero
	}
}

func resourceURIs(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res.Resources {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	return uris
}

func readResource(cs *mcp.ClientSession, uri string) (*mcp.ResourceContents, error) {
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, err
	}
	return res.Contents[0], nil
}

// TestLiveResources drives the resources of one conversation through the real app and the
// go-sdk client: what resources/list shows now, the notifications when sessions come and go and
// when the plan changes, and that another conversation's resources are not found.
func TestLiveResources(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("protocol "+cmp.Or(version, "default"), func(t *testing.T) { testLiveResources(t, version) })
	}
}

func testLiveResources(t *testing.T, version string) {
	a := testApp(t)
	ctx := context.Background()
	ev, opts := newEvents()
	cs := connect(t, a, opts, version)
	conv := a.Env.DefaultConversation
	todos := reminders.ResourceURI(conv)

	commands := consolidated.ConversationURI(conv, "commands")
	log := consolidated.ConversationURI(conv, "log")
	if got, want := resourceURIs(t, cs), []string{todos, commands, log, consolidated.WorkdirURI, consolidated.GitContextURI, consolidated.RecentExecutionsURI}; !sameSet(got, want) {
		t.Errorf("resources/list before any session = %v, want %v", got, want)
	}

	// A session comes: the list changes and shows its screen and history.
	if text, isErr := callText(t, cs, "terminal_operations", map[string]any{"operation": "create_session", "session_id": "w"}); isErr {
		t.Fatalf("create_session: %s", text)
	}
	wait(t, ev.listChanged, "list_changed after create_session")
	screen, history := consolidated.TerminalURI(conv, "w", "screen"), consolidated.TerminalURI(conv, "w", "history")
	if got := resourceURIs(t, cs); !slices.Contains(got, screen) || !slices.Contains(got, history) {
		t.Errorf("resources/list with session w = %v, want its screen and history", got)
	}
	if _, err := readResource(cs, screen); err != nil {
		t.Errorf("read %s: %v", screen, err)
	}

	// The command history has every command, with its exit code: one-shot and typed.
	if text, isErr := callText(t, cs, "terminal_operations", map[string]any{"operation": "run_command", "command": "echo one; exit 3"}); isErr {
		t.Fatalf("run_command: %s", text)
	}
	if text, isErr := callText(t, cs, "terminal_operations", map[string]any{"operation": "send_input", "session_id": "w", "text": "true && echo typed", "wait_for": "typed"}); isErr {
		t.Fatalf("send_input: %s", text)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := readResource(cs, commands)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(c.Text, "exit 3") && strings.Contains(c.Text, "echo one; exit 3") && strings.Contains(c.Text, "[w] true && echo typed") {
			// The times and durations vary; the shape is pinned.
			shape := regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d`).ReplaceAllString(c.Text, "DATE TIME")
			shape = regexp.MustCompile(`\s+\d+(\.\d+)?m?s\s+`).ReplaceAllString(shape, "  DUR  ")
			shape = regexp.MustCompile(`\[c\d+\]`).ReplaceAllString(shape, "[ID]")
			golden.CheckString(t, "testdata/resources/commands.txt", shape)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("command history = %q, want the run_command with exit 3 and the typed line", c.Text)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Another chat on the project (another session, so another conversation): its terminal
	// session is neither listed nor readable here, and nobody else may subscribe to it.
	otherEvents, otherOpts := newEvents()
	other := connect(t, a, otherOpts, version)
	if text, isErr := callText(t, other, "terminal_operations", map[string]any{"operation": "create_session", "session_id": "x"}); isErr {
		t.Fatalf("create_session in another conversation: %s", text)
	}
	otherConv := ownConversation(t, other)
	if otherConv == conv {
		t.Fatalf("a second session works in the first one's conversation %s", conv)
	}
	spy := connect(t, a, nil, version)
	foreign := []string{consolidated.TerminalURI(otherConv, "x", "screen"), consolidated.TerminalURI(otherConv, "x", "history"), reminders.ResourceURI(otherConv), consolidated.ConversationURI(otherConv, "commands")}
	for _, uri := range foreign {
		if slices.Contains(resourceURIs(t, cs), uri) {
			t.Errorf("resources/list shows %s of another conversation", uri)
		}
		if _, err := readResource(cs, uri); !isNotFound(err) {
			t.Errorf("read %s of another conversation = %v, want not found", uri, err)
		}
		// On 2026-07-28 a subscription rides the client's subscriptions/listen stream, which
		// the refusal ends (so on a client of its own); the todo change below shows that
		// nothing arrives from it.
		if err := spy.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); version != "" && !isNotFound(err) {
			t.Errorf("subscribe to %s of another conversation = %v, want not found", uri, err)
		}
	}
	if text, isErr := callText(t, other, "todo_operations", map[string]any{"operation": "add", "todos": []map[string]any{{"id": 1, "title": "Theirs", "status": "in-progress"}}}); isErr {
		t.Fatalf("add in another conversation: %s", text)
	}

	// The plan changes: a subscriber hears of it.
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: todos}); err != nil {
		t.Fatal(err)
	}
	if text, isErr := callText(t, cs, "todo_operations", map[string]any{"operation": "add", "todos": []map[string]any{{"id": 1, "title": "Ship", "status": "in-progress"}}}); isErr {
		t.Fatalf("add: %s", text)
	}
	if got := wait(t, ev.updated, "resources/updated after a todo change"); got != todos {
		t.Errorf("updated %s, want %s", got, todos)
	}
	// The other chat follows its own plan: it hears of its own change, never of this one's.
	otherTodos := reminders.ResourceURI(otherConv)
	if err := other.Subscribe(ctx, &mcp.SubscribeParams{URI: otherTodos}); err != nil {
		t.Fatal(err)
	}
	if text, isErr := callText(t, cs, "todo_operations", map[string]any{"operation": "add", "todos": []map[string]any{{"id": 2, "title": "Tell", "status": "not-started"}}}); isErr {
		t.Fatalf("add: %s", text)
	}
	if text, isErr := callText(t, other, "todo_operations", map[string]any{"operation": "add", "todos": []map[string]any{{"id": 2, "title": "Mine", "status": "not-started"}}}); isErr {
		t.Fatalf("add in the other conversation: %s", text)
	}
	if got := wait(t, otherEvents.updated, "resources/updated on the second client"); got != otherTodos {
		t.Errorf("the second client heard of %s first, want only its own %s", got, otherTodos)
	}
	if c, err := readResource(cs, todos); err != nil || !strings.Contains(c.Text, "Ship") {
		t.Errorf("read todos = %v, %v", c, err)
	}

	// The session goes: the list changes again and no longer shows it.
	drain(ev.listChanged)
	if text, isErr := callText(t, cs, "terminal_operations", map[string]any{"operation": "close_session", "session_id": "w"}); isErr {
		t.Fatalf("close_session: %s", text)
	}
	wait(t, ev.listChanged, "list_changed after close_session")
	if got := resourceURIs(t, cs); slices.Contains(got, screen) {
		t.Errorf("resources/list after close_session = %v, still shows %s", got, screen)
	}
}

// TestFileResource reads project files through the file:///{path} template: text, binary as a
// blob, and the guard's refusals for what read_file may not read either.
func TestFileResource(t *testing.T) {
	outside := outsideFile(t)
	a := testAppWith(t, func(cfg *config.Config) { cfg.Guard.OutsideReads = "grant" })
	cs := connect(t, a, nil, "")
	wd := a.Workdir
	write := func(name string, data []byte) string {
		p := filepath.Join(wd, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	text := write("src/main go.txt", []byte("hello\n"))
	bin := write("img.bin", []byte{0x89, 'P', 'N', 'G', 0, 1, 2})
	if err := os.Symlink(outside, filepath.Join(wd, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	fifotest.Make(t, filepath.Join(wd, "pipe"))

	c, err := readResource(cs, "file://"+filepath.ToSlash(strings.ReplaceAll(text, " ", "%20")))
	if err != nil || c.Text != "hello\n" || c.Blob != nil {
		t.Errorf("read text file = %+v, %v", c, err)
	}
	c, err = readResource(cs, "file://"+bin)
	if err != nil || c.Text != "" || len(c.Blob) != 7 {
		t.Errorf("read binary file = %+v, %v, want a 7-byte blob", c, err)
	}
	for _, tc := range []struct{ name, uri, want string }{
		{"outside the working directory", "file://" + outside, "needs_grant"},
		{"symlink leading outside", "file://" + filepath.Join(wd, "escape.txt"), "needs_grant"},
		{"dot-dot out of the working directory", "file://" + wd + "/../" + filepath.Base(filepath.Dir(outside)) + "/notes.txt", "needs_grant"},
		{"encoded dot-dot", "file://" + wd + "/%2e%2e/" + filepath.Base(filepath.Dir(outside)) + "/notes.txt", "needs_grant"},
		{"a directory", "file://" + wd + "/src", "is_directory"},
		{"a FIFO, which must not hang the read", "file://" + wd + "/pipe", "not_regular"},
		{"a remote host", "file://example.com" + text, "file:///ABSOLUTE/PATH"},
		{"a query", "file://" + bin + "?raw=1", "file:///ABSOLUTE/PATH"},
	} {
		if _, err := readResource(cs, tc.uri); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("read %s (%s) = %v, want an error containing %q", tc.name, tc.uri, err, tc.want)
		}
	}
	if _, err := readResource(cs, "file://"+wd+"/absent.txt"); !isNotFound(err) {
		t.Errorf("read a missing file = %v, want not found", err)
	}

	c, err = readResource(cs, consolidated.WorkdirURI)
	if err != nil {
		t.Fatal(err)
	}
	golden.CheckString(t, "testdata/resources/workdir.txt", strings.ReplaceAll(c.Text, wd, "$WORKDIR"))
}

// ownConversation is the conversation of the session cs, as its resource list shows it (its
// todo list's URI).
func ownConversation(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	for _, uri := range resourceURIs(t, cs) {
		if conv, ok := reminders.ConversationFromURI(uri); ok {
			return conv
		}
	}
	t.Fatal("resources/list shows no todo list")
	return ""
}

func isNotFound(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == mcp.CodeResourceNotFound
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func drain[T any](ch chan T) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}
