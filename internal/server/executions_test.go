package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/authz"
	"toolhost/consolidated"
	"toolhost/internal/engine"
	"toolhost/internal/secret"
	"toolhost/store"
	"toolhost/store/storetest"
)

func TestParseFilter(t *testing.T) {
	tests := []struct {
		query string
		param string // "" for valid
	}{
		{"", ""},
		{"tool=think&status=success&category=safe&principal=alice&conversation=c1&limit=100&offset=5", ""},
		{"since=2026-01-02T15:04:05Z&until=1h", ""},
		{"limit=0", "limit"},
		{"limit=101", "limit"},
		{"limit=-3", "limit"},
		{"limit=1e3", "limit"},
		{"offset=x", "offset"},
		{"offset=-1", "offset"},
		{"status=ok", "status"},
		{"category=high", "category"},
		{"since=tomorrow", "since"},
		{"until=-5m", "until"},
		{"since=1h&until=2h", "since"},
		{"sort=asc", "sort"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			q, _ := url.ParseQuery(tt.query)
			_, err := ParseFilter(q)
			var fe *engine.FilterError
			switch {
			case tt.param == "" && err != nil:
				t.Errorf("ParseFilter(%s) = %v, want valid", tt.query, err)
			case tt.param != "" && (!errors.As(err, &fe) || fe.Param != tt.param):
				t.Errorf("ParseFilter(%s) = %v, want an error naming %s", tt.query, err, tt.param)
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	now := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		in   string
		want time.Time
	}{{"90m", now.Add(-90 * time.Minute)}, {"2026-01-01T00:00:00Z", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}} {
		if got, err := ParseTime(tt.in, now); err != nil || !got.Equal(tt.want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// TestPrincipalOfFailsClosed: a TokenInfo that does not carry a known tier is view_only.
func TestPrincipalOfFailsClosed(t *testing.T) {
	tests := []struct {
		name string
		ti   *auth.TokenInfo
		want authz.Tier
	}{
		{"round trip", TokenInfoOf(authz.Principal{Name: "a", Tier: authz.TierExecuteAdvanced}), authz.TierExecuteAdvanced},
		{"no extra", &auth.TokenInfo{UserID: "a"}, authz.TierViewOnly},
		{"unknown tier", &auth.TokenInfo{UserID: "a", Extra: map[string]any{"tier": "root"}}, authz.TierViewOnly},
		{"tier of another type", &auth.TokenInfo{UserID: "a", Extra: map[string]any{"tier": 3}}, authz.TierViewOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PrincipalOf(tt.ti); got.Tier != tt.want || got.Name != "a" {
				t.Errorf("PrincipalOf = %+v, want tier %s", got, tt.want)
			}
		})
	}
}

// TestAuthenticate: the serve token is the admin "default", table tokens resolve to their
// principal, unknown or revoked ones are 401, and a token table that cannot be read is 503 (the
// client's token may be fine).
func TestAuthenticate(t *testing.T) {
	resolve := func(_ context.Context, secret string) (authz.Principal, error) {
		switch secret {
		case "th_basic":
			return authz.Principal{Name: "basic", Tier: authz.TierExecuteBasic}, nil
		case "th_busy":
			return authz.Principal{}, errors.New("state store busy")
		}
		return authz.Principal{}, authz.ErrBadToken
	}
	var seen authz.Principal
	h := authenticate(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, _ = authz.PrincipalFrom(r.Context())
	}), HTTPOptions{Token: "th_serve", Resolve: resolve})
	tests := []struct {
		header string
		code   int
		want   string
	}{
		{"Bearer th_serve", 200, "default"},
		{"bearer th_serve", 200, "default"},
		{"Bearer th_basic", 200, "basic"},
		{"Bearer th_revoked", 401, ""},
		{"Bearer ", 401, ""},
		{"Basic th_serve", 401, ""},
		{"", 401, ""},
		{"Bearer th_busy", 503, ""},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			seen = authz.Principal{}
			req := httptest.NewRequest("GET", "/api/stats", nil)
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.code || seen.Name != tt.want {
				t.Errorf("%q: %d as %q, want %d as %q", tt.header, rec.Code, seen.Name, tt.code, tt.want)
			}
		})
	}
}

// TestBogusNamesStayBounded: tool and operation names a model makes up (1,000 distinct ones,
// some long, some with quotes and newlines) are recorded as "unknown", so the history's
// aggregates and /metrics hold as many keys and series after them all as after the first few.
func TestBogusNamesStayBounded(t *testing.T) {
	ctx := context.Background()
	st := storetest.Open(t)
	var m *Metrics
	e, err := engine.Open(ctx, engine.Options{StateDir: st.Dir(), Store: st, OnFinish: func(r engine.Record) { m.Observe(r) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	m = NewMetrics(e.ActiveCount)
	reg := consolidated.NewRegistry(&consolidated.Env{DefaultConversation: "c", Executions: e}, seamTools(), nil)
	sst, cst := mcp.NewInMemoryTransports()
	ss, err := New(Options{Name: "toolhost", Version: "test", Registry: reg}).Connect(ctx, sst, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, cst, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })

	call := func(i int) {
		long := strings.Repeat("x", i%5*400)
		switch i % 4 {
		case 0: // an operation nobody declares, over the protocol
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "file_operations", Arguments: map[string]any{"operation": fmt.Sprintf("bogus_%d%s", i, long)}})
		case 1: // a dotted name, which resolves to the tool with that operation
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: fmt.Sprintf("file_operations.nope_%d", i), Arguments: map[string]any{}})
		case 2: // a tool nobody declares, as `toolhost call` dispatches it
			reg.Dispatch(ctx, fmt.Sprintf("no_such_tool_%d%s", i, long), json.RawMessage(`{}`), nil)
		case 3: // an operation that tries to break out of its label
			reg.Dispatch(ctx, "file_operations", json.RawMessage(fmt.Sprintf(`{"operation":"x\"} 1\nfake_%d{a=\"b"}`, i)), nil)
		}
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	// keys counts what grows with distinct names: the aggregates' maps, the history's index
	// buckets, and the metrics' series.
	type keys struct{ tools, operations, series int }
	measure := func() keys {
		t.Helper()
		if err := e.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		var agg struct {
			Tools      map[string]json.RawMessage `json:"tools"`
			Operations map[string]int64           `json:"operations"`
		}
		// The engine's own record of its aggregates, read as it is stored.
		err := st.View(ctx, func(tx *store.Tx) error {
			_, err := tx.GetJSON(store.Path{store.BucketExecutions, "stats"}, "aggregate", &agg)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/metrics", nil)
		m.Handler().ServeHTTP(rec, req.WithContext(authz.WithPrincipal(req.Context(), authz.StdioPrincipal)))
		k := keys{tools: len(agg.Tools), operations: len(agg.Operations)}
		for _, line := range strings.Split(rec.Body.String(), "\n") {
			if strings.HasPrefix(line, "toolhost_execution") {
				k.series++
			}
			for _, bogus := range []string{"bogus_", "nope_", "no_such_tool_", "fake_"} {
				if strings.Contains(line, bogus) {
					t.Fatalf("/metrics names a made-up name: %.200s", line)
				}
			}
		}
		return k
	}
	for i := range 4 {
		call(i)
	}
	first := measure()
	for i := 4; i < 1000; i++ {
		call(i)
	}
	if got := measure(); got != first {
		t.Errorf("after 1,000 made-up names: %+v, want %+v as after the first four", got, first)
	}
	s, err := e.Stats(ctx, authz.StdioPrincipal)
	if err != nil || s.Total != 1000 {
		t.Fatalf("Stats = %d, %v; want 1000 executions", s.Total, err)
	}
	var names []string
	for _, g := range s.Tools {
		names = append(names, g.Name)
	}
	if slices.Sort(names); !slices.Equal(names, []string{"file_operations", "unknown"}) {
		t.Errorf("stats tools = %v, want file_operations and unknown", names)
	}
	for _, op := range s.TopOperations {
		if op.Operation != "unknown" && op.Operation != "file_operations.unknown" {
			t.Errorf("top operation %q, want only unknown ones", op.Operation)
		}
	}
	// The arguments still show what the model sent, cut.
	page, err := e.List(ctx, engine.Filter{Viewer: authz.StdioPrincipal, Tool: "file_operations", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range page.Executions {
		if r.Operation != "unknown" || r.ErrorCode != "unknown_operation" {
			t.Errorf("record %s: operation %q, error %q; want unknown, unknown_operation", r.ID, r.Operation, r.ErrorCode)
		}
		if strings.Contains(string(r.Args), "bogus_") && len(r.Args) > 2*secret.MaxArgValue {
			t.Errorf("record %s keeps %d bytes of arguments, want them cut", r.ID, len(r.Args))
		}
	}
}

// openEngine opens an execution history on a test store, closed when the test ends.
func openEngine(t *testing.T) (*engine.Engine, *store.Store) {
	t.Helper()
	st := storetest.Open(t)
	e, err := engine.Open(context.Background(), engine.Options{StateDir: st.Dir(), Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, st
}

// TestRateLimitHeaders: every operator API answer of a limited principal carries the draft's
// RateLimit-Limit, -Remaining, -Reset and -Policy fields, well formed; a refused one is 429 with
// Retry-After; an unlimited principal's answers carry none.
func TestRateLimitHeaders(t *testing.T) {
	ctx := context.Background()
	e, _ := openEngine(t)
	now := time.Unix(1_800_000_000, 0)
	lim := &engine.Limits{PerPrincipal: engine.Rate{N: 2, Per: time.Minute}, Now: func() time.Time { return now }}
	routes := ExecutionRoutes(ExecutionAPI{Executions: e, Limits: lim, Metrics: NewMetrics(e.ActiveCount).Handler()})
	get := func(p authz.Principal, path string) *httptest.ResponseRecorder {
		t.Helper()
		rec := httptest.NewRecorder()
		routes[path].ServeHTTP(rec, httptest.NewRequest("GET", path, nil).WithContext(authz.WithPrincipal(ctx, p)))
		return rec
	}
	delta := regexp.MustCompile(`^[0-9]+$`)
	policy := regexp.MustCompile(`^[0-9]+;w=[0-9]+$`)
	alice := authz.Principal{Name: "alice", Tier: authz.TierViewOnly}
	steps := []struct {
		name                    string
		p                       authz.Principal
		path                    string
		advance                 time.Duration
		code                    int
		remaining, reset, retry string // "" when the field must be absent
	}{
		{"first", alice, "/api/stats", 0, 200, "1", "30", ""},
		{"second, another route of the same bucket", alice, "/metrics", 0, 200, "0", "60", ""},
		{"third refused", alice, "/api/executions", 0, 429, "0", "60", "30"},
		{"one back after 30s", alice, "/api/stats", 30 * time.Second, 200, "0", "60", ""},
		{"its own rate", authz.Principal{Name: "bob", Tier: authz.TierViewOnly, Rate: "1/h"}, "/api/stats", 0, 200, "0", "3600", ""},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			now = now.Add(s.advance)
			rec := get(s.p, s.path)
			h := rec.Header()
			if rec.Code != s.code {
				t.Fatalf("GET %s = %d, want %d", s.path, rec.Code, s.code)
			}
			for name, want := range map[string]string{"RateLimit-Remaining": s.remaining, "RateLimit-Reset": s.reset, "Retry-After": s.retry} {
				if got := h.Values(name); want == "" && len(got) > 0 || want != "" && (len(got) != 1 || got[0] != want) {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			for _, name := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
				if v := h.Values(name); len(v) != 1 || !delta.MatchString(v[0]) {
					t.Errorf("%s = %q, want one count of seconds or requests", name, v)
				}
			}
			if v := h.Values("RateLimit-Policy"); len(v) != 1 || !policy.MatchString(v[0]) {
				t.Errorf("RateLimit-Policy = %q, want LIMIT;w=SECONDS", v)
			}
		})
	}
	if h := get(authz.Principal{Name: "alice"}, "/api/stats").Header(); h.Get("RateLimit-Policy") != "2;w=60" || h.Get("RateLimit-Limit") != "2" {
		t.Errorf("policy = %q, limit %q; want 2;w=60 and 2", h.Get("RateLimit-Policy"), h.Get("RateLimit-Limit"))
	}
	unlimited := ExecutionRoutes(ExecutionAPI{Executions: e, Limits: &engine.Limits{}})
	rec := httptest.NewRecorder()
	unlimited["/api/stats"].ServeHTTP(rec, httptest.NewRequest("GET", "/api/stats", nil).WithContext(authz.WithPrincipal(ctx, alice)))
	for name := range rec.Header() {
		if strings.HasPrefix(name, "Ratelimit") || name == "Retry-After" {
			t.Errorf("an unlimited principal's answer has %s", name)
		}
	}
}
