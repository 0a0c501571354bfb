package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Top-level buckets, created by migration 1. Each concern owns one, so a package can list or clear
// its own state without knowing the others' layout.
const (
	// BucketMeta holds schema_version and the record of applied migrations.
	BucketMeta = "meta"
	// BucketConversations holds one nested bucket per conversation ID, each with todos, state and
	// terminals buckets.
	BucketConversations = "conversations"
	// BucketGrants holds working-directory grants.
	BucketGrants = "grants"
	// BucketApprovals holds pending and answered approval requests.
	BucketApprovals = "approvals"
	// BucketExecutions holds command execution records.
	BucketExecutions = "executions"
	// BucketMemories holds semantic memories (text, metadata, embedder ID, vector).
	BucketMemories = "memories"
	// BucketTokens holds the HTTP client tokens, keyed by the SHA-256 of the secret (created
	// on first use).
	BucketTokens = "tokens"
	// BucketLeases holds which live MCP session holds which conversation (created on first use,
	// not by a migration: an older toolhost never reads it).
	BucketLeases = "leases"
)

// Path names a bucket by the chain of bucket names from the top level, e.g.
// Path{BucketConversations, convID, "todos"}. Names are arbitrary non-empty strings.
type Path []string

// String renders the path with slashes, for error messages.
func (p Path) String() string { return strings.Join(p, "/") }

// Tx is one transaction, valid only inside the function passed to Update or View; using it
// afterwards panics. It is not safe for concurrent use. Every value it returns is a copy, so it
// stays valid after the transaction ends. Keys are bytewise-ordered strings; nested buckets and
// plain keys share a bucket's key space, but ForEach and Seek only report plain keys.
type Tx struct {
	tx *bbolt.Tx
	// wrote holds the paths (pathKey) of the buckets a writable transaction changed, for Stamp.
	wrote map[string]struct{}
}

// changes records that the transaction changes bucket p.
func (t *Tx) changes(p Path) {
	if t.wrote == nil {
		t.wrote = map[string]struct{}{}
	}
	t.wrote[pathKey(p)] = struct{}{}
}

func (t *Tx) live() *bbolt.Tx {
	if t.tx == nil {
		panic("store: Tx used after its transaction ended")
	}
	return t.tx
}

// bucket returns the bucket at p, or nil if any part of it is missing.
func (t *Tx) bucket(p Path) *bbolt.Bucket {
	tx := t.live()
	if len(p) == 0 {
		return nil
	}
	b := tx.Bucket([]byte(p[0]))
	for _, name := range p[1:] {
		if b == nil {
			return nil
		}
		b = b.Bucket([]byte(name))
	}
	return b
}

// createBucket returns the bucket at p, creating missing buckets along the way.
func (t *Tx) createBucket(p Path) (*bbolt.Bucket, error) {
	tx := t.live()
	if !tx.Writable() {
		return nil, ErrReadOnlyTx
	}
	if len(p) == 0 {
		return nil, errors.New("empty bucket path")
	}
	// Every caller changes p (a key, its sequence, or the bucket's creation).
	t.changes(p)
	b, err := tx.CreateBucketIfNotExists([]byte(p[0]))
	if err != nil {
		return nil, bucketErr(p[:1], err)
	}
	for i, name := range p[1:] {
		if b, err = b.CreateBucketIfNotExists([]byte(name)); err != nil {
			return nil, bucketErr(p[:i+2], err)
		}
	}
	return b, nil
}

func bucketErr(p Path, err error) error {
	if errors.Is(err, berrors.ErrIncompatibleValue) {
		return fmt.Errorf("bucket %s: a plain key already has that name: %w", p, err)
	}
	return fmt.Errorf("bucket %s: %w", p, err)
}

// clone copies v out of bbolt's memory map, which is unmapped when the transaction ends. Empty
// values stay non-nil so a present-but-empty value differs from a missing one.
func clone(v []byte) []byte {
	return append(make([]byte, 0, len(v)), v...)
}

// Get returns a copy of the value at key in bucket b. ok is false if the bucket or key is missing,
// or if key names a nested bucket.
func (t *Tx) Get(b Path, key string) (val []byte, ok bool) {
	bk := t.bucket(b)
	if bk == nil {
		return nil, false
	}
	v := bk.Get([]byte(key))
	if v == nil {
		return nil, false
	}
	return clone(v), true
}

// GetJSON decodes the value at key into v. found is false (and v untouched) if it is missing.
func (t *Tx) GetJSON(b Path, key string, v any) (found bool, err error) {
	bk := t.bucket(b)
	if bk == nil {
		return false, nil
	}
	raw := bk.Get([]byte(key))
	if raw == nil {
		return false, nil
	}
	// Decoding straight from the map is safe: encoding/json copies what it keeps, and Unmarshaler
	// implementations are required to copy too.
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("decode %s/%s: %w", b, key, err)
	}
	return true, nil
}

// Put stores a copy of val at key in bucket b, creating b and its parents if missing. It fails with
// ErrReadOnlyTx inside View.
func (t *Tx) Put(b Path, key string, val []byte) error {
	bk, err := t.createBucket(b)
	if err != nil {
		return fmt.Errorf("put %s/%s: %w", b, key, err)
	}
	// bbolt keeps a reference to val until commit; copy so callers may reuse their buffer.
	if err := bk.Put([]byte(key), clone(val)); err != nil {
		return fmt.Errorf("put %s/%s: %w", b, key, err)
	}
	return nil
}

// AppendFillPercent is how full Append leaves the pages it splits.
const AppendFillPercent = 1.0

// Append is Put for a bucket whose keys arrive in increasing order (ids that sort by time): bbolt
// splits a full page in half by default, which leaves an append-only bucket half empty for good;
// Append fills pages to AppendFillPercent. A key that lands inside the bucket is still stored
// correctly, only its page is split fuller.
func (t *Tx) Append(b Path, key string, val []byte) error {
	bk, err := t.createBucket(b)
	if err != nil {
		return fmt.Errorf("put %s/%s: %w", b, key, err)
	}
	bk.FillPercent = AppendFillPercent
	if err := bk.Put([]byte(key), clone(val)); err != nil {
		return fmt.Errorf("put %s/%s: %w", b, key, err)
	}
	return nil
}

// PutJSON stores v encoded as JSON, like Put.
func (t *Tx) PutJSON(b Path, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s/%s: %w", b, key, err)
	}
	bk, err := t.createBucket(b)
	if err != nil {
		return fmt.Errorf("put %s/%s: %w", b, key, err)
	}
	if err := bk.Put([]byte(key), raw); err != nil {
		return fmt.Errorf("put %s/%s: %w", b, key, err)
	}
	return nil
}

// Delete removes key from bucket b. A missing key or bucket is not an error, so deletes can be
// repeated safely; deleting a nested bucket's name is (use DeleteBucket).
func (t *Tx) Delete(b Path, key string) error {
	if !t.live().Writable() {
		return fmt.Errorf("delete %s/%s: %w", b, key, ErrReadOnlyTx)
	}
	bk := t.bucket(b)
	if bk == nil {
		return nil
	}
	t.changes(b)
	if err := bk.Delete([]byte(key)); err != nil {
		if errors.Is(err, berrors.ErrIncompatibleValue) {
			return fmt.Errorf("delete %s/%s: key names a bucket: %w", b, key, err)
		}
		return fmt.Errorf("delete %s/%s: %w", b, key, err)
	}
	return nil
}

// ForEach calls fn with a copy of every plain key and value in bucket b, in key order, skipping
// nested buckets. A missing bucket means no calls. An error from fn stops the walk and is returned
// unchanged. fn must not modify bucket b (bbolt cursors are invalidated by writes); collect keys and
// change them after ForEach returns.
func (t *Tx) ForEach(b Path, fn func(key string, val []byte) error) error {
	bk := t.bucket(b)
	if bk == nil {
		return nil
	}
	c := bk.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v == nil {
			continue
		}
		if err := fn(string(k), clone(v)); err != nil {
			return err
		}
	}
	return nil
}

// Seek walks bucket b in key order from the first key >= from (all keys if from is empty), calling
// fn with copies until fn returns more == false or an error, which is returned unchanged. Nested
// buckets are skipped. fn must not modify bucket b.
func (t *Tx) Seek(b Path, from string, fn func(key string, val []byte) (more bool, err error)) error {
	bk := t.bucket(b)
	if bk == nil {
		return nil
	}
	c := bk.Cursor()
	var k, v []byte
	if from == "" {
		k, v = c.First()
	} else {
		k, v = c.Seek([]byte(from))
	}
	return walk(k, v, c.Next, fn)
}

// walk calls fn with copies of the plain keys from k on, stepping with next, until fn stops.
func walk(k, v []byte, next func() ([]byte, []byte), fn func(key string, val []byte) (more bool, err error)) error {
	for ; k != nil; k, v = next() {
		if v == nil {
			continue
		}
		more, err := fn(string(k), clone(v))
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
	}
	return nil
}

// NextSequence returns the next value of bucket b's persistent counter (starting at 1), creating
// the bucket if missing. Paired with SeqKey it gives ordered, never-reused keys.
func (t *Tx) NextSequence(b Path) (uint64, error) {
	bk, err := t.createBucket(b)
	if err != nil {
		return 0, fmt.Errorf("next sequence %s: %w", b, err)
	}
	n, err := bk.NextSequence()
	if err != nil {
		return 0, fmt.Errorf("next sequence %s: %w", b, err)
	}
	return n, nil
}

// SetSequence sets bucket b's persistent counter, creating the bucket if missing; a repair uses
// it to move a counter that fell behind the keys it gave out past them.
func (t *Tx) SetSequence(b Path, n uint64) error {
	bk, err := t.createBucket(b)
	if err != nil {
		return fmt.Errorf("set sequence %s: %w", b, err)
	}
	if err := bk.SetSequence(n); err != nil {
		return fmt.Errorf("set sequence %s: %w", b, err)
	}
	return nil
}

// Writable reports whether this is an Update's transaction. What a writable transaction reads may
// still roll back, so caches are filled only from read-only ones.
func (t *Tx) Writable() bool { return t.live().Writable() }

// Sequence returns bucket b's persistent counter without advancing it (0 for a missing bucket).
// A package that bumps the counter with NextSequence on every change of b can use it as b's
// version, to keep a decoded copy of b in memory until the number moves.
func (t *Tx) Sequence(b Path) uint64 {
	bk := t.bucket(b)
	if bk == nil {
		return 0
	}
	return bk.Sequence()
}

// DeleteBucket removes bucket b with everything in it. A missing bucket is not an error.
func (t *Tx) DeleteBucket(b Path) error {
	tx := t.live()
	if !tx.Writable() {
		return fmt.Errorf("delete bucket %s: %w", b, ErrReadOnlyTx)
	}
	if len(b) == 0 {
		return errors.New("delete bucket: empty bucket path")
	}
	t.changes(b)
	name := []byte(b[len(b)-1])
	var err error
	if len(b) == 1 {
		err = tx.DeleteBucket(name)
	} else {
		parent := t.bucket(b[:len(b)-1])
		if parent == nil {
			return nil
		}
		err = parent.DeleteBucket(name)
	}
	if err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
		return fmt.Errorf("delete bucket %s: %w", b, err)
	}
	return nil
}

// Buckets returns the names of the buckets nested directly under b, in key order; an empty b lists
// the top-level buckets. A missing bucket gives none.
func (t *Tx) Buckets(b Path) ([]string, error) {
	var names []string
	if len(b) == 0 {
		err := t.live().ForEach(func(name []byte, _ *bbolt.Bucket) error {
			names = append(names, string(name))
			return nil
		})
		return names, err
	}
	bk := t.bucket(b)
	if bk == nil {
		return nil, nil
	}
	c := bk.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v == nil {
			names = append(names, string(k))
		}
	}
	return names, nil
}

// SeqKey encodes n as 8 big-endian bytes, so sequence keys sort numerically under bbolt's bytewise
// order (decimal strings would put 10 before 9).
func SeqKey(n uint64) string {
	return string(binary.BigEndian.AppendUint64(make([]byte, 0, 8), n))
}

// ParseSeqKey decodes a key made by SeqKey; ok is false for any other key.
func ParseSeqKey(k string) (n uint64, ok bool) {
	if len(k) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64([]byte(k)), true
}

// SeekReverse walks bucket b in descending key order from the last key < before (all keys if
// before is empty), calling fn with copies until fn returns more == false or an error, which is
// returned unchanged. Nested buckets are skipped. fn must not modify bucket b. It serves
// newest-first pages over time-ordered keys.
func (t *Tx) SeekReverse(b Path, before string, fn func(key string, val []byte) (more bool, err error)) error {
	bk := t.bucket(b)
	if bk == nil {
		return nil
	}
	c := bk.Cursor()
	var k, v []byte
	if before == "" {
		k, v = c.Last()
	} else {
		k, v = c.Seek([]byte(before))
		if k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
	}
	return walk(k, v, c.Prev, fn)
}
