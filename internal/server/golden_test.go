package server

import (
	"fmt"
	"strings"
	"testing"

	"toolhost/consolidated"
	"toolhost/internal/golden"
)

// TestSeamErrorTexts pins the error texts the model reads when it calls a tool wrongly.
func TestSeamErrorTexts(t *testing.T) {
	allow := func(tool, op string, risk string) bool { return op != "write_it" }
	h := newHarness(t, func(tool, op string, r consolidated.Risk) bool { return allow(tool, op, string(r)) }, nil)
	cases := []struct {
		tool string
		args map[string]any
	}{
		{"file_operations", map[string]any{"text": "x"}},
		{"file_operations", map[string]any{"operation": "ech", "text": "x"}},
		{"file_operations", map[string]any{"operation": "echo"}},
		{"file_operations", map[string]any{"operation": "echo", "text": "x", "millis": 3}},
		{"file_operations", map[string]any{"operation": "echo", "millis": 3}},
		{"file_operations", map[string]any{"operation": "echo", "text": []int{1}}},
		{"file_operations", map[string]any{"operation": "echo", "text": "x", "mode": "title"}},
		{"file_operations", map[string]any{"operation": "write_it"}},
		{"file_operations", map[string]any{"operation": "boom"}},
		{"file_operations", map[string]any{"operation": "stuck"}},
		{"read_tool_result", map[string]any{"id": "nope"}},
		{"think", map[string]any{"thoughts": ""}},
	}
	var b strings.Builder
	for _, c := range cases {
		got, _ := h.call(c.tool, c.args)
		// Execution ids differ per run.
		if i := strings.Index(got, "(execution x"); i >= 0 {
			j := strings.Index(got[i:], ")")
			got = got[:i] + "(execution X)" + got[i+j+1:]
		}
		fmt.Fprintf(&b, "== %s %v\n%s\n\n", c.tool, c.args, got)
	}
	golden.CheckString(t, "testdata/seam_errors.golden", b.String())
}
