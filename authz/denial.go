package authz

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Model-fixable refusals of Check and Open are *Denial, never these.
var (
	// ErrInvalidAccess: an access string is not tool.operation, tool:class or *:class.
	ErrInvalidAccess = errors.New("invalid access")
	// ErrInvalidGrant: a grant's fields are unusable (relative path, bad conversation, ...).
	ErrInvalidGrant = errors.New("invalid grant")
	// ErrNotFound: no grant or approval request has that id.
	ErrNotFound = errors.New("not found")
	// ErrNotPending: the approval request was already decided or has expired.
	ErrNotPending = errors.New("approval request is not pending")
	// ErrTooManyPending: the conversation already has MaxPendingApprovals pending requests; the
	// model should wait for the user (check_request) instead of asking again.
	ErrTooManyPending = errors.New("too many pending approval requests")
	// ErrNoStore: grants and approvals need a store and the guard was built without one.
	ErrNoStore = errors.New("no state store configured")
	// ErrClosed: the guard was closed.
	ErrClosed = errors.New("guard closed")
)

// Denial codes. They are stable: the MCP layer and clients match on them.
const (
	CodeOutsideWorkdir = "outside_workdir" // write/execute outside the working directory; a grant fixes it
	CodeNeedsGrant     = "needs_grant"     // read outside while outside reads need a grant
	CodeProtectedPath  = "protected_path"  // toolhost's own files, .git/config, .git/hooks/**; only a grant naming them fixes it
	CodeSecretPath     = "secret_path"     // credential store on the deny list; only a grant naming it fixes it
	CodeHardLink       = "hard_link"       // write to a file with several hard links, or read of one linked outside; a grant naming it fixes it
	CodeChanged        = "conflict"        // the file opened is not the one decided on (swapped in between); retry
	CodeNotRegular     = "not_regular"     // FIFO, device or socket
	CodeInvalidPath    = "invalid_path"    // NUL byte, too long, empty symlink, ...
	CodeSymlinkLoop    = "symlink_loop"    // too many symlink hops
	CodeIsWorkdir      = "is_workdir"      // delete or rename of the working directory itself
	CodeInvalidRequest = "invalid_request" // unknown class or missing tool/operation
	CodeNetworkRefused = "network_refused" // loopback, private, metadata... address; [web] allow or a grant fixes it
	CodeNetworkDenied  = "network_denied"  // [web] deny or one of toolhost's own listeners; no grant fixes it
)

// Denial is a refusal the model can act on: it says what was refused, why, and the exact call that
// asks the user for a grant (when a grant can fix it). It is returned as the error of Check and Open.
type Denial struct {
	Code      string
	Canonical string // the canonical path the decision was about ("" when the input was unusable)
	Access    string // what to authorize, e.g. "file_operations.create_file"
	Message   string // short, never echoes a huge input
	NextStep  string // the exact user_collaboration call, or advice when no grant can fix it
}

func (d *Denial) Error() string {
	return fmt.Sprintf("%s: %s", d.Code, d.Message)
}

// Grantable reports whether a grant can fix the denial, i.e. whether NextStep is a
// request_authorization call.
func (d *Denial) Grantable() bool {
	switch d.Code {
	case CodeOutsideWorkdir, CodeNeedsGrant, CodeProtectedPath, CodeSecretPath, CodeHardLink, CodeNetworkRefused:
		return true
	}
	return false
}

// AsDenial unwraps a *Denial from err.
func AsDenial(err error) (*Denial, bool) {
	var d *Denial
	ok := errors.As(err, &d)
	return d, ok
}

// AskCall names the call that asks the user for a grant, which the NextStep of a refusal a
// grant can fix spells out: the tool, its operation that files an authorization request and
// the one that polls it. authz knows no tool or operation by name: the MCP layer names them
// (Config.Ask). Without them, NextStep says in words what to ask the user for.
type AskCall struct {
	Tool, Request, Poll string
}

// requestAuthorizationCall renders the exact call that asks for a grant on a path.
func (g *Guard) requestAuthorizationCall(path, access string) string {
	return g.ask.render(path, access, `"recursive":true with a directory path`)
}

// render renders the call that asks for a grant of access on target (a path or a host), with
// the recursive option explained as it applies to it.
func (c AskCall) render(target, access, recursive string) string {
	if c.Tool == "" || c.Request == "" || c.Poll == "" {
		return fmt.Sprintf("ask the user for a grant of %s on %s", access, target)
	}
	args := struct {
		Operation string `json:"operation"`
		Path      string `json:"path"`
		Access    string `json:"access"`
		Reason    string `json:"reason"`
	}{c.Request, target, access, "<why you need it>"}
	poll := struct {
		Operation string `json:"operation"`
		RequestID string `json:"request_id"`
	}{c.Poll, "<id>"}
	return "the " + c.Tool + " tool with " + compactJSON(args) +
		` (optional: ` + recursive + `, "once":true, "minutes":N; then poll with ` + compactJSON(poll) + `)`
}

// compactJSON encodes v on one line without escaping <, > and &.
func compactJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // cannot fail: structs of strings
	return strings.TrimSuffix(b.String(), "\n")
}
