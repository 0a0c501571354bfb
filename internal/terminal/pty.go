package terminal

import "time"

// ptyConn is toolhost's side of a session's terminal, whatever the platform makes it of: the
// master of a Unix PTY (platform_unix.go) or a Windows pseudo console (conpty_windows.go).
// startInPTY (one per platform) starts a session's shell on a new one.
type ptyConn interface {
	// Read returns what the programs on the terminal print; it ends with an error once the
	// terminal is gone or closed.
	Read(p []byte) (int, error)
	// Write types p; past the deadline set last it fails with os.ErrDeadlineExceeded.
	Write(p []byte) (int, error)
	SetWriteDeadline(t time.Time) error
	// Resize sets the window size in character cells.
	Resize(cols, rows int) error
	// LocalModes reads the terminal's local mode flags (lflagECHO, lflagICANON); false when
	// the platform cannot tell (a Windows console has no termios).
	LocalModes() (uint32, bool)
	// InputPending says whether typed input waits that no program has read yet; false when
	// unknown.
	InputPending() bool
	// Close ends the terminal; a pending Read returns.
	Close() error
}

// ptyStart is a shell started on a new terminal by startInPTY.
type ptyStart struct {
	conn ptyConn
	// tty names the terminal's device (Unix: /dev/pts/N), for finding the processes that
	// hold it; empty where there is none.
	tty string
	// job holds the shell and everything it starts, where the platform has such a thing
	// (Windows: a job object); nil elsewhere.
	job *jobObject
}
