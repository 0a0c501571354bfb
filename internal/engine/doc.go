// Package engine records every tool call as an execution: an id, what was called by whom, how
// it ended and how long it took. It keeps running executions in memory, makes finished ones
// durable before their result is returned, and stores them in a bounded history in bbolt that
// every toolhost process on the state directory shares. It answers the operator's questions
// (history pages, one record, statistics, what is running) and cancels running executions, also
// those of another process.
//
// Ids are "exec_", the start time and random bits, so they sort by start.
//
// Durability without a commit per call: Finish appends the finished record as one line to this
// process's journal (executions/journal/OWNER.SEQ.jsonl) with a single write(2) before it
// returns, so the record survives SIGKILL (not power loss: the journal is not fsynced). The line
// costs about 10 µs where a bbolt commit with fsync costs about 1 ms. A background flusher moves batches of finished
// records into bbolt in one transaction. Begin appends a "running" line too, which is how other
// processes see what is running. A process that starts claims (by rename) the journals of dead
// processes: their finished records go to bbolt (keys make it idempotent) and their running ones
// become failed (orphaned), so no execution stays running forever. Queries first store the
// unflushed records of live journals, so the CLI sees every acknowledged call.
//
// A cancel from another process is a file named after the execution in the cancel directory;
// the owner polls that directory (executions/cancel/ID, every 20 ms) while it has running
// executions and cancels the execution's context, whose handlers kill their process trees.
//
// The history is bounded (the last 100,000 records, none older than 30 days; [executions] in the
// configuration). Statistics are kept incrementally in bbolt (counts, histograms of durations, per tool,
// operation and category), in total and per principal, and adjusted when old records are
// pruned, so stats never scan the history and a principal's count only its own executions.
// History pages walk secondary indexes (executions/index/FIELD=VALUE for tool, status,
// category, principal, conversation) newest first, choosing the smallest index a filter names;
// its entries hold the record's filterable fields, so a page reads only its own records.
//
// The operator's side is five methods, each taking the viewer (authz.Principal) so that a
// principal sees and cancels only its own executions unless it is an admin: List (a filtered
// page, newest first), Get (one execution, running or finished, from any process), Active
// (what runs now in every process), Stats (the viewer's aggregates, no scan) and Cancel (also
// another process's execution; returns the final record, or ErrFinished).
//
// The package knows no MCP types; internal/server and consolidated feed it. A tool or operation
// name no tool declares reaches it as "unknown" (consolidated's recordedNames), so the
// aggregates' keys, the indexes and the metrics' series stay as many as the declared operations.
package engine
