package consolidated

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

type thinkArgs struct {
	Thoughts string `json:"thoughts" alias:"thought" jsonschema:"Your reasoning, plan or analysis."`
}

// MaxThoughtBytes bounds one recorded thought; a model pasting a whole file into think gets told.
const MaxThoughtBytes = 64 << 10

// ThinkTool records a thought. The acknowledgement is deliberately short and final, so that a
// model never reads it as a prompt to think again.
func ThinkTool() *Tool {
	return &Tool{
		Name:        "think",
		Description: "Think step by step before acting: record reasoning or a plan. No side effects; nothing is fetched or changed.",
		Single:      true,
		Operations: []Operation{
			Op("think", "record reasoning (no side effects)", RiskRead, func(ctx context.Context, c *Call, a *thinkArgs) (*Result, error) {
				t := strings.TrimSpace(a.Thoughts)
				if t == "" {
					return nil, &ToolError{Code: CodeInvalidValue, Param: "thoughts", Message: "thoughts is empty"}
				}
				if len(t) > MaxThoughtBytes {
					return nil, &ToolError{Code: CodeTooLarge, Param: "thoughts", Message: fmt.Sprintf("thoughts is over %d KB; summarise instead of pasting content", MaxThoughtBytes>>10)}
				}
				n := c.Env.thoughts.Add(1)
				c.Logger.Debug("thought", "n", n, "chars", utf8.RuneCountInString(t))
				return Text("Thought recorded. Continue with your next action."), nil
			}),
		},
	}
}
