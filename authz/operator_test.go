package authz

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestOperatorToken: the token is made once, private to the user, and every process that asks
// at the same time gets the same one.
func TestOperatorToken(t *testing.T) {
	dir := t.TempDir()
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		tokens = map[string]bool{}
	)
	for range 8 {
		wg.Go(func() {
			tok, path, err := OperatorToken(dir)
			if err != nil || path != filepath.Join(dir, OperatorTokenFile) {
				t.Errorf("OperatorToken = %q, %q, %v", tok, path, err)
				return
			}
			mu.Lock()
			tokens[tok] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(tokens) != 1 {
		t.Fatalf("concurrent OperatorToken calls made %d different tokens, want 1", len(tokens))
	}
	for tok := range tokens {
		if !strings.HasPrefix(tok, "thop_") || len(tok) < 40 {
			t.Errorf("token %q, want thop_ and 48 hex digits", tok)
		}
	}
	fi, err := os.Stat(OperatorTokenPath(dir))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".operator-token-*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestOperatorTokenRefusals: a token file others can read, or one too short to be a secret, is
// no credential; nothing is created over it.
func TestOperatorTokenRefusals(t *testing.T) {
	tests := []struct {
		name    string
		content string
		mode    os.FileMode
	}{
		{"readable by the group", "thop_0123456789abcdef0123456789abcdef\n", 0o640},
		{"readable by everyone", "thop_0123456789abcdef0123456789abcdef\n", 0o644},
		{"empty", "", 0o600},
		{"too short", "short\n", 0o600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := OperatorTokenPath(dir)
			if err := os.WriteFile(p, []byte(tt.content), tt.mode); err != nil {
				t.Fatal(err)
			}
			os.Chmod(p, tt.mode)
			if tok, _, err := OperatorToken(dir); !errors.Is(err, ErrNoOperatorToken) {
				t.Errorf("OperatorToken = %q, %v; want ErrNoOperatorToken", tok, err)
			}
			if b, _ := os.ReadFile(p); string(b) != tt.content {
				t.Errorf("token file rewritten to %q", b)
			}
		})
	}
}

func TestOperatorTokenMatches(t *testing.T) {
	tests := []struct {
		name, want, got string
		ok              bool
	}{
		{"same", "thop_abc", "thop_abc", true},
		{"different", "thop_abc", "thop_abd", false},
		{"prefix", "thop_abc", "thop_ab", false},
		{"empty operator token matches nothing", "", "", false},
		{"empty presented", "thop_abc", "", false},
	}
	for _, tt := range tests {
		if got := OperatorTokenMatches(tt.want, tt.got); got != tt.ok {
			t.Errorf("%s: OperatorTokenMatches(%q, %q) = %v, want %v", tt.name, tt.want, tt.got, got, tt.ok)
		}
	}
}

func TestOriginString(t *testing.T) {
	tests := []struct {
		name string
		o    Origin
		want string
	}{
		{"everything known", Origin{Channel: "http", PID: 42, Command: "curl", UID: 1000, User: "alice"}, "http:alice (uid 1000, pid 42 curl)"},
		{"no user name", Origin{Channel: "cli", PID: 7, UID: 1001}, "cli:uid 1001 (pid 7)"},
		{"nothing known", Origin{Channel: "http", UID: -1}, "http"},
	}
	for _, tt := range tests {
		if got := tt.o.String(); got != tt.want {
			t.Errorf("%s: Origin.String() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestProcessOrigin describes this test process from /proc, as a decision's grant records it.
func TestProcessOrigin(t *testing.T) {
	o := ProcessOrigin("cli", os.Getpid())
	if o.PID != os.Getpid() || o.UID != os.Getuid() || o.Command == "" {
		t.Errorf("ProcessOrigin(self) = %+v, want pid %d, uid %d and a command name", o, os.Getpid(), os.Getuid())
	}
}

// TestOperatorTokenIsProtected: the guard refuses every tool access to the operator token,
// whichever way the path is spelled.
func TestOperatorTokenIsProtected(t *testing.T) {
	f := newFixture(t, nil)
	if _, _, err := OperatorToken(f.state); err != nil {
		t.Fatal(err)
	}
	p := OperatorTokenPath(f.state)
	symlink(t, p, filepath.Join(f.wd, "op-link"))
	for _, r := range []Request{
		req(ClassRead, "read_file", p),
		req(ClassRead, "read_file", f.state+"/./"+OperatorTokenFile),
		req(ClassRead, "read_file", "op-link"),
		req(ClassRead, "grep_search", f.state),
		namesOnly(req(ClassRead, "list_dir", f.state)),
		req(ClassWrite, "create_file", p),
	} {
		if got := decideOutcome(t, f.g, r); got.kind != CodeProtectedPath {
			t.Errorf("Check(%s %s) = %+v, want protected_path", r.Operation, r.Path, got)
		}
	}
}

// TestRevokeIsAudited: a revocation names who revoked, like an approval.
func TestRevokeIsAudited(t *testing.T) {
	f := newFixture(t, nil)
	ctx := context.Background()
	gr, err := f.g.CreateGrant(ctx, GrantSpec{Access: "file_operations:write", Path: f.out, Recursive: true, By: "cli:test"})
	if err != nil {
		t.Fatal(err)
	}
	by := ProcessOrigin("cli", os.Getpid()).String()
	if err := f.g.Revoke(ctx, gr.ID, by); err != nil {
		t.Fatal(err)
	}
	if err := f.g.Revoke(ctx, gr.ID, by); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Revoke = %v, want ErrNotFound", err)
	}
	f.g.Close() // flush the audit queue
	var found bool
	for _, r := range f.audit.records() {
		if r.Event == "grant_revoked" && r.GrantID == gr.ID && r.By == by {
			found = true
		}
	}
	if !found {
		t.Errorf("no grant_revoked record with by %q in %+v", by, f.audit.records())
	}
}
