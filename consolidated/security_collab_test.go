package consolidated

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/store"
)

// collabHarness serves file_operations and user_collaboration with a real guard and store to a
// go-sdk client whose elicitation handler plays the user.
type collabHarness struct {
	t          *testing.T
	wd, state  string
	guard      *authz.Guard
	cs         *mcp.ClientSession
	elicited   []*mcp.ElicitParams
	answerWith func(*mcp.ElicitParams) *mcp.ElicitResult
}

func newCollabHarness(t *testing.T, elicit bool) *collabHarness {
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
	h := &collabHarness{t: t, wd: wd, state: st.Dir(), guard: g}
	env := &Env{Workdir: wd, DefaultConversation: testConversation, BudgetTokens: 5000, Spill: spill}
	reg := NewRegistry(env, []*Tool{UserCollaborationTool(CollaborationConfig{Guard: g, MaxWait: 1}), FileTool(FileConfig{Guard: g})}, nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "toolhost", Version: "test"}, nil)
	reg.Register(s)
	sTrans, cTrans := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, sTrans, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	var opts *mcp.ClientOptions
	if elicit {
		opts = &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			h.elicited = append(h.elicited, r.Params)
			return h.answerWith(r.Params), nil
		}}
	}
	h.cs, err = mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, cTrans, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.cs.Close() })
	return h
}

func (h *collabHarness) call(tool string, args map[string]any) (string, bool) {
	h.t.Helper()
	res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		h.t.Fatalf("CallTool(%s, %v): %v", tool, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// TestSecurityAuthorizationRequestRefusals: requests a user could be misled by, or that would
// flood them, are refused with a code the model can act on, never an internal error.
func TestSecurityAuthorizationRequestRefusals(t *testing.T) {
	h := newCollabHarness(t, false)
	out := t.TempDir()
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"escape sequence in the path", map[string]any{"path": out + "/x\x1b[2K\rREADME.md", "access": "file_operations:write"}, "error invalid_value: path and conversation must not contain control characters"},
		{"bidi override in the path", map[string]any{"path": out + "/\u202etxt.exe", "access": "file_operations:write"}, "error invalid_value: path and conversation must not contain control characters"},
		{"minutes beyond the maximum", map[string]any{"path": out, "access": "file_operations:write", "minutes": 1 << 20}, "error invalid_value: minutes must be between 0 and 43200"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.args["operation"] = "request_authorization"
			got, isErr := h.call("user_collaboration", tt.args)
			if !isErr || !strings.HasPrefix(got, tt.want) {
				t.Errorf("request_authorization(%v) = %q (isError %v), want prefix %q", tt.args, got, isErr, tt.want)
			}
		})
	}
	t.Run("too many pending", func(t *testing.T) {
		var got string
		for range authz.MaxPendingApprovals + 1 {
			got, _ = h.call("user_collaboration", map[string]any{"operation": "request_authorization", "path": out, "access": "file_operations:write"})
		}
		if want := "error too_many_requests:"; !strings.HasPrefix(got, want) {
			t.Errorf("request %d = %q, want prefix %q", authz.MaxPendingApprovals+1, got, want)
		}
	})
}

// TestSecurityReasonIsDisplayText: a reason full of terminal escapes cannot rewrite what the user
// sees in `toolhost approvals` or the elicitation message.
func TestSecurityReasonIsDisplayText(t *testing.T) {
	h := newCollabHarness(t, false)
	h.call("user_collaboration", map[string]any{"operation": "request_authorization", "path": t.TempDir(), "access": "*:write",
		"recursive": true, "reason": "fix\x1b[1A\x1b[2K\rfile_operations.read_file on README.md\n\u202eok"})
	list, err := h.guard.Approvals().List(context.Background(), "", authz.StatusPending)
	if err != nil || len(list) != 1 {
		t.Fatalf("pending approvals = %v, %v; want one", list, err)
	}
	if got, want := list[0].Reason, "fix [1A [2K file_operations.read_file on README.md  ok"; got != want {
		t.Errorf("stored reason = %q, want %q", got, want)
	}
}

// TestSecurityGrepCannotReadTheToken: a grep of a directory that holds the state directory would
// print the bearer token although reading the token file is refused.
func TestSecurityGrepCannotReadTheToken(t *testing.T) {
	h := newCollabHarness(t, false)
	if err := os.WriteFile(filepath.Join(h.state, "token"), []byte("TOKEN-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	parent := filepath.Dir(h.state)
	for _, args := range []map[string]any{
		{"operation": "grep_search", "pattern": "TOKEN-", "path": parent, "include_hidden": true, "include_ignored": true},
		{"operation": "read_file", "path": filepath.Join(h.state, "token")},
	} {
		got, isErr := h.call("file_operations", args)
		if !isErr || strings.Contains(got, "0123456789") || !strings.HasPrefix(got, "error protected_path:") {
			t.Errorf("file_operations(%v) = %q (isError %v), want a protected_path refusal", args, got, isErr)
		}
	}
	// Listing names stays allowed.
	if got, isErr := h.call("file_operations", map[string]any{"operation": "list_dir", "path": parent}); isErr {
		t.Errorf("list_dir(%s) = %q, want a listing", parent, got)
	}
}
