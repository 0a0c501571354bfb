package consolidated

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"unicode/utf8"
)

type thinkArgs struct {
	Thoughts string `json:"thoughts" alias:"thought" jsonschema:"Your reasoning, plan or analysis."`
}

// MaxThoughtBytes bounds one recorded thought; a model pasting a whole file into think gets told.
const MaxThoughtBytes = 64 << 10

// thinkRepeats is how often the same thought among a conversation's last recentThoughts may be
// recorded before the answer says to act or ask: a model that thinks the same thing a third time
// is going round in circles.
const (
	thinkRepeats   = 3
	recentThoughts = 8
	// maxThinkers bounds the conversations whose recent thoughts are kept.
	maxThinkers = 256
)

// thinkAgain is the answer to a thought recorded thinkRepeats times.
const thinkAgain = "Thought recorded. You have recorded this same thought 3 times: act on it now (make the change, run the command), or ask the user with the user_collaboration tool's ask if you are stuck."

// recentThinking keeps, per conversation, digests of its last thoughts.
type recentThinking struct {
	mu   sync.Mutex
	last map[string][]uint64
}

// note records a thought of conversation conv and returns how often it is among the recent
// ones, this one included. Thoughts are compared by their words, case and spacing aside.
func (r *recentThinking) note(conv, thought string) int {
	h := fnv.New64a()
	h.Write([]byte(strings.ToLower(strings.Join(strings.Fields(thought), " "))))
	sum := h.Sum64()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil {
		r.last = map[string][]uint64{}
	}
	recent, ok := r.last[conv]
	if !ok && len(r.last) >= maxThinkers {
		for k := range r.last {
			delete(r.last, k)
			break
		}
	}
	recent = append(recent, sum)
	if len(recent) > recentThoughts {
		recent = recent[len(recent)-recentThoughts:]
	}
	r.last[conv] = recent
	n := 0
	for _, s := range recent {
		if s == sum {
			n++
		}
	}
	return n
}

// ThinkTool records a thought. The acknowledgement is deliberately short and final, so that a
// model never reads it as a prompt to think again; the same thought a third time gets told to
// act or ask.
func ThinkTool() *Tool {
	recent := &recentThinking{}
	return &Tool{
		Name:        "think",
		Title:       "Think",
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
				if recent.note(c.Conversation, t) >= thinkRepeats {
					return &Result{Text: thinkAgain}, nil
				}
				return Text("Thought recorded. Continue with your next action."), nil
			}),
		},
	}
}
