package engine

import (
	"context"
	"math"
	"slices"
	"strings"

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

func loadAggregate(tx *store.Tx) (*aggregate, error) {
	a := &aggregate{}
	if _, err := tx.GetJSON(statsBucket, "aggregate", a); err != nil {
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

// Stats summarises the stored history (every principal's: stats show counts, not records)
// and what runs now.
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

// Stats reads the aggregates (no scan of the history) and counts what runs now.
func (e *Engine) Stats(ctx context.Context) (Stats, error) {
	e.sync(ctx)
	a := &aggregate{ByStatus: map[Status]int64{}}
	if e.opts.Store != nil {
		err := e.opts.Store.View(ctx, func(tx *store.Tx) error {
			var err error
			a, err = loadAggregate(tx)
			return err
		})
		if err != nil {
			return Stats{}, err
		}
	}
	s := Stats{Total: a.Total, ByStatus: a.ByStatus, SuccessRate: successRate(a.ByStatus[StatusSuccess], a.Total),
		Tools: groups(a.Tools), Categories: groups(a.Categories), TopOperations: []OperationCount{},
		Active: len(e.Active(ctx, authz.Principal{Tier: authz.TierAdmin}))}
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
