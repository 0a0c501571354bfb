package consolidated

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/git"
	"toolhost/internal/sandbox"
)

// GitContextURI is the resource with the git context of the working directory.
const GitContextURI = "toolhost://workdir/git"

// gitContextResource serves the working directory's git context (branch and upstream, a status
// summary, the last commits), for clients that attach resources to a conversation. It reads the
// working directory only, which the guard always allows; git runs under the policy of the
// caller's conversation, as for git_status. Without git (a nil runner) it says so.
func gitContextResource(runner *git.Runner, workdir string, policy func(context.Context, string) (*sandbox.Policy, error)) Resource {
	return Resource{
		Resource: &mcp.Resource{
			Name:        "git_context",
			URI:         GitContextURI,
			Description: "Git branch, status summary and recent commits of the working directory.",
			MIMEType:    "text/plain",
			Annotations: forBoth(0.6),
		},
		Read: func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			var text string
			if runner == nil {
				text = "git context unavailable: git is not installed on this machine"
			} else if p, err := policy(ctx, CallerConversation(ctx)); err != nil {
				text = "git context unavailable: " + err.Error()
			} else {
				text = GitContext(ctx, runner, workdir, p)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: GitContextURI, MIMEType: "text/plain", Text: text}}}, nil
		},
	}
}

// GitContext renders the git context of dir in a few lines, running git under policy.
func GitContext(ctx context.Context, runner *git.Runner, dir string, policy *sandbox.Policy) string {
	repo, err := runner.Open(ctx, dir, policy)
	if err != nil {
		return "not a git repository: " + dir
	}
	st, err := repo.Status(ctx, nil)
	if err != nil {
		return "git status failed: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "repository %s\n%s\n", repo.Top, git.BranchLine(st))
	if state := repo.State(); state != git.StateNone {
		fmt.Fprintf(&b, "%s in progress\n", state)
	}
	staged, unstaged, untracked, conflicted := st.Counts()
	if st.Clean() {
		b.WriteString("working tree clean\n")
	} else {
		fmt.Fprintf(&b, "%d staged, %d unstaged, %d untracked, %d conflicted\n", staged, unstaged, untracked, conflicted)
	}
	if st.OID != "" {
		if cs, err := repo.Log(ctx, git.LogOptions{Limit: 5}); err == nil {
			b.WriteString("recent commits:\n" + git.RenderLog(cs, false) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
