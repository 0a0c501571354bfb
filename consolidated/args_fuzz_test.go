package consolidated

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

type fuzzArgs struct {
	Path  string            `json:"path"`
	Count int               `json:"count,omitempty"`
	Ratio float64           `json:"ratio,omitempty"`
	On    bool              `json:"on,omitempty"`
	Tags  []string          `json:"tags,omitempty"`
	Meta  map[string]string `json:"meta,omitempty"`
	Mode  string            `json:"mode,omitempty" enum:"a,b"`
}

// FuzzDecodeArgs feeds arbitrary argument objects through the seam's validation: it must either
// produce a filled argument struct or a *ToolError, and never panic.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{
		`{"path":"a"}`, `{"path":"a","count":"3","tags":"x"}`, `{"path":1}`, `{"pathh":"a"}`,
		`{"path":"a","meta":"{\"k\":\"v\"}"}`, `[]`, `null`, `{"path":"a","mode":"c"}`, `{"Path":"a","ratio":"1e400"}`,
	} {
		f.Add(s)
	}
	op := Op("fuzz", "fuzz", RiskRead, func(ctx context.Context, c *Call, a *fuzzArgs) (*Result, error) { return nil, nil })
	f.Fuzz(func(t *testing.T, raw string) {
		m, err := rawArgs(json.RawMessage(raw))
		if err != nil {
			var te *ToolError
			if !errors.As(err, &te) {
				t.Fatalf("rawArgs(%q) = %v, want a ToolError", raw, err)
			}
			return
		}
		args, _, err := decodeArgs(op, m)
		if err != nil {
			var te *ToolError
			if !errors.As(err, &te) {
				t.Fatalf("decodeArgs(%q) = %v, want a ToolError", raw, err)
			}
			return
		}
		if a := args.(*fuzzArgs); a.Mode != "" && a.Mode != "a" && a.Mode != "b" {
			t.Fatalf("decodeArgs(%q) accepted mode %q outside the enum", raw, a.Mode)
		}
	})
}

func TestSummarizeArgsKeepsContentOut(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"names shown", `{"operation":"read_file","path":"a.go"}`, `operation="read_file" path="a.go"`},
		{"content by size", `{"operation":"send_input","input":"hunter2\n"}`, `input=(11 bytes) operation="send_input"`},
		{"command by size", `{"command":"export API_KEY=sk-1"}`, `command=(21 bytes)`},
		{"camelCase name", `{"sessionId":"dev"}`, `sessionId="dev"`},
		{"not an object", `[1]`, `(3 bytes, not an object)`},
	}
	for _, tt := range tests {
		m, _ := rawArgs(json.RawMessage(tt.raw))
		if got := summarizeArgs(m, len(tt.raw)); got != tt.want {
			t.Errorf("%s: summarizeArgs(%s) = %s, want %s", tt.name, tt.raw, got, tt.want)
		}
	}
}
