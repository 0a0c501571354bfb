package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
)

func outsideFile(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeCheck(a *App, conv, path string) (authz.Decision, error) {
	return a.Guard.Check(context.Background(), authz.Request{Conversation: conv, Tool: "file_operations", Operation: "create_file", Class: authz.Class("write"), Path: path})
}

func TestAuthorizationByElicitation(t *testing.T) {
	for _, version := range []string{"", "2025-06-18"} {
		for _, tc := range []struct {
			name, action string
			wantText     string
			wantGrant    bool
		}{
			{"accept", "accept", "Granted file_operations.create_file on ", true},
			{"decline", "decline", "The user declined: no grant", false},
			{"cancel", "cancel", "The user cancelled: no grant", false},
		} {
			t.Run(tc.name+" protocol "+version, func(t *testing.T) {
				a := testApp(t)
				target := outsideFile(t)
				var asked string
				cs := connect(t, a, &mcp.ClientOptions{
					ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked = req.Params.Message
						return &mcp.ElicitResult{Action: tc.action, Content: map[string]any{"minutes": 3, "once": true}}, nil
					},
				}, version)
				if _, err := writeCheck(a, a.Env.DefaultConversation, target); err == nil {
					t.Fatal("write outside the working directory allowed before any grant")
				}
				got, isErr := callText(t, cs, "user_collaboration", map[string]any{
					"operation": "request_authorization", "path": target, "access": "file_operations.create_file", "reason": "save notes"})
				if isErr || !strings.HasPrefix(got, tc.wantText) {
					t.Fatalf("request_authorization = %q (isError %v), want prefix %q", got, isErr, tc.wantText)
				}
				if !strings.Contains(asked, target) || !strings.Contains(asked, "save notes") {
					t.Errorf("elicitation message %q does not name the path and the reason", asked)
				}
				d, err := writeCheck(a, a.Env.DefaultConversation, target)
				if tc.wantGrant {
					if err != nil || d.GrantID == "" {
						t.Fatalf("write after accepted elicitation: %v, %+v", err, d)
					}
					// The user chose a one-time grant: it is used up.
					if _, err := writeCheck(a, a.Env.DefaultConversation, target); err == nil {
						t.Error("one-time grant allowed a second write")
					}
				} else if err == nil {
					t.Fatalf("write allowed after the user said %s", tc.action)
				}
			})
		}
	}
}

func TestAuthorizationWithoutElicitation(t *testing.T) {
	a := testApp(t)
	target := outsideFile(t)
	cs := connect(t, a, nil, "")
	got, isErr := callText(t, cs, "user_collaboration", map[string]any{
		"operation": "request_authorization", "path": target, "access": "file_operations:write"})
	if isErr || !strings.Contains(got, "is pending") || !strings.Contains(got, "toolhost approve r-") {
		t.Fatalf("request_authorization without elicitation = %q", got)
	}
	id := strings.Fields(got[strings.Index(got, "toolhost approve ")+len("toolhost approve "):])[0]
	got, _ = callText(t, cs, "user_collaboration", map[string]any{"operation": "check_request", "request_id": id})
	if !strings.Contains(got, "is pending") {
		t.Fatalf("check_request before approval = %q", got)
	}
	if _, err := writeCheck(a, a.Env.DefaultConversation, target); err == nil {
		t.Fatal("a pending request allowed the write")
	}
	if _, _, err := a.Guard.Approve(context.Background(), id, 0, false, "test"); err != nil {
		t.Fatal(err)
	}
	got, _ = callText(t, cs, "user_collaboration", map[string]any{"operation": "check_request", "request_id": id})
	if !strings.HasPrefix(got, "Granted file_operations:write on "+target) {
		t.Fatalf("check_request after approval = %q", got)
	}
	if _, err := writeCheck(a, a.Env.DefaultConversation, target); err != nil {
		t.Fatalf("write after approval: %v", err)
	}
	// Another conversation gets nothing from this grant.
	if _, err := writeCheck(a, "someone-else", target); err == nil {
		t.Error("grant leaked to another conversation")
	}
}

func TestModelCannotGrantItself(t *testing.T) {
	a := testApp(t)
	target := outsideFile(t)
	cs := connect(t, a, nil, "")
	// A key the operation does not take is ignored with a note: the request stays pending.
	for _, tc := range []struct {
		args    map[string]any
		wantErr bool
		want    string
	}{
		{map[string]any{"operation": "request_authorization", "path": target, "access": "file_operations:write", "approved": true},
			false, "does not take approved; ignored"},
		{map[string]any{"operation": "request_authorization", "path": target, "access": "file_operations:write", "grant_id": "g-123"},
			false, "does not take grant_id; ignored"},
		{map[string]any{"operation": "check_request", "request_id": "r-made-up"}, true, "error not_found"},
	} {
		got, isErr := callText(t, cs, "user_collaboration", tc.args)
		if isErr != tc.wantErr || !strings.Contains(got, tc.want) || (!isErr && !strings.Contains(got, "is pending")) {
			t.Errorf("user_collaboration(%v) = %q (isError %v), want isError %v, %q and a pending request", tc.args, got, isErr, tc.wantErr, tc.want)
		}
	}
	if _, err := writeCheck(a, a.Env.DefaultConversation, target); err == nil {
		t.Fatal("a model-made argument created a grant")
	}
}

func TestAsk(t *testing.T) {
	a := testApp(t)
	cs := connect(t, a, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "blue"}}, nil
		},
	}, "")
	got, isErr := callText(t, cs, "user_collaboration", map[string]any{"operation": "ask", "question": "Which colour?", "options": []string{"blue", "red"}})
	if isErr || got != "The user answered: blue" {
		t.Errorf("ask = %q, %v", got, isErr)
	}
	plain := connect(t, testApp(t), nil, "")
	got, isErr = callText(t, plain, "user_collaboration", map[string]any{"operation": "ask", "question": "Which colour?"})
	if !isErr || !strings.Contains(got, "ask the user in your reply") {
		t.Errorf("ask without elicitation = %q, %v", got, isErr)
	}
}

func TestPromptsDirIsProtected(t *testing.T) {
	a := testApp(t)
	_, err := a.Guard.Check(context.Background(), authz.Request{Conversation: "c", Tool: "file_operations", Operation: "create_file",
		Class: authz.ClassWrite, Path: filepath.Join(a.PromptsDir, "evil.md")})
	if d, ok := authz.AsDenial(err); !ok || d.Code != authz.CodeProtectedPath {
		t.Fatalf("write into the prompts directory = %v, want protected_path", err)
	}
}
