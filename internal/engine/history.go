package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"toolhost/authz"
	"toolhost/internal/owner"
	"toolhost/store"
)

// Buckets under store.BucketExecutions.
var (
	recordsBucket = store.Path{store.BucketExecutions, "records"} // id -> Record
	countsBucket  = store.Path{store.BucketExecutions, "counts"}  // "field=value" -> count
	statsBucket   = store.Path{store.BucketExecutions, "stats"}   // aggregateKey, principalKey(name) -> aggregate
)

func indexBucket(field, value string) store.Path {
	return store.Path{store.BucketExecutions, "index", field + "=" + value}
}

// indexed are the fields a history filter can name, each with its own index.
var indexed = []string{"tool", "status", "category", "principal", "conversation"}

// An index entry holds the indexed fields of its record (codec.go), so a filter is matched on
// the index's own (adjacent) pages and only the records of the page are read.

// indexRecord reads an index entry of the older format: the indexed values joined by \x1f.
func indexRecord(id string, v []byte) Record {
	vals := strings.Split(string(v), "\x1f")
	r := Record{ID: id}
	if len(vals) == len(indexed) {
		r.Tool, r.Status, r.Category, r.Principal, r.Conversation = vals[0], Status(vals[1]), authz.Category(vals[2]), vals[3], vals[4]
	}
	return r
}

func fieldOf(r *Record, field string) string {
	switch field {
	case "tool":
		return r.Tool
	case "status":
		return string(r.Status)
	case "category":
		return string(r.Category)
	case "principal":
		return r.Principal
	case "conversation":
		return r.Conversation
	}
	return ""
}

func (e *Engine) ownerAlive(s string) bool {
	id, ok := owner.Parse(s)
	return ok && owner.Alive(id)
}

// flushLoop moves finished records into bbolt in batches.
func (e *Engine) flushLoop() {
	defer close(e.flushDone)
	for range e.flushKick {
		time.Sleep(e.opts.FlushInterval) // gather a batch
		if err := e.flush(context.Background()); err != nil {
			// The records stay pending (and in the journal); the next kick retries.
			e.logger.Warn("flush executions", "err", err)
		}
	}
}

// flush stores the pending records; they leave the pending list only once committed.
func (e *Engine) flush(ctx context.Context) error {
	e.flushMu.Lock()
	defer e.flushMu.Unlock()
	e.mu.Lock()
	batch := e.pending
	e.mu.Unlock()
	if len(batch) == 0 || e.opts.Store == nil {
		return nil
	}
	if err := e.store(ctx, batch); err != nil {
		e.mu.Lock()
		if !e.closed {
			select {
			case e.flushKick <- struct{}{}:
			default:
			}
		}
		e.mu.Unlock()
		return err
	}
	e.mu.Lock()
	e.pending = e.pending[len(batch):]
	if len(e.pending) == 0 {
		e.pending = nil
	}
	e.rotateLocked()
	e.mu.Unlock()
	return nil
}

// importLive stores the finished records that other running processes have journalled but
// not flushed yet, so a history page or stats read from any process (the CLI) includes every
// acknowledged call. Their owners flush the same records later; store skips what exists.
func (e *Engine) importLive(ctx context.Context) error {
	if e.opts.Store == nil {
		return nil
	}
	var finished []Record
	for _, r := range e.liveJournals() {
		if r.Finished() {
			finished = append(finished, r)
		}
	}
	if len(finished) == 0 {
		return nil
	}
	var missing []Record
	err := e.opts.Store.View(ctx, func(tx *store.Tx) error {
		for _, r := range finished {
			if _, ok := tx.Get(recordsBucket, r.ID); !ok {
				missing = append(missing, r)
			}
		}
		return nil
	})
	if err != nil || len(missing) == 0 {
		return err
	}
	return e.store(ctx, missing)
}

// sync brings this process's pending records and other processes' unflushed ones into bbolt
// before a query. Failures only make the answer older; they are logged.
func (e *Engine) sync(ctx context.Context) {
	if err := e.flush(ctx); err != nil {
		e.logger.Debug("flush before query", "err", err)
	}
	if err := e.importLive(ctx); err != nil {
		e.logger.Debug("import other processes' executions", "err", err)
	}
}

// Flush moves pending records into bbolt now (tests, and queries that must see this process's
// last calls).
func (e *Engine) Flush(ctx context.Context) error { return e.flush(ctx) }

// store adds finished records to the history in one transaction, skipping ids already stored
// (a journal replayed twice adds nothing twice), and prunes past the bounds.
func (e *Engine) store(ctx context.Context, recs []Record) error {
	return e.opts.Store.Update(ctx, func(tx *store.Tx) error {
		agg, err := loadAggregates(tx)
		if err != nil {
			return err
		}
		d := e.dict(tx)
		for i := range recs {
			r := &recs[i]
			if _, exists := tx.Get(recordsBucket, r.ID); exists {
				continue
			}
			for _, f := range indexed {
				if v := fieldOf(r, f); v != "" {
					if err := addCount(tx, f+"="+v, 1); err != nil {
						return err
					}
				}
			}
			b, err := encodeRecord(d, r)
			if err != nil {
				return err
			}
			if err := tx.Append(recordsBucket, r.ID, b); err != nil {
				return err
			}
			idx := fieldCodes(d, r)
			for _, f := range indexed {
				if v := fieldOf(r, f); v != "" {
					if err := tx.Append(indexBucket(f, v), r.ID, idx); err != nil {
						return err
					}
				}
			}
			if err := agg.add(r, 1); err != nil {
				return err
			}
		}
		if err := e.prune(tx, agg); err != nil {
			return err
		}
		return agg.save()
	})
}

// prune removes the oldest records past MaxRecords or MaxAge, with their index entries and
// their share of the aggregates.
func (e *Engine) prune(tx *store.Tx, agg *aggregates) error {
	cutoff := idAt(e.opts.Now().Add(-e.opts.MaxAge))
	var doomed []Record
	excess := agg.all.Total - int64(e.opts.MaxRecords)
	d := e.dict(tx)
	err := tx.Seek(recordsBucket, "", func(k string, v []byte) (bool, error) {
		if excess <= 0 && k >= cutoff {
			return false, nil
		}
		r, err := decodeRecord(d, k, v)
		if err != nil {
			r = decodeIndex(d, k, v)
		}
		doomed = append(doomed, r)
		excess--
		return true, nil
	})
	if err != nil {
		return err
	}
	for i := range doomed {
		r := &doomed[i]
		if err := tx.Delete(recordsBucket, r.ID); err != nil {
			return err
		}
		for _, f := range indexed {
			if v := fieldOf(r, f); v != "" {
				if err := tx.Delete(indexBucket(f, v), r.ID); err != nil {
					return err
				}
				if err := addCount(tx, f+"="+v, -1); err != nil {
					return err
				}
			}
		}
		if err := agg.add(r, -1); err != nil {
			return err
		}
	}
	return nil
}

// stored reads one record from bbolt.
func (e *Engine) stored(ctx context.Context, id string) (Record, error) {
	var r Record
	if e.opts.Store == nil {
		return r, ErrNotFound
	}
	var found bool
	err := e.opts.Store.View(ctx, func(tx *store.Tx) error {
		v, ok := tx.Get(recordsBucket, id)
		if !ok {
			return nil
		}
		var err error
		r, err = decodeRecord(e.dict(tx), id, v)
		found = err == nil
		return err
	})
	if err != nil {
		return r, err
	}
	if !found {
		return r, ErrNotFound
	}
	return r, nil
}

// Get returns one execution, running or finished, from any process on the state directory.
// ErrNotFound when there is none the viewer may see.
func (e *Engine) Get(ctx context.Context, viewer authz.Principal, id string) (Record, error) {
	if !ValidID(id) {
		return Record{}, ErrNotFound
	}
	e.mu.Lock()
	x := e.running[id]
	var r Record
	found := false
	if x != nil {
		r, found = x.rec, true
	} else {
		for _, p := range e.pending {
			if p.ID == id {
				r, found = p, true
			}
		}
	}
	e.mu.Unlock()
	if !found {
		var err error
		r, err = e.stored(ctx, id)
		switch {
		case err == nil:
			found = true
		case err != ErrNotFound:
			return Record{}, err
		}
	}
	if !found {
		for _, j := range e.liveJournals() {
			if j.ID == id {
				r, found = j, true
			}
		}
	}
	if !found || !visible(viewer, &r) {
		return Record{}, ErrNotFound
	}
	return r, nil
}

// Filter selects history records. Zero fields do not filter.
type Filter struct {
	Tool         string
	Category     authz.Category
	Status       Status
	Conversation string
	Principal    string
	// Since and Until bound the start time: Since <= start < Until.
	Since, Until time.Time
	// Before, an execution id, keeps only executions that started before it: the cursor of
	// a page that goes on where the last one ended, however many calls came since.
	Before string
	// Limit is 1-100 (0 means 50); Offset skips matches.
	Limit, Offset int
	// Viewer sees only its own records unless it is an admin.
	Viewer authz.Principal
}

// MaxLimit bounds a history page.
const MaxLimit = 100

// Check validates a filter, naming the parameter at fault.
func (f *Filter) Check() error {
	if f.Limit == 0 {
		f.Limit = 50
	}
	if f.Limit < 1 || f.Limit > MaxLimit {
		return &FilterError{Param: "limit", Message: fmt.Sprintf("limit must be between 1 and %d", MaxLimit)}
	}
	if f.Offset < 0 {
		return &FilterError{Param: "offset", Message: "offset must not be negative"}
	}
	if f.Status != "" {
		if _, err := ParseStatus(string(f.Status)); err != nil {
			return &FilterError{Param: "status", Message: err.Error()}
		}
	}
	if f.Category != "" && f.Category != authz.CategorySafe && f.Category != authz.CategoryModerate && f.Category != authz.CategoryDangerous {
		return &FilterError{Param: "category", Message: fmt.Sprintf("unknown category %q: want safe, moderate or dangerous", f.Category)}
	}
	if f.Before != "" && !ValidID(f.Before) {
		return &FilterError{Param: "before", Message: fmt.Sprintf("%q is not an execution id (exec_...)", f.Before)}
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return &FilterError{Param: "since", Message: "since must be before until"}
	}
	return nil
}

// FilterError is a bad history filter: the parameter and what is wrong with it.
type FilterError struct {
	Param, Message string
}

func (e *FilterError) Error() string { return e.Param + ": " + e.Message }

// Page is one page of history, newest first.
type Page struct {
	Executions []Record `json:"executions"`
	// More reports whether later pages have records.
	More   bool `json:"more"`
	Offset int  `json:"offset"`
	Limit  int  `json:"limit"`
}

// List returns a page of finished executions matching f, newest first. Running executions are
// Active's (a status=running filter answers from it). It walks the smallest index the filter
// names, so a page costs about limit+offset record reads whatever the history's size.
func (e *Engine) List(ctx context.Context, f Filter) (Page, error) {
	if err := f.Check(); err != nil {
		return Page{}, err
	}
	if f.Viewer.Tier != authz.TierAdmin {
		if f.Principal != "" && f.Principal != f.Viewer.Name {
			return Page{Offset: f.Offset, Limit: f.Limit, Executions: []Record{}}, nil
		}
		f.Principal = f.Viewer.Name
	}
	page := Page{Offset: f.Offset, Limit: f.Limit, Executions: []Record{}}
	if f.Status == StatusRunning {
		var matched []Record
		for _, r := range e.Active(ctx, f.Viewer) {
			if f.matches(&r) {
				matched = append(matched, r)
			}
		}
		for i := len(matched) - 1 - f.Offset; i >= 0 && len(page.Executions) < f.Limit; i-- {
			page.Executions = append(page.Executions, matched[i])
		}
		page.More = len(matched) > f.Offset+f.Limit
		return page, nil
	}
	e.sync(ctx)
	if e.opts.Store == nil {
		return page, nil
	}
	before := ""
	if !f.Until.IsZero() {
		before = idAt(f.Until)
	}
	if f.Before != "" && (before == "" || f.Before < before) {
		before = f.Before
	}
	since := ""
	if !f.Since.IsZero() {
		since = idAt(f.Since)
	}
	skip := f.Offset
	err := e.opts.Store.View(ctx, func(tx *store.Tx) error {
		bucket := recordsBucket
		best := int64(-1)
		for _, fl := range indexed {
			v := f.field(fl)
			if v == "" {
				continue
			}
			if n := count(tx, fl+"="+v); best < 0 || n < best {
				best, bucket = n, indexBucket(fl, v)
			}
		}
		if best == 0 {
			return nil
		}
		d := e.dict(tx)
		var ids []string
		err := tx.SeekReverse(bucket, before, func(k string, v []byte) (bool, error) {
			if since != "" && k < since {
				return false, nil
			}
			if err := ctx.Err(); err != nil {
				return false, err
			}
			// Index entries and records both start with the indexed fields.
			r := decodeIndex(d, k, v)
			if !f.matchesFields(&r) {
				return true, nil
			}
			if skip > 0 {
				skip--
				return true, nil
			}
			if len(ids) == f.Limit {
				page.More = true
				return false, nil
			}
			ids = append(ids, k)
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, id := range ids {
			if v, ok := tx.Get(recordsBucket, id); ok {
				if r, err := decodeRecord(d, id, v); err == nil {
					page.Executions = append(page.Executions, r)
				}
			}
		}
		return nil
	})
	return page, err
}

// field is the filter's value for an indexed field ("" when it does not filter on it).
func (f *Filter) field(name string) string {
	r := Record{Tool: f.Tool, Status: f.Status, Category: f.Category, Principal: f.Principal, Conversation: f.Conversation}
	return fieldOf(&r, name)
}

// matchesFields checks the indexed fields and the viewer; since and until are key ranges.
func (f *Filter) matchesFields(r *Record) bool {
	for _, fl := range indexed {
		if v := f.field(fl); v != "" && fieldOf(r, fl) != v {
			return false
		}
	}
	return visible(f.Viewer, r)
}

func (f *Filter) matches(r *Record) bool {
	for _, fl := range indexed {
		if v := f.field(fl); v != "" && fieldOf(r, fl) != v {
			return false
		}
	}
	if !f.Since.IsZero() && r.Start.Before(f.Since) {
		return false
	}
	if !f.Until.IsZero() && !r.Start.Before(f.Until) {
		return false
	}
	return visible(f.Viewer, r)
}
