// Package memory is the semantic memory behind the memory_operations tool: it stores short texts
// (memories) with tags and metadata in a scope, finds them again by meaning, deletes them, and
// imports text and Markdown documents as chunks.
//
// # Scopes
//
// Every memory lives in one scope. The default scope is the storing conversation's own
// ("conversation:ID"); a named topic ("topic:NAME") is shared: every conversation that names the
// topic sees its memories. Searches look in the conversation scope unless told otherwise; see
// [SearchRequest.Scopes]. Standing instructions (kind instruction, see instructions.go) live in
// the user's scope ("user") or the project's ("project:DIR"), which every conversation sees.
//
// # Storage (bbolt is the source of truth)
//
// Everything lives under [store.BucketMemories], in nested buckets:
//
//	items   SeqKey(id) → JSON record: content, tags, metadata, scope, conversation, created,
//	        content sha256, embedder ID and dimension, document name and chunk index, and the
//	        IDs of the versions before and after it
//	vecs    SeqKey(id) → the vector, dim little-endian float32 (kept apart from items so that
//	        scans of metadata, e.g. delete by tag, do not read 2 KB of vector per memory)
//	hash    scopeKey "\x00" hex(sha256(trimmed content)) → SeqKey(id) of the newest memory with
//	        that text, for exact duplicates
//	scopes  / scopeKey: SeqKey(id) → {tags, bytes, superseded}, for per-scope counts, sizes,
//	        tag deletes and an index build that skips earlier versions
//	docs    scopeKey "\x00" document name → {sha256 of the file, chunk ids, imported, conversation}
//	recent  / conversation: 16 hex digits of created unix nanos + SeqKey(id) → Note, for reminders
//	instructions  scope "\x00" SeqKey(id) → Instruction, the current standing instructions
//	log     SeqKey(seq) → {op: put|delete, id}: the change log other processes replay
//	head    (plain key) SeqKey of the last log sequence, so a fresh index knows where to start
//	tail    (plain key) SeqKey of the oldest log entry kept; the log keeps Config.LogKeep entries
//	        and an index that fell further behind rebuilds instead of replaying
//
// Memory IDs come from the items bucket's sequence and are never reused. Every write (store,
// delete, import, re-embed) appends to the log in the same transaction.
//
// # The index (in memory, lazy, catching up)
//
// The vector index is built from bbolt on the first operation that needs it (search, store,
// import, re-embed), never in [New]: a server with 100,000 memories that is never asked about
// memory starts as fast as an empty one. Before each such operation the index replays the log
// entries after the last sequence it has seen — one small read transaction that reads only the
// log's tail — so memories written by other toolhost processes sharing the state directory become
// searchable without a restart. Two vector index implementations exist (see [IndexKind]):
// chromem-go collections, the default (one per scope, no file persistence, an embedding function
// always set, the result count clamped to the collection size), and a brute-force cosine scan
// over a contiguous []float32 slab per scope, which is faster at every size measured and stays
// selectable ([memory] index = "slab"); where the CPU converts float16, the slab scans float16
// copies of its vectors and rescores in float32 every vector that could be among the best, for
// the float32 scan's results at half the bytes read (halfscan.go). Beside the vectors the index keeps a BM25 inverted
// index of stems and whole identifiers (lexindex.go), built from the same records and following
// the same log. Both hold IDs, tags, vectors and term counts; content is read from bbolt for
// the candidates.
//
// # Ranking (rank.go)
//
// A search takes the best candidates of both sides and orders their union by a weighted sum of
// the cosine, the normalised BM25 score, the share of the query's identifiers found verbatim
// (also those it spells out in words, "store footfall", and full names it types), soft word
// matching by GloVe vectors and the question's answer type (who, when, how many, where, and the
// attribute it names anywhere: a port, a runtime, an e-mail address...; answertype.go), less a
// penalty for a note about another thing than the question's: a look-alike of its subject
// (checkout-v2 for checkout), another identifier, place code or ticket, another copy (live for
// a test server; entity.go); then a newer note that says it corrects an older one about the
// same subject moves above it. German, French and Spanish questions are translated word by
// word into English with the FreeDict dictionaries of the OS (package lexicon). The figures of
// each signal on the retrieval sets (testdata/recall) are in docs/memory.md; TestRecall runs
// the eight sets.
//
// # Embedder spaces
//
// Each record names the embedder (ID and dimension) that produced its vector. Vectors of
// different embedders are never compared: if the configured embedder differs from any stored
// vector's, Store, Search and Import fail with an [*EmbedderChangedError] (errors.Is
// [ErrEmbedderChanged]) that names both embedders and the fix, until [Service.Reembed] has
// re-embedded the stale memories (with progress). Delete, Collections and Recent keep working.
// Re-embedding is explicit rather than automatic because it may take minutes (USE-Lite on two
// cores) or cost money (remote embedders), and the user should decide when.
//
// # Duplicates and versions
//
// Storing content whose trimmed text already exists in the same scope returns the existing ID
// (exact duplicate). Storing content that states the same thing as one of the scope's most
// similar memories — the same words but for case, punctuation, small words and inflections —
// returns that memory's ID (near duplicate). Nothing is written in either case, and
// [StoreResult.Duplicate] says which. A text that scores as near-identical but says something
// else is never refused: it is a correction (below) or another fact.
//
// Content that restates one of those memories with one value changed (a number, written or in
// digits, a date, path, identifier, name or negation; see supersede.go), or that says it
// corrects one about the same subject ("Correction: ...", "moved to port 7587 (was 3009)"), is
// stored as that memory's newer version: the new record's supersedes names the old one, the old
// one's superseded_by the new one, and only the newest version of a chain is in the search
// index, so the current version always answers; earlier ones come back only on request
// ([SearchRequest.Versions], or by ID with [Service.Get]). A changed name or identifier before
// the verb is another subject ("Our contact at Acme" and "... at Globex", "billing-api" and
// "ledger"), never a version. A process that finds the memory it would supersede already
// superseded by another process compares with the current version instead, so concurrent
// writers never fork a fact. [Service.Update] (update_memory) adds a version explicitly, or
// changes tags and metadata in place; deleting any version deletes the chain. Texts that
// differ in ordinary words, or in values at two places, are different facts and are stored
// side by side.
//
// # Documents
//
// [Service.Import] takes a document's name and bytes (the caller reads the file through the
// working-directory guard), splits it into chunks that fit the embedder's token window, prefixes
// each chunk with its Markdown heading path ("# Guide > ## Install: ..."), and stores the chunks
// with the document name and chunk index. Importing the same bytes again is a no-op; changed bytes
// replace the old chunks in one transaction.
//
// # Measured (2-core AMD EPYC, shared; go test -run '^$' -bench . ./internal/memory)
//
// BenchmarkRecallSearch10k has the default search (USE-Lite question, both sides, fusion) over
// 10,000 notes; docs/memory.md quotes it. The figures below are the vector side alone. Bulk data
// uses the lexical embedder at 512 dimensions (USE-Lite's size); search p50 / p99:
//
//	memories   slab            chromem-go
//	1,000      0.43 / 1.1 ms   1.2 / 2.7 ms
//	10,000     1.9 / 5.8 ms    4.7 / 9.3 ms
//	100,000    10.6 / 21 ms    67 / 190 ms
//
// chromem-go filters every document through a channel and a map on each query, which is what
// costs it at 100,000; its exact-match where filter does express "has every tag". At 100,000 memories the first memory operation builds the index in 0.7–1.5 s
// and the server's RSS goes from 10 MiB to about 300 MiB (the vectors are 195 MiB); a server that
// never touches memory stays at 10 MiB and its first non-memory call takes 0.07 ms against
// 0.02 ms with an empty store, the difference being bbolt opening a larger file (New does no I/O).
package memory
