package consolidated

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"toolhost/internal/lazyregexp"

	"toolhost/authz"
	"toolhost/authz/cmdrules"
	"toolhost/internal/sandbox"
)

// TerminalSandbox tells terminal_operations what the terminal sandbox lets commands read and
// write, to explain a "Permission denied" it caused.
type TerminalSandbox interface {
	// CanWrite says whether a command of the conversation started now may write path, and
	// whether path is one of toolhost's own files (which no grant opens).
	CanWrite(ctx context.Context, conv, path string) (ok, protected bool)
	// CanRead says whether such a command may read path (credential stores, toolhost's state
	// and other projects' dotenv files are hidden), and whether it is toolhost's own.
	CanRead(ctx context.Context, conv, path string) (ok, own bool)
}

// deniedFile finds the file of the first "Permission denied" in command output, as the usual
// programs print it: `touch: cannot touch 'x': Permission denied`, `sh: 1: cannot create x:
// Permission denied`, `bash: x: Permission denied`, `open x: permission denied`, and
// `PermissionError: [Errno 13] Permission denied: 'x'`.
func deniedFile(output string) string {
	for _, line := range strings.Split(output, "\n") {
		i := strings.Index(strings.ToLower(line), "permission denied")
		if i < 0 {
			i = strings.Index(line, "Read-only file system")
		}
		if i < 0 {
			continue
		}
		if m := quoted.FindStringSubmatch(line[i:]); m != nil {
			return m[1]
		}
		before := strings.TrimRight(strings.TrimSpace(line[:i]), ":")
		if m := lastQuoted.FindStringSubmatch(before); m != nil {
			return m[1]
		}
		if f := strings.Fields(before); len(f) > 0 {
			return strings.Trim(f[len(f)-1], ":")
		}
	}
	return ""
}

var (
	quoted     = lazyregexp.New(`^\S+(?: \S+)?: [‘'"]([^‘’'"]+)[’'"]`)
	lastQuoted = lazyregexp.New(`[‘'"]([^‘’'"]+)[’'"]\s*$`)
)

// sandboxNote is the one line added to a command's output when the sandbox may have caused
// a "Permission denied" in it: it names the sandbox and the request that would allow the read
// or write, or says that toolhost's own files are never readable or writable.
func (t *terminalTool) sandboxNote(ctx context.Context, conv, mode, cwd, output string) string {
	if t.sandbox == nil || mode == "" || mode == string(sandbox.ModeOff) {
		return ""
	}
	if !strings.Contains(output, "ermission denied") && !strings.Contains(output, "Read-only file system") {
		return ""
	}
	path := deniedFile(output)
	what := "writes only in the working directory, temp dirs, build caches and paths granted to terminals"
	if mode == string(sandbox.ModeReadOnly) {
		what = "writes only in temp dirs"
	}
	if path == "" {
		return fmt.Sprintf("[sandbox %s: %s; if it refused a write, ask for the directory: %s]", mode, what, writeRequest("<directory>"))
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	if strings.HasPrefix(path, "/proc/") {
		return fmt.Sprintf("[sandbox %s: other processes' memory and environment (%s) are unreadable from a terminal]", mode, path)
	}
	if ok, own := t.sandbox.CanRead(ctx, conv, path); !ok {
		if own {
			return fmt.Sprintf("[sandbox %s: %s is toolhost's own (state, config or a token) and is never readable from a terminal]", mode, path)
		}
		return fmt.Sprintf("[sandbox %s: %s holds credentials (or another project's .env) and is unreadable to commands. If the user agrees, commands and sessions started after the approval may read it: %s]",
			mode, path, readRequest(path))
	}
	ok, protected := t.sandbox.CanWrite(ctx, conv, path)
	switch {
	case protected:
		return fmt.Sprintf("[sandbox %s: %s is toolhost's own (state, config, token or prompts) and is never writable from a terminal]", mode, path)
	case ok:
		return "" // the sandbox allows it: the refusal is the file's own permissions
	case mode == string(sandbox.ModeReadOnly):
		return fmt.Sprintf("[sandbox read-only refused %s: %s; only the user can change the mode ([terminal] sandbox)]", path, what)
	}
	dir := path
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return fmt.Sprintf("[sandbox %s refused %s: %s. To allow it for commands and sessions started after the user approves: %s]", mode, path, what, writeRequest(dir))
}

// readRequest renders the request_authorization call for terminal reads of a hidden path.
func readRequest(path string) string {
	b, _ := json.Marshal(map[string]any{"operation": "request_authorization", "path": path,
		"access": terminalToolName + ":read", "recursive": true, "reason": "<why>"})
	return "the user_collaboration tool with " + string(b)
}

// writeRequest renders the request_authorization call for terminal writes under dir.
func writeRequest(dir string) string {
	b, _ := json.Marshal(map[string]any{"operation": "request_authorization", "path": dir,
		"access": terminalToolName + ":write", "recursive": true, "reason": "<why>"})
	return "the user_collaboration tool with " + string(b)
}

// refusalError turns a command rule's refusal into a result the model can act on.
func refusalError(r *cmdrules.Refusal) *ToolError {
	v := r.Verdict
	what := v.Command
	if what == "" {
		what = truncateRunes(r.Line, 200)
	}
	switch {
	case v.Action == cmdrules.Deny:
		msg := fmt.Sprintf("%s is denied by the user's command rules", what)
		if v.Rule != "" {
			msg = fmt.Sprintf("%s is denied by the command rule %q", what, v.Rule)
		} else if v.Reason != "" {
			msg += " (" + v.Reason + ")"
		}
		return &ToolError{Code: CodeCommandDenied, Param: "command", Message: msg,
			Next: "do something else, or ask the user in your reply; do not try to get around the rule (wrapping the command changes nothing)"}
	case r.RequestID == "":
		return &ToolError{Code: CodeCommandUnknown, Param: "text", Message: fmt.Sprintf("the line cannot be checked: %s", v.Reason),
			Next: "clear it (keys [\"ctrl-u\"] or [\"ctrl-c\"]) and send the whole line as text"}
	}
	return &ToolError{Code: CodeNeedsApproval, Param: "command",
		Message:  fmt.Sprintf("%s needs the user's approval (%s); authorization request %s is pending", what, v.Reason, r.RequestID),
		Approval: r.RequestID,
		Next:     fmt.Sprintf("call the user_collaboration tool with {\"operation\":\"check_request\",\"request_id\":%q} and send exactly the same command again", r.RequestID)}
}

// guardTerminalError maps the refusals of the terminal's guard (rules, sandbox), or returns nil.
func guardTerminalError(err error) error {
	var r *cmdrules.Refusal
	if errors.As(err, &r) {
		return refusalError(r)
	}
	if te := sandboxUnavailable(err); te != nil {
		return te
	}
	return nil
}

// sandboxUnavailable maps a refusal to start anything because the configured sandbox cannot
// be enforced (terminal commands, and git, which runs under the same policy), or returns nil.
func sandboxUnavailable(err error) *ToolError {
	if !errors.Is(err, sandbox.ErrUnavailable) {
		return nil
	}
	msg := err.Error()
	if i := strings.Index(msg, sandbox.ErrUnavailable.Error()); i >= 0 {
		msg = msg[i:]
	}
	return &ToolError{Code: CodeSandboxUnavailable, Message: msg, Cause: err,
		Next: "the user must allow unconfined commands ([terminal] sandbox = \"off\" or allow_unsandboxed = true); terminal commands and git operations stay unavailable until then"}
}

// noted appends the sandbox note for output to a result's text.
func (t *terminalTool) noted(ctx context.Context, c *Call, res *Result, mode, cwd, output string) *Result {
	if note := t.sandboxNote(ctx, c.Conversation, mode, cwd, output); note != "" {
		res.Text += "\n" + note
	}
	if note := unconfinedNote(t.sandbox, mode); note != "" {
		res.Text += "\n" + note
	}
	return res
}

// unconfinedNote says, on every result of a command that ran unconfined because the platform
// has no sandbox (Windows, a kernel without Landlock) and the user accepted that, that it ran
// with the user's full authority: the model must not take the guard's limits for granted.
// Nothing when the user chose sandbox = "off" knowingly or the command was confined.
func unconfinedNote(ts TerminalSandbox, mode string) string {
	s, ok := ts.(interface{ Status() sandbox.Status })
	if !ok || mode != "" && mode != string(sandbox.ModeOff) {
		return ""
	}
	st := s.Status()
	if st.Mode == sandbox.ModeOff || st.Effective != sandbox.ModeOff {
		return ""
	}
	return fmt.Sprintf("[unsandboxed: %s; this ran with the user's full authority (allow_unsandboxed = true): files outside the working directory and credentials were reachable]", st.Problem)
}

func orOff(mode string) string {
	if mode == "" {
		return string(sandbox.ModeOff)
	}
	return mode
}

// terminalWriteGrant reports whether a grant's access lets terminal commands write (which
// takes effect for commands and sessions started after it).
func terminalWriteGrant(access string) bool {
	a, err := authz.ParseAccess(access)
	if err != nil {
		return false
	}
	return (a.Tool == terminalToolName || a.Tool == "*") && a.Class == authz.ClassWrite ||
		a.Tool == terminalToolName && a.Operation != ""
}
