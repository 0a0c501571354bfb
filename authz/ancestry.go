package authz

import "errors"

// Process ancestry: who may act as the operator.
//
// A decision (approve, deny, revoke) must come from the user, never from a process that
// toolhost started on a model's behalf: a terminal, a command, a browser or helper, or any of
// their descendants however they detach. A toolhost server therefore marks itself
// (MarkServer): it becomes a child subreaper, so descendants that detach (setsid, a double
// fork, nohup, disown) are re-parented to it instead of to init and stay its descendants; it
// makes itself non-dumpable, so same-user processes cannot read /proc/PID/environ or
// /proc/PID/mem (where a token passed in the environment would be); it names itself
// ServerComm, a name only the process itself can set, which survives env -i and is there
// whatever the binary is called; and it records its pid, start time and namespaces in the
// state directory.
//
// CheckOperator walks the caller's parent chain in /proc and refuses when an ancestor is a
// toolhost server; CheckPeer does the same for the process on the other end of a loopback
// TCP connection (socket inode in /proc/net/tcp{,6}, owner found in /proc/*/fd). Both fail
// closed: when /proc is missing or foreign, the peer cannot be found, or a server recorded
// in the state directory lives in a namespace the caller cannot see into (unshare), the
// answer is ErrAncestryUnknown with the reason.
//
// Not covered (documented in docs/security.md): programs that run commands for the user without
// being toolhost's descendants — `systemd-run --user`, at, cron, an already running tmux or
// screen server, a user-level D-Bus service, ssh to localhost. The terminal sandbox and the
// default command rules narrow these; they do not close them.

// ServerComm is the process name (/proc/PID/comm) of a marked toolhost server.
const ServerComm = "toolhost-server"

var (
	// ErrDescendant: the process descends from a running toolhost server.
	ErrDescendant = errors.New("runs under a toolhost server (a terminal or a process it started)")
	// ErrAncestryUnknown: the process ancestry cannot be determined; operator actions are
	// refused rather than guessed.
	ErrAncestryUnknown = errors.New("cannot determine the process ancestry")
)
