package server

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"toolhost/internal/engine"
)

// Metrics are the Prometheus metrics of this server process: executions by tool, operation and
// status, their durations, and what runs now. The history (GET /api/stats) covers every
// process on the state directory; these cover this one since it started, as Prometheus
// counters should.
type Metrics struct {
	reg       *prometheus.Registry
	calls     *prometheus.CounterVec
	durations *prometheus.HistogramVec
}

// NewMetrics registers toolhost's collectors; active counts the running executions.
func NewMetrics(active func() int) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.calls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "toolhost_executions_total", Help: "Tool calls that finished, by tool, operation, risk category and status.",
	}, []string{"tool", "operation", "category", "status"})
	m.durations = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "toolhost_execution_duration_seconds", Help: "Duration of finished tool calls, by tool.",
		Buckets: []float64{.0005, .001, .005, .01, .05, .1, .5, 1, 5, 15, 60, 300},
	}, []string{"tool"})
	m.reg.MustRegister(m.calls, m.durations,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "toolhost_executions_active", Help: "Tool calls running in this process."},
			func() float64 { return float64(active()) }),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Observe counts a finished execution.
func (m *Metrics) Observe(r engine.Record) {
	m.calls.WithLabelValues(r.Tool, r.Operation, string(r.Category), string(r.Status)).Inc()
	m.durations.WithLabelValues(r.Tool).Observe(r.DurationMS / 1000)
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
