package consolidated

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// frameworkFiles are consolidated's files that belong to no tool, with what each holds: the
// layer every tool stands on.
var frameworkFiles = map[string]string{
	"doc.go":             "the package documentation: how to add an operation or a tool",
	"tool.go":            "Tool and Operation, the table a tool is declared as",
	"args.go":            "decoding a call's arguments into the operation's struct",
	"schema.go":          "the flat input schema derived from a table",
	"registry.go":        "the registry: tools in order, dispatch, tools/list, switches",
	"bind.go":            "a registry declared from the tables, its engines bound later",
	"call.go":            "Call, what a handler knows of the request",
	"errors.go":          "ToolError and the declared error codes",
	"execution.go":       "the execution engine's records of each call",
	"budget.go":          "the result budget per client",
	"spill.go":           "cutting a large result and keeping it for read_tool_result",
	"resources.go":       "MCP resources and their templates",
	"complete.go":        "completions of prompt and resource arguments",
	"prompts.go":         "the embedded and user prompts served as MCP prompts",
	"conversations.go":   "which conversation a call belongs to",
	"roots.go":           "workspaces opened from the client's roots",
	"switch.go":          "tools and operations switched off by the console",
	"guard.go":           "turning the guard's refusals into tool errors",
	"approval_place.go":  "where the user answers a pending request",
	"background.go":      "finished background work announced to the conversation",
	"tasks.go":           "MCP Tasks: task-augmented calls, tasks/get, result, cancel, list",
	"tasks_transport.go": "the wire rewriting that lets the go-sdk serve MCP Tasks",
	"tasks_http.go":      "the same rewriting on streamable HTTP",
}

// TestFileLayout holds the naming rule of doc.go: a file is a tool's (it starts with the
// stem of a tool in Order) or the framework's (listed above).
func TestFileLayout(t *testing.T) {
	var stems []string
	for _, name := range Order {
		stem, _, _ := strings.Cut(name, "_")
		if name == "user_collaboration" || name == "read_tool_result" {
			stem = name
		}
		stems = append(stems, stem)
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		seen[n] = true
		base := strings.TrimSuffix(n, ".go")
		tool := slices.ContainsFunc(stems, func(s string) bool { return base == s || strings.HasPrefix(base, s+"_") })
		_, framework := frameworkFiles[n]
		switch {
		case tool && framework:
			t.Errorf("%s is listed as the framework's but is named after a tool", n)
		case !tool && !framework:
			t.Errorf("%s is neither a tool's (named after one of %v) nor listed in frameworkFiles with its purpose", n, stems)
		}
	}
	for n := range frameworkFiles {
		if !seen[n] {
			t.Errorf("frameworkFiles lists %s, which does not exist", n)
		}
	}
}
