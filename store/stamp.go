package store

import (
	"encoding/binary"
	"hash/fnv"
	"os"
	"path/filepath"
)

// How a cache in memory learns that the buckets it was read from may have changed, without a
// transaction.
//
// A Version (watch.go) answers for the whole file and is unsettled for two seconds after any
// commit; a process that flushes its execution records after every call never sees it settle.
// A Stamp answers for named buckets, exactly:
//
//   - This process's commits: a write transaction records the bucket paths it wrote (Put,
//     Delete, a sequence, a bucket created or deleted), and the commit notes its number
//     against each. A stamp holds the newest number noted against its buckets or their parents.
//   - Other processes' commits: bbolt numbers every commit of any process (the transaction id
//     in the two meta pages at the start of the file), so this process knows which ids were
//     its own and counts any other as a foreign change. A stamp reads the meta pages with one
//     open and two preads: no lock, no mmap, nothing another process waits for. While this
//     process keeps a handle (handle.go) it holds bbolt's exclusive lock, so nobody else can
//     commit and the stamp reads nothing at all.
//
// Stamps err towards "changed": a meta page read while it is being written fails its checksum,
// and a process that cannot read it, or a Store that is unavailable, gives a stamp that has
// always changed.

// metaHeader is where bbolt's meta fields start in a meta page (after the page header), and
// metaSize how many bytes of a page are read: the fields through the checksum.
const (
	metaHeader = 16
	metaSize   = metaHeader + 64
	// metaMagic and metaVersion identify bbolt's file format 2.
	metaMagic   = 0xED0CDAED
	metaVersion = 2
)

// Stamp is what a reader knew of some buckets when it took the stamp; compare it with a later
// one with Changed. Take the stamp before reading: a change that lands between the two then
// shows at the next comparison.
type Stamp struct {
	local   uint64
	foreign uint64
	ok      bool
}

// Changed reports whether the buckets may have changed between v and now (a later Stamp of the
// same buckets). A zero or unreadable stamp always changed.
func (v Stamp) Changed(now Stamp) bool {
	return !v.ok || !now.ok || v.local != now.local || v.foreign != now.foreign
}

// Stamp returns the stamp of buckets now. It covers the plain keys and the sequence of each
// bucket and the deletion of it or of a parent, not the buckets nested in it.
func (s *Store) Stamp(buckets ...Path) Stamp {
	if s.unavailable != nil || s.closed.Load() {
		return Stamp{}
	}
	// While this process keeps the file open, it holds bbolt's exclusive lock: nobody else
	// commits, and what others committed before was noted when the handle was kept.
	s.mu.Lock()
	kept := s.cur != nil
	s.mu.Unlock()
	var txid uint64
	if !kept {
		var ok bool
		if txid, ok = readTxID(s.path); !ok {
			return Stamp{}
		}
	}
	s.stampMu.Lock()
	defer s.stampMu.Unlock()
	if !kept {
		s.observeLocked(txid, true)
	}
	st := Stamp{foreign: s.foreign, ok: true}
	key := make([]byte, 0, 64) // on the stack: a stamp is taken at every process start
	for _, p := range buckets {
		key = key[:0]
		for i, name := range p {
			if i > 0 {
				key = append(key, 0)
			}
			key = append(key, name...)
			st.local = max(st.local, s.wrote[string(key)])
		}
	}
	return st
}

// observe notes the transaction id of the state a transaction of this process started from.
func (s *Store) observe(txid uint64) {
	s.stampMu.Lock()
	s.observeLocked(txid, false)
	s.stampMu.Unlock()
}

// observeLocked counts a foreign change when txid is not the newest id this process accounted
// for. A transaction may start from an older state than one already seen (it began before a
// commit of this process finished), so only a newer id counts there; the meta pages (file) show
// the file as it is, so any other id counts, as after a repair replaced the file.
func (s *Store) observeLocked(txid uint64, file bool) {
	if txid == s.seenTx || (!file && txid < s.seenTx) {
		return
	}
	s.seenTx = txid
	s.foreign++
}

// committedPaths records this process's commit of transaction txid, which wrote paths, as
// commit number n.
func (s *Store) committedPaths(txid, n uint64, paths map[string]struct{}) {
	s.stampMu.Lock()
	defer s.stampMu.Unlock()
	// The transaction started from txid-1 (observed at its start, and no other process can
	// commit while this one holds the file), so its own id is accounted for.
	s.seenTx = max(s.seenTx, txid)
	if s.wrote == nil {
		s.wrote = map[string]uint64{}
	}
	for p := range paths {
		s.wrote[p] = n
	}
}

// pathKey is how a Tx records a bucket path it wrote (names joined by NUL, as Stamp looks them up).
func pathKey(p Path) string {
	n := 0
	for _, name := range p {
		n += len(name) + 1
	}
	key := make([]byte, 0, n)
	for i, name := range p {
		if i > 0 {
			key = append(key, 0)
		}
		key = append(key, name...)
	}
	return string(key)
}

// readTxID returns the id of the last committed transaction of the bbolt file at path: the larger
// of its two meta pages' ids whose checksums hold, as bbolt itself chooses.
func readTxID(path string) (uint64, bool) {
	f, err := os.Open(filepath.Clean(path))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var buf [metaSize]byte
	if n, err := f.ReadAt(buf[:], 0); err != nil || n != metaSize {
		return 0, false
	}
	id0, ok0 := parseMeta(buf[:])
	if !ok0 {
		return 0, false // the page size is read from meta page 0
	}
	pageSize := int64(binary.NativeEndian.Uint32(buf[metaHeader+8:]))
	if n, err := f.ReadAt(buf[:], pageSize); err != nil || n != metaSize {
		return 0, false
	}
	id1, ok1 := parseMeta(buf[:])
	if ok1 && id1 > id0 {
		return id1, true
	}
	return id0, true
}

// parseMeta checks one meta page (its first metaSize bytes) as bbolt does (magic, version,
// FNV-64a checksum of the fields before it) and returns its transaction id. bbolt writes the
// fields in the machine's byte order.
func parseMeta(page []byte) (txid uint64, ok bool) {
	m := page[metaHeader:metaSize]
	if binary.NativeEndian.Uint32(m[0:]) != metaMagic || binary.NativeEndian.Uint32(m[4:]) != metaVersion {
		return 0, false
	}
	h := fnv.New64a()
	h.Write(m[:56])
	if h.Sum64() != binary.NativeEndian.Uint64(m[56:]) {
		return 0, false
	}
	return binary.NativeEndian.Uint64(m[48:]), true
}
