package consolidated

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/store"
)

// guardedWorkdir is where the harnesses of this package start: a canonical working directory, a
// real store and a guard on them, and a spill directory for cut results.
type guardedWorkdir struct {
	wd    string
	st    *store.Store
	guard *authz.Guard
	spill *Spill
}

func newGuardedWorkdir(t testing.TB) guardedWorkdir {
	t.Helper()
	ctx := context.Background()
	wd, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, t.TempDir(), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	g, err := authz.New(ctx, authz.Config{WorkDir: wd, StateDir: st.Dir(), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	spill, err := NewSpill(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return guardedWorkdir{wd: wd, st: st, guard: g, spill: spill}
}

// connectTools serves tools on env over the go-sdk in-memory transport (setup, when set, adds
// what else the server offers) and returns a client connected to it with copts.
func connectTools(t testing.TB, env *Env, tools []*Tool, setup func(*mcp.Server), copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "toolhost", Version: "test"}, nil)
	NewRegistry(env, tools, nil).Register(s)
	if setup != nil {
		setup(s)
	}
	sTrans, cTrans := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, sTrans, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, cTrans, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callText calls a tool and returns its text blocks joined and whether it is an error; a
// protocol error fails the test.
func callText(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s, %v): %v", tool, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}
