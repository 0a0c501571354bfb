package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.etcd.io/bbolt"
)

// Check reads every bucket, key and value of the database, as a repair would, and returns an
// error wrapping ErrDamaged for the first one it cannot read. It is what `toolhost doctor` runs;
// bbolt's own page checker is not used because it panics in a goroutine of its own, which would
// end the process on exactly the files it is meant to diagnose.
func (s *Store) Check(ctx context.Context) error {
	return s.View(ctx, func(tx *Tx) error {
		_, err := walkTree(ctx, tx.live().Cursor(), nil, nil)
		return err
	})
}

// walkTree visits every key under cursor c, descending into nested buckets, and calls copyKV (when
// not nil) for each plain value, and with k == nil for each nested bucket (its path and
// sequence) before its contents. path names c's bucket. A panic (bbolt meeting a damaged page)
// becomes an ErrDamaged error naming the bucket; a damaged nested bucket does not stop the walk of
// its siblings, so everything readable is visited. n counts the values visited; err joins the
// damage found (and is the first write error of copyKV, which stops the walk).
func walkTree(ctx context.Context, c *bbolt.Cursor, copyKV func(path []string, k, v []byte, seq uint64) error, path []string) (n int, err error) {
	var damage []error
	defer func() {
		if p := recover(); p != nil {
			damage = append(damage, fmt.Errorf("%w: bucket %q: %v", ErrDamaged, strings.Join(path, "/"), p))
		}
		if err == nil {
			err = errors.Join(damage...)
		}
	}()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		if v != nil {
			if copyKV != nil {
				if err := copyKV(path, k, v, 0); err != nil {
					return n, err
				}
			}
			n++
			continue
		}
		sub := append(append([]string(nil), path...), string(k))
		m, err := walkNested(ctx, c.Bucket(), k, copyKV, sub)
		n += m
		if err != nil && !errors.Is(err, ErrDamaged) {
			return n, err
		}
		if err != nil {
			damage = append(damage, err)
		}
	}
	return n, nil
}

// walkNested walks the bucket named k inside parent (a transaction's root cursor belongs to its
// root bucket, so this also finds top-level buckets), turning a panic on the way in into damage.
func walkNested(ctx context.Context, parent *bbolt.Bucket, k []byte, copyKV func(path []string, k, v []byte, seq uint64) error, sub []string) (n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: bucket %q: %v", ErrDamaged, strings.Join(sub, "/"), p)
		}
	}()
	child := parent.Bucket(k)
	if child == nil {
		return 0, fmt.Errorf("%w: bucket %q unreadable", ErrDamaged, strings.Join(sub, "/"))
	}
	if copyKV != nil {
		if err := copyKV(sub, nil, nil, child.Sequence()); err != nil {
			return 0, err
		}
	}
	return walkTree(ctx, child.Cursor(), copyKV, sub)
}

// RepairReport says what Repair did.
type RepairReport struct {
	// Backup is the copy of the damaged file, kept beside it.
	Backup string
	// Copied counts the values carried over into the new file.
	Copied int
	// Lost lists the top-level buckets that could not be read to the end, with the reason.
	Lost []string
	// Unreadable is set when the old file could not be opened at all: the new file starts empty.
	Unreadable error
}

// Repair rebuilds the database of state directory dir from what can still be read: it copies
// toolhost.db to toolhost.db.damaged-TIME (kept for the user), copies every readable bucket and
// value into a new file, and renames that over toolhost.db. Buckets that cannot be read to the end
// keep what was read before the damage. The next Open runs migrations on the new file, and
// in-memory indexes (memories) are rebuilt from it as usual. Run it while no toolhost server uses
// dir: it takes the file lock for the copy (announcing its wait, so an idle server lets go) and
// fails with ErrBusy if another process keeps it.
func Repair(ctx context.Context, dir string) (RepairReport, error) {
	var rep RepairReport
	path := filepath.Join(dir, dbFileName)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return rep, nil
	}
	if err != nil {
		return rep, fmt.Errorf("repair %s: %w", path, err)
	}
	defer f.Close()
	if err := lockWithin(ctx, f, DefaultLockTimeout); err != nil {
		return rep, fmt.Errorf("repair %s: %w", path, err)
	}
	rep.Backup = path + ".damaged-" + time.Now().UTC().Format("20060102T150405Z")
	if err := copyFile(f, rep.Backup); err != nil {
		return rep, fmt.Errorf("repair %s: keep a copy: %w", path, err)
	}
	tmp := path + ".repair"
	_ = os.Remove(tmp)
	nu, err := bbolt.Open(tmp, fileMode, &bbolt.Options{Timeout: time.Second})
	if err != nil {
		return rep, fmt.Errorf("repair %s: %w", path, err)
	}
	old, err := bbolt.Open(rep.Backup, fileMode, &bbolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		rep.Unreadable = err
	} else {
		rep.Copied, rep.Lost, err = salvage(ctx, old, nu)
		old.Close()
		if err != nil {
			nu.Close()
			os.Remove(tmp)
			return rep, fmt.Errorf("repair %s: %w", path, err)
		}
	}
	if err := nu.Close(); err != nil {
		os.Remove(tmp)
		return rep, fmt.Errorf("repair %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return rep, fmt.Errorf("repair %s: %w", path, err)
	}
	syncDir(dir)
	return rep, nil
}

// salvage copies every readable top-level bucket of old into nu, one write transaction per bucket
// so that one damaged bucket does not cost the others.
func salvage(ctx context.Context, old, nu *bbolt.DB) (copied int, lost []string, err error) {
	var names [][]byte
	err = func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				lost = append(lost, fmt.Sprintf("(bucket list): %v", p))
			}
		}()
		return old.View(func(tx *bbolt.Tx) error {
			return tx.ForEach(func(name []byte, _ *bbolt.Bucket) error {
				names = append(names, append([]byte(nil), name...))
				return nil
			})
		})
	}()
	if err != nil {
		return 0, nil, err
	}
	for _, name := range names {
		var n int
		var damage error
		err := old.View(func(otx *bbolt.Tx) error {
			return nu.Update(func(ntx *bbolt.Tx) error {
				ob := otx.Bucket(name)
				if ob == nil {
					damage = fmt.Errorf("%w: unreadable", ErrDamaged)
					return nil
				}
				nb, err := ntx.CreateBucketIfNotExists(name)
				if err != nil {
					return err
				}
				if err := nb.SetSequence(ob.Sequence()); err != nil {
					return err
				}
				n, damage = walkTree(ctx, ob.Cursor(), func(p []string, k, v []byte, seq uint64) error {
					b := nb
					for _, part := range p {
						if b, err = b.CreateBucketIfNotExists([]byte(part)); err != nil {
							return err
						}
					}
					if k == nil {
						return b.SetSequence(seq)
					}
					return b.Put(append([]byte(nil), k...), append([]byte(nil), v...))
				}, nil)
				// What was read before the damage is kept; only a write error aborts.
				if damage != nil && !errors.Is(damage, ErrDamaged) {
					return damage
				}
				return nil
			})
		})
		if err != nil {
			return copied, lost, err
		}
		copied += n
		if damage != nil {
			lost = append(lost, fmt.Sprintf("%s: %v", name, damage))
		}
	}
	return copied, lost, nil
}

// lockWithin takes f's exclusive flock (the lock bbolt uses), retrying until timeout or ctx ends.
func lockWithin(ctx context.Context, f *os.File, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	// Announce the wait as a Store does, so an idle server sharing the directory lets go of its
	// kept handle (handle.go).
	var notice waitNotice
	defer notice.withdraw()
	for {
		err := tryLock(f, true)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errLocked) {
			return err
		}
		notice.announce(filepath.Dir(f.Name()))
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: another process holds it; stop the toolhost servers using this state directory", ErrBusy)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// copyFile writes the contents of f to a new file dst, synced.
func copyFile(f *os.File, dst string) error {
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, io.NewSectionReader(f, 0, 1<<62)); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	return out.Close()
}
