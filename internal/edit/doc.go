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
// Every multi-file operation is computed first as a Plan of Changes and then
// committed file by file with atomic writes; if a later write fails, the
// files already written are restored, so callers see all or nothing.
//
// Error values are typed (*MatchError, *PatchError, *StaleError, ...) and
// their Error() text is written for the model that issued the edit: short,
// with the line numbers and the next step.
package edit
