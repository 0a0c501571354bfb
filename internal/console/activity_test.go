package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"toolhost/authz"
)

// memExecutions is an in-memory execution history for the activity page's tests; the real
// one is the engine behind internal/app's adapter.
type memExecutions struct {
	mu        sync.Mutex
	running   []Execution
	history   []Execution // newest first
	cancelled []string
	queries   []ExecutionQuery
}

func (m *memExecutions) Running(context.Context) ([]Execution, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.running), nil
}

func (m *memExecutions) History(_ context.Context, q ExecutionQuery) (ExecutionPage, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queries = append(m.queries, q)
	var match []Execution
	for _, e := range m.history {
		if (q.Tool == "" || e.Tool == q.Tool) && (q.Status == "" || e.Status == q.Status) && (q.Conversation == "" || e.Conversation == q.Conversation) {
			match = append(match, e)
		}
	}
	end := min(q.Offset+q.Limit, len(match))
	if q.Offset > end {
		return ExecutionPage{}, nil
	}
	return ExecutionPage{Executions: match[q.Offset:end], More: end < len(match)}, nil
}

func (m *memExecutions) Cancel(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := slices.IndexFunc(m.running, func(e Execution) bool { return e.ID == id })
	if i < 0 {
		return errors.New("no running execution " + id)
	}
	m.cancelled = append(m.cancelled, id)
	m.running = slices.Delete(m.running, i, i+1)
	return nil
}

func (m *memExecutions) Stats(context.Context) (ExecutionStats, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	by := map[string]*ToolStats{}
	var ok int64
	for _, e := range m.history {
		t := by[e.Tool]
		if t == nil {
			t = &ToolStats{Tool: e.Tool, P50: 3 * time.Millisecond, P95: 40 * time.Millisecond}
			by[e.Tool] = t
		}
		t.Calls++
		if e.Status == "success" {
			t.SuccessRate++
			ok++
		}
	}
	st := ExecutionStats{Total: int64(len(m.history))}
	if st.Total > 0 {
		st.SuccessRate = float64(ok) / float64(st.Total)
	}
	for _, t := range by {
		t.SuccessRate /= float64(t.Calls)
		st.Tools = append(st.Tools, *t)
	}
	slices.SortFunc(st.Tools, func(a, b ToolStats) int { return int(b.Calls - a.Calls) })
	return st, nil
}

func fillHistory(m *memExecutions, n int, now time.Time) {
	tools := []string{"file_operations", "terminal_operations", "memory_operations", "web_operations"}
	for i := range n {
		status := "success"
		if i%7 == 0 {
			status = "failed"
		}
		m.history = append(m.history, Execution{ID: fmt.Sprintf("exec_%05d", i), Conversation: fmt.Sprintf("conv-%d", i%3),
			Tool: tools[i%len(tools)], Operation: "op", Status: status, Summary: fmt.Sprintf("call %d", i),
			Started: now.Add(-time.Duration(i) * time.Second), Duration: time.Duration(i%50) * time.Millisecond})
	}
}

// TestActivity: running executions with elapsed time and cancel, filters and paging passed
// to the engine, metrics charts, and the audit trail newest first.
func TestActivity(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	ex := &memExecutions{running: []Execution{{ID: "exec_run1", Tool: "terminal_operations", Operation: "run_command",
		Conversation: "conv-1", Summary: "sleep 600", Status: "running", Started: now.Add(-75 * time.Second)}}}
	fillHistory(ex, 120, now)
	f := newFixture(t, func(o *Options) { o.Executions = ex; o.Now = func() time.Time { return now } })
	audit := []authz.AuditRecord{
		{Time: now.Add(-2 * time.Minute), Event: "decision", Outcome: "denied", Code: "outside_workdir", Tool: "file_operations", Path: "/etc/first"},
		{Time: now.Add(-time.Minute), Event: "approval_approved", By: "console", Path: "/srv/second"},
	}
	af, err := os.Create(f.c.o.AuditFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range audit {
		json.NewEncoder(af).Encode(rec)
	}
	af.Close()
	cl := f.client(t)
	csrf := f.signIn(t, cl)

	code, page := f.get(t, cl, "/activity?tool=file_operations&status=success&offset=50")
	if code != http.StatusOK {
		t.Fatalf("activity: %d\n%s", code, page)
	}
	if got, want := ex.queries[len(ex.queries)-1], (ExecutionQuery{Tool: "file_operations", Status: "success", Offset: 50, Limit: pageSize}); got != want {
		t.Errorf("query = %+v, want %+v", got, want)
	}
	checks := []struct{ name, want string }{
		{"elapsed", "1m15s"},
		{"cancel form", `action="/executions/exec_run1/cancel"`},
		{"newer link", `href="/activity?status=success&amp;tool=file_operations">`},
		{"calls chart", `aria-label="calls by tool"`},
		{"latency chart", `aria-label="latency by tool"`},
		{"audit newest first", "/srv/second"},
	}
	for _, c := range checks {
		if !strings.Contains(page, c.want) {
			t.Errorf("%s: page lacks %q", c.name, c.want)
		}
	}
	if strings.Index(page, "/srv/second") > strings.Index(page, "/etc/first") {
		t.Error("the audit trail is not newest first")
	}
	if strings.Contains(page, "Older") {
		t.Error("an Older link on the last page of matches")
	}
	code, _ = f.post(t, cl, "/executions/exec_run1/cancel", url.Values{"csrf": {csrf}}, nil)
	if code != http.StatusSeeOther || !slices.Equal(ex.cancelled, []string{"exec_run1"}) {
		t.Errorf("cancel: %d, cancelled %v", code, ex.cancelled)
	}
	if code, _ = f.post(t, cl, "/executions/exec_run1/cancel", url.Values{"csrf": {csrf}}, nil); code != http.StatusConflict {
		t.Errorf("second cancel: %d, want 409", code)
	}
	if code, _ = f.post(t, cl, "/executions/exec_x/cancel", url.Values{}, nil); code != http.StatusForbidden {
		t.Errorf("cancel without CSRF: %d, want 403", code)
	}
}

// TestActivityWithoutEngine: the page says the engine is missing and still shows the audit
// trail; it invents nothing.
func TestActivityWithoutEngine(t *testing.T) {
	f := newFixture(t, nil)
	cl := f.client(t)
	f.signIn(t, cl)
	code, page := f.get(t, cl, "/activity")
	if code != http.StatusOK || !strings.Contains(page, "once the execution engine is wired in") || strings.Contains(page, "<h2>History</h2>") {
		t.Errorf("activity without an engine: %d\n%s", code, page)
	}
}

// BenchmarkActivityPage renders the activity page over 10,000 stored executions (the
// console's own cost: an in-memory history stands in for the engine's store).
func BenchmarkActivityPage(b *testing.B) {
	ex := &memExecutions{}
	fillHistory(ex, 10_000, time.Now())
	f := newFixture(b, func(o *Options) { o.Executions = ex })
	cl := f.client(b)
	f.signIn(b, cl)
	b.ResetTimer()
	for b.Loop() {
		resp, err := cl.Get(f.srv.URL + "/activity")
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("activity: %v %v", err, resp.Status)
		}
		resp.Body.Close()
	}
}

// TestActivityFilterForm: the history form offers every filter of the history API, keeps
// what the user typed, and the paging links carry every filter. A parameter the page does not
// know or an offset that is no number is refused naming it, with the form kept (values the
// engine refuses: internal/app's TestConsoleActivityFilters).
func TestActivityFilterForm(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	ex := &memExecutions{}
	fillHistory(ex, 120, now)
	f := newFixture(t, func(o *Options) { o.Executions = ex; o.Now = func() time.Time { return now } })
	cl := f.client(t)
	f.signIn(t, cl)

	filters := "category=dangerous&conversation=conv-1&principal=ci-bot&since=2h&status=success&tool=file_operations&until=2026-11-25T09%3A30%3A00Z"
	code, page := f.get(t, cl, "/activity?"+filters)
	if code != http.StatusOK {
		t.Fatalf("activity with every filter: %d\n%s", code, page)
	}
	want := ExecutionQuery{Tool: "file_operations", Category: "dangerous", Status: "success", Conversation: "conv-1",
		Principal: "ci-bot", Since: "2h", Until: "2026-11-25T09:30:00Z", Limit: pageSize}
	if got := ex.queries[len(ex.queries)-1]; got != want {
		t.Errorf("query = %+v, want %+v", got, want)
	}
	for _, w := range []string{
		`name="principal" value="ci-bot"`,
		`name="since" value="2h"`,
		`name="until" value="2026-11-25T09:30:00Z"`,
		`<option selected>dangerous</option>`,
	} {
		if !strings.Contains(page, w) {
			t.Errorf("the form lacks %q", w)
		}
	}
	// Paging carries every filter (memExecutions filters by tool, status and conversation).
	_, page = f.get(t, cl, "/activity?since=2h&principal=ci-bot&category=safe")
	next := `href="/activity?category=safe&amp;offset=50&amp;principal=ci-bot&amp;since=2h"`
	if !strings.Contains(page, next) {
		t.Errorf("the Older link does not carry the filters; want %s", next)
	}

	refused := []struct{ name, query, param string }{
		{"unknown parameter", "principle=ci-bot", "principle"},
		{"offset not a number", "offset=ten", "offset"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			n := len(ex.queries)
			code, page := f.get(t, cl, "/activity?"+tc.query)
			if code != http.StatusBadRequest || !strings.Contains(page, "Not filtered: <code>"+tc.param+"</code>") {
				t.Errorf("GET /activity?%s = %d, want 400 naming %s:\n%s", tc.query, code, tc.param, page)
			}
			if len(ex.queries) != n {
				t.Errorf("GET /activity?%s reached the engine", tc.query)
			}
			if !strings.Contains(page, `name="tool"`) {
				t.Error("the refusal dropped the form")
			}
		})
	}
}
