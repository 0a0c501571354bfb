package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"time"

	"go.etcd.io/bbolt"
)

// Space. bbolt never gives a page back to the file system: a history that pruned a million
// records keeps their pages on its freelist, and the file keeps its largest size. Usage says
// how much of the file holds data; Compact rewrites it with bbolt's compaction.

// Usage is how toolhost.db uses its space.
type Usage struct {
	// FileBytes is the size of toolhost.db.
	FileBytes int64 `json:"file_bytes"`
	// DataBytes are the pages that hold buckets, the root and the two meta pages.
	DataBytes int64 `json:"data_bytes"`
	// FreeBytes is the rest: pages on bbolt's freelist and room the file grew ahead. bbolt
	// reuses them; only Compact returns them to the file system.
	FreeBytes int64 `json:"free_bytes"`
	// Buckets are the pages of each top-level bucket, largest first.
	Buckets []BucketUsage `json:"buckets"`
}

// BucketUsage is one top-level bucket's share of the file.
type BucketUsage struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
	Keys  int    `json:"keys"`
}

// Usage reads how the file's space is used. It walks every page of every bucket (a moment for
// a file of some hundred megabytes): for doctor, the console and the start-up check, not for
// every call.
func (s *Store) Usage(ctx context.Context) (Usage, error) {
	var u Usage
	err := s.View(ctx, func(tx *Tx) error {
		btx := tx.live()
		page := int64(btx.DB().Info().PageSize)
		u.DataBytes = 3 * page // two meta pages and the root bucket's page
		return btx.ForEach(func(name []byte, b *bbolt.Bucket) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			st := b.Stats()
			n := int64(st.BranchPageN+st.BranchOverflowN+st.LeafPageN+st.LeafOverflowN) * page
			u.DataBytes += n
			u.Buckets = append(u.Buckets, BucketUsage{Name: string(name), Bytes: n, Keys: st.KeyN})
			return nil
		})
	})
	if err != nil {
		return Usage{}, err
	}
	if fi, err := os.Stat(s.path); err == nil {
		u.FileBytes = fi.Size()
	}
	u.FreeBytes = max(0, u.FileBytes-u.DataBytes)
	sort.SliceStable(u.Buckets, func(i, j int) bool { return u.Buckets[i].Bytes > u.Buckets[j].Bytes })
	return u, nil
}

// FreeBytes is Usage's FileBytes and FreeBytes without walking the buckets: from bbolt's
// freelist, which a read-write handle holds (the usual case); on a read-only one (another
// process holds the file) it walks them as Usage does.
func (s *Store) FreeBytes(ctx context.Context) (free, file int64, err error) {
	walk := false
	err = s.View(ctx, func(tx *Tx) error {
		btx := tx.live()
		db := btx.DB()
		if db.IsReadOnly() {
			walk = true
			return nil
		}
		fi, err := os.Stat(s.path)
		if err != nil {
			return err
		}
		file = fi.Size()
		page := int64(db.Info().PageSize)
		// Pending pages were freed by the last commits and are reusable once no reader
		// that began before them is left.
		st := db.Stats()
		free = int64(st.FreePageN+st.PendingPageN)*page + max(0, file-btx.Size())
		return nil
	})
	if err != nil || !walk {
		return free, file, err
	}
	u, err := s.Usage(ctx)
	return u.FreeBytes, u.FileBytes, err
}

// CompactReport says what Compact did.
type CompactReport struct {
	Before, After int64 // toolhost.db's size
	Took          time.Duration
}

// Files Compact writes next to toolhost.db: the compacted copy before it replaces the file,
// and the copy of the file as it was, kept until the new one is in place.
const (
	compactTempSuffix   = ".compact"
	compactBackupSuffix = ".compact-backup"
)

// compactTxBytes bounds one transaction of bbolt.Compact, so a large file is copied in pieces
// rather than held in memory at once.
const compactTxBytes = 64 << 20

// lockGrace is how long Compact keeps the old file locked after the new one took its name: a
// process that opened the old file just before the rename tries its lock right after, fails,
// and opens the name again, now the new file.
const lockGrace = 200 * time.Millisecond

// ErrCompactCheck is returned when the compacted copy does not hold what the file held; the
// file is left as it was.
var ErrCompactCheck = errors.New("compacted copy differs from the state file")

// Compact rewrites toolhost.db without its free pages. It holds the file's exclusive lock
// throughout (other processes wait for it, as for any write), first keeps a copy of the file
// (toolhost.db.compact-backup), writes the compacted file beside it, checks that it holds every
// key and value, and renames it over toolhost.db; the copy is removed once the new file is in
// place. A crash at any point leaves a whole toolhost.db, the old one or the new one (the
// rename is atomic); leftovers of an interrupted run are removed by the next.
func (s *Store) Compact(ctx context.Context) (CompactReport, error) {
	var rep CompactReport
	start := time.Now()
	if err := s.awaitCreated(ctx); err != nil {
		return rep, err
	}
	h, release, err := s.acquire(ctx, true)
	if err != nil {
		return rep, fmt.Errorf("compact %s: %w", s.path, err)
	}
	// The handle is retired either way: the next transaction opens whatever file has the name.
	defer release(false)
	tmp, backup := s.path+compactTempSuffix, s.path+compactBackupSuffix
	for _, stale := range []string{tmp, backup} {
		if err := os.Remove(stale); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return rep, fmt.Errorf("compact %s: %w", s.path, err)
		}
	}
	if fi, err := os.Stat(s.path); err == nil {
		rep.Before = fi.Size()
	}
	if err := h.db.View(func(tx *bbolt.Tx) error { return writeCopy(tx, backup) }); err != nil {
		os.Remove(backup)
		return rep, fmt.Errorf("compact %s: keep a copy: %w", s.path, err)
	}
	fail := func(err error) (CompactReport, error) {
		os.Remove(tmp)
		os.Remove(backup)
		return rep, fmt.Errorf("compact %s: %w", s.path, err)
	}
	dst, err := bbolt.Open(tmp, fileMode, &bbolt.Options{Timeout: time.Second, NoSync: s.opts.NoSync})
	if err != nil {
		return fail(err)
	}
	if err := bbolt.Compact(dst, h.db, compactTxBytes); err != nil {
		dst.Close()
		return fail(err)
	}
	if err := dst.Close(); err != nil {
		return fail(err)
	}
	if err := sameContents(ctx, h.db, tmp); err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, s.path); err != nil {
		return fail(err)
	}
	syncDir(s.dir)
	if txid, ok := readTxID(s.path); ok {
		// The new file numbers its transactions afresh: note it as a change of the file.
		s.stampMu.Lock()
		s.observeLocked(txid, true)
		s.stampMu.Unlock()
	}
	time.Sleep(lockGrace)
	os.Remove(backup)
	if fi, err := os.Stat(s.path); err == nil {
		rep.After = fi.Size()
	}
	rep.Took = time.Since(start)
	return rep, nil
}

// writeCopy writes the database as tx sees it to a new file, synced.
func writeCopy(tx *bbolt.Tx, path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return err
	}
	if _, err := tx.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// sameContents checks that the file at path holds the same buckets, sequences, keys and values
// as src, by a digest of each walk.
func sameContents(ctx context.Context, src *bbolt.DB, path string) error {
	digest := func(db *bbolt.DB) (n int, sum uint64, err error) {
		err = db.View(func(tx *bbolt.Tx) error {
			var werr error
			n, werr = walkTree(ctx, tx.Cursor(), func(p []string, k, v []byte, seq uint64) error {
				sum = mix(sum, p, k, v, seq)
				return nil
			}, nil)
			return werr
		})
		return n, sum, err
	}
	n0, s0, err := digest(src)
	if err != nil {
		return err
	}
	dst, err := bbolt.Open(path, fileMode, &bbolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		return err
	}
	defer dst.Close()
	n1, s1, err := digest(dst)
	if err != nil {
		return err
	}
	if n0 != n1 || s0 != s1 {
		return fmt.Errorf("%w: %d values before, %d after", ErrCompactCheck, n0, n1)
	}
	return nil
}

// mix folds one visited entry into an order-dependent FNV-1a digest.
func mix(h uint64, path []string, k, v []byte, seq uint64) uint64 {
	const prime = 1099511628211
	if h == 0 {
		h = 14695981039346656037
	}
	add := func(b []byte) {
		for _, c := range b {
			h ^= uint64(c)
			h *= prime
		}
		h ^= 0xff
		h *= prime
	}
	for _, p := range path {
		add([]byte(p))
	}
	add(k)
	add(v)
	for i := 0; i < 8; i++ {
		h ^= seq >> (8 * i) & 0xff
		h *= prime
	}
	return h
}
