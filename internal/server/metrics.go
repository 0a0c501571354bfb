package server

import (
	"bufio"
	"fmt"
	"maps"
	"math"
	"net/http"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"

	"toolhost/authz"
	"toolhost/internal/engine"
)

// Metrics are the Prometheus metrics of this server process: executions by tool, operation and
// status, their durations, what runs now, and the Go runtime's and the process's own figures.
// The history (GET /api/stats) covers every process on the state directory; these cover this
// one since it started, as Prometheus counters should.
//
// Each principal sees its own series: a view_only token's scrape shows the calls of that token
// only, not how busy other principals are; an admin (the operator, the serve token) sees every
// principal's calls summed, as before.
//
// They are written in the Prometheus text format (version 0.0.4) here rather than with the
// client library: its package initialisation (a default registry with Go and process
// collectors, protobuf descriptors) cost every toolhost start about a millisecond, stdio
// servers included, which never serve /metrics.
type Metrics struct {
	active func(viewer authz.Principal) int

	mu        sync.Mutex
	calls     map[callLabels]uint64
	durations map[toolKey]*histogram
}

// callLabels are the labels of toolhost_executions_total, and the principal the series
// belongs to (not a label: a viewer sees its own, or all summed).
type callLabels struct{ principal, tool, operation, category, status string }

// toolKey is a duration histogram's: a principal's calls of one tool.
type toolKey struct{ principal, tool string }

// durationBuckets are the upper bounds (seconds) of toolhost_execution_duration_seconds.
var durationBuckets = []float64{.0005, .001, .005, .01, .05, .1, .5, 1, 5, 15, 60, 300}

// histogram counts observations per bucket (not cumulative; written cumulatively).
type histogram struct {
	counts []uint64 // len(durationBuckets)+1, the last for +Inf
	sum    float64
	n      uint64
}

// NewMetrics starts the metrics of this process; active counts the running executions the
// viewer may see.
func NewMetrics(active func(viewer authz.Principal) int) *Metrics {
	return &Metrics{active: active, calls: map[callLabels]uint64{}, durations: map[toolKey]*histogram{}}
}

// Observe counts a finished execution.
func (m *Metrics) Observe(r engine.Record) {
	secs := r.DurationMS / 1000
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls[callLabels{r.Principal, r.Tool, r.Operation, string(r.Category), string(r.Status)}]++
	k := toolKey{r.Principal, r.Tool}
	h := m.durations[k]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(durationBuckets)+1)}
		m.durations[k] = h
	}
	i, _ := slices.BinarySearch(durationBuckets, secs) // le: a value on a bound counts in it
	h.counts[i]++
	h.sum += secs
	h.n++
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		if r.Method == http.MethodHead {
			return
		}
		viewer, _ := authz.PrincipalFrom(r.Context())
		bw := bufio.NewWriter(w)
		m.write(bw, viewer)
		bw.Flush()
	})
}

// write writes every metric family the viewer may see, each under its HELP and TYPE lines:
// the viewer's own calls, or every principal's summed for an admin.
func (m *Metrics) write(w *bufio.Writer, viewer authz.Principal) {
	all := viewer.Tier == authz.TierAdmin
	m.mu.Lock()
	calls := map[callLabels]uint64{}
	for k, n := range m.calls {
		if all || k.principal == viewer.Name {
			k.principal = ""
			calls[k] += n
		}
	}
	durations := map[string]*histogram{}
	for k, h := range m.durations {
		if !all && k.principal != viewer.Name {
			continue
		}
		sum := durations[k.tool]
		if sum == nil {
			sum = &histogram{counts: make([]uint64, len(durationBuckets)+1)}
			durations[k.tool] = sum
		}
		for i, c := range h.counts {
			sum.counts[i] += c
		}
		sum.sum += h.sum
		sum.n += h.n
	}
	m.mu.Unlock()
	keys := slices.Collect(maps.Keys(calls))
	slices.SortFunc(keys, func(a, b callLabels) int {
		return strings.Compare(a.tool+"\x00"+a.operation+"\x00"+a.category+"\x00"+a.status,
			b.tool+"\x00"+b.operation+"\x00"+b.category+"\x00"+b.status)
	})
	family(w, "toolhost_executions_total", "counter", "Tool calls that finished, by tool, operation, risk category and status.")
	for _, k := range keys {
		// Label names in lexical order, as the client library wrote them.
		sample(w, "toolhost_executions_total", labels("category", k.category, "operation", k.operation, "status", k.status, "tool", k.tool), float64(calls[k]))
	}
	tools := slices.Sorted(maps.Keys(durations))
	family(w, "toolhost_execution_duration_seconds", "histogram", "Duration of finished tool calls, by tool.")
	for _, t := range tools {
		h := durations[t]
		var cum uint64
		for i, le := range durationBuckets {
			cum += h.counts[i]
			sample(w, "toolhost_execution_duration_seconds_bucket", labels("tool", t, "le", formatFloat(le)), float64(cum))
		}
		sample(w, "toolhost_execution_duration_seconds_bucket", labels("tool", t, "le", "+Inf"), float64(h.n))
		sample(w, "toolhost_execution_duration_seconds_sum", labels("tool", t), h.sum)
		sample(w, "toolhost_execution_duration_seconds_count", labels("tool", t), float64(h.n))
	}
	family(w, "toolhost_executions_active", "gauge", "Tool calls running in this process.")
	sample(w, "toolhost_executions_active", "", float64(m.active(viewer)))
	writeGoMetrics(w)
	writeProcessMetrics(w)
}

// goSamples are the runtime/metrics the Go metrics read.
var goSamples = []string{"/sched/goroutines:goroutines", "/memory/classes/heap/objects:bytes",
	"/memory/classes/total:bytes", "/gc/cycles/total:gc-cycles", "/sched/gomaxprocs:threads"}

// writeGoMetrics writes the Go runtime's figures under the names the client library's Go
// collector used.
func writeGoMetrics(w *bufio.Writer) {
	s := make([]metrics.Sample, len(goSamples))
	for i, name := range goSamples {
		s[i].Name = name
	}
	metrics.Read(s)
	value := func(i int) float64 {
		switch s[i].Value.Kind() {
		case metrics.KindUint64:
			return float64(s[i].Value.Uint64())
		case metrics.KindFloat64:
			return s[i].Value.Float64()
		}
		return math.NaN()
	}
	family(w, "go_info", "gauge", "Information about the Go environment.")
	sample(w, "go_info", labels("version", runtime.Version()), 1)
	family(w, "go_goroutines", "gauge", "Number of goroutines that currently exist.")
	sample(w, "go_goroutines", "", value(0))
	threads, _ := runtime.ThreadCreateProfile(nil)
	family(w, "go_threads", "gauge", "Number of OS threads created.")
	sample(w, "go_threads", "", float64(threads))
	family(w, "go_memstats_heap_alloc_bytes", "gauge", "Number of heap bytes allocated and still in use.")
	sample(w, "go_memstats_heap_alloc_bytes", "", value(1))
	family(w, "go_memstats_sys_bytes", "gauge", "Number of bytes obtained from system.")
	sample(w, "go_memstats_sys_bytes", "", value(2))
	family(w, "go_gc_cycles_total", "counter", "Number of completed GC cycles.")
	sample(w, "go_gc_cycles_total", "", value(3))
	family(w, "go_sched_gomaxprocs_threads", "gauge", "The current runtime.GOMAXPROCS setting.")
	sample(w, "go_sched_gomaxprocs_threads", "", value(4))
}

func family(w *bufio.Writer, name, typ, help string) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
}

func sample(w *bufio.Writer, name, labels string, v float64) {
	w.WriteString(name)
	w.WriteString(labels)
	w.WriteByte(' ')
	w.WriteString(formatFloat(v))
	w.WriteByte('\n')
}

// labels renders name/value pairs as {a="x",b="y"}, the values escaped as the text format
// requires (backslash, double quote, newline): an operation name comes from a model.
func labels(kv ...string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(kv[i])
		b.WriteString(`="`)
		for _, r := range kv[i+1] {
			switch r {
			case '\\':
				b.WriteString(`\\`)
			case '"':
				b.WriteString(`\"`)
			case '\n':
				b.WriteString(`\n`)
			default:
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
