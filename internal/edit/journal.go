package edit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"toolhost/internal/owner"
)

// Journal makes multi-file writes crash-atomic. It lives in a directory of the state directory;
// each transaction is one small JSON file named OWNER-SEQ.STATE, where OWNER is the writing
// process (see package owner) and STATE is intent, commit, abort or done. The state changes by
// renaming the file, so it is always exactly one of them (see txn.go for the steps).
//
// Several toolhost processes may share a journal directory: a process recovers only the
// transactions of owners that are no longer running, never a live one's, and recoveries are
// serialised by a lock file.
type Journal struct {
	dir    string
	owner  owner.ID
	logger *slog.Logger
	seq    atomic.Uint64
	// off is set when Open could not make the directory: the journal then acts as none.
	off atomic.Bool
	// hook, when set (tests), is called at each step of a commit; a panic in it stands for a
	// crash at that point.
	hook func(step string)
}

// Journal file states.
const (
	stateIntent = "intent"
	stateCommit = "commit"
	stateAbort  = "abort"
	stateDone   = "done"
)

// recoverLock serialises recoveries of one journal directory.
const recoverLock = "recover.lock"

// StaleTempAge is how old a temporary file whose owner cannot be told (a name from an older
// version, or an owner that may still run elsewhere) must be before a sweep removes it. No write
// keeps its temporary file that long.
const StaleTempAge = time.Hour

// Recovery reports what Journal.Recover did.
type Recovery struct {
	// RolledForward and RolledBack count interrupted transactions finished or undone; Cleaned
	// counts finished ones whose bookkeeping was left.
	RolledForward, RolledBack, Cleaned int
	// Paths lists the files of the transactions rolled forward or back, relative to their root.
	Paths []string
}

// OpenJournal opens (creating it, mode 0700) the journal directory dir and recovers every
// transaction left by a process that is no longer running. logger may be nil.
func OpenJournal(dir string, logger *slog.Logger) (*Journal, Recovery, error) {
	j := NewJournal(dir, logger)
	rep, err := j.Open()
	if j.off.Load() {
		return nil, rep, err
	}
	return j, rep, err
}

// NewJournal returns the journal of directory dir without touching the disk, for a server
// that hands it to its tools before recovery runs: the caller must call Open before any
// transaction (a server holds back every call until it has). logger may be nil.
func NewJournal(dir string, logger *slog.Logger) *Journal {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Journal{dir: dir, logger: logger}
}

// Open creates the journal directory (mode 0700) and recovers every transaction left by a
// process that is no longer running. When the directory cannot be made, the journal acts as
// none from then on (writes are all or nothing only while the process lives) and Open says why.
func (j *Journal) Open() (Recovery, error) {
	j.owner = owner.Self() // here, not in NewJournal: it reads /proc
	if err := os.MkdirAll(j.dir, 0o700); err != nil {
		j.off.Store(true)
		return Recovery{}, fmt.Errorf("edit journal: %w", err)
	}
	return j.Recover()
}

// Disabled reports whether Open could not make the directory, so that the journal acts as none.
func (j *Journal) Disabled() bool { return j.off.Load() }

// Dir returns the journal directory.
func (j *Journal) Dir() string { return j.dir }

func (j *Journal) step(s string) {
	if j.hook != nil {
		j.hook(s)
	}
}

// journalFile is one transaction's record in the journal.
type journalFile struct {
	j     *Journal
	base  string // OWNER-SEQ
	state string
}

func (f *journalFile) name() string { return filepath.Join(f.j.dir, f.base+"."+f.state) }

// begin writes a transaction's intent record, durably.
func (j *Journal) begin(rec *txnRecord) (*journalFile, error) {
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("edit journal: %w", err)
	}
	f := &journalFile{j: j, base: j.owner.String() + "-" + strconv.FormatUint(j.seq.Add(1), 10), state: stateIntent}
	out, err := os.OpenFile(f.name(), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("edit journal: %w", err)
	}
	_, err = out.Write(data)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncPath(j.dir)
	}
	if err != nil {
		_ = os.Remove(f.name())
		return nil, fmt.Errorf("edit journal: %w", err)
	}
	j.logger.Debug("edit journal", "tx", f.base, "state", stateIntent, "files", len(rec.Ops))
	j.step("intent")
	return f, nil
}

// advance renames the record to state, durably.
func (f *journalFile) advance(state string) error {
	from := f.name()
	next := *f
	next.state = state
	if err := os.Rename(from, next.name()); err != nil {
		return fmt.Errorf("edit journal: %w", err)
	}
	f.state = state
	if err := syncPath(f.j.dir); err != nil {
		return fmt.Errorf("edit journal: %w", err)
	}
	f.j.logger.Debug("edit journal", "tx", f.base, "state", state)
	return nil
}

func (f *journalFile) remove() {
	if err := os.Remove(f.name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		f.j.logger.Warn("edit journal: remove record", "err", err)
	}
}

// syncPath fsyncs a directory so that names created, renamed or removed in it are durable.
func syncPath(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// Recover finishes or undoes the transactions of every owner that is no longer running: a
// committed one is rolled forward, any other rolled back, and their temporary files and backups
// are removed. Transactions of live processes, this one included, are left alone.
func (j *Journal) Recover() (Recovery, error) {
	var rep Recovery
	unlock, err := lockFile(filepath.Join(j.dir, recoverLock))
	if err != nil {
		return rep, fmt.Errorf("edit journal: lock: %w", err)
	}
	defer unlock()
	entries, err := os.ReadDir(j.dir)
	if err != nil {
		return rep, fmt.Errorf("edit journal: %w", err)
	}
	var errs []error
	for _, e := range entries {
		base, state, ok := strings.Cut(e.Name(), ".")
		if !ok || e.IsDir() {
			continue
		}
		ownerPart, _, _ := strings.Cut(base, "-")
		id, ok := owner.Parse(ownerPart)
		if !ok || owner.Alive(id) {
			continue
		}
		if err := j.recoverOne(e.Name(), state, &rep); err != nil {
			errs = append(errs, fmt.Errorf("edit journal: recover %s: %w", e.Name(), err))
		}
	}
	return rep, errors.Join(errs...)
}

// recoverOne recovers the transaction recorded in name.
func (j *Journal) recoverOne(name, state string, rep *Recovery) error {
	file := filepath.Join(j.dir, name)
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var rec txnRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		if state == stateIntent {
			// Cut short while being written: nothing in the tree was touched yet.
			return os.Remove(file)
		}
		return fmt.Errorf("unreadable record: %w", err)
	}
	if err := rec.check(); err != nil {
		j.logger.Warn("edit journal: record refused", "file", name, "err", err)
		return os.Remove(file)
	}
	root, err := os.OpenRoot(rec.Root)
	if err != nil {
		j.logger.Warn("edit journal: root of an interrupted edit is gone", "root", rec.Root, "err", err)
		return os.Remove(file)
	}
	defer root.Close()
	t := &txn{root: root, rec: rec}
	switch state {
	case stateCommit:
		err = t.rollForward()
		if err == nil {
			err = t.cleanup()
			rep.RolledForward++
		}
	case stateAbort:
		err = t.rollBack(true)
		rep.RolledBack++
	case stateIntent:
		err = t.rollBack(false)
		rep.RolledBack++
	case stateDone:
		err = t.cleanup()
		rep.Cleaned++
	default:
		return fmt.Errorf("unknown state %q", state)
	}
	if err != nil {
		return err
	}
	if state != stateDone {
		for _, op := range rec.Ops {
			rep.Paths = append(rep.Paths, op.Path)
		}
		j.logger.Info("edit journal: recovered an interrupted edit", "state", state, "root", rec.Root, "files", len(rec.Ops))
	}
	return os.Remove(file)
}

// check refuses a record that would make recovery touch anything but files inside its root, or
// rename anything but toolhost's own temporary files and backups into place.
func (r *txnRecord) check() error {
	if r.V != txnVersion {
		return fmt.Errorf("version %d", r.V)
	}
	if !filepath.IsAbs(r.Root) {
		return fmt.Errorf("root %q is not absolute", r.Root)
	}
	own := func(name string) error {
		if name == "" {
			return nil
		}
		if c, err := cleanRel(name); err != nil || c != name {
			return fmt.Errorf("bad path %q", name)
		}
		if !strings.HasPrefix(path.Base(name), tempPrefix) {
			return fmt.Errorf("%q is not a temporary file", name)
		}
		return nil
	}
	for _, d := range r.Dirs {
		if c, err := cleanRel(d); err != nil || c != d {
			return fmt.Errorf("bad directory %q", d)
		}
	}
	for _, op := range r.Ops {
		if c, err := cleanRel(op.Path); err != nil || c != op.Path {
			return fmt.Errorf("bad path %q", op.Path)
		}
		switch op.Op {
		case opWrite:
			if op.Temp == "" {
				return fmt.Errorf("write of %s without a temporary file", op.Path)
			}
		case opRemove:
			if op.Backup == "" {
				return fmt.Errorf("remove of %s without a backup", op.Path)
			}
		default:
			return fmt.Errorf("unknown op %q", op.Op)
		}
		if err := own(op.Temp); err != nil {
			return err
		}
		if err := own(op.Backup); err != nil {
			return err
		}
	}
	return nil
}

// SweepTemps removes temporary files and backups that toolhost writers left under root, that no
// live process owns and that are older than StaleTempAge. Journaled transactions are recovered
// (at once) by Journal.Recover; this finds what older versions and unjournaled writes left. The walk skips .git and stops after maxEntries
// entries or when ctx ends; it returns how many files it removed.
func SweepTemps(ctx context.Context, root *os.Root, maxEntries int) int {
	removed, seen := 0, 0
	now := time.Now()
	_ = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		seen++
		if seen > maxEntries || ctx.Err() != nil {
			return fs.SkipAll
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasPrefix(d.Name(), tempPrefix) || !d.Type().IsRegular() {
			return nil
		}
		if id, ok := tempOwner(d.Name()); ok && owner.Alive(id) {
			return nil
		}
		// A dead owner's file may still belong to a transaction journaled in another state
		// directory, which that directory's recovery needs: only old files are removed.
		if fi, err := d.Info(); err != nil || now.Sub(fi.ModTime()) < StaleTempAge {
			return nil
		}
		if root.Remove(p) == nil {
			removed++
		}
		return nil
	})
	return removed
}
