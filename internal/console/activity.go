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
	// Stats are the per-tool metrics, in the fixed tool order.
	Stats(ctx context.Context) ([]ToolStats, error)
}

// Execution is one tool call the engine ran or runs.
type Execution struct {
	ID, Conversation, Tool, Operation string
	// Status is the engine's word: running, ok, error, cancelled, ...
	Status   string
	Summary  string // arguments or command, short
	Started  time.Time
	Duration time.Duration // so far, while running
	Error    string
}

// ExecutionQuery filters and pages the history; empty fields do not filter.
type ExecutionQuery struct {
	Tool, Operation, Status, Conversation string
	// Cursor continues a previous page (ExecutionPage.Next); "" is the newest page.
	Cursor string
	Limit  int
}

// ExecutionPage is one page of history.
type ExecutionPage struct {
	Executions []Execution
	Next       string // cursor of the next (older) page; "" at the end
	Total      int    // executions matching the filters, when the engine knows; -1 otherwise
}

// ToolStats are one tool's metrics.
type ToolStats struct {
	Tool     string
	Calls    int
	Errors   int
	P50, P95 time.Duration
	// Series is the calls per interval over the recent past, oldest first, for the chart.
	Series []int
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
	if c.o.Executions != nil {
		q := ExecutionQuery{Tool: r.FormValue("tool"), Operation: r.FormValue("operation"), Status: r.FormValue("status"),
			Conversation: r.FormValue("conversation"), Cursor: r.FormValue("cursor"), Limit: pageSize}
		page, err := c.o.Executions.History(ctx, q)
		if err != nil {
			c.fail(w, r, s, http.StatusInternalServerError, "Cannot read the execution history.", err)
			return
		}
		data["Query"], data["History"] = q, page
		if page.Next != "" {
			v := url.Values{"tool": {q.Tool}, "operation": {q.Operation}, "status": {q.Status}, "conversation": {q.Conversation}, "cursor": {page.Next}}
			data["NextURL"] = "/activity?" + v.Encode()
		}
		stats, err := c.o.Executions.Stats(ctx)
		if err != nil {
			c.fail(w, r, s, http.StatusInternalServerError, "Cannot read the metrics.", err)
			return
		}
		type statView struct {
			ToolStats
			Success float64
			Chart   template.HTML
		}
		var views []statView
		for _, st := range stats {
			v := statView{ToolStats: st, Success: 1}
			if st.Calls > 0 {
				v.Success = float64(st.Calls-st.Errors) / float64(st.Calls)
			}
			v.Chart = sparkline(st.Series)
			views = append(views, v)
		}
		data["Stats"] = views
	}
	audit, err := readAudit(c.o.AuditFile, auditRows)
	if err != nil {
		c.o.Logger.Warn("console audit trail", "err", err)
		data["AuditError"] = "The audit log cannot be read."
	}
	data["Audit"] = audit
	c.render(w, r, http.StatusOK, "activity", s, data)
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

// sparkline draws a series as a small SVG area chart, scaled to its own maximum.
func sparkline(series []int) template.HTML {
	const w, h = 120, 30
	if len(series) == 0 {
		return ""
	}
	top := slices.Max(series)
	if top == 0 {
		top = 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg viewBox="0 0 %d %d" preserveAspectRatio="none" role="img" aria-label="calls over time"><path d="M0 %d`, w, h, h)
	step := float64(w)
	if len(series) > 1 {
		step = float64(w) / float64(len(series)-1)
	}
	for i, v := range series {
		x := float64(i) * step
		y := float64(h) - float64(v)/float64(top)*float64(h-2)
		b.WriteString(" L" + strconv.FormatFloat(x, 'f', 1, 64) + " " + strconv.FormatFloat(y, 'f', 1, 64))
	}
	fmt.Fprintf(&b, ` L%d %d Z" fill="#c7d7fe" stroke="#2457c5" stroke-width="1"/></svg>`, w, h)
	return template.HTML(b.String())
}
