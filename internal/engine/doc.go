// Package engine records every tool call as an execution: an id, what was called by whom, how
// it ended and how long it took. It keeps running executions in memory, makes finished ones
// durable before their result is returned, and stores them in a bounded history in bbolt that
// every toolhost process on the state directory shares. It answers the operator's questions
// (history pages, one record, statistics, what is running) and cancels running executions, also
// those of another process.
//
// Durability without a commit per call: Finish appends the finished record as one line to this
// process's journal with a single write(2) before it returns, so the record survives SIGKILL
// (not power loss: the journal is not fsynced). A background flusher moves batches of finished
// records into bbolt in one transaction. Begin appends a "running" line too, which is how other
// processes see what is running. A process that starts replays the journals of dead processes:
// their finished records go to bbolt and their running ones become failed with a reason, so no
// execution stays running forever.
//
// A cancel from another process is a file named after the execution in the cancel directory;
// the owner watches that directory while it has running executions and cancels the execution's
// context, whose handlers kill their process trees.
//
// Statistics are kept incrementally in bbolt (counts, histograms of durations, per tool,
// operation and category), in total and per principal, and adjusted when old records are
// pruned, so stats never scan the history and a principal's count only its own executions.
// History pages walk secondary indexes (tool, status, category, principal, conversation)
// newest first, choosing the smallest index a filter names.
//
// The operator's side is five methods, each taking the viewer (authz.Principal) so that a
// principal sees and cancels only its own executions unless it is an admin: List (a filtered
// page, newest first), Get (one execution, running or finished, from any process), Active
// (what runs now in every process), Stats (the viewer's aggregates, no scan) and Cancel (also
// another process's execution; returns the final record, or ErrFinished).
//
// The package knows no MCP types; internal/server and consolidated feed it.
package engine
