package authz

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The operator credential.
//
// The operator (the human at the CLI or the console) answers authorization requests, revokes
// grants and reads the operator API. Over HTTP they prove it with the operator token, which is
// not the MCP client token: an MCP client (and so a model, and anything it learns the client
// token from) can call tools but cannot decide anything. The token lives in a file of its own in
// the state directory, mode 0600, created on first use; it is never put in the environment, and
// the terminal sandbox hides the whole state directory from commands. --no-auth (MCP without a
// token) never opens the operator endpoints. The token proves who holds it; the peer-process
// check (CheckPeer) proves, in addition, that the request does not come from a process
// toolhost started.

// OperatorTokenFile is the name of the operator token's file in the state directory.
const OperatorTokenFile = "operator-token"

// OperatorPrincipal is the principal of a request authenticated with the operator token.
var OperatorPrincipal = Principal{Name: "operator", Tier: TierAdmin}

// ErrNoOperatorToken: the operator token file is missing or unreadable and was not created.
var ErrNoOperatorToken = errors.New("no operator token")

// operatorTokenPrefix marks operator tokens, so one pasted where a client token belongs (or
// the other way round) is recognisable in an error.
const operatorTokenPrefix = "thop_"

// OperatorTokenPath is where the operator token of stateDir is kept.
func OperatorTokenPath(stateDir string) string { return filepath.Join(stateDir, OperatorTokenFile) }

// OperatorToken returns the operator token kept in stateDir, creating it on first use (mode
// 0600; written to a temporary file and linked into place, so two processes starting at once
// agree on one token and none ever reads a half-written file). path is the file it is in.
func OperatorToken(stateDir string) (token, path string, err error) {
	path = OperatorTokenPath(stateDir)
	if t, err := ReadOperatorToken(stateDir); err == nil {
		return t, path, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", path, err
	}
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", path, fmt.Errorf("operator token: %w", err)
	}
	token = operatorTokenPrefix + hex.EncodeToString(b[:])
	tmp, err := os.CreateTemp(stateDir, ".operator-token-*")
	if err != nil {
		return "", path, fmt.Errorf("operator token: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(token + "\n"); err != nil {
		tmp.Close()
		return "", path, fmt.Errorf("operator token: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", path, fmt.Errorf("operator token: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", path, fmt.Errorf("operator token: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, os.ErrExist) {
			t, err := ReadOperatorToken(stateDir) // another process won the race
			return t, path, err
		}
		return "", path, fmt.Errorf("operator token: %w", err)
	}
	return token, path, nil
}

// ReadOperatorToken reads the operator token of stateDir without creating one. A file that is
// not private to the user (group or other bits set) is refused: whoever else can read it is
// the operator too.
func ReadOperatorToken(stateDir string) (string, error) {
	path := OperatorTokenPath(stateDir)
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("operator token: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("operator token: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%w: %s is readable by other users (mode %o); chmod 600 it", ErrNoOperatorToken, path, st.Mode().Perm())
	}
	b := make([]byte, 256)
	n, _ := f.Read(b)
	t := strings.TrimSpace(string(b[:n]))
	if len(t) < 16 {
		return "", fmt.Errorf("%w: %s is empty or too short", ErrNoOperatorToken, path)
	}
	return t, nil
}

// OperatorTokenMatches compares a presented bearer token with the operator token in constant
// time. An empty operator token matches nothing.
func OperatorTokenMatches(want, got string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

// An Origin says where an operator decision came from, for the grant and the audit log: the
// channel (cli, http, elicitation, config), the process, and the user, as the kernel reports
// them (never from the environment, which the caller controls).
type Origin struct {
	Channel string // "cli", "http", ...
	PID     int    // the deciding process (the peer process for HTTP); 0 = unknown
	Command string // its name (/proc/PID/comm)
	UID     int    // its real user id; -1 = unknown
	User    string // the user name of UID, when it has one
}

// String is the origin as grants record it in By, e.g.
// "http:alice (uid 1000, pid 4242 curl)".
func (o Origin) String() string {
	who := o.User
	if who == "" && o.UID >= 0 {
		who = fmt.Sprintf("uid %d", o.UID)
	}
	var parts []string
	if o.User != "" && o.UID >= 0 {
		parts = append(parts, fmt.Sprintf("uid %d", o.UID))
	}
	if o.PID > 0 {
		p := fmt.Sprintf("pid %d", o.PID)
		if o.Command != "" {
			p += " " + o.Command
		}
		parts = append(parts, p)
	}
	s := o.Channel
	if who != "" {
		s += ":" + who
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

type originKey struct{}

// WithOrigin returns ctx carrying the origin of an operator request.
func WithOrigin(ctx context.Context, o Origin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

// OriginFrom returns the origin WithOrigin stored, if any.
func OriginFrom(ctx context.Context) (Origin, bool) {
	o, ok := ctx.Value(originKey{}).(Origin)
	return o, ok
}
