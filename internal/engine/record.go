package engine

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"toolhost/authz"
)

// Status is where an execution stands.
type Status string

const (
	// StatusRunning: the call (or the work it started) has not ended yet.
	StatusRunning Status = "running"
	// StatusSuccess: the call returned a normal result.
	StatusSuccess Status = "success"
	// StatusFailed: the call returned an error result, or its process died while it ran.
	StatusFailed Status = "failed"
	// StatusCancelled: the client or an operator cancelled it.
	StatusCancelled Status = "cancelled"
	// StatusTimeout: it did not finish within its deadline.
	StatusTimeout Status = "timeout"
	// StatusDenied: the guard, a command rule or the principal's tier refused it.
	StatusDenied Status = "denied"
	// StatusRateLimited: a rate limit refused it.
	StatusRateLimited Status = "rate_limited"
)

// Statuses lists every status, running first.
var Statuses = []Status{StatusRunning, StatusSuccess, StatusFailed, StatusCancelled, StatusTimeout, StatusDenied, StatusRateLimited}

// ParseStatus accepts a status name.
func ParseStatus(s string) (Status, error) {
	if !slices.Contains(Statuses, Status(s)) {
		return "", fmt.Errorf("unknown status %q: want one of %s", s, joinStatuses())
	}
	return Status(s), nil
}

func joinStatuses() string {
	names := make([]string, len(Statuses))
	for i, s := range Statuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// Record is one execution as the history keeps it.
type Record struct {
	ID        string         `json:"id"`
	Tool      string         `json:"tool"`
	Operation string         `json:"operation,omitempty"`
	Category  authz.Category `json:"category,omitempty"`
	Risk      string         `json:"risk,omitempty"`
	// Principal is the token's name, or "stdio".
	Principal    string `json:"principal"`
	Conversation string `json:"conversation,omitempty"`
	// Client is the MCP client's name from initialize, when it sent one.
	Client string `json:"client,omitempty"`
	// Args are the call's arguments with secrets masked and long values cut.
	Args       json.RawMessage `json:"args,omitempty"`
	Status     Status          `json:"status"`
	Start      time.Time       `json:"start"`
	DurationMS float64         `json:"duration_ms"`
	// ResultBytes is the size of the result text the client received.
	ResultBytes int    `json:"result_bytes"`
	ErrorCode   string `json:"error_code,omitempty"`
	Error       string `json:"error,omitempty"`
	// Command and ExitCode are set for terminal work.
	Command  string `json:"command,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	// Owner is the owner ID (internal/owner) of the process that ran it.
	Owner string `json:"owner,omitempty"`
}

// Finished reports whether the record has ended.
func (r *Record) Finished() bool { return r.Status != StatusRunning && r.Status != "" }

// Sentinel errors of queries and cancellation.
var (
	// ErrNotFound: no execution has the id, or the viewer may not see it.
	ErrNotFound = errors.New("no such execution")
	// ErrFinished: the execution to cancel has already ended.
	ErrFinished = errors.New("execution already finished")
	// ErrCancelled is the cause of a context cancelled through Cancel.
	ErrCancelled = errors.New("execution cancelled")
	// ErrClosed: the engine is closed.
	ErrClosed = errors.New("execution engine closed")
)

// idTime is the fixed-width time layout inside ids, so ids sort by start time.
const idTime = "20060102T150405.000000"

// NewID returns a fresh execution id: "exec_", the UTC start time to the microsecond, and
// random hex. Ids sort by start time, which the history uses as its key order.
func NewID(t time.Time) string {
	var b [5]byte
	rand.Read(b[:])
	return "exec_" + t.UTC().Format(idTime) + "_" + hex.EncodeToString(b[:])
}

// ValidID reports whether s has the shape of an execution id, so a malformed one is refused
// before any lookup (and never reaches a file name).
func ValidID(s string) bool {
	rest, ok := strings.CutPrefix(s, "exec_")
	if !ok || len(rest) != len(idTime)+1+10 {
		return false
	}
	if _, err := time.Parse(idTime, rest[:len(idTime)]); err != nil {
		return false
	}
	if rest[len(idTime)] != '_' {
		return false
	}
	_, err := hex.DecodeString(rest[len(idTime)+1:])
	return err == nil
}

// idAt is the smallest id a record started at t can have, for seeking by time.
func idAt(t time.Time) string { return "exec_" + t.UTC().Format(idTime) }
