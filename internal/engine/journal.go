package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"toolhost/internal/owner"
)

func (e *Engine) journalDir() string { return filepath.Join(e.dir, "journal") }
func (e *Engine) cancelDir() string  { return filepath.Join(e.dir, "cancel") }

// journalPrefix starts the names of this engine's journal files: OWNER.INSTANCE-. The instance
// tells engines of one process apart (a workspace opened for a client's root has its own).
func (e *Engine) journalPrefix() string { return e.self.String() + "." + e.instance + "-" }

// openJournal starts this engine's next journal file, OWNER.INSTANCE-SEQ.jsonl.
func (e *Engine) openJournal() error {
	e.jseq++
	name := filepath.Join(e.journalDir(), e.journalPrefix()+strconv.Itoa(e.jseq)+".jsonl")
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("open execution journal: %w", err)
	}
	e.journal, e.jsize = f, 0
	return nil
}

// appendLocked writes r as one line with a single write(2), so the line is whole in the file
// (and survives SIGKILL) when it returns. Failures are logged: the call itself goes on.
func (e *Engine) appendLocked(r *Record) {
	if e.journal == nil {
		return
	}
	b, err := json.Marshal(r)
	if err != nil {
		e.logger.Error("encode execution", "exec", r.ID, "err", err)
		return
	}
	b = append(b, '\n')
	n, err := e.journal.Write(b)
	e.jsize += int64(n)
	if err != nil {
		e.logger.Error("write execution journal", "exec", r.ID, "err", err)
	}
}

// rotateLocked starts a new journal once the current one is large and everything in it is in
// bbolt: the new one gets the running executions' lines, the old one is removed.
func (e *Engine) rotateLocked() {
	if e.journal == nil || e.jsize < journalRotateBytes || len(e.pending) > 0 || e.closed {
		return
	}
	old := e.journal
	if err := e.openJournal(); err != nil {
		e.logger.Error("rotate execution journal", "err", err)
		e.journal = old
		return
	}
	for _, x := range e.running {
		r := x.rec
		e.appendLocked(&r)
	}
	old.Close()
	os.Remove(old.Name())
}

// journalOwner parses the owner of a journal file name: OWNER.INSTANCE-SEQ.jsonl, or a replay
// claim OWNER.INSTANCE-SEQ.jsonl.replay-CLAIMER whose claimer is what matters.
func journalOwner(name string) (owner.ID, bool) {
	if _, claimer, ok := strings.Cut(name, ".replay-"); ok {
		return owner.Parse(claimer)
	}
	head, _, _ := strings.Cut(name, ".")
	return owner.Parse(head)
}

// readJournal folds a journal file into the last record of each execution, in file order.
// A torn last line (a write cut by a crash cannot tear, but a full disk can) is skipped.
func readJournal(path string) ([]Record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	index := map[string]int{}
	var out []Record
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var r Record
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.ID == "" {
			continue
		}
		if i, ok := index[r.ID]; ok {
			out[i] = r
			continue
		}
		index[r.ID] = len(out)
		out = append(out, r)
	}
	return out, sc.Err()
}

// recover replays the journals of processes that are no longer running: their finished records
// go to bbolt, their running ones become failed with the reason. A journal is first claimed by
// renaming it, so two processes starting together do not both replay it; a claim whose claimer
// died is claimed again. Stale cancel requests are removed too.
func (e *Engine) recover(ctx context.Context) error {
	entries, err := os.ReadDir(e.journalDir())
	if err != nil {
		return err
	}
	var errs []error
	for _, ent := range entries {
		name := ent.Name()
		id, ok := journalOwner(name)
		if !ok || owner.Alive(id) {
			continue
		}
		base, _, _ := strings.Cut(name, ".replay-")
		claimed := filepath.Join(e.journalDir(), base+".replay-"+e.self.String())
		if err := os.Rename(filepath.Join(e.journalDir(), name), claimed); err != nil {
			continue // another process claimed it first
		}
		if err := e.replay(ctx, claimed, id); err != nil {
			errs = append(errs, fmt.Errorf("replay %s: %w", base, err))
		}
	}
	if ents, err := os.ReadDir(e.cancelDir()); err == nil {
		for _, ent := range ents {
			if info, err := ent.Info(); err == nil && time.Since(info.ModTime()) > time.Minute {
				os.Remove(filepath.Join(e.cancelDir(), ent.Name()))
			}
		}
	}
	return errors.Join(errs...)
}

func (e *Engine) replay(ctx context.Context, path string, dead owner.ID) error {
	recs, err := readJournal(path)
	if err != nil {
		return err
	}
	var end time.Time
	if info, err := os.Stat(path); err == nil {
		end = info.ModTime()
	}
	for i := range recs {
		r := &recs[i]
		if r.Finished() {
			continue
		}
		r.Status = StatusFailed
		r.ErrorCode = "orphaned"
		pid, _, _ := strings.Cut(dead.String(), "_")
		r.Error = fmt.Sprintf("the toolhost process (pid %s) that ran this ended before it finished", pid)
		if !end.IsZero() && end.After(r.Start) {
			r.DurationMS = float64(end.Sub(r.Start).Microseconds()) / 1000
		}
	}
	if e.opts.Store != nil && len(recs) > 0 {
		if err := e.store(ctx, recs); err != nil {
			// Leave the claimed file: the next process to start claims it again.
			return err
		}
	}
	for _, r := range recs {
		if e.opts.OnFinish != nil && r.ErrorCode == "orphaned" {
			e.logger.Warn("orphaned execution marked failed", "exec", r.ID, "tool", r.Tool, "op", r.Operation)
		}
	}
	return os.Remove(path)
}

// liveJournals returns the records in the journals of other running engines (other processes,
// or other engines of this one), folded per execution: what they are running and what they
// finished but have not flushed yet.
func (e *Engine) liveJournals() []Record {
	entries, err := os.ReadDir(e.journalDir())
	if err != nil {
		return nil
	}
	own := e.journalPrefix()
	var out []Record
	for _, ent := range entries {
		name := ent.Name()
		if strings.HasPrefix(name, own) || strings.Contains(name, ".replay-") {
			continue
		}
		id, ok := journalOwner(name)
		if !ok || !owner.Alive(id) {
			continue
		}
		recs, err := readJournal(filepath.Join(e.journalDir(), name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			e.logger.Debug("read execution journal", "file", name, "err", err)
		}
		out = append(out, recs...)
	}
	return out
}
