// Package store keeps toolhost state in one bbolt file that several toolhost processes may share:
// conversations (todos, state, terminal metadata), grants, approval requests, executions, memories
// and the leases of conversations to live sessions.
//
// Every editor window starts its own toolhost process, and they all share one state directory. bbolt
// holds the file lock for as long as a handle is open, so a process keeps its handle only while no
// other process waits for the file: a waiting process says so by holding a shared lock on
// toolhost.db.wait, the holder checks that before each transaction and whenever the file is
// opened (inotify), closes its handle when its running transactions end, and an unused handle
// closes after a minute anyway (handle.go explains the trade-off). This was chosen over one
// process serving the others because it needs no protocol between processes, no election and
// no failover when the serving process exits. A process that finds the file
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
// A state directory that is read-only, full or holds a damaged file does not stop a server:
// [Open] writes nothing when the schema is current, a file that does not open is served by a
// Store from [Unavailable] (every transaction fails with [ErrUnavailable] and the cause), and a
// transaction that panics (bbolt on a damaged page) fails with [ErrDamaged] and releases its
// lock; the tool layer turns these into state_unavailable naming the directory and the cause.
// `toolhost doctor --repair` runs [Repair], which keeps a copy of the file and rebuilds it from
// every readable bucket; then memory.Service.Reconcile rebuilds what derives from the memories
// (vectors, duplicate and scope indexes, recent notes, document chunk lists, version links, the
// ID counter) from the items that survived, and logs each change for other processes' indexes.
//
// Next to the database, [Store.AppendAudit] appends JSON lines to audit.jsonl, rotated by size
// and age into compressed files of which a number are kept (audit.go).
//
// bbolt never gives pages back to the file system: [Store.Usage] says how much of the file is
// free, and [Store.Compact] rewrites it without, safely while other processes use it (they wait
// for the lock as for any write; compact.go).
package store
