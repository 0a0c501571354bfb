// Package sandbox confines the commands toolhost's terminals run with Landlock, so that what a
// shell command touches is decided by the user's policy and not only where it starts.
//
// # Modes
//
//   - workspace-write (the default where the kernel supports Landlock): commands read
//     everything except toolhost's hidden files, and write only in Policy.Writable (the working
//     directory, paths the user granted to terminals, the per-user build caches), the temp
//     directories and the usual devices (/dev/null, the terminal).
//   - read-only: commands write only in the temp directories and the devices.
//   - off: no confinement.
//
// In every confined mode Policy.Protected (toolhost's state directory, config file, token,
// prompts directory, log file) is never writable, even inside a writable tree, and the
// contents of Policy.Hidden (the state directory with the token) are never readable; their
// names stay listable.
//
// # How a command is confined
//
// Landlock restricts a thread and everything it starts afterwards. Start builds the ruleset
// in the server (unrestricted), then hands the command to a starter: a goroutine locked to an
// OS thread of its own that confined itself once with that policy's ruleset (prctl
// NO_NEW_PRIVS, landlock_restrict_self without thread synchronisation, the capabilities that
// reach across processes dropped) and forks and execs every command of the policy. The
// command inherits the domain; the toolhost process never runs anything else on a restricted
// thread: the runtime neither schedules other goroutines on a locked thread nor clones new
// threads from one (it uses its template thread for that), and the main thread is never used.
// A starter is kept per policy while nothing its rules depend on changes (the directories the
// plan listed and the policy's roots; the process's sysfile.Watch says when one may have
// changed, from inotify and the mount table, and a stat confirms it; paths it cannot watch
// are stat'ed at each start), and ends (its goroutine returns still locked, which makes the
// runtime terminate the thread) when they go stale or it is evicted. Merging a ruleset into a new domain is linear in its rules, so
// confining a thread once per policy rather than once per command keeps a start cheap when
// the rules are many (a HOME of thousands of entries beside ~/.ssh). Nothing in the server's
// other threads changes, so no all-threads mechanism (psx, cgo) is involved, and every binary
// that imports the package confines its commands the same way, test binaries included. A
// re-exec launcher (/proc/self/exe with a marker) was measured first: the extra exec of a 30
// MB Go binary cost about 2.6 ms against 0.7 ms for sh -c true, five times the budget.
//
// # Excluding a path from an allowed tree
//
// Landlock only adds rights, and a right granted on a directory holds for everything below
// it. To allow a tree except a protected path inside it, the rights withheld from the
// protected path are not granted on the tree itself but on every sibling along the way down:
// for a working directory /w holding /w/a/state, /w gets everything but the withheld rights,
// and each entry of /w other than a, and each entry of /w/a other than state, gets the full
// set. The limits this has, documented for users:
//
//   - entries cannot be created, renamed or deleted directly in a directory on the way (here
//     /w and /w/a), only inside its other subdirectories;
//   - entries created on the way after a command started are not covered for that command
//     (a session keeps the rules it started with; the next command sees them);
//   - symbolic links on the way are skipped (their targets get rights where they live);
//   - a bind mount or an older hard link of a protected file elsewhere is reachable through
//     that other path.
//
// Also applied to every confined command: no_new_privs, and the capabilities that reach
// across processes or around path rules (ptrace, administration, raw devices, signals to
// other users, open by handle) are taken out of the command's sets, root included. Where the
// kernel has Landlock ABI 6, a command can neither signal nor connect to an abstract unix
// socket of a process outside its own tree: not the server, not another command.
//
// Not restricted: network access (TCP bind and connect stay open: builds and package
// managers need them, and Landlock can only list allowed ports), UNIX sockets on the file
// system (D-Bus, an agent, `systemd-run --user`), and what the user's other programs later do
// with files written inside the allowed trees.
package sandbox
