package git

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Callers match them with errors.Is; the MCP layer turns each into an error the
// model can act on.
var (
	// ErrNoGit means no git executable was found on PATH.
	ErrNoGit = errors.New("git executable not found")
	// ErrNotRepository means the directory is not inside a git work tree.
	ErrNotRepository = errors.New("not a git repository")
	// ErrNoCommits means the repository has no commits yet (HEAD is unborn).
	ErrNoCommits = errors.New("the repository has no commits yet")
	// ErrInvalidRef means a ref or branch name was refused before git ran: it starts with '-',
	// holds a control character, or is not a valid branch name.
	ErrInvalidRef = errors.New("invalid ref")
	// ErrUnknownRevision means a ref, commit or REV:path does not exist.
	ErrUnknownRevision = errors.New("unknown revision")
	// ErrOutsideRepo means a path lies outside the repository's work tree.
	ErrOutsideRepo = errors.New("path is outside the repository")
	// ErrPathspec means a path matched no file git knows.
	ErrPathspec = errors.New("path matched no files")
	// ErrLocalChanges means a branch switch would overwrite uncommitted changes or untracked files.
	ErrLocalChanges = errors.New("local changes would be overwritten")
	// ErrUnmerged means the index has unresolved conflicts.
	ErrUnmerged = errors.New("unresolved merge conflicts")
	// ErrNothingToCommit means a commit found nothing staged.
	ErrNothingToCommit = errors.New("nothing to commit")
	// ErrPushed means an amend was refused because the commit is already on a remote-tracking branch.
	ErrPushed = errors.New("commit is already pushed")
	// ErrNoIdentity means git has no author name or email configured.
	ErrNoIdentity = errors.New("no author identity configured")
	// ErrBranchExists means a branch of that name already exists.
	ErrBranchExists = errors.New("branch already exists")
	// ErrNoBranch means a switch named something that is not a branch.
	ErrNoBranch = errors.New("not a branch")
	// ErrHook means a hook refused the operation.
	ErrHook = errors.New("a git hook refused")
	// ErrBinary means an object is binary and is summarised instead of shown.
	ErrBinary = errors.New("binary content")
	// ErrNotLocal means a read needs an object the repository does not hold (a partial or
	// shallow clone would fetch it): toolhost's git never fetches.
	ErrNotLocal = errors.New("the object is not in the local repository, and reads never fetch")
	// ErrFailed is any other git failure; *Error holds git's message.
	ErrFailed = errors.New("git failed")
)

// Error is a failed git command: the sentinel it was classified as, the command and git's own
// message. The message is for the log and, where the caller chooses, for the model (it never holds
// toolhost internals, only what git printed).
type Error struct {
	Kind   error
	Args   []string
	Code   int
	Stderr string
	// Files lists the paths git named in the message (e.g. the files a switch would overwrite).
	Files []string
}

func (e *Error) Error() string {
	msg := firstLine(e.Stderr)
	if msg == "" {
		return fmt.Sprintf("git %s: %v (exit %d)", strings.Join(e.Args, " "), e.Kind, e.Code)
	}
	return fmt.Sprintf("git %s: %v: %s", strings.Join(e.Args, " "), e.Kind, msg)
}

func (e *Error) Unwrap() error { return e.Kind }

// Message is git's message without the "fatal: " and "error: " prefixes, trimmed to maxLines lines.
func (e *Error) Message(maxLines int) string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(e.Stderr), "\n") {
		l = strings.TrimPrefix(strings.TrimPrefix(strings.TrimRight(l, "\r"), "fatal: "), "error: ")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "hint: ") {
			continue
		}
		out = append(out, l)
		if len(out) == maxLines {
			break
		}
	}
	return strings.Join(out, "\n")
}

// classify maps git's exit status and C-locale message to a sentinel.
func classify(stderr, stdout string, code int) (error, []string) {
	s := stderr
	switch {
	case strings.Contains(s, "transport '") && strings.Contains(s, "' not allowed"), strings.Contains(s, "lazy fetching disabled"),
		strings.Contains(s, "could not fetch") && strings.Contains(s, "promisor"):
		return ErrNotLocal, nil
	case strings.Contains(s, "not a git repository"), strings.Contains(s, "must be run in a work tree"),
		strings.Contains(s, "cannot use bare repository"):
		return ErrNotRepository, nil
	case strings.Contains(s, "does not have any commits yet"), strings.Contains(s, "bad default revision 'HEAD'"),
		strings.Contains(s, "ambiguous argument 'HEAD'"), strings.Contains(s, "Needed a single revision") && strings.Contains(s, "HEAD"):
		return ErrNoCommits, nil
	case strings.Contains(s, "would be overwritten by checkout"), strings.Contains(s, "would be overwritten by merge"),
		strings.Contains(s, "would be removed by checkout"):
		return ErrLocalChanges, indentedPaths(s)
	case strings.Contains(s, "you need to resolve your current index first"), strings.Contains(s, "unmerged files"),
		strings.Contains(s, "is unmerged"), strings.Contains(s, "because you have unmerged files"):
		files := indentedPaths(s)
		for _, l := range strings.Split(stdout, "\n") {
			if p, ok := strings.CutPrefix(l, "U\t"); ok {
				files = append(files, p)
			}
		}
		return ErrUnmerged, files
	case strings.Contains(s, "Please tell me who you are"), strings.Contains(s, "empty ident name"),
		strings.Contains(s, "unable to auto-detect email address"):
		return ErrNoIdentity, nil
	case strings.Contains(s, "already exists") && strings.Contains(s, "branch"):
		return ErrBranchExists, nil
	case strings.Contains(s, "a branch is expected"), strings.Contains(s, "invalid reference:"):
		return ErrNoBranch, nil
	case strings.Contains(s, "did not match any file"), strings.Contains(s, "did not match any files"):
		return ErrPathspec, nil
	case strings.Contains(s, "is outside repository"), strings.Contains(s, "outside repository at"):
		return ErrOutsideRepo, nil
	case strings.Contains(s, "unknown revision"), strings.Contains(s, "bad revision"), strings.Contains(s, "bad object"),
		strings.Contains(s, "invalid object name"), strings.Contains(s, "Not a valid object name"),
		strings.Contains(s, "does not exist in"), strings.Contains(s, "exists on disk, but not in"),
		strings.Contains(s, "no such path") && strings.Contains(s, "in "), strings.Contains(s, "Needed a single revision"),
		strings.Contains(s, "ambiguous argument"):
		return ErrUnknownRevision, nil
	case strings.Contains(stdout, "nothing to commit"), strings.Contains(stdout, "no changes added to commit"),
		strings.Contains(stdout, "nothing added to commit"):
		return ErrNothingToCommit, nil
	case strings.Contains(s, "hook") && (strings.Contains(s, "declined") || strings.Contains(s, "exited")):
		return ErrHook, nil
	}
	return ErrFailed, nil
}

// indentedPaths collects the tab-indented lines git uses to list files in a message.
func indentedPaths(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "\t") {
			if p := strings.TrimSpace(l); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
