package consolidated

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"toolhost/internal/git"
	"toolhost/internal/sandbox"
)

// gitError turns the git engine's errors into ones the model can act on; param names the argument
// that most likely needs changing.
func gitError(err error, param string) error {
	var te *ToolError
	if errors.As(err, &te) || err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	msg := err.Error()
	var ge *git.Error
	if errors.As(err, &ge) {
		if m := ge.Message(6); m != "" {
			msg = m
		}
	}
	files := func() string {
		if ge == nil || len(ge.Files) == 0 {
			return ""
		}
		fs := ge.Files
		if len(fs) > 20 {
			fs = append(fs[:20:20], fmt.Sprintf("and %d more", len(ge.Files)-20))
		}
		return ": " + strings.Join(fs, ", ")
	}
	switch {
	case errors.Is(err, git.ErrNotRepository):
		return &ToolError{Cause: err, Code: CodeNotARepository, Param: "repo", Message: "not inside a git work tree",
			Next: "pass repo= a directory inside a repository (list_tasks, run_tests and get_errors work without one)"}
	case errors.Is(err, git.ErrNoCommits):
		return &ToolError{Cause: err, Code: CodeNoCommits, Param: param, Message: "the repository has no commits yet",
			Next: "git_stage files, then git_commit the first commit; git_status shows what is there"}
	case errors.Is(err, git.ErrInvalidRef):
		return &ToolError{Cause: err, Code: CodeInvalidValue, Param: param, Message: strings.TrimPrefix(err.Error(), "invalid ref: "),
			Next: "refs are names (main, v1.2, HEAD~2, abc1234, A..B); they may not start with '-'"}
	case errors.Is(err, git.ErrUnknownRevision):
		return &ToolError{Cause: err, Code: CodeNotFound, Param: param, Message: msg, Next: "git_branch lists branches, git_log lists commits"}
	case errors.Is(err, git.ErrNotLocal):
		return &ToolError{Cause: err, Code: CodeNotFound, Param: param,
			Message: "that object is not in the local repository (a partial or shallow clone); reads here never fetch",
			Next:    "the user can fetch it in their own shell (git fetch), or read another revision"}
	case errors.Is(err, git.ErrOutsideRepo):
		return &ToolError{Cause: err, Code: CodeOutsideRepository, Param: "paths", Message: strings.TrimPrefix(err.Error(), git.ErrOutsideRepo.Error()+": "),
			Next: "give paths relative to the repository root (as git_status shows them), or pass repo= the other repository"}
	case errors.Is(err, git.ErrPathspec):
		return &ToolError{Cause: err, Code: CodeNotFound, Param: "paths", Message: msg, Next: "git_status lists changed and untracked files"}
	case errors.Is(err, git.ErrLocalChanges):
		return &ToolError{Cause: err, Code: CodeLocalChanges, Param: param, Message: "switching would overwrite uncommitted changes" + files(),
			Next: "git_commit the changes first, or stash them (the terminal_operations tool's run_command \"git stash\"); nothing was changed"}
	case errors.Is(err, git.ErrUnmerged):
		return &ToolError{Cause: err, Code: CodeUnresolvedConflicts, Param: param, Message: "unresolved merge conflicts" + files(),
			Next: "edit the conflicted files, git_stage them, then git_commit; git_status lists them"}
	case errors.Is(err, git.ErrNothingToCommit):
		return &ToolError{Cause: err, Code: CodeNothingToCommit, Param: param, Message: "nothing is staged",
			Next: "git_stage paths first; git_status shows what changed"}
	case errors.Is(err, git.ErrPushed):
		return &ToolError{Cause: err, Code: CodeAlreadyPushed, Param: "amend", Message: msg, Next: "make a new commit instead (amend=false)"}
	case errors.Is(err, git.ErrNoIdentity):
		return &ToolError{Cause: err, Code: CodeNoIdentity, Param: param, Message: "git has no author name and email",
			Next: "ask the user to set them: git config --global user.name NAME; git config --global user.email EMAIL"}
	case errors.Is(err, git.ErrBranchExists):
		return &ToolError{Cause: err, Code: CodeExists, Param: "name", Message: msg, Next: "pick another name, or action=switch to use it"}
	case errors.Is(err, git.ErrNoBranch):
		return &ToolError{Cause: err, Code: CodeNotFound, Param: "name", Message: msg, Next: "git_branch lists branches; action=create name=X ref=Y makes one"}
	case errors.Is(err, git.ErrHook):
		out := msg
		if ge != nil {
			out = lastLines(ge.Stderr, 40)
		}
		return &ToolError{Cause: err, Code: CodeHookFailed, Param: param, Message: "a git hook refused the commit; nothing was committed:\n" + out,
			Next: "fix what the hook reports, git_stage the fixes, and commit again"}
	case errors.Is(err, sandbox.ErrUnavailable):
		return sandboxUnavailable(err)
	case errors.Is(err, git.ErrNoGit):
		return &ToolError{Cause: err, Code: CodeUnavailable, Message: "git is not installed on this machine"}
	case ge != nil:
		return &ToolError{Cause: err, Code: CodeGitFailed, Param: param, Message: msg}
	}
	return err
}

func shortID(id string) string {
	if len(id) > 7 {
		return id[:7]
	}
	return id
}

func orDetached(branch string) string {
	if branch == "" {
		return "detached HEAD"
	}
	return branch
}

// lastLines keeps the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("[... %d lines above]", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
