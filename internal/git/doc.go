// Package git runs the git executable for toolhost's build_and_version_control tool and turns its
// machine-readable output (porcelain v2 status, numstat, blame porcelain, NUL-separated logs) into
// compact summaries a model can read. It knows nothing about MCP.
//
// # Argument discipline
//
// Everything a model supplies is data, never an option:
//
//   - A revision (ref, range side, start point) is refused when it starts with '-' or holds a
//     control character, then resolved to an object id with
//     `git rev-parse --verify --end-of-options`; only that hexadecimal id reaches the command that
//     uses it.
//   - Paths come after `--` and are literal pathspecs (--literal-pathspecs): no globs, no ":(magic)".
//     A path that leaves the repository is refused before git runs.
//   - Values of options a caller chooses (author, since) travel inside one argument
//     ("--author=VALUE"); commit messages travel on standard input (-F -). Branch names are checked
//     with `git check-ref-format --branch` after the '-' rule.
//   - No argument can add a -c option, --upload-pack, --exec or a core.* setting: the runner alone
//     builds the global options, and nothing offered talks to a remote.
//
// # Environment
//
// Every command runs with GIT_TERMINAL_PROMPT=0, GIT_PAGER=cat, PAGER=cat, GIT_EDITOR=true,
// LC_MESSAGES=C (error texts are classified), -c color.ui=never, -c core.quotepath=off and
// -c safe.bareRepository=explicit (a bare repository planted in a work tree is never used); reads add
// --no-optional-locks so a status never takes the index lock from the user's own git. Inherited GIT_*
// variables that would redirect git (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, GIT_CONFIG_*, ...) are
// dropped; the author and committer variables are kept, since they are the user's identity. Hooks run
// as git runs them (a commit runs pre-commit and commit-msg).
//
// # Confinement
//
// git runs commands the repository configures: hooks, core.fsmonitor, filter drivers (add,
// switch), diff textconv (diff, show, blame). The file tools' guard keeps the
// model from editing .git/config and .git/hooks, but a terminal that may write the work tree may
// write them too. So every git process, repository discovery included, starts under the
// Landlock policy its Repo carries (Runner.Open, Repo.Confined; package sandbox): the caller's
// terminal policy, widened for a write to the work tree and common git directory the guard
// approved. What git runs then has the power of the caller's terminal commands and no more.
// Nil runs git unconfined (the sandbox is off).
//
// # Errors
//
// Failures wrap the sentinels in errors.go (ErrNotRepository, ErrUnknownRevision, ...), classified
// from git's exit status and its C-locale messages; *Error keeps git's own text for the log.
package git
