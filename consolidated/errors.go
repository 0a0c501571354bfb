package consolidated

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"toolhost/store"
)

// ErrorCode is the stable code of a ToolError: the word after "error" in the text the model
// reads ("error not_found: ..."), which clients, tests and the log match on. Every code is
// declared below, once, in the group of the situation it names, and testdata/error_codes.golden
// lists them for review. It is a string type, so a literal still compiles, but
// TestErrorCodesDeclared fails on one: use the constant, or declare a new code here.
type ErrorCode string

// Arguments: the call itself is wrong, and the model fixes it by changing its arguments.
const (
	// CodeInvalidArguments: the arguments are not a JSON object.
	CodeInvalidArguments ErrorCode = "invalid_arguments"
	// CodeUnknownTool: no tool has that name; the next step lists the tools.
	CodeUnknownTool ErrorCode = "unknown_tool"
	// CodeUnknownOperation: the tool has no such operation; the next step lists them.
	CodeUnknownOperation ErrorCode = "unknown_operation"
	// CodeMissingParameter: a required parameter (or one of a required pair) is missing.
	CodeMissingParameter ErrorCode = "missing_parameter"
	// CodeUnexpectedParameter: a parameter the operation does not take.
	CodeUnexpectedParameter ErrorCode = "unexpected_parameter"
	// CodeInvalidType: a parameter has the wrong JSON type.
	CodeInvalidType ErrorCode = "invalid_type"
	// CodeInvalidValue: a parameter's value is empty, out of range or not one of the allowed ones.
	CodeInvalidValue ErrorCode = "invalid_value"
	// CodeInvalidPattern: a glob or regular expression that does not parse or can never match.
	CodeInvalidPattern ErrorCode = "invalid_pattern"
	// CodeInvalidTodos: a todo list that breaks the plan's rules; nothing was changed.
	CodeInvalidTodos ErrorCode = "invalid_todos"
	// CodeBadPatch: a patch that does not parse, or names no file.
	CodeBadPatch ErrorCode = "bad_patch"
	// CodeUnencodable: create_file's content, or an edit's new text, has characters the encoding
	// cannot hold (or the file's encoding cannot be told); the next step names what can be
	// written.
	CodeUnencodable ErrorCode = "unencodable"
	// CodeRefused: SQL that would write, or is not one read statement; database_operations
	// only reads.
	CodeRefused ErrorCode = "refused"
	// CodeSQLError: the database rejected the statement (syntax, an unknown column, the wrong
	// parameters); the message is the server's.
	CodeSQLError ErrorCode = "sql_error"
)

// Path and guard: the path the model gave, or the working-directory guard's decision about it.
// The guard's own codes (authz.Code*) pass through GuardError unchanged and are declared here too.
const (
	// CodeOutsideWorkdir: a write or execute outside the working directory; a grant fixes it.
	CodeOutsideWorkdir ErrorCode = "outside_workdir"
	// CodeNeedsGrant: a read outside the working directory while outside reads need a grant.
	CodeNeedsGrant ErrorCode = "needs_grant"
	// CodeProtectedPath: toolhost's own files or a repository's .git/config or hooks; only a
	// grant naming them fixes it.
	CodeProtectedPath ErrorCode = "protected_path"
	// CodeSecretPath: a credential store on the deny list; only a grant naming it fixes it.
	CodeSecretPath ErrorCode = "secret_path"
	// CodeHardLink: a write to a file with several hard links, or a read of one whose links are
	// not all inside the working directory; a grant naming it fixes it.
	CodeHardLink ErrorCode = "hard_link"
	// CodeIsWorkdir: a delete or rename of the working directory itself.
	CodeIsWorkdir ErrorCode = "is_workdir"
	// CodeInvalidRequest: the guard was asked something malformed (unknown class); a bug in the
	// tool, reported as the guard words it.
	CodeInvalidRequest ErrorCode = "invalid_request"
	// CodeInvalidPath: a path that cannot name a file (NUL byte, too long) or leaves the tree.
	CodeInvalidPath ErrorCode = "invalid_path"
	// CodeNotFound: the path, id or name names nothing; the next step says how to find it.
	CodeNotFound ErrorCode = "not_found"
	// CodeExists: the target already exists and the operation would not replace it.
	CodeExists ErrorCode = "exists"
	// CodeIsDirectory: a directory where the operation needs a file.
	CodeIsDirectory ErrorCode = "is_directory"
	// CodeNotDirectory: a file (or a file among the parents) where a directory is needed.
	CodeNotDirectory ErrorCode = "not_directory"
	// CodeNotRegular: a FIFO, device or socket, which is never read or written.
	CodeNotRegular ErrorCode = "not_regular"
	// CodeSymlinkLoop: too many symbolic links on the way.
	CodeSymlinkLoop ErrorCode = "symlink_loop"
	// CodePermissionDenied: the operating system refused access.
	CodePermissionDenied ErrorCode = "permission_denied"
	// CodeMultipleRoots: one all-or-nothing write over files under different roots.
	CodeMultipleRoots ErrorCode = "multiple_roots"
)

// Network: the network guard's decision about a host, or what the web and the browser answered.
// The guard's codes (authz.CodeNetwork*) and the engines' (web.Code*, browser.Code*) pass
// through unchanged and are declared here too.
const (
	// CodeNetworkRefused: a loopback, private, link-local, metadata... address; [web] allow or
	// the user's grant for the host (web_operations:network) opens it.
	CodeNetworkRefused ErrorCode = "network_refused"
	// CodeNetworkDenied: [web] deny, or one of toolhost's own listeners; nothing opens it.
	CodeNetworkDenied ErrorCode = "network_denied"
	// CodeInvalidURL: a URL that does not parse, has no host, or carries credentials.
	CodeInvalidURL ErrorCode = "invalid_url"
	// CodeUnsupportedScheme: a scheme other than http and https (file:, gopher:, ...).
	CodeUnsupportedScheme ErrorCode = "unsupported_scheme"
	// CodeTooManyRedirects: more redirects than the limit (at most 10).
	CodeTooManyRedirects ErrorCode = "too_many_redirects"
	// CodeTLSError: the server's certificate is not trusted, or the handshake failed.
	CodeTLSError ErrorCode = "tls_error"
	// CodeDNSError: the host name does not resolve.
	CodeDNSError ErrorCode = "dns_error"
	// CodeConnectError: the connection was refused, reset or unreachable.
	CodeConnectError ErrorCode = "connect_error"
	// CodeUnsupportedContent: a PDF or binary body where a page was wanted.
	CodeUnsupportedContent ErrorCode = "unsupported_content"
	// CodeHTTPError: a download answered with an error status; nothing was saved.
	CodeHTTPError ErrorCode = "http_error"
	// CodeSearchFailed: the configured search backend failed.
	CodeSearchFailed ErrorCode = "search_failed"
	// CodeLoadTimeout: the page did not finish loading in time; what loaded stays in the browser.
	CodeLoadTimeout ErrorCode = "load_timeout"
	// CodeNavigationFailed: the browser could not load the page.
	CodeNavigationFailed ErrorCode = "navigation_failed"
	// CodeNotOpen: the conversation has no browser open; browser_open starts one.
	CodeNotOpen ErrorCode = "not_open"
	// CodeTooManyBrowsers: [web] max_browsers browsers are open.
	CodeTooManyBrowsers ErrorCode = "too_many_browsers"
	// CodeBrowserError: the browser failed (crashed, protocol error); browser_close and
	// browser_open start over.
	CodeBrowserError ErrorCode = "browser_error"
	// CodeNoLanguageServer: the operation needs a language server (rename_symbol) and none is
	// installed or configured for the file's language; the text names the one to install.
	CodeNoLanguageServer ErrorCode = "no_language_server"
	// CodeLanguageServerFailed: the language server exited, hung past its timeout or is still
	// loading; it is started again on the next call.
	CodeLanguageServerFailed ErrorCode = "language_server_failed"
)

// State and sessions: what toolhost holds (files the model read, sessions, requests, the
// profile) does not allow the call as it stands.
const (
	// CodeStale: the file changed (or was deleted) since the model last read it.
	CodeStale ErrorCode = "stale"
	// CodeConflict: the file changed while the edit was being written, or two hunks of a patch
	// change the same line; nothing was written.
	CodeConflict ErrorCode = "conflict"
	// CodeAmbiguous: the text to replace occurs more than once.
	CodeAmbiguous ErrorCode = "ambiguous"
	// CodeCountMismatch: the number of replacements differs from expected_replacements.
	CodeCountMismatch ErrorCode = "count_mismatch"
	// CodeNoChange: the edit would leave the file (or the update the memory) as it is.
	CodeNoChange ErrorCode = "no_change"
	// CodePastEnd: the requested start is past the end of the file.
	CodePastEnd ErrorCode = "past_end"
	// CodeNotText: binary content where text is needed.
	CodeNotText ErrorCode = "not_text"
	// CodeNoSession: the conversation has no terminal session or command with that id.
	CodeNoSession ErrorCode = "no_session"
	// CodeSessionEnded: the session has exited; its history stays readable.
	CodeSessionEnded ErrorCode = "session_ended"
	// CodeInvalidState: an answer that belongs to no request of this server and conversation.
	CodeInvalidState ErrorCode = "invalid_state"
	// CodeNotPending: the authorization request was already decided or has expired.
	CodeNotPending ErrorCode = "not_pending"
	// CodeEmbedderChanged: the memories were embedded by another embedder; the user re-embeds.
	CodeEmbedderChanged ErrorCode = "embedder_changed"
	// CodeDisabled: the tool or operation is disabled in the active profile.
	CodeDisabled ErrorCode = "disabled"
	// CodeUnsupported: the client lacks a capability the operation needs (elicitation).
	CodeUnsupported ErrorCode = "unsupported"
	// CodeRootRefused: the client's root, which would be the session's working directory, is
	// not a directory or not allowed by the user; the user allows it or sets --workdir.
	CodeRootRefused ErrorCode = "root_refused"
)

// Terminal guard: the user's command rules or the terminal sandbox stand in the way.
const (
	// CodeCommandDenied: a command rule denies the line; the text names the rule.
	CodeCommandDenied ErrorCode = "command_denied"
	// CodeNeedsApproval: a command rule asks about the line; an authorization request with the
	// exact line is pending, and the same line runs once the user approves it.
	CodeNeedsApproval ErrorCode = "needs_approval"
	// CodeCommandUnknown: a line edited with keys cannot be checked; send it as text.
	CodeCommandUnknown ErrorCode = "command_unknown"
	// CodeSandboxUnavailable: the configured sandbox cannot be enforced here and the user has
	// not accepted running commands unconfined.
	CodeSandboxUnavailable ErrorCode = "sandbox_unavailable"
)

// Limits: the call is fine but exceeds a bound; a smaller request, or waiting, fixes it.
const (
	// CodeTooLarge: the input or the file is over a size limit.
	CodeTooLarge ErrorCode = "too_large"
	// CodeLimit: too many sessions are open.
	CodeLimit ErrorCode = "limit"
	// CodeTooManyRequests: too many authorization requests are already waiting for the user.
	CodeTooManyRequests ErrorCode = "too_many_requests"
	// CodeTimeout: the call did not finish within its deadline.
	CodeTimeout ErrorCode = "timeout"
	// CodeCancelled: the client or an operator cancelled the call.
	CodeCancelled ErrorCode = "cancelled"
	// CodeRateLimited: the caller's rate limit is reached; the text says how long to wait.
	CodeRateLimited ErrorCode = "rate_limited"
	// CodeForbidden: the caller's tier may not run the operation; the text names the tier
	// needed. Only the user can give a token another tier.
	CodeForbidden ErrorCode = "forbidden"
)

// Repositories and builds: the state of a git repository or a project refuses the call as it
// stands; the next step says what changes it.
const (
	// CodeNotARepository: the directory is not inside a git work tree.
	CodeNotARepository ErrorCode = "not_a_repository"
	// CodeNoCommits: the repository has no commits yet, so there is no history to read.
	CodeNoCommits ErrorCode = "no_commits"
	// CodeOutsideRepository: a path leaves the repository's work tree or points into .git.
	CodeOutsideRepository ErrorCode = "outside_repository"
	// CodeLocalChanges: a branch switch would overwrite uncommitted work; nothing was changed.
	CodeLocalChanges ErrorCode = "local_changes"
	// CodeUnresolvedConflicts: a merge left conflicts that must be resolved and staged first.
	CodeUnresolvedConflicts ErrorCode = "unresolved_conflicts"
	// CodeNothingToCommit: a commit found nothing staged.
	CodeNothingToCommit ErrorCode = "nothing_to_commit"
	// CodeAlreadyPushed: an amend of a commit that is already on a remote-tracking branch.
	CodeAlreadyPushed ErrorCode = "already_pushed"
	// CodeNoIdentity: git has no author name and email; the user configures them.
	CodeNoIdentity ErrorCode = "no_identity"
	// CodeHookFailed: a git hook refused the commit; its output says why.
	CodeHookFailed ErrorCode = "hook_failed"
	// CodeGitFailed: git refused for another reason; its own message follows.
	CodeGitFailed ErrorCode = "git_failed"
	// CodeNoTestRunner: the project has no test runner toolhost knows (or not the one named).
	CodeNoTestRunner ErrorCode = "no_test_runner"
	// CodeNoChecker: the project has no compiler, type checker or linter toolhost knows.
	CodeNoChecker ErrorCode = "no_checker"
	// CodeNotInstalled: the project declares a tool that is not installed.
	CodeNotInstalled ErrorCode = "not_installed"
)

// Internal: nothing the model did; the log has the cause.
const (
	// CodeInternal: a failure inside toolhost (a bug, an I/O error); the text names the execution
	// id to find in the log.
	CodeInternal ErrorCode = "internal"
	// CodeUnavailable: the service is not available here or now (shutting down, not configured).
	CodeUnavailable ErrorCode = "unavailable"
	// CodeConnectionFailed: a configured database could not be reached, or refused the login.
	CodeConnectionFailed ErrorCode = "connection_failed"
	// CodeStateUnavailable: toolhost's state directory is full, read-only or holds a damaged
	// file; the text names the directory and the cause. Operations that keep no state still work.
	CodeStateUnavailable ErrorCode = "state_unavailable"
)

// Execution history: codes only the execution records carry (toolhost executions, the console);
// the model reads the call's own result.
const (
	// CodeExitStatus: a command exited with a non-zero status; the record's exit code says which.
	CodeExitStatus ErrorCode = "exit_status"
)

// ToolError is a failure the model can fix. Its text names the code, the parameter concerned
// and the next step; the cause, when there is one, goes to the log only, so that what the model
// reads and what the operator needs travel together but apart.
type ToolError struct {
	Code    ErrorCode
	Param   string
	Message string
	// Next is the next step: valid values, the nearest match, the call to make.
	Next string
	// Approval is the authorization request the call waits on. The text then first says
	// where the user answers it (Env.Approvals: the console, else `toolhost approve`), and
	// Next follows as what to do after.
	Approval string
	place    *ApprovalPlace // set by dispatch from the call's Env
	// Cause is the error the tool mapped to this one (an engine's, the guard's). Dispatch logs
	// it; Error never shows it.
	Cause error
}

// Error is the text the model reads.
func (e *ToolError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "error %s: %s", e.Code, e.Message)
	if e.Param != "" {
		fmt.Fprintf(&b, "\nparameter: %s", e.Param)
	}
	switch {
	case e.Approval != "" && e.Next != "":
		fmt.Fprintf(&b, "\nnext: %s; then %s", e.place.ask(e.Approval), e.Next)
	case e.Approval != "":
		fmt.Fprintf(&b, "\nnext: %s", e.place.ask(e.Approval))
	case e.Next != "":
		fmt.Fprintf(&b, "\nnext: %s", e.Next)
	}
	return b.String()
}

// Unwrap returns the cause, so errors.Is and errors.As see through a ToolError.
func (e *ToolError) Unwrap() error { return e.Cause }

// stateError maps a failure of toolhost's own state (the store, the spill directory) to
// CodeStateUnavailable, naming stateDir and the cause the user can act on; nil when err is
// something else. The model cannot fix these, but it can tell the user exactly what to do, and it
// learns that file and terminal operations still work.
func stateError(stateDir, tool, op string, err error) *ToolError {
	cause, next := diskCause(err)
	switch {
	case cause != "":
	case errors.Is(err, store.ErrDamaged):
		cause, next = "holds a damaged toolhost.db", "tell the user to run `toolhost doctor --repair`, which keeps a copy and rebuilds what can be read"
	case errors.Is(err, store.ErrUnavailable):
		cause, next = "could not be opened", "tell the user to run `toolhost doctor`, which names the cause and the fix"
	default:
		return nil
	}
	return &ToolError{
		Code:    CodeStateUnavailable,
		Message: fmt.Sprintf("toolhost's state directory %s %s, so %s.%s could not save or read its state; nothing was changed", stateDir, cause, tool, op),
		Next:    next + "; file and terminal operations still work",
		Cause:   err,
	}
}

// diskCause says what keeps toolhost from writing its state directory, for the failures the user
// can fix (as "is full (ENOSPC)", to follow the directory's name), with the next step; "" for
// any other error.
func diskCause(err error) (cause, next string) {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "is full (ENOSPC)", "tell the user to free space on that disk or to start toolhost with --state-dir on another one"
	case errors.Is(err, syscall.EROFS):
		return "is on a read-only file system (EROFS)", "tell the user to start toolhost with a writable --state-dir"
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return "is not writable (EACCES)", "tell the user to fix the directory's permissions or to start toolhost with another --state-dir"
	}
	return "", ""
}

// Errorf builds a ToolError without a parameter or next step.
func Errorf(code ErrorCode, format string, args ...any) *ToolError {
	return &ToolError{Code: code, Message: fmt.Sprintf(format, args...)}
}
