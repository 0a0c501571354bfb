package console

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"toolhost/authz"
)

// Executions is the execution engine as the activity page uses it. The wiring adapts the
// engine (internal/engine) to it; while none is wired the page shows the audit trail only.
type Executions interface {
	// Running lists the executions in progress, oldest first.
	Running(ctx context.Context) ([]Execution, error)
	// History pages finished executions, newest first, with the engine's filters.
	History(ctx context.Context, q ExecutionQuery) (ExecutionPage, error)
	// Cancel stops a running execution; an unknown or finished one is an error.
	Cancel(ctx context.Context, id string) error
	// Stats are the aggregate and per-tool metrics.
	Stats(ctx context.Context) (ExecutionStats, error)
}

// Execution is one tool call the engine ran or runs.
type Execution struct {
	ID, Conversation, Tool, Operation string
	// Principal is who called (a token's name, or stdio); Category the operation's risk
	// category (safe, moderate, dangerous).
	Principal, Category string
	// Status is the engine's word: running, success, failed, cancelled, timeout, denied, ...
	Status   string
	Summary  string // the command, or the arguments, short
	Started  time.Time
	Duration time.Duration // so far, while running
	Error    string
}

// ExecutionQuery filters and pages the history; empty fields do not filter. The filters are
// the history API's (GET /api/executions), as the user typed them: the engine's side checks
// them as the API does and answers a *FilterError naming the one at fault. Since and Until
// are an RFC 3339 time or a duration ago ("2h").
type ExecutionQuery struct {
	Tool, Category, Status, Conversation, Principal string
	Since, Until                                    string
	Offset, Limit                                   int
}

// filterParams are the activity page's query parameters, in the form's order.
var filterParams = []string{"tool", "category", "status", "conversation", "principal", "since", "until", "offset"}

// values is q as the activity page's query string, without the empty filters.
func (q ExecutionQuery) values(offset int) url.Values {
	v := url.Values{}
	for i, s := range []string{q.Tool, q.Category, q.Status, q.Conversation, q.Principal, q.Since, q.Until} {
		if s != "" {
			v.Set(filterParams[i], s)
		}
	}
	if offset > 0 {
		v.Set("offset", strconv.Itoa(offset))
	}
	return v
}

// FilterError is a history filter the engine refused: Param names the parameter, Message
// says what it accepts.
type FilterError struct {
	Param, Message string
}

func (e *FilterError) Error() string { return e.Param + ": " + e.Message }

// ExecutionPage is one page of history.
type ExecutionPage struct {
	Executions []Execution
	More       bool // another page follows
}

// ExecutionStats are the engine's aggregates.
type ExecutionStats struct {
	Total       int64
	SuccessRate float64
	// Tools are the per-tool figures, most called first.
	Tools []ToolStats
}

// ToolStats are one tool's metrics.
type ToolStats struct {
	Tool        string
	Calls       int64
	SuccessRate float64
	P50, P95    time.Duration
}

// auditRows is how many audit records the page shows, and auditTail how much of the log's
// end it reads to find them.
const (
	auditRows = 100
	auditTail = 256 << 10
	pageSize  = 50
)

func (c *Console) activityData(ctx context.Context, r *http.Request, s *session) (map[string]any, error) {
	data := map[string]any{"CSRF": s.csrf}
	if c.o.Executions == nil {
		data["NoEngine"] = true
		return data, nil
	}
	running, err := c.o.Executions.Running(ctx)
	if err != nil {
		return nil, fmt.Errorf("running executions: %w", err)
	}
	now := c.o.Now()
	for i := range running {
		running[i].Duration = now.Sub(running[i].Started)
	}
	data["Running"] = running
	return data, nil
}

func (c *Console) activityPage(w http.ResponseWriter, r *http.Request, s *session) {
	ctx := r.Context()
	data, err := c.activityData(ctx, r, s)
	if err != nil {
		c.fail(w, r, s, http.StatusInternalServerError, "Cannot read the running executions.", err)
		return
	}
	status := http.StatusOK
	data["Invalid"] = "" // the filter parameter at fault, if any
	if c.o.Executions != nil {
		q, err := historyQuery(r.URL.Query())
		var page ExecutionPage
		if err == nil {
			page, err = c.o.Executions.History(ctx, q)
		}
		data["Query"], data["History"] = q, page
		var fe *FilterError
		if errors.As(err, &fe) {
			// The page again with the form as the user filled it, the parameter at fault
			// named and marked.
			status, data["FilterError"], data["Invalid"] = http.StatusBadRequest, fe, fe.Param
		} else if err != nil {
			c.fail(w, r, s, http.StatusInternalServerError, "Cannot read the execution history.", err)
			return
		}
		if page.More {
			data["NextURL"] = "/activity?" + q.values(q.Offset+q.Limit).Encode()
		}
		if q.Offset > 0 && err == nil {
			data["PrevURL"] = "/activity?" + q.values(max(q.Offset-q.Limit, 0)).Encode()
		}
		data["Categories"] = []authz.Category{authz.CategorySafe, authz.CategoryModerate, authz.CategoryDangerous}
		stats, err := c.o.Executions.Stats(ctx)
		if err != nil {
			c.fail(w, r, s, http.StatusInternalServerError, "Cannot read the metrics.", err)
			return
		}
		data["Stats"] = stats
		data["CallsChart"] = callsChart(stats.Tools)
		data["LatencyChart"] = latencyChart(stats.Tools)
	}
	audit, err := readAudit(c.o.AuditFile, auditRows)
	if err != nil {
		c.o.Logger.Warn("console audit trail", "err", err)
		data["AuditError"] = "The audit log cannot be read."
	}
	data["Audit"] = audit
	c.render(w, r, status, "activity", s, data)
}

// historyQuery reads the activity page's filters. Parameters the page does not know, and an
// offset that is not a whole number, are refused here, naming the parameter, as the history
// API refuses them: a typo must not quietly show everything. The engine's side checks the
// values of the filters.
func historyQuery(v url.Values) (ExecutionQuery, error) {
	q := ExecutionQuery{Tool: v.Get("tool"), Category: v.Get("category"), Status: v.Get("status"), Conversation: v.Get("conversation"),
		Principal: v.Get("principal"), Since: strings.TrimSpace(v.Get("since")), Until: strings.TrimSpace(v.Get("until")), Limit: pageSize}
	for _, key := range slices.Sorted(maps.Keys(v)) {
		if !slices.Contains(filterParams, key) {
			return q, &FilterError{Param: key, Message: "unknown parameter; filters: " + strings.Join(filterParams, ", ")}
		}
	}
	if o := v.Get("offset"); o != "" {
		n, err := strconv.Atoi(o)
		if err != nil {
			return q, &FilterError{Param: "offset", Message: "offset must be a whole number"}
		}
		q.Offset = n
	}
	return q, nil
}

// cancelExecution answers POST /executions/ID/cancel.
func (c *Console) cancelExecution(w http.ResponseWriter, r *http.Request, s *session) {
	id, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/executions/"), "/cancel")
	if !ok || id == "" || strings.Contains(id, "/") {
		http.NotFound(w, r)
		return
	}
	if c.o.Executions == nil {
		c.fail(w, r, s, http.StatusNotFound, "No execution engine in this server.", nil)
		return
	}
	if err := c.o.Executions.Cancel(r.Context(), id); err != nil {
		c.fail(w, r, s, http.StatusConflict, "Not cancelled: "+err.Error(), err)
		return
	}
	c.o.Logger.Info("console cancelled execution", "id", id)
	http.Redirect(w, r, "/activity", http.StatusSeeOther)
}

// readAudit returns the last n records of the audit log, newest first. A missing log is
// empty: nothing was decided yet.
func readAudit(path string, n int) ([]authz.AuditRecord, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	from := max(st.Size()-auditTail, 0)
	buf := make([]byte, st.Size()-from)
	if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if from > 0 {
		// The first line is probably cut; start after it.
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	var out []authz.AuditRecord
	sc := bufio.NewScanner(bytes.NewReader(buf))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var rec authz.AuditRecord
		if json.Unmarshal(sc.Bytes(), &rec) == nil {
			out = append(out, rec)
		}
	}
	slices.Reverse(out)
	if len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// chartRow is the height of one tool's row in the charts.
const chartRow = 18

// callsChart draws calls per tool as horizontal bars, the failed share in red.
func callsChart(tools []ToolStats) template.HTML {
	if len(tools) == 0 {
		return ""
	}
	top := slices.MaxFunc(tools, func(a, b ToolStats) int { return int(a.Calls - b.Calls) }).Calls
	return barChart(tools, "calls by tool", func(t ToolStats) (float64, float64, string) {
		w := float64(t.Calls) / float64(max(top, 1))
		return w, w * t.SuccessRate, fmt.Sprintf("%d calls, %.0f%% ok", t.Calls, t.SuccessRate*100)
	})
}

// latencyChart draws each tool's p95 as a bar with its p50 inside it.
func latencyChart(tools []ToolStats) template.HTML {
	if len(tools) == 0 {
		return ""
	}
	top := slices.MaxFunc(tools, func(a, b ToolStats) int { return int(a.P95 - b.P95) }).P95
	return barChart(tools, "latency by tool", func(t ToolStats) (float64, float64, string) {
		return float64(t.P95) / float64(max(top, 1)), float64(t.P50) / float64(max(top, 1)),
			"p50 " + humanDuration(t.P50) + " · p95 " + humanDuration(t.P95)
	})
}

// barChart draws one row per tool: its name, an outer bar, an inner bar (fractions of the
// bar width) and a label. Our own SVG: no chart library, no script.
func barChart(tools []ToolStats, title string, row func(ToolStats) (outer, inner float64, label string)) template.HTML {
	const width, nameW, barW = 640, 190, 260
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s">`, width, len(tools)*chartRow+4, template.HTMLEscapeString(title))
	for i, t := range tools {
		outer, inner, label := row(t)
		y := i*chartRow + 2
		fmt.Fprintf(&b, `<text x="0" y="%d" class="name">%s</text>`, y+12, template.HTMLEscapeString(t.Tool))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="12" class="outer"/>`, nameW, y+2, outer*barW)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="12" class="inner"/>`, nameW, y+2, inner*barW)
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="label">%s</text>`, nameW+barW+8, y+12, template.HTMLEscapeString(label))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
