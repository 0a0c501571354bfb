package edit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"toolhost/internal/owner"
)

// A commit is carried out as a transaction over files in one root, in four steps, so that a crash
// at any point leaves every file either as it was or as the plan wants it:
//
//  1. intent: the journal records every file the transaction will touch, with the names of its
//     temporary and backup files, and is fsynced (nothing in the tree has changed yet);
//  2. prepare: missing directories are created, each new content is written to a temporary
//     file beside its target and fsynced, and each file to be replaced gets a backup, a hard
//     link to its current content (a copy where links are not supported);
//  3. commit: the journal record is renamed to its committed state and fsynced; from here on
//     the change is rolled forward, never back;
//  4. apply: temporary files are renamed over their targets and removed files renamed to their
//     backups; then the record is marked done and the backups are removed.
//
// Recovery (see Journal.Recover) reads the state from the record's name: a transaction that
// never committed is rolled back by removing its temporary files, backups and new directories;
// a committed one is rolled forward by repeating the renames whose temporary files still exist.
// A failure while applying (a rename refused by the file system) marks the record aborted and
// rolls the applied steps back from the backups, so callers still see all or nothing.

// txnOp is one file operation of a transaction, as the journal records it.
type txnOp struct {
	// Op is "write" (Temp is renamed over Path) or "remove" (Path is renamed to Backup).
	Op string `json:"op"`
	// Path is the target, relative to the root, symlinks resolved for writes.
	Path string `json:"path"`
	// Temp holds the new content of a write until it is renamed over Path.
	Temp string `json:"temp,omitempty"`
	// Backup keeps the old content: for a write over an existing file a hard link to it (or a
	// copy), for a remove the file itself, renamed.
	Backup string `json:"backup,omitempty"`
	// Mode is the permission of the written file.
	Mode fs.FileMode `json:"mode,omitempty"`

	data []byte // new content of a write
	old  []byte // old content, for a backup copy where hard links fail
}

const (
	opWrite  = "write"
	opRemove = "remove"
)

// txnRecord is a transaction as the journal stores it.
type txnRecord struct {
	V int `json:"v"`
	// Root is the absolute directory every path is relative to.
	Root string `json:"root"`
	// Dirs are the directories the transaction creates, outermost first.
	Dirs []string `json:"dirs,omitempty"`
	Ops  []txnOp  `json:"ops"`
}

const txnVersion = 1

// txn is a transaction being carried out.
type txn struct {
	root *os.Root
	rec  txnRecord
}

// newTxn turns a plan into file operations on root, checking first that every file still holds
// what the plan was computed from (ErrConflict otherwise). Updates that change nothing are left
// out, so an unchanged file keeps its mtime.
func newTxn(root *os.Root, p *Plan) (*txn, error) {
	dir, err := rootDir(root)
	if err != nil {
		return nil, fmt.Errorf("resolve root: %w", err)
	}
	t := &txn{root: root, rec: txnRecord{V: txnVersion, Root: dir}}
	write := func(rel string, data, old []byte, mode fs.FileMode, backup bool) error {
		target, err := resolve(root, rel)
		if err != nil {
			return err
		}
		op := txnOp{Op: opWrite, Path: target, Mode: mode, data: data, old: old}
		op.Temp = tempName(target, "")
		if backup {
			op.Backup = tempName(target, ".old")
		}
		t.rec.Ops = append(t.rec.Ops, op)
		return nil
	}
	remove := func(rel string) {
		t.rec.Ops = append(t.rec.Ops, txnOp{Op: opRemove, Path: rel, Backup: tempName(rel, ".old")})
	}
	for _, c := range p.Changes {
		switch c.Op {
		case OpAdd:
			if _, err := expect(root, c.Path, nil); err != nil {
				return nil, err
			}
			if err := write(c.Path, c.New, nil, DefaultFileMode, false); err != nil {
				return nil, err
			}
		case OpUpdate:
			mode, err := expect(root, c.Path, c.Old)
			if err != nil {
				return nil, err
			}
			if string(c.Old) == string(c.New) {
				continue // leave the file and its mtime alone
			}
			if err := write(c.Path, c.New, c.Old, mode, true); err != nil {
				return nil, err
			}
		case OpDelete:
			if _, err := expect(root, c.Path, c.Old); err != nil {
				return nil, err
			}
			remove(c.Path)
		case OpMove:
			mode, err := expect(root, c.Path, c.Old)
			if err != nil {
				return nil, err
			}
			if _, err := expect(root, c.NewPath, nil); err != nil {
				return nil, err
			}
			if err := write(c.NewPath, c.New, nil, mode, false); err != nil {
				return nil, err
			}
			remove(c.Path)
		default:
			return nil, fmt.Errorf("%w: unknown change op %q", ErrInvalidArgument, c.Op)
		}
	}
	seen := map[string]bool{}
	for _, op := range t.rec.Ops {
		if seen[op.Path] {
			return nil, fmt.Errorf("%w: %s is changed twice in one edit (a symlink and its target?)", ErrInvalidArgument, op.Path)
		}
		seen[op.Path] = true
	}
	if t.rec.Dirs, err = missingDirs(root, t.rec.Ops); err != nil {
		return nil, err
	}
	return t, nil
}

// missingDirs lists the parent directories the writes need that do not exist yet, outermost
// first, refusing a file in the way.
func missingDirs(root *os.Root, ops []txnOp) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, op := range ops {
		if op.Op != opWrite {
			continue
		}
		var missing []string
		for d := path.Dir(op.Path); d != "." && !seen[d]; d = path.Dir(d) {
			fi, err := root.Stat(d)
			if err == nil {
				if !fi.IsDir() {
					return nil, fmt.Errorf("create directory %s: %w: a file is in the way", d, ErrExists)
				}
				break
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("create directory %s: %w", d, err)
			}
			missing = append(missing, d)
		}
		for i := len(missing) - 1; i >= 0; i-- {
			seen[missing[i]] = true
			out = append(out, missing[i])
		}
	}
	return out, nil
}

// tempName names a temporary (suffix "") or backup (".old") file beside target. The name starts
// with tempPrefix and this process's owner ID, so leftovers are recognisable and can be told
// apart from a live process's files; the target's name is cut to keep within NAME_MAX.
func tempName(target, suffix string) string {
	dir, base := path.Split(target)
	const maxBase = 160
	if len(base) > maxBase {
		cut := maxBase
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	return dir + tempPrefix + owner.Self().String() + "-" + strconv.FormatUint(rand.Uint64(), 36) + "-" + base + suffix
}

// tempOwner returns the owner named in a temporary file's base name, if it has one.
func tempOwner(base string) (owner.ID, bool) {
	rest, ok := strings.CutPrefix(base, tempPrefix)
	if !ok {
		return owner.ID{}, false
	}
	id, _, _ := strings.Cut(rest, "-")
	return owner.Parse(id)
}

// prepare creates the directories, temporary files and backups. On failure the caller rolls
// back with prepared=false.
func (t *txn) prepare(hook func(string)) error {
	for _, d := range t.rec.Dirs {
		if err := t.root.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create directory %s: %w", d, err)
		}
	}
	for _, op := range t.rec.Ops {
		if op.Op != opWrite {
			continue
		}
		if err := writeNew(t.root, op.Temp, op.data, op.Mode.Perm()); err != nil {
			return fmt.Errorf("write %s: %w", op.Path, err)
		}
		if op.Backup != "" {
			if err := t.root.Link(op.Path, op.Backup); err != nil {
				// Some file systems have no hard links; a copy keeps the old content as well.
				old := op.old
				if old == nil {
					if old, _, err = readRegular(t.root, op.Path); err != nil {
						return fmt.Errorf("back up %s: %w", op.Path, err)
					}
				}
				if err := writeNew(t.root, op.Backup, old, op.Mode.Perm()); err != nil {
					return fmt.Errorf("back up %s: %w", op.Path, err)
				}
			}
		}
		hook("prepare " + op.Path)
	}
	return t.syncDirs()
}

// writeNew creates name exclusively with data, fsynced, with exactly mode perm.
func writeNew(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	if perm == 0 {
		perm = DefaultFileMode
	}
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		_ = root.Remove(name)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		_ = root.Remove(name)
		return err
	}
	if err := f.Close(); err != nil {
		_ = root.Remove(name)
		return err
	}
	// The umask may have narrowed the bits given to OpenFile.
	if err := root.Chmod(name, perm); err != nil {
		_ = root.Remove(name)
		return err
	}
	return nil
}

// apply performs the renames of a committed transaction in order. It stops at the first failure,
// which the caller answers by rolling back.
func (t *txn) apply(hook func(string)) error {
	for _, op := range t.rec.Ops {
		switch op.Op {
		case opWrite:
			if err := t.root.Rename(op.Temp, op.Path); err != nil {
				return fmt.Errorf("write %s: %w", op.Path, err)
			}
		case opRemove:
			if err := t.root.Rename(op.Path, op.Backup); err != nil {
				return fmt.Errorf("delete %s: %w", op.Path, err)
			}
		}
		hook("apply " + op.Path)
	}
	return t.syncDirs()
}

// rollForward finishes a committed transaction from what is on disk: a write whose temporary file
// still exists was not applied yet, a remove whose file still exists and has no backup neither.
// It is idempotent.
func (t *txn) rollForward() error {
	var errs []error
	for _, op := range t.rec.Ops {
		switch op.Op {
		case opWrite:
			if t.exists(op.Temp) {
				if err := t.root.Rename(op.Temp, op.Path); err != nil {
					errs = append(errs, fmt.Errorf("write %s: %w", op.Path, err))
				}
			}
		case opRemove:
			if t.exists(op.Path) && !t.exists(op.Backup) {
				if err := t.root.Rename(op.Path, op.Backup); err != nil {
					errs = append(errs, fmt.Errorf("delete %s: %w", op.Path, err))
				}
			}
		}
	}
	if err := t.syncDirs(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// rollBack undoes a transaction from what is on disk. prepared says the prepare step completed
// (the transaction committed and then aborted): a write without its temporary file was applied
// then and is undone from its backup. Otherwise nothing was applied, and only the temporary
// files, backups and new directories are removed. It is idempotent.
func (t *txn) rollBack(prepared bool) error {
	var errs []error
	for _, op := range slices.Backward(t.rec.Ops) {
		switch {
		case op.Op == opWrite && t.exists(op.Temp):
			errs = append(errs, t.removeIfExists(op.Temp))
			if op.Backup != "" {
				errs = append(errs, t.removeIfExists(op.Backup)) // a link to the untouched file
			}
		case op.Op == opWrite && !prepared:
			if op.Backup != "" {
				errs = append(errs, t.removeIfExists(op.Backup))
			}
		case op.Op == opWrite && op.Backup != "":
			if t.exists(op.Backup) {
				if err := t.root.Rename(op.Backup, op.Path); err != nil {
					errs = append(errs, fmt.Errorf("restore %s: %w", op.Path, err))
				}
				// If the write never happened, the backup is still a hard link to the file and
				// rename(2) of one link onto another does nothing: drop the link.
				errs = append(errs, t.removeIfExists(op.Backup))
			}
		case op.Op == opWrite:
			errs = append(errs, t.removeIfExists(op.Path)) // an added file
		case op.Op == opRemove && t.exists(op.Backup) && !t.exists(op.Path):
			if err := t.root.Rename(op.Backup, op.Path); err != nil {
				errs = append(errs, fmt.Errorf("restore %s: %w", op.Path, err))
			}
		}
	}
	for _, d := range slices.Backward(t.rec.Dirs) {
		_ = t.root.Remove(d) // only when empty: someone else may have put files there
	}
	if err := t.syncDirs(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// cleanup removes the backups of a finished transaction (and any temporary file left).
func (t *txn) cleanup() error {
	var errs []error
	for _, op := range t.rec.Ops {
		if op.Temp != "" {
			errs = append(errs, t.removeIfExists(op.Temp))
		}
		if op.Backup != "" {
			errs = append(errs, t.removeIfExists(op.Backup))
		}
	}
	return errors.Join(errs...)
}

func (t *txn) exists(name string) bool {
	_, err := t.root.Lstat(name)
	return err == nil
}

func (t *txn) removeIfExists(name string) error {
	if err := t.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	return nil
}

// syncDirs fsyncs every directory the transaction touches, so renames and new names survive a
// power loss. Best effort where a directory cannot be opened or synced.
func (t *txn) syncDirs() error {
	dirs := map[string]bool{}
	for _, op := range t.rec.Ops {
		dirs[path.Dir(op.Path)] = true
	}
	for _, d := range t.rec.Dirs {
		dirs[path.Dir(d)] = true
	}
	for _, d := range slices.Sorted(func(yield func(string) bool) {
		for d := range dirs {
			if !yield(d) {
				return
			}
		}
	}) {
		f, err := t.root.Open(d)
		if err != nil {
			continue
		}
		err = f.Sync()
		f.Close()
		if err != nil && !errors.Is(err, os.ErrInvalid) && !errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("sync directory %s: %w", d, err)
		}
	}
	return nil
}

// commit carries the transaction out, journaled in j (nil: without a journal, which survives
// everything but a crash). It returns nil when every change is on disk, and otherwise an error
// with every file as it was (or, if even the rollback failed, a joined error saying so).
func (t *txn) commit(ctx context.Context, j *Journal) error {
	if len(t.rec.Ops) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	hook := func(string) {}
	var rec *journalFile
	if j != nil && !j.off.Load() {
		hook = j.step
		var err error
		if rec, err = j.begin(&t.rec); err != nil {
			if !stateUnwritable(err) {
				return err
			}
			// A full or read-only state directory must not stop file operations in the
			// working directory: go on without the journal, all or nothing while this process
			// lives (as with a nil journal), and say so in the log.
			j.logger.Warn("edit journal not writable: this change is not crash-atomic", "err", err)
			rec, hook = nil, func(string) {}
		}
	}
	undo := func(cause error, prepared bool) error {
		if prepared && rec != nil {
			if err := rec.advance(stateAbort); err != nil {
				return errors.Join(cause, fmt.Errorf("rollback incomplete: %w", err))
			}
			hook("abort")
		}
		if err := t.rollBack(prepared); err != nil {
			return errors.Join(cause, fmt.Errorf("rollback incomplete: %w", err))
		}
		if rec != nil {
			rec.remove()
		}
		return cause
	}
	if err := t.prepare(hook); err != nil {
		return undo(err, false)
	}
	// The last moment to give up: past the commit record the change is finished, whatever
	// happens to the call.
	if err := ctx.Err(); err != nil {
		return undo(err, false)
	}
	if rec != nil {
		if err := rec.advance(stateCommit); err != nil {
			return undo(err, false)
		}
	}
	hook("commit")
	if err := t.apply(hook); err != nil {
		return undo(err, true)
	}
	if rec != nil {
		if err := rec.advance(stateDone); err != nil {
			// Applied and durable; recovery finishes the bookkeeping.
			j.logger.Warn("edit journal: cannot mark a transaction done", "err", err)
			return nil
		}
		hook("done")
	}
	if err := t.cleanup(); err != nil && j != nil {
		j.logger.Warn("edit journal: cleanup after commit", "err", err)
	}
	if rec != nil {
		rec.remove()
	}
	return nil
}

// stateUnwritable reports whether err says the journal's directory cannot take a write at all
// (full, read-only, no permission), as opposed to a failure of this one transaction.
func stateUnwritable(err error) bool {
	for _, e := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS, syscall.EACCES, syscall.EPERM} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
