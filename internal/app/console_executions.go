package app

import (
	"context"
	"strings"
	"time"

	"toolhost/authz"
	"toolhost/internal/console"
	"toolhost/internal/engine"
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

func (x consoleExecutions) History(ctx context.Context, q console.ExecutionQuery) (console.ExecutionPage, error) {
	f := engine.Filter{Tool: q.Tool, Conversation: q.Conversation, Limit: q.Limit, Offset: q.Offset, Viewer: authz.OperatorPrincipal}
	if q.Status != "" {
		st, err := engine.ParseStatus(q.Status)
		if err != nil {
			return console.ExecutionPage{}, err
		}
		f.Status = st
	}
	page, err := x.e.List(ctx, f)
	if err != nil {
		return console.ExecutionPage{}, err
	}
	out := console.ExecutionPage{More: page.More}
	for _, r := range page.Executions {
		out.Executions = append(out.Executions, toConsole(r))
	}
	return out, nil
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
		Status: string(r.Status), Summary: summary, Started: r.Start, Duration: msDuration(r.DurationMS), Error: r.Error}
	if r.ErrorCode != "" && e.Error == "" {
		e.Error = r.ErrorCode
	}
	return e
}
