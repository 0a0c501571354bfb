// Package store keeps toolhost state in one bbolt file that several toolhost processes may share:
// conversations (todos, state, terminal metadata), grants, approval requests, executions and memories.
//
// Every editor window starts its own toolhost process, and they all share one state directory. bbolt
// holds the file lock for as long as a handle is open, so a process keeps its handle only while no
// other process waits for the file: a waiting process says so by holding a shared lock on
// toolhost.db.wait, the holder checks that before each transaction and whenever the file is
// opened (inotify), closes its handle when its running transactions end, and an unused handle
// closes after a minute anyway (handle.go explains the trade-off). A process that finds the file
// locked retries with a short jittered
// backoff until [Options.LockTimeout] or its context ends; callers only see [ErrBusy] when that
// whole budget is spent. Readers never wait for each other, only for a writer.
//
// A cache of what a transaction read can ask [Store.Stamp] whether its buckets may have changed
// since, in this process or another, without a transaction of its own (stamp.go).
//
// Values are opaque bytes (usually JSON) under string keys in nested buckets named by a [Path]. Keys
// sort bytewise; [SeqKey] makes numeric sequences sort in order. Everything a [Tx] returns is a copy,
// so it stays valid after the transaction ends.
//
// The schema version lives in the meta bucket. [Open] runs pending migrations once, in one
// transaction, and refuses a file written by a newer toolhost ([ErrNewerSchema]) rather than guessing.
//
// Next to the database, [Store.AppendAudit] appends JSON lines to audit.jsonl, rotated to
// audit.jsonl.1 past a size limit.
package store
