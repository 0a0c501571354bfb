package engine

import (
	"context"
	"math"
	"slices"
	"strings"
	"sync"

	"toolhost/authz"
	"toolhost/store"
)

// The duration histograms have histPerDoubling buckets per doubling, starting at 1 µs, so a
// percentile read from them is within about 9% of the true value, whatever the history's size.
const (
	histPerDoubling = 4
	histBuckets     = 4 * 42 // up to about 50 days
)

// aggregate is what stats need, kept in bbolt and adjusted as records come and go.
type aggregate struct {
	Total      int64             `json:"total"`
	ByStatus   map[Status]int64  `json:"by_status"`
	Tools      map[string]*group `json:"tools"`
	Categories map[string]*group `json:"categories"`
	Operations map[string]int64  `json:"operations"` // "tool.operation"
}

// group counts one tool's or category's records and their durations.
type group struct {
	Count   int64         `json:"count"`
	Success int64         `json:"success"`
	Hist    map[int]int64 `json:"hist"`
}

// Keys of statsBucket.
const (
	// aggregateKey holds the aggregate of every stored record.
	aggregateKey = "aggregate"
	// principalsKey is present once the per-principal aggregates (principalKey) cover every
	// stored record: a history written before they were kept has only the total.
	principalsKey = "principals"
)

// principalKey holds the aggregate of one principal's stored records.
func principalKey(name string) string { return "principal=" + name }

func loadAggregate(tx *store.Tx, key string) (*aggregate, error) {
	a := &aggregate{}
	if _, err := tx.GetJSON(statsBucket, key, a); err != nil {
		return nil, err
	}
	if a.ByStatus == nil {
		a.ByStatus = map[Status]int64{}
	}
	if a.Tools == nil {
		a.Tools = map[string]*group{}
	}
	if a.Categories == nil {
		a.Categories = map[string]*group{}
	}
	if a.Operations == nil {
		a.Operations = map[string]int64{}
	}
	return a, nil
}

// aggregates are the aggregates one write transaction adjusts: every record's, and the own of
// each principal whose records come or go (loaded on first use), so a principal's stats are
// read, like the total, without a scan.
type aggregates struct {
	tx    *store.Tx
	all   *aggregate
	by    map[string]*aggregate
	built bool // the per-principal aggregates were built from the records in this transaction
}

// loadAggregates loads the total and, the first time on a history that has none, builds the
// per-principal aggregates from the stored records (one scan, once).
func loadAggregates(tx *store.Tx) (*aggregates, error) {
	all, err := loadAggregate(tx, aggregateKey)
	if err != nil {
		return nil, err
	}
	a := &aggregates{tx: tx, all: all, by: map[string]*aggregate{}}
	if _, covered := tx.Get(statsBucket, principalsKey); !covered {
		if err := a.buildPrincipals(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func (a *aggregates) buildPrincipals() error {
	var stale []string
	err := a.tx.Seek(statsBucket, principalKey(""), func(k string, _ []byte) (bool, error) {
		if !strings.HasPrefix(k, principalKey("")) {
			return false, nil
		}
		stale = append(stale, k)
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, k := range stale {
		if err := a.tx.Delete(statsBucket, k); err != nil {
			return err
		}
	}
	d := dictionary{tx: a.tx, cache: &sync.Map{}}
	err = a.tx.Seek(recordsBucket, "", func(k string, v []byte) (bool, error) {
		r, err := decodeRecord(d, k, v)
		if err != nil {
			return true, nil
		}
		g := a.by[r.Principal]
		if g == nil {
			g = &aggregate{ByStatus: map[Status]int64{}, Tools: map[string]*group{}, Categories: map[string]*group{}, Operations: map[string]int64{}}
			a.by[r.Principal] = g
		}
		g.add(&r, 1)
		return true, nil
	})
	a.built = true
	return err
}

// add counts r (d = 1) or removes it (d = -1) in the total and in its principal's aggregate.
func (a *aggregates) add(r *Record, d int64) error {
	a.all.add(r, d)
	g := a.by[r.Principal]
	if g == nil {
		var err error
		if g, err = loadAggregate(a.tx, principalKey(r.Principal)); err != nil {
			return err
		}
		a.by[r.Principal] = g
	}
	g.add(r, d)
	return nil
}

// save writes back what the transaction changed; a principal left without records loses its key.
func (a *aggregates) save() error {
	if err := a.tx.PutJSON(statsBucket, aggregateKey, a.all); err != nil {
		return err
	}
	for name, g := range a.by {
		var err error
		if g.Total <= 0 {
			err = a.tx.Delete(statsBucket, principalKey(name))
		} else {
			err = a.tx.PutJSON(statsBucket, principalKey(name), g)
		}
		if err != nil {
			return err
		}
	}
	if a.built {
		return a.tx.Put(statsBucket, principalsKey, []byte("1"))
	}
	return nil
}

func histBucket(ms float64) int {
	us := ms * 1000
	if us <= 1 {
		return 0
	}
	return min(int(math.Log2(us)*histPerDoubling)+1, histBuckets-1)
}

// histValue is the middle of bucket i in milliseconds (geometric mean of its bounds).
func histValue(i int) float64 {
	if i == 0 {
		return 0.001
	}
	lo := math.Exp2(float64(i-1) / histPerDoubling)
	hi := math.Exp2(float64(i) / histPerDoubling)
	return math.Sqrt(lo*hi) / 1000
}

func (g *group) add(r *Record, d int64) {
	g.Count += d
	if r.Status == StatusSuccess {
		g.Success += d
	}
	if g.Hist == nil {
		g.Hist = map[int]int64{}
	}
	b := histBucket(r.DurationMS)
	g.Hist[b] += d
	if g.Hist[b] <= 0 {
		delete(g.Hist, b)
	}
}

func (g *group) percentile(p float64) float64 {
	if g.Count <= 0 {
		return 0
	}
	rank := int64(math.Ceil(p * float64(g.Count)))
	var seen int64
	for i := range histBuckets {
		seen += g.Hist[i]
		if seen >= rank {
			return math.Round(histValue(i)*1000) / 1000
		}
	}
	return 0
}

func (a *aggregate) add(r *Record, d int64) {
	a.Total += d
	a.ByStatus[r.Status] += d
	if a.ByStatus[r.Status] <= 0 {
		delete(a.ByStatus, r.Status)
	}
	bump := func(m map[string]*group, k string) {
		g := m[k]
		if g == nil {
			g = &group{}
			m[k] = g
		}
		g.add(r, d)
		if g.Count <= 0 {
			delete(m, k)
		}
	}
	bump(a.Tools, r.Tool)
	if r.Category != "" {
		bump(a.Categories, string(r.Category))
	}
	op := r.Tool
	if r.Operation != "" && r.Operation != r.Tool {
		op += "." + r.Operation
	}
	a.Operations[op] += d
	if a.Operations[op] <= 0 {
		delete(a.Operations, op)
	}
}

// Stats summarises the stored history and what runs now, as the viewer may see them: an admin
// every principal's executions, anyone else only its own.
type Stats struct {
	Total       int64            `json:"total"`
	ByStatus    map[Status]int64 `json:"by_status"`
	SuccessRate float64          `json:"success_rate"`
	// Tools are sorted by count, most used first.
	Tools []GroupStats `json:"tools"`
	// TopOperations are the ten most called operations.
	TopOperations []OperationCount `json:"top_operations"`
	Categories    []GroupStats     `json:"categories"`
	// Active counts the executions running now in every process.
	Active int `json:"active"`
}

// GroupStats are the figures of one tool or category. Percentiles come from histograms with
// four buckets per doubling (about 9% resolution).
type GroupStats struct {
	Name        string  `json:"name"`
	Count       int64   `json:"count"`
	SuccessRate float64 `json:"success_rate"`
	P50MS       float64 `json:"p50_ms"`
	P95MS       float64 `json:"p95_ms"`
}

// OperationCount is how often one operation ("tool.operation") was called.
type OperationCount struct {
	Operation string `json:"operation"`
	Count     int64  `json:"count"`
}

// Stats reads the aggregates the viewer may see (no scan of the history): an admin's are every
// principal's, anyone else's its own, kept apart as records come and go. Active counts what
// the viewer may see running now.
func (e *Engine) Stats(ctx context.Context, viewer authz.Principal) (Stats, error) {
	e.sync(ctx)
	key := aggregateKey
	if viewer.Tier != authz.TierAdmin {
		key = principalKey(viewer.Name)
	}
	a := &aggregate{ByStatus: map[Status]int64{}}
	if st := e.opts.Store; st != nil {
		var covered bool
		read := func(tx *store.Tx) error {
			var err error
			a, err = loadAggregate(tx, key)
			return err
		}
		err := st.View(ctx, func(tx *store.Tx) error {
			_, covered = tx.Get(statsBucket, principalsKey)
			return read(tx)
		})
		if err == nil && !covered && key != aggregateKey {
			// A history from before per-principal aggregates: build them now, once.
			err = st.Update(ctx, func(tx *store.Tx) error {
				agg, err := loadAggregates(tx)
				if err != nil {
					return err
				}
				if err := agg.save(); err != nil {
					return err
				}
				return read(tx)
			})
		}
		if err != nil {
			return Stats{}, err
		}
	}
	s := Stats{Total: a.Total, ByStatus: a.ByStatus, SuccessRate: successRate(a.ByStatus[StatusSuccess], a.Total),
		Tools: groups(a.Tools), Categories: groups(a.Categories), TopOperations: []OperationCount{},
		Active: len(e.Active(ctx, viewer))}
	for op, n := range a.Operations {
		s.TopOperations = append(s.TopOperations, OperationCount{op, n})
	}
	slices.SortFunc(s.TopOperations, func(x, y OperationCount) int {
		if x.Count != y.Count {
			return int(y.Count - x.Count)
		}
		return strings.Compare(x.Operation, y.Operation)
	})
	s.TopOperations = s.TopOperations[:min(10, len(s.TopOperations))]
	return s, nil
}

func successRate(n, total int64) float64 {
	if total == 0 {
		return 0
	}
	return math.Round(float64(n)/float64(total)*10000) / 10000
}

func groups(m map[string]*group) []GroupStats {
	out := []GroupStats{}
	for name, g := range m {
		out = append(out, GroupStats{Name: name, Count: g.Count, SuccessRate: successRate(g.Success, g.Count),
			P50MS: g.percentile(0.50), P95MS: g.percentile(0.95)})
	}
	slices.SortFunc(out, func(x, y GroupStats) int {
		if x.Count != y.Count {
			return int(y.Count - x.Count)
		}
		return strings.Compare(x.Name, y.Name)
	})
	return out
}
