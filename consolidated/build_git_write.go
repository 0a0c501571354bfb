package consolidated

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"toolhost/authz"
	"toolhost/internal/git"
)

func (b *buildTool) branch(ctx context.Context, c *Call, a *gitBranchArgs) (*Result, error) {
	class, names := authz.ClassWrite, false
	if a.Action == "" || a.Action == "list" {
		class, names = authz.ClassRead, true
	}
	repo, err := b.repoFor(ctx, c, a.Repo, class, names)
	if err != nil {
		return nil, err
	}
	switch a.Action {
	case "", "list":
		bs, err := repo.Branches(ctx)
		if err != nil {
			return nil, gitError(err, "repo")
		}
		return &Result{Text: git.RenderBranches(bs, a.Limit)}, nil
	case "create":
		if a.Name == "" {
			return nil, &ToolError{Code: CodeMissingParameter, Param: "name", Message: "git_branch create needs name"}
		}
		start := "HEAD"
		if a.Ref != "" {
			start = a.Ref
		}
		id, err := repo.Resolve(ctx, start)
		if err != nil {
			return nil, gitError(err, "ref")
		}
		if err := repo.CreateBranch(ctx, a.Name, id); err != nil {
			return nil, gitError(err, "name")
		}
		return Text("created branch %s at %s (still on %s); git_branch action=switch name=%s switches to it", a.Name, shortID(id), orDetached(repo.CurrentBranch(ctx)), a.Name), nil
	case "switch":
		if a.Name == "" {
			return nil, &ToolError{Code: CodeMissingParameter, Param: "name", Message: "git_branch switch needs name"}
		}
		if err := repo.Switch(ctx, a.Name); err != nil {
			if errors.Is(err, git.ErrNoBranch) || errors.Is(err, git.ErrUnknownRevision) {
				return nil, b.noBranch(ctx, repo, a.Name)
			}
			return nil, gitError(err, "name")
		}
		st, err := repo.Status(ctx, nil)
		if err != nil {
			return nil, gitError(err, "repo")
		}
		return Text("switched to %s\n%s", a.Name, git.RenderStatus(st, git.RenderOptions{State: repo.State(), MaxPerSection: 20})), nil
	}
	return nil, &ToolError{Code: CodeInvalidValue, Param: "action", Message: "action must be list, create or switch"}
}

// noBranch explains a switch to something that is not a local or remote branch.
func (b *buildTool) noBranch(ctx context.Context, repo *git.Repo, name string) error {
	te := &ToolError{Code: CodeNotFound, Param: "name", Message: fmt.Sprintf("no branch %q", truncate(name, 80)),
		Next: "git_branch lists branches; action=create name=X ref=Y makes one"}
	if bs, err := repo.Branches(ctx); err == nil {
		names := make([]string, len(bs))
		for i, br := range bs {
			names[i] = br.Name
		}
		if n := nearest(name, names); n != "" {
			te.Next = "did you mean " + n + "? " + te.Next
		}
	}
	return te
}

func (b *buildTool) stage(ctx context.Context, c *Call, a *gitPathsArgs) (*Result, error) {
	return b.index(ctx, c, a, true)
}

func (b *buildTool) unstage(ctx context.Context, c *Call, a *gitPathsArgs) (*Result, error) {
	return b.index(ctx, c, a, false)
}

// index stages or unstages paths and answers with the staged list that results.
func (b *buildTool) index(ctx context.Context, c *Call, a *gitPathsArgs, add bool) (*Result, error) {
	if len(a.Paths) == 0 {
		return nil, &ToolError{Code: CodeMissingParameter, Param: "paths", Message: c.Operation + " needs paths (\".\" for everything)"}
	}
	repo, err := b.repoFor(ctx, c, a.Repo, authz.ClassWrite, false)
	if err != nil {
		return nil, err
	}
	paths, err := b.relPaths(ctx, c, repo, a.Paths, false)
	if err != nil {
		return nil, err
	}
	if add {
		err = repo.Stage(ctx, paths)
	} else {
		err = repo.Unstage(ctx, paths)
	}
	if err != nil {
		return nil, gitError(err, "paths")
	}
	st, err := repo.Status(ctx, nil)
	if err != nil {
		return nil, gitError(err, "repo")
	}
	note := ""
	if add {
		// git add reads the files itself: what a direct read refuses must not reach the index,
		// where git_commit and git_show would reveal it.
		var refused []string
		for _, e := range st.Entries {
			if !e.Staged() || e.X == 'D' {
				continue
			}
			_, err := b.cfg.Guard.Check(ctx, authz.Request{Conversation: c.Conversation, Tool: buildToolName, Operation: c.Operation,
				Class: authz.ClassRead, Path: repo.Top + "/" + e.Path})
			if _, denied := authz.AsDenial(err); denied {
				refused = append(refused, e.Path)
			} else if err != nil {
				return nil, err
			}
		}
		if len(refused) > 0 {
			if err := repo.Unstage(ctx, refused); err != nil {
				return nil, gitError(err, "paths")
			}
			if st, err = repo.Status(ctx, nil); err != nil {
				return nil, gitError(err, "repo")
			}
			note = fmt.Sprintf("\nnot staged, a direct read refuses them (credentials, toolhost state or files linked outside): %s", strings.Join(refused, ", "))
		}
	}
	return &Result{Text: git.RenderStatus(st, git.RenderOptions{State: repo.State(), MaxPerSection: 50}) + note}, nil
}

func (b *buildTool) commit(ctx context.Context, c *Call, a *gitCommitArgs) (*Result, error) {
	if strings.TrimSpace(a.Message) == "" && !a.Amend {
		return nil, &ToolError{Code: CodeMissingParameter, Param: "message", Message: "git_commit needs a message"}
	}
	repo, err := b.repoFor(ctx, c, a.Repo, authz.ClassWrite, false)
	if err != nil {
		return nil, err
	}
	res, err := repo.Commit(ctx, git.CommitOptions{Message: a.Message, Amend: a.Amend})
	if err != nil {
		return nil, gitError(err, "message")
	}
	verb := "committed"
	if a.Amend {
		verb = "amended"
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %s on %s: %s\n%s", verb, res.Short, orDetached(res.Branch), res.Subject, git.RenderStat(res.Stats, 50))
	if res.HookOutput != "" {
		sb.WriteString("\n--- hook output ---\n" + lastLines(res.HookOutput, 20))
	}
	return &Result{Text: sb.String()}, nil
}
