// Package terminal runs shell commands for toolhost: one-shot commands (run_command) and
// conversation-scoped interactive shells in real PTYs (create_session, send_input, get_output,
// get_screen, get_history, resize_session, list_sessions, close_session).
//
// The engine is built so that no call can hang: every wait is bounded by a yield time, a
// command that outlives it keeps running and is handed back as a pollable id, PTY reads go
// through the runtime poller (so closing a session interrupts them), and stdin of one-shot
// commands is empty while pagers, editors and credential prompts are disabled through the
// environment.
//
// Memory is bounded per session: the cleaned log is a ring buffer (Config.HistoryBytes,
// default 2 MiB, oldest bytes dropped with a marker), raw bytes waiting for the screen
// emulator are capped (256 KiB, oldest dropped), and a line without a newline is split at
// 64 KiB. A one-shot command keeps the same ring plus a head and tail of each of stdout and
// stderr (64 KiB each).
//
// Security: the working directory guard (package authz) decides where a command or session
// starts; Config.Gate (package gate) confines what it then touches (a Landlock policy per
// start), decides every line before it runs (the command rules and the user's approvals) and
// gives the environment children start from, without toolhost's secrets (any variable whose
// name starts with TOOLHOST_, and those the configuration withholds).
//
// Wiring (for the terminal_operations tool): run_command → Manager.Run, create_session →
// Create, send_input → Send (Input.Wait carries wait_ms/wait_for/max_bytes), get_output →
// Output, get_screen → Screen, get_history → History, resize_session → Resize,
// list_sessions → List, close_session → Close; call Shutdown when the server stops.
// OutputQuery.Progress and RunSpec.Progress are the hooks for progress notifications while
// a call waits, and Config.OnUpdate the hook for resource-updated notifications of
// toolhost://terminals/{id}/screen (Screen) and .../history (History). A run_command that
// outlives its yield is a job whose ID works with get_output, get_history and
// close_session. Errors wrap the sentinels in errors.go; their texts are meant for the model.
//
// Sessions are torn down completely: close_session signals every process of the PTY's
// session, every holder of the PTY slave (setsid escapees) and every process that inherited
// the session's marker variable, first with SIGHUP/SIGTERM and after a grace period with
// SIGKILL, and the shell is reaped.
package terminal
