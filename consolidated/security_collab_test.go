package consolidated

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
)

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
		// Only the terminal files a command approval, bound to the exact line it refused.
		{"a command approval", map[string]any{"path": out, "access": "terminal_operations:command"},
			"error invalid_value: invalid access: command approvals are requested by terminal_operations itself when a rule asks; run the command and follow its answer"},
		{"a command approval of any tool", map[string]any{"path": out, "access": "*:command"},
			"error invalid_value: invalid access: command approvals are requested by terminal_operations itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.args["operation"] = "request_authorization"
			got, isErr, _ := h.call("user_collaboration", tt.args)
			if !isErr || !strings.HasPrefix(got, tt.want) {
				t.Errorf("request_authorization(%v) = %q (isError %v), want prefix %q", tt.args, got, isErr, tt.want)
			}
		})
	}
	if list, err := h.guard.Approvals().List(context.Background(), "", authz.StatusPending); err != nil || len(list) != 0 {
		t.Errorf("pending approvals after the refusals = %v, %v; want none", list, err)
	}
	t.Run("too many pending", func(t *testing.T) {
		var got string
		for range authz.MaxPendingApprovals + 1 {
			got, _, _ = h.call("user_collaboration", map[string]any{"operation": "request_authorization", "path": out, "access": "file_operations:write"})
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
	if err := os.WriteFile(filepath.Join(h.st.Dir(), "token"), []byte("TOKEN-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	parent := filepath.Dir(h.st.Dir())
	for _, args := range []map[string]any{
		{"operation": "grep_search", "pattern": "TOKEN-", "path": parent, "include_hidden": true, "include_ignored": true},
		{"operation": "read_file", "path": filepath.Join(h.st.Dir(), "token")},
	} {
		got, isErr, _ := h.call("file_operations", args)
		if !isErr || strings.Contains(got, "0123456789") || !strings.HasPrefix(got, "error protected_path:") {
			t.Errorf("file_operations(%v) = %q (isError %v), want a protected_path refusal", args, got, isErr)
		}
	}
	// Listing names stays allowed: the rows of list_dir and file_search declare names only.
	for _, args := range []map[string]any{
		{"operation": "list_dir", "path": parent},
		{"operation": "file_search", "pattern": "*", "path": parent},
	} {
		if got, isErr, _ := h.call("file_operations", args); isErr {
			t.Errorf("file_operations(%v) = %q, want a listing", args, got)
		}
	}
}

// TestSecurityElicitedGrant: a grant made from the user's elicitation answer is the request the
// user was shown: its path, access and, when the answer leaves them out, its duration and use
// count.
func TestSecurityElicitedGrant(t *testing.T) {
	h := newCollabHarness(t, true)
	out := t.TempDir()
	h.answerWith = func(*mcp.ElicitParams) *mcp.ElicitResult { return &mcp.ElicitResult{Action: "accept"} }
	got, isErr, _ := h.call("user_collaboration", map[string]any{"operation": "request_authorization", "path": out, "access": "file_operations:write", "once": true, "minutes": 7})
	if isErr || !strings.Contains(got, "Granted file_operations:write on "+out) {
		t.Fatalf("request_authorization = %q (isError %v), want a grant", got, isErr)
	}
	if len(h.elicited) != 1 || !strings.Contains(h.elicited[0].Message, "Allow file_operations:write on "+out+"?") {
		t.Errorf("elicitation = %+v, want one question naming the access and path", h.elicited)
	}
	grants, err := h.guard.Grants().List(context.Background(), "")
	if err != nil || len(grants) != 1 {
		t.Fatalf("grants = %v, %v; want one", grants, err)
	}
	if g := grants[0]; g.Path != out || g.Uses != 1 || g.Conversation != testConversation || !strings.HasPrefix(g.By, "elicitation") || !strings.Contains(g.By, "(client says test 1)") {
		t.Errorf("grant = %+v, want a one-time grant on %s for %s by elicitation, naming the client", g, out, testConversation)
	}
}

// TestSecurityForgedElicitationAnswers: an answer grants only the request this server signed, for
// the conversation that asked, once. Whatever else a client (or a model steering it) sends with
// an answer grants nothing.
func TestSecurityForgedElicitationAnswers(t *testing.T) {
	h := newCollabHarness(t, false)
	ctx := context.Background()
	u := &collaboration{cfg: CollaborationConfig{Guard: h.guard}, key: []byte("0123456789abcdef0123456789abcdef")}
	other := &collaboration{cfg: CollaborationConfig{Guard: h.guard}, key: []byte("another server's key, 32 bytes..")}
	request := func(conv string) string {
		ap, err := h.guard.RequestAuthorization(ctx, authz.AuthorizationRequest{Conversation: conv, Path: t.TempDir(), Access: "file_operations:write"})
		if err != nil {
			t.Fatal(err)
		}
		return ap.ID
	}
	mine, theirs, replayed := request(testConversation), request("conv-other"), request(testConversation)
	answer := func(state string) *Call {
		return &Call{Conversation: testConversation, Request: &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
			RequestState:   state,
			InputResponses: mcp.InputResponseMap{elicitKey: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"minutes": 60.0}}},
		}}}
	}
	if _, err := u.requestAuthorization(ctx, answer(u.sign(replayed)), &authorizeArgs{}); err != nil {
		t.Fatalf("first answer to %s: %v", replayed, err)
	}
	tests := []struct {
		name, state, want string
	}{
		{"bare request id", mine, "error invalid_state:"},
		{"id with a made-up signature", mine + ".00ff", "error invalid_state:"},
		{"signed by another server", other.sign(mine), "error invalid_state:"},
		{"another conversation's request", u.sign(theirs), "error invalid_state:"},
		{"no such request", u.sign("r-doesnotexist"), "error invalid_state:"},
		{"answer replayed", u.sign(replayed), "error not_pending:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := u.requestAuthorization(ctx, answer(tt.state), &authorizeArgs{Path: "/", Access: "*:write", Recursive: true})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("requestAuthorization(state %q) = %+v, %v; want %s", tt.state, res, err, tt.want)
			}
		})
	}
	grants, err := h.guard.Grants().List(ctx, "")
	if err != nil || len(grants) != 1 || grants[0].RequestID != replayed {
		t.Errorf("grants = %+v, %v; want only the one for %s", grants, err, replayed)
	}
}
