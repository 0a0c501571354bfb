// Package edit holds the write-side file engines of toolhost: the replace
// ladder, multi-file replacements, line inserts, unified diffs, apply_patch
// (unified diffs and the Codex "*** Begin Patch" envelope) and atomic writes.
//
// The package knows nothing about MCP. Text transformations are pure
// functions on []byte so they can be tested and fuzzed without a file
// system; the thin I/O layer works only through an *os.Root plus a
// slash-separated path relative to it, so the working-directory guard's
// decision and the actual file access cannot diverge.
//
// Every operation is computed first as a Plan of Changes and then committed
// as one transaction (txn.go): new contents in fsynced temporary files, old
// contents kept as backups, a commit point, then renames. With a Journal in
// the state directory the transaction survives a crash too: the next
// process to open the journal rolls it forward or back, so callers see all
// or nothing.
//
// Where old_string or a hunk matched only on a tolerant rung, the text
// written is adapted to the file (style.go): its quotes, dashes, ellipses,
// indentation and line endings, not the model's.
//
// Error values are typed (*MatchError, *PatchError, *StaleError, ...) and
// their Error() text is written for the model that issued the edit: short,
// with the line numbers and the next step.
package edit
