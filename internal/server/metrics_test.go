package server

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"toolhost/authz"
	"toolhost/internal/engine"
)

// TestMetricsText: the executions' counters and histograms in the Prometheus text format, with
// label values escaped (a label value may come from a model) and the Go and process figures
// after them. The whole answer must parse as the exposition format (parseExposition).
func TestMetricsText(t *testing.T) {
	active := 2
	m := NewMetrics(func(authz.Principal) int { return active })
	breakout := "x\"} 1\nfake_metric{a=\"b\\"
	for _, r := range []engine.Record{
		{Tool: "think", Category: authz.CategorySafe, Status: engine.StatusSuccess, DurationMS: 0.2},
		{Tool: "think", Category: authz.CategorySafe, Status: engine.StatusSuccess, DurationMS: 1}, // on a bound: counted in le="0.001"
		{Tool: "terminal_operations", Operation: "run_command", Category: authz.CategoryDangerous, Status: engine.StatusCancelled, DurationMS: 7000},
		{Tool: "file_operations", Operation: breakout, Category: authz.CategorySafe, Status: engine.StatusFailed, DurationMS: 400000},
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
	fams := parseExposition(t, string(body))
	tests := []struct {
		family, sample string
		labels         map[string]string
		want           float64
	}{
		{"toolhost_executions_total", "", map[string]string{"category": "safe", "operation": "", "status": "success", "tool": "think"}, 2},
		{"toolhost_executions_total", "", map[string]string{"category": "dangerous", "operation": "run_command", "status": "cancelled", "tool": "terminal_operations"}, 1},
		{"toolhost_executions_total", "", map[string]string{"category": "safe", "operation": breakout, "status": "failed", "tool": "file_operations"}, 1},
		{"toolhost_execution_duration_seconds", "_bucket", map[string]string{"tool": "think", "le": "0.0005"}, 1},
		{"toolhost_execution_duration_seconds", "_bucket", map[string]string{"tool": "think", "le": "0.001"}, 2},
		{"toolhost_execution_duration_seconds", "_bucket", map[string]string{"tool": "think", "le": "+Inf"}, 2},
		{"toolhost_execution_duration_seconds", "_sum", map[string]string{"tool": "think"}, 0.0012},
		{"toolhost_execution_duration_seconds", "_count", map[string]string{"tool": "think"}, 2},
		{"toolhost_execution_duration_seconds", "_bucket", map[string]string{"tool": "terminal_operations", "le": "5"}, 0},
		{"toolhost_execution_duration_seconds", "_bucket", map[string]string{"tool": "terminal_operations", "le": "15"}, 1},
		{"toolhost_execution_duration_seconds", "_bucket", map[string]string{"tool": "file_operations", "le": "300"}, 0},
		{"toolhost_execution_duration_seconds", "_bucket", map[string]string{"tool": "file_operations", "le": "+Inf"}, 1},
		{"toolhost_executions_active", "", map[string]string{}, 2},
	}
	for _, tt := range tests {
		got, ok := fams.value(tt.family, tt.family+tt.sample, tt.labels)
		if !ok || math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s%s%v = %v (found %v), want %v", tt.family, tt.sample, tt.labels, got, ok, tt.want)
		}
	}
	for name, typ := range map[string]string{
		"toolhost_executions_total": "counter", "toolhost_execution_duration_seconds": "histogram", "toolhost_executions_active": "gauge",
		"go_goroutines": "gauge", "go_info": "gauge", "go_gc_cycles_total": "counter", "process_cpu_seconds_total": "counter",
		"process_resident_memory_bytes": "gauge", "process_open_fds": "gauge",
	} {
		if f := fams[name]; f == nil || f.typ != typ || len(f.samples) == 0 {
			t.Errorf("family %s = %+v, want a %s with samples", name, f, typ)
		}
	}
	if fams["fake_metric"] != nil {
		t.Error("a label value broke out of its sample")
	}
	if r, err := http.Post(srv.URL, "text/plain", nil); err != nil || r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /metrics = %v %v, want 405", r.StatusCode, err)
	}
}

// TestParseExposition: the test's parser refuses what the format does not allow, so that
// TestMetricsText cannot pass on a malformed answer.
func TestParseExposition(t *testing.T) {
	const ok = "# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"1\"} 3\n" +
		"# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 1.5\nh_count 2\n"
	if errs := exposition(ok); len(errs) > 0 {
		t.Fatalf("a valid exposition: %v", errs)
	}
	tests := []struct{ name, text, want string }{
		{"sample before TYPE", "a 1\n", "no TYPE"},
		{"TYPE without HELP", "# TYPE a gauge\na 1\n", "no HELP"},
		{"unknown type", "# HELP a A.\n# TYPE a meter\na 1\n", "type"},
		{"family declared twice", "# HELP a A.\n# TYPE a gauge\na 1\n# HELP a A.\n# TYPE a gauge\n", "twice"},
		{"bad metric name", "# HELP a A.\n# TYPE a gauge\n1a 1\n", "malformed"},
		{"sample of another family", "# HELP a A.\n# TYPE a gauge\nb 1\n", "family"},
		{"bad label name", "# HELP a A.\n# TYPE a gauge\na{1x=\"v\"} 1\n", "malformed"},
		{"reserved label name", "# HELP a A.\n# TYPE a gauge\na{__x=\"v\"} 1\n", "reserved"},
		{"unescaped quote", "# HELP a A.\n# TYPE a gauge\na{x=\"v\"\"} 1\n", "malformed"},
		{"bad escape", "# HELP a A.\n# TYPE a gauge\na{x=\"\\t\"} 1\n", "escape"},
		{"duplicate label", "# HELP a A.\n# TYPE a gauge\na{x=\"1\",x=\"2\"} 1\n", "twice"},
		{"duplicate sample", "# HELP a A.\n# TYPE a gauge\na{x=\"1\"} 1\na{x=\"1\"} 2\n", "duplicate"},
		{"bad value", "# HELP a A.\n# TYPE a gauge\na one\n", "value"},
		{"no trailing newline", "# HELP a A.\n# TYPE a gauge\na 1", "newline"},
		{"bucket without le", "# HELP h H.\n# TYPE h histogram\nh_bucket 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n", "le"},
		{"buckets out of order", "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"2\"} 1\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n", "increasing"},
		{"counts decrease", "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n", "decrease"},
		{"no +Inf bucket", "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n", "+Inf"},
		{"count is not +Inf", "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 1\n", "_count"},
		{"no sum", "# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n", "_sum"},
		{"interleaved promFamilies", "# HELP a A.\n# TYPE a gauge\na{x=\"1\"} 1\n# HELP b B.\n# TYPE b gauge\nb 1\na{x=\"2\"} 1\n", "family"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := exposition(tt.text)
			if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, tt.want) }) {
				t.Errorf("exposition(%q) = %v, want an error about %q", tt.text, errs, tt.want)
			}
		})
	}
}

// promFamilies are the metric families of an exposition, by name.
type promFamilies map[string]*promFamily

type promFamily struct {
	name, typ, help string
	samples         []promSample
}

type promSample struct {
	name   string
	labels map[string]string
	value  float64
}

// value finds the sample name{labels} of a family.
func (fs promFamilies) value(fam, name string, labels map[string]string) (float64, bool) {
	f := fs[fam]
	if f == nil {
		return 0, false
	}
	for _, s := range f.samples {
		if s.name == name && fmt.Sprint(s.labels) == fmt.Sprint(labels) {
			return s.value, true
		}
	}
	return 0, false
}

// parseExposition parses text in the Prometheus text format 0.0.4, failing the test on
// anything the format does not allow.
func parseExposition(t *testing.T, text string) promFamilies {
	t.Helper()
	fs, errs := parse(text)
	for _, e := range errs {
		t.Error(e)
	}
	return fs
}

func exposition(text string) []string {
	_, errs := parse(text)
	return errs
}

var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	types      = []string{"counter", "gauge", "histogram", "summary", "untyped"}
)

// parse reads the exposition line by line: HELP and TYPE once per family, before its samples;
// each family's samples together and named after it; label names valid, not reserved, not
// repeated, values with only the three escapes; values floats; no sample twice. A histogram's
// buckets carry le, rise to +Inf with counts that never decrease, and come with _sum and a
// _count equal to the +Inf bucket.
func parse(text string) (promFamilies, []string) {
	fs := promFamilies{}
	var errs []string
	fail := func(n int, format string, args ...any) {
		errs = append(errs, fmt.Sprintf("line %d: %s", n, fmt.Sprintf(format, args...)))
	}
	if !strings.HasSuffix(text, "\n") {
		errs = append(errs, "the text does not end with a newline")
	}
	var cur *promFamily
	helps := map[string]bool{}
	seen := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		n := i + 1
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			kind, rest, _ := strings.Cut(rest, " ")
			name, arg, _ := strings.Cut(rest, " ")
			switch kind {
			case "HELP":
				if !metricName.MatchString(name) {
					fail(n, "malformed HELP %q", line)
				}
				if helps[name] {
					fail(n, "HELP of %s twice", name)
				}
				helps[name] = true
			case "TYPE":
				if !slices.Contains(types, arg) {
					fail(n, "unknown type %q", arg)
				}
				if !helps[name] {
					fail(n, "%s has no HELP before its TYPE", name)
				}
				if fs[name] != nil {
					fail(n, "family %s declared twice", name)
					continue
				}
				cur = &promFamily{name: name, typ: arg}
				fs[name] = cur
			}
			continue
		}
		s, err := parseSample(line)
		if err != "" {
			fail(n, "%s: %q", err, line)
			continue
		}
		if cur == nil {
			fail(n, "sample %s has no TYPE before it", s.name)
			continue
		}
		names := []string{cur.name}
		if cur.typ == "histogram" {
			names = []string{cur.name + "_bucket", cur.name + "_sum", cur.name + "_count"}
		}
		if !slices.Contains(names, s.name) {
			fail(n, "sample %s outside its family %s (or no TYPE)", s.name, cur.name)
			continue
		}
		key := s.name + fmt.Sprint(s.labels)
		if seen[key] {
			fail(n, "duplicate sample %s", key)
		}
		seen[key] = true
		cur.samples = append(cur.samples, s)
	}
	for _, f := range fs {
		if f.typ == "histogram" {
			for _, e := range checkHistogram(f) {
				errs = append(errs, f.name+": "+e)
			}
		}
	}
	return fs, errs
}

// parseSample reads name{labels} value [timestamp].
func parseSample(line string) (promSample, string) {
	s := promSample{labels: map[string]string{}}
	i := strings.IndexAny(line, "{ ")
	if i < 0 {
		return s, "malformed sample"
	}
	s.name = line[:i]
	if !metricName.MatchString(s.name) {
		return s, "malformed metric name"
	}
	rest := line[i:]
	if strings.HasPrefix(rest, "{") {
		rest = rest[1:]
		for !strings.HasPrefix(rest, "}") {
			eq := strings.Index(rest, `="`)
			if eq < 0 {
				return s, "malformed label"
			}
			name := rest[:eq]
			if !labelName.MatchString(name) {
				return s, "malformed label name"
			}
			if strings.HasPrefix(name, "__") {
				return s, "reserved label name"
			}
			if _, dup := s.labels[name]; dup {
				return s, "label " + name + " twice"
			}
			rest = rest[eq+2:]
			var v strings.Builder
			closed := false
			for j := 0; j < len(rest); j++ {
				switch c := rest[j]; c {
				case '\\':
					if j+1 == len(rest) {
						return s, "malformed escape"
					}
					switch rest[j+1] {
					case '\\':
						v.WriteByte('\\')
					case '"':
						v.WriteByte('"')
					case 'n':
						v.WriteByte('\n')
					default:
						return s, "bad escape \\" + string(rest[j+1])
					}
					j++
				case '"':
					rest, closed = rest[j+1:], true
				default:
					v.WriteByte(c)
				}
				if closed {
					break
				}
			}
			if !closed {
				return s, "malformed label value"
			}
			s.labels[name] = v.String()
			if r, ok := strings.CutPrefix(rest, ","); ok {
				rest = r
			} else if !strings.HasPrefix(rest, "}") {
				return s, "malformed label list"
			}
		}
		rest = rest[1:]
	}
	fields := strings.Split(strings.TrimPrefix(rest, " "), " ")
	if !strings.HasPrefix(rest, " ") || len(fields) < 1 || len(fields) > 2 {
		return s, "malformed sample"
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil && fields[0] != "+Inf" && fields[0] != "-Inf" && fields[0] != "NaN" {
		return s, "bad value"
	}
	s.value = v
	if len(fields) == 2 {
		if _, err := strconv.ParseInt(fields[1], 10, 64); err != nil {
			return s, "bad timestamp"
		}
	}
	return s, ""
}

// checkHistogram checks each series of a histogram (its samples grouped by the labels other
// than le).
func checkHistogram(f *promFamily) []string {
	type series struct {
		les    []string
		counts []float64
		sum    bool
		count  *float64
	}
	all := map[string]*series{}
	var errs []string
	for _, s := range f.samples {
		rest := map[string]string{}
		for k, v := range s.labels {
			if k != "le" {
				rest[k] = v
			}
		}
		key := fmt.Sprint(rest)
		sr := all[key]
		if sr == nil {
			sr = &series{}
			all[key] = sr
		}
		switch s.name {
		case f.name + "_bucket":
			le, ok := s.labels["le"]
			if !ok {
				errs = append(errs, key+": a bucket without le")
				continue
			}
			sr.les, sr.counts = append(sr.les, le), append(sr.counts, s.value)
		case f.name + "_sum":
			sr.sum = true
		case f.name + "_count":
			v := s.value
			sr.count = &v
		}
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		sr := all[key]
		prev := math.Inf(-1)
		for i, le := range sr.les {
			bound, err := strconv.ParseFloat(le, 64)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: le %q is not a number", key, le))
				continue
			}
			if bound <= prev {
				errs = append(errs, fmt.Sprintf("%s: le %s after %v: bounds must be increasing", key, le, prev))
			}
			prev = bound
			if i > 0 && sr.counts[i] < sr.counts[i-1] {
				errs = append(errs, fmt.Sprintf("%s: bucket counts decrease at le %s", key, le))
			}
		}
		if len(sr.les) == 0 || sr.les[len(sr.les)-1] != "+Inf" {
			errs = append(errs, key+": the last bucket is not le=\"+Inf\"")
		} else if sr.count == nil || *sr.count != sr.counts[len(sr.counts)-1] {
			errs = append(errs, key+": _count missing or not the +Inf bucket's count")
		}
		if !sr.sum {
			errs = append(errs, key+": no _sum")
		}
	}
	return errs
}

// TestMetricsPerPrincipal: a view_only token's scrape shows its own calls only (not how busy
// other principals are); an admin sees every principal's calls summed.
func TestMetricsPerPrincipal(t *testing.T) {
	running := map[string]int{"alice": 1, "bob": 3}
	m := NewMetrics(func(v authz.Principal) int {
		if v.Tier == authz.TierAdmin {
			return running["alice"] + running["bob"]
		}
		return running[v.Name]
	})
	for _, r := range []engine.Record{
		{Principal: "alice", Tool: "think", Category: authz.CategorySafe, Status: engine.StatusSuccess, DurationMS: 1},
		{Principal: "bob", Tool: "think", Category: authz.CategorySafe, Status: engine.StatusSuccess, DurationMS: 1},
		{Principal: "bob", Tool: "think", Category: authz.CategorySafe, Status: engine.StatusSuccess, DurationMS: 1},
		{Principal: "bob", Tool: "terminal_operations", Operation: "run_command", Category: authz.CategoryDangerous, Status: engine.StatusSuccess, DurationMS: 9},
	} {
		m.Observe(r)
	}
	scrape := func(p authz.Principal) promFamilies {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/metrics", nil)
		m.Handler().ServeHTTP(rec, req.WithContext(authz.WithPrincipal(req.Context(), p)))
		return parseExposition(t, rec.Body.String())
	}
	thinks := map[string]string{"category": "safe", "operation": "", "status": "success", "tool": "think"}
	for _, tt := range []struct {
		viewer             authz.Principal
		think, run, active float64
	}{
		{authz.Principal{Name: "alice", Tier: authz.TierViewOnly}, 1, 0, 1},
		{authz.Principal{Name: "bob", Tier: authz.TierExecuteBasic}, 2, 1, 3},
		{authz.Principal{Name: "default", Tier: authz.TierAdmin}, 3, 1, 4},
	} {
		fams := scrape(tt.viewer)
		if got, _ := fams.value("toolhost_executions_total", "toolhost_executions_total", thinks); got != tt.think {
			t.Errorf("%s sees %v think calls, want %v", tt.viewer.Name, got, tt.think)
		}
		runs := 0.0
		for _, s := range fams["toolhost_executions_total"].samples {
			if s.labels["tool"] == "terminal_operations" {
				runs += s.value
			}
		}
		if runs != tt.run {
			t.Errorf("%s sees %v run_command calls, want %v", tt.viewer.Name, runs, tt.run)
		}
		if got, _ := fams.value("toolhost_executions_active", "toolhost_executions_active", map[string]string{}); got != tt.active {
			t.Errorf("%s sees %v running, want %v", tt.viewer.Name, got, tt.active)
		}
	}
}
