package consolidated

import (
	"context"
	"errors"
	"fmt"
	"time"
)

type readToolResultArgs struct {
	ID     string `json:"id" jsonschema:"Result id from a cut marker."`
	Offset int64  `json:"offset,omitempty" jsonschema:"Byte offset (default 0; negative = from the end)."`
	Length int64  `json:"length,omitempty" jsonschema:"Bytes to return (default and max: the result budget)."`
}

// ReadToolResultTool pages through results that were cut to fit the budget.
func ReadToolResultTool() *Tool {
	return &Tool{
		Name:        "read_tool_result",
		Title:       "Read a cut result",
		Description: "Page through a result that was cut to fit the size budget, by id, offset and length.",
		Single:      true,
		Operations: []Operation{
			Op("read_tool_result", "page through a result that was cut to fit the size budget", RiskRead, func(ctx context.Context, c *Call, a *readToolResultArgs) (*Result, error) {
				if c.Env.Spill == nil {
					return nil, Errorf(CodeUnavailable, "no spilled results are kept by this server")
				}
				page := c.Budget().Page()
				max := int64(page.Bytes)
				length := a.Length
				if length <= 0 || length > max {
					length = max
				}
				text, start, total, err := c.Env.Spill.Page(c.Conversation, a.ID, a.Offset, length)
				if errors.Is(err, ErrNoSpill) {
					return nil, &ToolError{Code: CodeNotFound, Param: "id", Message: fmt.Sprintf("no spilled result %q (ids look like r0123456789ab; results are kept %s)",
						truncate(a.ID, 40), hours(c.Env.Spill.MaxAge))}
				}
				if err != nil {
					return nil, err
				}
				// A page ends where the client's limit would cut it: after its last whole
				// line within the budget's lines and (JSON-encoded) size.
				text = page.Trim(text)
				end := start + int64(len(text))
				head := fmt.Sprintf("[%s bytes %d-%d of %d", a.ID, start, end, total)
				if end < total {
					head += fmt.Sprintf("; next offset %d]", end)
				} else {
					head += "; end]"
				}
				return &Result{Text: head + "\n" + text, NoSpill: true,
					Structured: map[string]any{"id": a.ID, "offset": start, "end": end, "total": total}}, nil
			}),
		},
	}
}

// hours says d in hours, as the model reads how long spilled results are kept.
func hours(d time.Duration) string {
	if h := d.Hours(); h == float64(int(h)) {
		return fmt.Sprintf("%d hours", int(h))
	}
	return d.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
