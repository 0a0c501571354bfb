package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"toolhost/authz"
	"toolhost/internal/engine"
)

// TestMetricsText: the executions' counters and histograms in the Prometheus text format, with
// label values escaped (an operation name can come from a model) and the Go and process
// figures after them; every line is a comment or a well-formed sample.
func TestMetricsText(t *testing.T) {
	active := 2
	m := NewMetrics(func() int { return active })
	for _, r := range []engine.Record{
		{Tool: "think", Category: authz.CategorySafe, Status: "succeeded", DurationMS: 0.2},
		{Tool: "think", Category: authz.CategorySafe, Status: "succeeded", DurationMS: 1}, // on a bound: counted in le="0.001"
		{Tool: "terminal_operations", Operation: "run_command", Category: authz.CategoryDangerous, Status: "cancelled", DurationMS: 7000},
		{Tool: "file_operations", Operation: "x\"} 1\nfake_metric{a=\"b\\", Category: authz.CategorySafe, Status: "failed", DurationMS: 400000},
	} {
		m.Observe(r)
	}
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type = %q, want the text format 0.0.4", ct)
	}
	text := string(body)
	for _, want := range []string{
		"# TYPE toolhost_executions_total counter\n",
		`toolhost_executions_total{category="safe",operation="",status="succeeded",tool="think"} 2` + "\n",
		`toolhost_executions_total{category="dangerous",operation="run_command",status="cancelled",tool="terminal_operations"} 1` + "\n",
		`toolhost_executions_total{category="safe",operation="x\"} 1\nfake_metric{a=\"b\\",status="failed",tool="file_operations"} 1` + "\n",
		"# TYPE toolhost_execution_duration_seconds histogram\n",
		`toolhost_execution_duration_seconds_bucket{tool="think",le="0.0005"} 1` + "\n",
		`toolhost_execution_duration_seconds_bucket{tool="think",le="0.001"} 2` + "\n",
		`toolhost_execution_duration_seconds_bucket{tool="think",le="+Inf"} 2` + "\n",
		`toolhost_execution_duration_seconds_sum{tool="think"} 0.0012`,
		`toolhost_execution_duration_seconds_count{tool="think"} 2` + "\n",
		`toolhost_execution_duration_seconds_bucket{tool="terminal_operations",le="5"} 0` + "\n",
		`toolhost_execution_duration_seconds_bucket{tool="terminal_operations",le="15"} 1` + "\n",
		`toolhost_execution_duration_seconds_bucket{tool="file_operations",le="300"} 0` + "\n",
		`toolhost_execution_duration_seconds_bucket{tool="file_operations",le="+Inf"} 1` + "\n",
		"toolhost_executions_active 2\n",
		"# TYPE go_goroutines gauge\n",
		"go_info{version=\"go",
		"# TYPE go_gc_cycles_total counter\n",
		"# TYPE process_cpu_seconds_total counter\n",
		"# TYPE process_resident_memory_bytes gauge\n",
		"# TYPE process_open_fds gauge\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Contains(text, "\nfake_metric") {
		t.Error("a label value broke out of its sample")
	}
	line := regexp.MustCompile(`^(# (HELP|TYPE) [a-z_]+ .+|[a-z_]+(\{([a-z_]+="([^"\\]|\\.)*",?)*\})? (-?[0-9.e+-]+|\+Inf|NaN))$`)
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if !line.MatchString(l) {
			t.Errorf("malformed line %q", l)
		}
	}
	if r, err := http.Post(srv.URL, "text/plain", nil); err != nil || r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /metrics = %v %v, want 405", r.StatusCode, err)
	}
}
