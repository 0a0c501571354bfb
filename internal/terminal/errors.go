package terminal

import "errors"

// Sentinel errors. Their texts are written for a model: each says what went wrong and what
// to do next, and callers wrap them with the specifics (ids, limits) using %w.
var (
	// ErrNoSession means the id names no session or command job in this conversation.
	ErrNoSession = errors.New("no such terminal session; call list_sessions to see the ids of this conversation")
	// ErrLimit means a configured maximum (sessions per conversation, sessions in total,
	// running commands) is reached.
	ErrLimit = errors.New("terminal limit reached")
	// ErrInvalid means an argument is out of range or malformed.
	ErrInvalid = errors.New("invalid terminal argument")
	// ErrEnded means the session exists only as a record of a finished session (its shell
	// exited or the server restarted); its history is still readable, input is not accepted.
	ErrEnded = errors.New("terminal session has ended; create_session starts a new one")
	// ErrBadCwd means the starting directory does not exist or is not a directory.
	ErrBadCwd = errors.New("working directory does not exist or is not a directory")
	// ErrShutdown means the manager is shutting down and accepts no new work.
	ErrShutdown = errors.New("terminal manager is shutting down")
)
