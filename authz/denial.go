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

// requestAuthorizationCall renders the exact user_collaboration call that asks for a grant.
func requestAuthorizationCall(path, access string) string {
	return authorizationCall(path, access, `"recursive":true with a directory path`)
}

// authorizationCall renders the request_authorization call for a path or host, with the
// recursive option explained as it applies to it.
func authorizationCall(target, access, recursive string) string {
	args := struct {
		Operation string `json:"operation"`
		Path      string `json:"path"`
		Access    string `json:"access"`
		Reason    string `json:"reason"`
	}{"request_authorization", target, access, "<why you need it>"}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(args) // cannot fail: four strings
	return "the user_collaboration tool with " + strings.TrimSuffix(b.String(), "\n") +
		` (optional: ` + recursive + `, "once":true, "minutes":N; then poll with {"operation":"check_request","request_id":"<id>"})`
}
