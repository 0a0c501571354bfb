// Package tasks finds what a project can run and reads what its tools print: tasks declared in
// Taskfile.yml, Makefiles, package.json scripts, justfiles, Go modules, Cargo crates and pytest
// configurations (Discover); the project's test runner (TestPlan) and its type checkers and
// linters (CheckPlan), detected from the files the project already has, never configured; and
// parsers that turn their output into counts, failures as file:line plus a message, and
// diagnostics as file:line:col, severity and message.
//
// The package runs nothing itself. A Plan is a shell script for toolhost's terminal engine (which
// supplies the yield, the handle for long runs, tree kill, the sandbox and command rules): each step
// runs with both streams through tee, so the terminal keeps the readable raw log while a copy and the
// step's exit status land in a report directory the caller owns. Collect reads that directory
// after the run, however much later that is.
//
// Parsers are tested on output captured from the real tools (testdata/capture, see its README).
package tasks
