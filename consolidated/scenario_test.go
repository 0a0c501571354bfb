package consolidated

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/database"
	"toolhost/internal/embed"
	"toolhost/internal/git"
	"toolhost/internal/git/gittest"
	"toolhost/internal/golden"
	"toolhost/internal/memory"
	"toolhost/internal/terminal"
)

// TestScenarios runs every testdata/scenarios/*.txtar: a conversation with the tools, pinned as
// the model sees it. A scenario file reads top to bottom:
//
//	What the scenario shows (free text).
//	tools: file_operations read_tool_result   (the tools served; the first is the default)
//	budget: 300                               (optional result budget in tokens)
//	database: NAME DRIVER DSN                 (a configured database_operations connection;
//	                                          "unavailable: REASON" in place of the DSN makes one
//	                                          that cannot be used)
//	-- path/in/workdir.go --                  a file written into the working directory when
//	...                                       reached (before the first call, or between calls
//	                                          to change a file behind the model's back);
//	                                          $OUTSIDE/path writes outside it
//	-- sh --                                  a fixture script, run with sh -e in the working
//	git init -q -b main                       directory when reached: git has a fixed identity
//	...                                       and dates (gittest.Isolate), and $WD and $OUTSIDE
//	                                          are in its environment
//	-- sqlite data/app.db --                  a SQLite database made when reached, by this SQL
//	CREATE TABLE t (x); ...                   (a path as for files)
//	-- call file_operations read_file --      a call: tool and operation (none for a single-
//	{"path": "path/in/workdir.go"}            purpose tool), the arguments as JSON
//	-- want --                                the text the model reads ("want error" when the
//	...                                       result is an error)
//	-- read toolhost://workdir/git --         a resource read, followed by its text in a want
//
// In arguments and DSNs, $WD is the working directory, $OUTSIDE a directory outside it,
// $RESULT the id of the last result that was cut and $REQUEST the id of the last authorization
// request a result named. Results are compared with the same substitutions made back, and, when
// a tool that runs commands is served (terminal_operations, build_and_version_control), with
// the harness's normalize (durations, pids, cursors, run ids, the shell's path). The text is
// all a client receives (no structuredContent; the harness fails a call that has one), so a
// want section is what reaches the model through every client. TOOLHOST_GOLDEN=update writes
// the want sections, adding those that are missing.
//
// Every tool but web_operations can be served (see scenarioTools); web scenarios need loopback
// servers, which web_golden_test.go starts.
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

// TestScenarioToolsCoverOrder keeps the promise of TestScenarios' comment: every tool but
// web_operations can be served, and some scenario serves it, so a tool's texts have a place
// to be pinned as the model reads them.
func TestScenarioToolsCoverOrder(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "scenarios", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(golden.ParseArchive(string(data)).Comment, "\n") {
			if v, ok := strings.CutPrefix(line, "tools:"); ok {
				for _, n := range strings.Fields(v) {
					served[n] = true
				}
			}
		}
	}
	for _, name := range Order {
		_, ok := scenarioTools[name]
		switch {
		case name == "web_operations":
			if ok {
				t.Errorf("scenarioTools serves web_operations: say so in TestScenarios' comment")
			}
		case !ok:
			t.Errorf("scenarioTools has no entry for %s", name)
		case !served[name]:
			t.Errorf("no scenario under testdata/scenarios serves %s", name)
		}
	}
}

// scenarioRig is what a scenario's tools are built on: the harness's guard and store, the
// directory outside the working directory, the connections the scenario configures, and the
// terminal engine terminal_operations and build_and_version_control share (so that a run's id
// from one is readable with the other, as in the server).
type scenarioRig struct {
	h         *harness
	path      string // the scenario file, for messages
	outside   string // canonical
	databases []database.Source
	mgr       *terminal.Manager
}

// terminal is the scenario's terminal engine, started on first use and shut down at cleanup
// (terminal_operations also shuts it down when the registry closes; a second shutdown is a
// no-op).
func (r *scenarioRig) terminal() *terminal.Manager {
	if r.mgr == nil {
		mgr, err := terminal.NewManager(terminal.Config{Store: r.h.st, CloseGrace: 500 * time.Millisecond,
			DefaultYield: 20 * time.Second, MaxWait: 30 * time.Second})
		if err != nil {
			r.h.t.Fatal(err)
		}
		r.h.t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), terminalShutdownWait)
			defer cancel()
			mgr.Shutdown(ctx)
		})
		r.mgr = mgr
	}
	return r.mgr
}

// scenarioClock is the clock of memories a scenario stores: git's fixed date in gittest.
var scenarioClock = time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)

// scenarioTools builds the tools a scenario names.
var scenarioTools = map[string]func(r *scenarioRig) *Tool{
	"think":           func(*scenarioRig) *Tool { return ThinkTool() },
	"todo_operations": func(r *scenarioRig) *Tool { return TodoTool(r.h.st, nil) },
	"file_operations": func(r *scenarioRig) *Tool { return FileTool(FileConfig{Guard: r.h.guard}) },
	"terminal_operations": func(r *scenarioRig) *Tool {
		return TerminalTool(TerminalConfig{Manager: r.terminal(), Guard: r.h.guard, MaxWait: 30 * time.Second, DefaultYield: 20 * time.Second})
	},
	"build_and_version_control": func(r *scenarioRig) *Tool {
		runner, err := git.NewRunner(git.Config{})
		if err != nil {
			r.h.t.Fatal(err)
		}
		return BuildTool(BuildConfig{Git: runner, Guard: r.h.guard, Terminal: r.terminal(), Workdir: r.h.wd,
			DefaultYield: 20 * time.Second, MaxWait: 30 * time.Second})
	},
	"database_operations": func(r *scenarioRig) *Tool {
		return DatabaseTool(DatabaseConfig{Connections: database.NewConnections(r.databases), Guard: r.h.guard})
	},
	// The lexical embedder: no model to load, and the same scores on every machine.
	"memory_operations": func(r *scenarioRig) *Tool {
		svc := memory.New(r.h.st, memory.Config{Embedder: embed.NewLexical(embed.DefaultLexicalDim), Now: func() time.Time { return scenarioClock }})
		r.h.t.Cleanup(func() { svc.Close() })
		return MemoryTool(MemoryConfig{Service: svc, Guard: r.h.guard})
	},
	// check_request answers at once: the user of a scenario never decides.
	"user_collaboration": func(r *scenarioRig) *Tool {
		return UserCollaborationTool(CollaborationConfig{Guard: r.h.guard, MaxWait: time.Nanosecond})
	},
	"read_tool_result": func(*scenarioRig) *Tool { return ReadToolResultTool() },
}

// runsCommands are the tools whose results carry durations, pids and run ids.
var runsCommands = map[string]bool{"terminal_operations": true, "build_and_version_control": true}

// scenarioIDs are the ids a result names that later calls pass back, by their placeholder.
var scenarioIDs = []struct {
	placeholder string
	re          *regexp.Regexp
}{
	{"$RESULT", spillIDText},
	{"$REQUEST", regexp.MustCompile(`\br-[a-z2-9]{16}\b`)},
}

func runScenario(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a := golden.ParseArchive(string(data))
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &scenarioRig{path: path, outside: outside}
	var names, sources []string
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
		if v, ok := strings.CutPrefix(line, "database:"); ok {
			sources = append(sources, v)
		}
	}
	if len(names) == 0 {
		t.Fatalf("%s: the comment names no tools (a line \"tools: NAME ...\")", path)
	}
	timed := false
	for _, n := range names {
		timed = timed || runsCommands[n]
	}
	if slices.ContainsFunc(a.Sections, func(s golden.Section) bool { return s.Name == "sh" }) || slices.Contains(names, buildToolName) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Fatalf("git is required: %v", err)
		}
		gittest.Isolate(t)
	}
	h := newHarness(t, harnessOptions{budgetTokens: budget, tools: func(h *harness) []*Tool {
		r.h = h
		for _, s := range sources {
			r.databases = append(r.databases, scenarioSource(t, r, s))
		}
		var tools []*Tool
		for _, n := range names {
			build, ok := scenarioTools[n]
			if !ok {
				t.Fatalf("%s: no tool %q for scenarios (add it to scenarioTools)", path, n)
			}
			tools = append(tools, build(r))
		}
		return tools
	}})
	last := map[string]string{} // placeholder -> the id it stands for now
	normalize := func(s string) string {
		for _, id := range scenarioIDs {
			if v := id.re.FindString(s); v != "" {
				last[id.placeholder] = v
			}
		}
		s = strings.ReplaceAll(s, outside, "$OUTSIDE")
		if timed {
			s = h.normalize(s)
		} else {
			s = strings.ReplaceAll(s, h.wd, "$WD")
		}
		for _, id := range scenarioIDs {
			s = id.re.ReplaceAllLiteralString(s, id.placeholder)
		}
		return s
	}
	expand := func(s string) string {
		s = strings.ReplaceAll(s, "$OUTSIDE", outside)
		s = strings.ReplaceAll(s, "$WD", h.wd)
		for _, id := range scenarioIDs {
			s = strings.ReplaceAll(s, id.placeholder, last[id.placeholder])
		}
		return s
	}
	// got is the archive as this run sees it: the same files and calls, each call followed by
	// the text it produced. golden compares, rewrites or refuses it like any golden.
	got := &golden.Archive{Comment: a.Comment}
	for i := 0; i < len(a.Sections); i++ {
		s := a.Sections[i]
		var text string
		var isErr bool
		switch {
		case s.Name == "want" || s.Name == "want error":
			t.Fatalf("%s: section %q follows no call", path, s.Name)
		case strings.HasPrefix(s.Name, "call "):
			text, isErr = scenarioCall(t, h, path, strings.TrimPrefix(s.Name, "call "), expand(s.Data))
		case strings.HasPrefix(s.Name, "read "):
			text = scenarioRead(t, h, path, strings.TrimPrefix(s.Name, "read "))
		default:
			r.fixture(s)
			got.Sections = append(got.Sections, s)
			continue
		}
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

// file is the path a section or a DSN names: under $OUTSIDE, or relative to the working
// directory.
func (r *scenarioRig) file(name string) string {
	if rest, ok := strings.CutPrefix(name, "$OUTSIDE/"); ok {
		return filepath.Join(r.outside, filepath.FromSlash(rest))
	}
	return filepath.Join(r.h.wd, filepath.FromSlash(name))
}

// fixture carries out a section that is not a call: a file, a script or a database.
func (r *scenarioRig) fixture(s golden.Section) {
	t := r.h.t
	t.Helper()
	if s.Name == "sh" {
		cmd := exec.Command("sh", "-ec", s.Data)
		cmd.Dir = r.h.wd
		cmd.Env = append(os.Environ(), "WD="+r.h.wd, "OUTSIDE="+r.outside)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: the sh section\n%s\nfailed: %v\n%s", r.path, s.Data, err, out)
		}
		return
	}
	if dbPath, ok := strings.CutPrefix(s.Name, "sqlite "); ok {
		makeDB(t, r.file(strings.TrimSpace(dbPath)), s.Data)
		return
	}
	full := r.file(s.Name)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(s.Data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// scenarioSource reads a "database:" line: NAME DRIVER DSN, or NAME DRIVER unavailable: REASON.
func scenarioSource(t *testing.T, r *scenarioRig, line string) database.Source {
	f := strings.Fields(line)
	if len(f) < 3 {
		t.Fatalf("%s: database:%s: want NAME DRIVER DSN", r.path, line)
	}
	rest := strings.Join(f[2:], " ")
	src := database.Source{Name: f[0], Driver: database.Driver(f[1])}
	if reason, ok := strings.CutPrefix(rest, "unavailable: "); ok {
		src.Err = fmt.Errorf("%s", reason)
	} else if src.Driver == database.SQLite {
		src.DSN = r.file(rest)
	} else {
		src.DSN = rest
	}
	return src
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
		if err := json.Unmarshal([]byte(body), &args); err != nil {
			t.Fatalf("%s: call %s: arguments: %v", path, spec, err)
		}
	}
	if len(fields) == 2 {
		args["operation"] = fields[1]
	}
	text, isErr, _ := h.callParams(&mcp.CallToolParams{Name: fields[0], Arguments: args})
	return text, isErr
}

// scenarioRead reads a resource as a client does and returns its text.
func scenarioRead(t *testing.T, h *harness, path, uri string) string {
	t.Helper()
	res, err := h.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: strings.TrimSpace(uri)})
	if err != nil {
		t.Fatalf("%s: read %s: %v", path, uri, err)
	}
	var b strings.Builder
	for _, c := range res.Contents {
		b.WriteString(c.Text)
	}
	return b.String()
}
