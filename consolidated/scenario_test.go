package consolidated

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/golden"
)

// TestScenarios runs every testdata/scenarios/*.txtar: a conversation with the tools, pinned as
// the model sees it. A scenario file reads top to bottom:
//
//	What the scenario shows (free text).
//	tools: file_operations read_tool_result   (the tools served; the first is the default)
//	budget: 300                               (optional result budget in tokens)
//	-- path/in/workdir.go --                  a file written into the working directory when
//	...                                       reached (before the first call, or between calls
//	                                          to change a file behind the model's back)
//	-- call file_operations read_file --      a call: tool and operation (none for a single-
//	{"path": "path/in/workdir.go"}            purpose tool), the arguments as JSON; $WD is the
//	                                          working directory, $RESULT the id of the last
//	                                          result that was cut
//	-- want --                                the text the model reads ("want error" when the
//	...                                       result is an error)
//
// Results are compared with the working directory replaced by $WD, cut results' ids by $RESULT,
// and with durations, pids and cursors replaced when terminal_operations is served. The text
// is all a client receives (no structuredContent; the harness fails a call that has one), so a
// want section is what reaches the model through every client. TOOLHOST_GOLDEN=update writes the want
// sections, adding those that are missing.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "scenarios", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios under testdata/scenarios (%v)", err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			runScenario(t, path)
		})
	}
}

// scenarioTools builds the tools a scenario names, on the harness's guard and store.
var scenarioTools = map[string]func(h *harness) *Tool{
	"think":               func(*harness) *Tool { return ThinkTool() },
	"todo_operations":     func(h *harness) *Tool { return TodoTool(h.st, nil) },
	"file_operations":     func(h *harness) *Tool { return FileTool(FileConfig{Guard: h.guard}) },
	"terminal_operations": testTerminalTool,
	"read_tool_result":    func(*harness) *Tool { return ReadToolResultTool() },
}

func runScenario(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := golden.ParseArchive(string(data))
	var names []string
	budget := 0
	for _, line := range strings.Split(a.Comment, "\n") {
		if v, ok := strings.CutPrefix(line, "tools:"); ok {
			names = strings.Fields(v)
		}
		if v, ok := strings.CutPrefix(line, "budget:"); ok {
			if budget, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				t.Fatalf("%s: budget: %v", path, err)
			}
		}
	}
	if len(names) == 0 {
		t.Fatalf("%s: the comment names no tools (a line \"tools: NAME ...\")", path)
	}
	terminal := false
	h := newHarness(t, harnessOptions{budgetTokens: budget, tools: func(h *harness) []*Tool {
		var tools []*Tool
		for _, n := range names {
			build, ok := scenarioTools[n]
			if !ok {
				t.Fatalf("%s: no tool %q for scenarios (add it to scenarioTools)", path, n)
			}
			terminal = terminal || n == "terminal_operations"
			tools = append(tools, build(h))
		}
		return tools
	}})
	wdOnly := func(s string) string { return strings.ReplaceAll(s, h.wd, "$WD") }
	if terminal {
		wdOnly = h.normalize
	}
	lastID := ""
	normalize := func(s string) string {
		if id := spillIDText.FindString(s); id != "" {
			lastID = id
		}
		return spillIDText.ReplaceAllString(wdOnly(s), "$$RESULT")
	}
	// got is the archive as this run sees it: the same files and calls, each call followed by
	// the text it produced. golden compares, rewrites or refuses it like any golden.
	got := &golden.Archive{Comment: a.Comment}
	for i := 0; i < len(a.Sections); i++ {
		s := a.Sections[i]
		spec, isCall := strings.CutPrefix(s.Name, "call ")
		switch {
		case s.Name == "want" || s.Name == "want error":
			t.Fatalf("%s: section %q follows no call", path, s.Name)
		case !isCall:
			h.write(map[string]string{s.Name: s.Data})
			got.Sections = append(got.Sections, s)
			continue
		}
		text, isErr := scenarioCall(t, h, path, spec, strings.ReplaceAll(s.Data, "$RESULT", lastID))
		if golden.ParseArchive("x\n"+text).Comment != "x\n"+text {
			t.Fatalf("%s: the result of %q has a line that reads as a section marker:\n%s", path, s.Name, text)
		}
		want := golden.Section{Name: "want", Data: normalize(text) + "\n"}
		if isErr {
			want.Name = "want error"
		}
		got.Sections = append(got.Sections, s, want)
		if i+1 < len(a.Sections) && strings.HasPrefix(a.Sections[i+1].Name, "want") {
			i++ // replaced by want
		}
	}
	golden.CheckString(t, path, got.Format())
}

// spillIDText finds the id of a cut result in a result's text.
var spillIDText = regexp.MustCompile(`\br[0-9a-f]{12}\b`)

// scenarioCall runs "TOOL [OPERATION]" with the JSON arguments in body.
func scenarioCall(t *testing.T, h *harness, path, spec, body string) (string, bool) {
	t.Helper()
	fields := strings.Fields(spec)
	if len(fields) == 0 || len(fields) > 2 {
		t.Fatalf("%s: call %q: want \"call TOOL [OPERATION]\"", path, spec)
	}
	args := map[string]any{}
	if strings.TrimSpace(body) != "" {
		if err := json.Unmarshal([]byte(strings.ReplaceAll(body, "$WD", h.wd)), &args); err != nil {
			t.Fatalf("%s: call %s: arguments: %v", path, spec, err)
		}
	}
	if len(fields) == 2 {
		args["operation"] = fields[1]
	}
	text, isErr, _ := h.callParams(&mcp.CallToolParams{Name: fields[0], Arguments: args})
	return text, isErr
}
