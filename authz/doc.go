// Package authz decides whether an operation may touch a path: the working-directory guard,
// protected paths, time-limited grants and approval requests. It knows nothing about MCP, and no
// tool or operation by name: callers pass the names in (Request, Runner, Config.Ask), and a test
// in internal/app fails on a name of the registry in authz's source.
//
// # Decisions
//
// Guard.Check and Guard.Open take a Request (tool, operation, risk class, path as the model gave
// it) and decide on the canonical path: relative paths are taken from the working directory, every
// existing symlink is resolved (through the deepest existing ancestor, so paths that do not exist
// yet are decided where they would be created), ".." applies to the real parent, and containment is
// separator-aware. In order:
//
//   - unusable input (NUL byte, longer than MaxPathLen, symlink loop) is refused;
//   - FIFOs, devices and sockets are refused (never opened, so nothing blocks);
//   - protected paths — toolhost's config file, state directory and token file, .git/config,
//     .git/commondir and .git/hooks/** of any repository — and secret paths (DefaultSecretPaths,
//     plus .env* files outside the working directory) need a grant that names them, even inside
//     the working directory; so does writing, deleting or renaming a file with several hard links,
//     and reading the contents below a directory that holds any of them (a grep; a Request marked
//     NamesOnly, a listing or a glob, returns names only and is not refused);
//   - anything else inside the working directory is allowed without touching the store;
//   - reads outside are allowed (unless Config.OutsideReadsNeedGrant); writes and terminal starting
//     directories (ClassExecute) outside need a grant.
//
// A refusal is a *Denial with a stable Code, a short Message and, when a grant can fix it, the exact
// call that asks the user for one (the tool and operations Config.Ask names) in NextStep. Every
// decision is audited.
//
// # I/O
//
// Open returns a Target: an os.Root at the working directory (shared), at the granted directory, or
// at the parent of the path, plus the path relative to it. Do all I/O through Target.Root and
// Target.Rel: a symlink swapped in after the check cannot lead outside the root. Target.OpenRead
// opens for reading without following a final symlink and without blocking on a FIFO.
//
// # Grants and approvals
//
// Grants are created only by a human: Guard.Approve for a pending approval request (CLI, approval
// endpoint), Guard.CreateGrant after an accepted elicitation, or Config.StaticGrants. A model can
// only ask (Guard.RequestAuthorization), which records a pending request and grants nothing.
// Expiries are kept on the wall clock and on CLOCK_BOOTTIME with the boot id; a grant is expired when
// either clock says so, so setting the wall clock back does not extend it. One-time grants are
// consumed in one store transaction, so concurrent uses (in any process) succeed exactly once.
package authz
