package app

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/consolidated"
	"toolhost/internal/config"
)

func dirIn(t *testing.T, parent, name string) string {
	t.Helper()
	d := filepath.Join(parent, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "marker-"+name), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// rootClient connects a client whose roots are dirs.
func rootClient(t *testing.T, a *App, dirs ...string) (*mcp.ClientSession, *mcp.Client) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	for _, d := range dirs {
		c.AddRoots(&mcp.Root{URI: "file://" + d})
	}
	return connectClient(t, a, c, "2025-11-25"), c
}

func workdirOf(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	c, err := readResource(cs, consolidated.WorkdirURI)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(c.Text, "\n")
	return strings.TrimPrefix(first, "Working directory: ")
}

// TestRoots: with no configured working directory, each session works in its client's first
// root, with its own guard (a file of another root needs a grant), its own conversation and
// terminals, and follows roots/list_changed; a root outside [http] allowed_roots, or one that
// is not a directory, is refused with the reason on every call.
func TestRoots(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	one, two, outside := dirIn(t, base, "one"), dirIn(t, base, "two"), dirIn(t, elsewhere, "outside")
	a := testAppWith(t, func(cfg *config.Config) {
		cfg.HTTP.AllowedRoots = []string{base}
		cfg.Guard.OutsideReads = "grant"
	})
	a.UseRoots(true)

	csOne, clientOne := rootClient(t, a, one)
	csTwo, _ := rootClient(t, a, two)
	if got := workdirOf(t, csOne); got != one {
		t.Errorf("workdir of the session with root %s = %s", one, got)
	}
	if got := workdirOf(t, csTwo); got != two {
		t.Errorf("workdir of the session with root %s = %s", two, got)
	}
	if text, isErr := callText(t, csOne, "file_operations", map[string]any{"operation": "list_dir", "path": "."}); isErr || !strings.Contains(text, "marker-one") {
		t.Errorf("list_dir . in root one = %q (isError %v)", text, isErr)
	}
	if text, isErr := callText(t, csOne, "terminal_operations", map[string]any{"operation": "run_command", "command": "pwd"}); isErr || !strings.Contains(text, one) {
		t.Errorf("pwd in root one = %q (isError %v)", text, isErr)
	}
	// Root one's guard does not know root two.
	if text, isErr := callText(t, csOne, "file_operations", map[string]any{"operation": "read_file", "path": filepath.Join(two, "marker-two")}); !isErr || !strings.Contains(text, "needs_grant") {
		t.Errorf("read a file of root two from root one = %q (isError %v), want needs_grant", text, isErr)
	}
	if _, err := readResource(csOne, "file://"+filepath.Join(two, "marker-two")); err == nil || !strings.Contains(err.Error(), "needs_grant") {
		t.Errorf("read file:// of root two from root one = %v, want needs_grant", err)
	}
	// Each root has its conversation: the todo list the session sees is its own.
	convOne := config.DefaultConversation(one)
	if uris := resourceURIs(t, csOne); !strings.Contains(strings.Join(uris, " "), "conversations/"+convOne+"/todos") {
		t.Errorf("resources/list of root one = %v, want the todo list of conversation %s", uris, convOne)
	}
	// A second chat on root one leases a conversation of its own in that workspace.
	csOneAgain, _ := rootClient(t, a, one)
	if got := ownConversation(t, csOneAgain); got == convOne || !strings.HasPrefix(got, convOne+"-") {
		t.Errorf("conversation of a second session with root one = %s, want another of root one's (%s-N)", got, convOne)
	}

	// The client changes its roots: the session follows.
	clientOne.RemoveRoots("file://" + one)
	clientOne.AddRoots(&mcp.Root{URI: "file://" + two})
	deadline := time.Now().Add(20 * time.Second)
	for workdirOf(t, csOne) != two {
		if time.Now().After(deadline) {
			t.Fatalf("workdir after roots/list_changed = %s, want %s", workdirOf(t, csOne), two)
		}
		time.Sleep(20 * time.Millisecond)
	}

	for _, tc := range []struct{ name, root, want string }{
		{"not allowed", outside, "not under [http] allowed_roots"},
		{"not a directory", filepath.Join(one, "marker-one"), "is not a directory"},
		{"missing", filepath.Join(base, "nope"), "nope"},
	} {
		cs, _ := rootClient(t, a, tc.root)
		text, isErr := callText(t, cs, "think", map[string]any{"thoughts": "x"})
		if !isErr || !strings.Contains(text, "refused") || !strings.Contains(text, tc.want) {
			t.Errorf("a call with root %s (%s) = %q (isError %v), want refused: %s", tc.root, tc.name, text, isErr, tc.want)
		}
		if _, err := readResource(cs, consolidated.WorkdirURI); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("a resource read with root %s (%s) = %v, want refused", tc.root, tc.name, err)
		}
	}

	// A client without roots stays in the configured directory.
	if got := workdirOf(t, connect(t, a, nil, "2025-11-25")); got != a.Workdir {
		t.Errorf("workdir of a client without roots = %s, want %s", got, a.Workdir)
	}
}

// TestRootsNeedAllowedRootsOverHTTP: serve without [http] allowed_roots keeps every session
// in the server's working directory, whatever root the client sends.
func TestRootsNeedAllowedRootsOverHTTP(t *testing.T) {
	a := testApp(t)
	a.UseRoots(true)
	cs, _ := rootClient(t, a, dirIn(t, t.TempDir(), "elsewhere"))
	if got := workdirOf(t, cs); got != a.Workdir {
		t.Errorf("workdir = %s, want the server's %s", got, a.Workdir)
	}
}

// TestRootsAreBounded: a client naming one directory after another opens at most
// MaxWorkspaces workspaces; the next root is refused, and known ones keep working.
func TestRootsAreBounded(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a := testAppWith(t, func(cfg *config.Config) { cfg.HTTP.AllowedRoots = []string{base} })
	ctx := context.Background()
	first := ""
	for i := range MaxWorkspaces {
		d := dirIn(t, base, "p"+strconv.Itoa(i))
		if _, err := a.openRoot(ctx, "file://"+d, true); err != nil {
			t.Fatalf("open workspace %d: %v", i, err)
		}
		if first == "" {
			first = d
		}
	}
	if _, err := a.openRoot(ctx, "file://"+dirIn(t, base, "one-too-many"), true); err == nil || !strings.Contains(err.Error(), "workspaces are open already") {
		t.Errorf("open workspace %d = %v, want refused", MaxWorkspaces+1, err)
	}
	if _, err := a.openRoot(ctx, "file://"+first, true); err != nil {
		t.Errorf("reopen a known workspace = %v", err)
	}
}
