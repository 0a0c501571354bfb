package consolidated

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/internal/git/gittest"
	"toolhost/internal/sandbox"
	"toolhost/internal/sandbox/sandboxtest"
)

// TestGitRunsUnderTheConversationPolicy: what a repository makes git run (a hook, an
// fsmonitor) runs under the calling conversation's terminal policy. A write widens it to the
// repository the guard approved — a granted repository outside commits, and its hook writes
// there — and to nothing else; a read does not widen it.
func TestGitRunsUnderTheConversationPolicy(t *testing.T) {
	sandboxtest.Require(t)
	temp := func() string {
		d, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	state, tmp, third, outside := temp(), temp(), temp(), temp()
	token := filepath.Join(state, "token")
	if err := os.WriteFile(token, []byte("TOKENSECRET-9\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		convs []string
		wd    string
	)
	h := newBuildHarness(t, buildOptions{sandbox: func(ctx context.Context, conv string) (*sandbox.Policy, error) {
		mu.Lock()
		convs = append(convs, conv)
		mu.Unlock()
		return &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Writable: []string{wd}, Temp: []string{tmp},
			Protected: []string{state}, Hidden: []string{state}}, nil
	}})
	wd = h.wd
	h.repo("")
	gittest.Run(t, outside, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(outside, "o.txt"), []byte("o\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Run(t, outside, "add", ".")
	gittest.Run(t, outside, "commit", "-qm", "outside")
	if _, err := h.hs.guard.CreateGrant(context.Background(), authz.GrantSpec{Conversation: h.hs.conversation(""),
		Access: buildToolName + ":write", Path: outside, Recursive: true, By: "test"}); err != nil {
		t.Fatal(err)
	}
	// plant.sh NAME marks that it ran in the temp dir (always writable), then writes the
	// repository it runs in, a directory nobody granted, and a copy of the token.
	plant := filepath.Join(tmp, "plant.sh")
	if err := os.WriteFile(plant, []byte("echo ran > "+tmp+"/ran-$1\necho x > \"$PWD/inrepo-$1\"\necho x > "+third+"/$1\ncat "+token+" > "+tmp+"/stolen-$1\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	hook := func(repo, name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(repo, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\nexec sh "+plant+" "+name+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		// mark is the planted command's argument, naming the files it leaves.
		name, mark, repo string
		setup            func()
		op               string
		args             map[string]any
		want             string
		// inRepo says the planted command may write the repository.
		inRepo bool
	}{
		{"hook in the working directory, git_commit", "wd", h.wd, func() {
			hook(h.wd, "wd")
			h.write("b.txt", "b\n")
			h.git("", "add", "b.txt")
		}, "git_commit", map[string]any{"message": "b"}, "committed", true},
		{"hook in a granted repository outside, git_commit", "granted", outside, func() {
			hook(outside, "granted")
			if err := os.WriteFile(filepath.Join(outside, "p.txt"), []byte("p\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			gittest.Run(t, outside, "add", "p.txt")
		}, "git_commit", map[string]any{"message": "p", "repo": outside}, "committed", true},
		{"fsmonitor in a granted repository outside, git_status (a read)", "read", outside, func() {
			gittest.Run(t, outside, "config", "core.fsmonitor", "sh "+plant+" read")
		}, "git_status", map[string]any{"repo": outside}, "branch main", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.setup()
			name := c.mark
			if got := h.mustOp(c.op, c.args); !strings.Contains(got, c.want) {
				t.Errorf("%s = %s, want %q", c.op, got, c.want)
			}
			if _, err := os.Stat(filepath.Join(tmp, "ran-"+name)); err != nil {
				t.Fatalf("the planted command did not run: the case proves nothing")
			}
			if _, err := os.Stat(filepath.Join(c.repo, "inrepo-"+name)); (err == nil) != c.inRepo {
				t.Errorf("the planted command wrote its repository: %v, want %v", err == nil, c.inRepo)
			}
			if _, err := os.Stat(filepath.Join(third, name)); err == nil {
				t.Errorf("the planted command wrote a directory nobody granted")
			}
			if b, _ := os.ReadFile(filepath.Join(tmp, "stolen-"+name)); strings.Contains(string(b), "TOKENSECRET") {
				t.Errorf("the planted command read the token")
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	want := h.hs.conversation("")
	for _, conv := range convs {
		if conv != want {
			t.Errorf("the policy was asked for conversation %q, want the caller's %q", conv, want)
		}
	}
}

// TestGitSandboxUnavailable: when the sandbox is configured but cannot be enforced (and the user
// did not accept running unconfined), git operations refuse as terminals do, and no git runs:
// a planted hook does not, no commit is made, and the git context resource says why.
func TestGitSandboxUnavailable(t *testing.T) {
	h := newBuildHarness(t, buildOptions{sandbox: func(context.Context, string) (*sandbox.Policy, error) {
		return nil, fmt.Errorf("%w: the kernel has no Landlock", sandbox.ErrUnavailable)
	}})
	h.repo("")
	marker := filepath.Join(t.TempDir(), "ran")
	if err := os.WriteFile(filepath.Join(h.wd, ".git", "hooks", "pre-commit"), []byte("#!/bin/sh\necho ran > "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.write("b.txt", "b\n")
	h.git("", "add", "b.txt")
	for _, c := range []struct {
		op   string
		args map[string]any
	}{
		{"git_status", nil},
		{"git_diff", nil},
		{"git_show", map[string]any{"ref": "HEAD:a.txt"}},
		{"git_stage", map[string]any{"paths": []string{"a.txt"}}},
		{"git_commit", map[string]any{"message": "refused"}},
	} {
		got := h.errOp(c.op, c.args)
		for _, want := range []string{"sandbox_unavailable", "terminal sandbox unavailable: the kernel has no Landlock", "allow_unsandboxed"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s = %s\nwant %q", c.op, got, want)
			}
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the pre-commit hook ran")
	}
	if got := strings.TrimSpace(h.git("", "rev-list", "--count", "HEAD")); got != "1" {
		t.Errorf("commits after the refused git_commit = %s, want 1", got)
	}
	res, err := h.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: GitContextURI})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Contents[0].Text; !strings.Contains(got, "git context unavailable") || !strings.Contains(got, "no Landlock") {
		t.Errorf("git context resource = %q, want the refusal", got)
	}
}
