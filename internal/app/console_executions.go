package app

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"

	"toolhost/authz"
	"toolhost/internal/console"
	"toolhost/internal/engine"
	"toolhost/internal/server"
)

// consoleExecutions adapts the execution engine to the console's activity page. The console
// acts as the operator, who sees and cancels every principal's executions.
type consoleExecutions struct{ e *engine.Engine }

// summaryLen bounds the arguments a history row shows.
const summaryLen = 160

func (x consoleExecutions) Running(ctx context.Context) ([]console.Execution, error) {
	var out []console.Execution
	for _, r := range x.e.Active(ctx, authz.OperatorPrincipal) {
		out = append(out, toConsole(r))
	}
	return out, nil
}

// History checks the page's filters as the history API does (server.ParseFilter: the same
// parameters, times and messages), so the page and GET /api/executions refuse the same input
// with the same words.
func (x consoleExecutions) History(ctx context.Context, q console.ExecutionQuery) (console.ExecutionPage, error) {
	v := url.Values{"offset": {strconv.Itoa(q.Offset)}}
	for key, val := range map[string]string{"tool": q.Tool, "category": q.Category, "status": q.Status,
		"conversation": q.Conversation, "principal": q.Principal, "since": q.Since, "until": q.Until} {
		if val != "" {
			v.Set(key, val)
		}
	}
	f, err := server.ParseFilter(v)
	if err != nil {
		return console.ExecutionPage{}, consoleFilterError(err)
	}
	f.Limit, f.Viewer = q.Limit, authz.OperatorPrincipal
	page, err := x.e.List(ctx, f)
	if err != nil {
		return console.ExecutionPage{}, consoleFilterError(err)
	}
	out := console.ExecutionPage{More: page.More}
	for _, r := range page.Executions {
		out.Executions = append(out.Executions, toConsole(r))
	}
	return out, nil
}

// consoleFilterError is the engine's refusal of a filter as the console shows it.
func consoleFilterError(err error) error {
	var fe *engine.FilterError
	if errors.As(err, &fe) {
		return &console.FilterError{Param: fe.Param, Message: fe.Message}
	}
	return err
}

func (x consoleExecutions) Cancel(ctx context.Context, id string) error {
	_, err := x.e.Cancel(ctx, authz.OperatorPrincipal, id)
	return err
}

func (x consoleExecutions) Stats(ctx context.Context) (console.ExecutionStats, error) {
	st, err := x.e.Stats(ctx, authz.OperatorPrincipal)
	if err != nil {
		return console.ExecutionStats{}, err
	}
	out := console.ExecutionStats{Total: st.Total, SuccessRate: st.SuccessRate}
	for _, g := range st.Tools {
		out.Tools = append(out.Tools, console.ToolStats{Tool: g.Name, Calls: g.Count, SuccessRate: g.SuccessRate,
			P50: msDuration(g.P50MS), P95: msDuration(g.P95MS)})
	}
	return out, nil
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// toConsole is a record as a row of the activity page: the command of terminal work, else
// the masked arguments, cut.
func toConsole(r engine.Record) console.Execution {
	summary := r.Command
	if summary == "" {
		summary = string(r.Args)
	}
	if len(summary) > summaryLen {
		summary = strings.ToValidUTF8(summary[:summaryLen], "") + "…"
	}
	e := console.Execution{ID: r.ID, Conversation: r.Conversation, Tool: r.Tool, Operation: r.Operation,
		Principal: r.Principal, Category: string(r.Category),
		Status: string(r.Status), Summary: summary, Started: r.Start, Duration: msDuration(r.DurationMS), Error: r.Error}
	if r.ErrorCode != "" && e.Error == "" {
		e.Error = r.ErrorCode
	}
	return e
}
