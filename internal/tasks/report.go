package tasks

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"toolhost/internal/lazyregexp"
)

// TestReport is what a test run found. Counts are of leaf tests (a Go test with subtests counts
// its subtests); Errors counts failures outside tests (collection errors, suites that failed to
// load, builds that failed).
type TestReport struct {
	Runner                          string
	Passed, Failed, Skipped, Errors int
	Failures                        []Failure
	// Parsed says the runner's results were found; false means only the exit status is known.
	Parsed bool
}

// Failure is one failed test or build, located where the failure happened.
type Failure struct {
	// Name is the test ("TestAdd/bad", "tests/test_a.py::test_x"), or the package or file for a
	// build or load failure.
	Name string
	// Kind is "test", "build" (compilation) or "error" (collection, setup, suite load).
	Kind    string
	File    string
	Line    int
	Message string
}

// Location is "file:line", or the name when no file is known.
func (f Failure) Location() string {
	if f.File == "" {
		return ""
	}
	if f.Line > 0 {
		return f.File + ":" + strconv.Itoa(f.Line)
	}
	return f.File
}

// Diagnostic is one finding of a compiler, type checker or linter.
type Diagnostic struct {
	Tool      string
	File      string
	Line, Col int
	// Severity is error, warning or note.
	Severity string
	Message  string
	// Code is the rule or error code (TS2322, E0308, no-undef, F401), when the tool gives one.
	Code string
}

// String renders "file:line:col: severity message [code]".
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.File)
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
		if d.Col > 0 {
			fmt.Fprintf(&b, ":%d", d.Col)
		}
	}
	fmt.Fprintf(&b, ": %s %s", d.Severity, d.Message)
	if d.Code != "" {
		fmt.Fprintf(&b, " [%s]", d.Code)
	}
	return b.String()
}

// StepResult is how one step of a plan ended.
type StepResult struct {
	Tool, Command string
	// Exit is the tool's exit status; -1 when the step did not finish (the run was stopped, or it
	// never started).
	Exit int
	// Output is what the step printed (both streams), up to maxCollect bytes.
	Output []byte
	// Parsed says the tool's results were understood.
	Parsed bool
}

// Outcome is the result of a finished plan.
type Outcome struct {
	Steps []StepResult
	// Tests is set for a test plan.
	Tests *TestReport
	// Diagnostics are set for a check plan, sorted by file and line.
	Diagnostics []Diagnostic
	// Also names other test runners the project has.
	Also []Runner
}

// maxCollect bounds what Collect reads of one step's output or report.
const maxCollect = 64 << 20

// Collect reads what the plan's script left in reportDir and parses it.
func (p *Plan) Collect(reportDir string) *Outcome {
	o := &Outcome{Also: p.Also}
	mod := goModule(p.Dir)
	for i, s := range p.Steps {
		base := filepath.Join(reportDir, strconv.Itoa(i))
		sr := StepResult{Tool: s.Tool, Command: s.Command, Exit: -1}
		sr.Output = readCapped(base + ".out")
		if b := readCapped(base + ".exit"); b != nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				sr.Exit = n
			}
		}
		report := readCapped(base + ".json")
		switch s.kind {
		case kindGoTest, kindCargoTest, kindJSONTests, kindPytest, kindUnparsed:
			var tr TestReport
			switch s.kind {
			case kindGoTest:
				tr = ParseGoTest(sr.Output, mod)
			case kindCargoTest:
				tr = ParseCargoTest(sr.Output)
			case kindPytest:
				tr = ParsePytest(sr.Output)
			case kindJSONTests:
				if r, err := ParseJestJSON(report, p.Dir); err == nil {
					tr = r
				}
			}
			tr.Runner = s.Tool
			sr.Parsed = tr.Parsed
			o.Tests = &tr
		default:
			ds, ok := parseDiagnostics(s.kind, sr.Output, report, p.Dir)
			sr.Parsed = ok
			for _, d := range ds {
				d.Tool = s.Tool
				d.File = relTo(p.Dir, d.File)
				if len(p.Files) == 0 || coveredBy(d.File, p.Files) {
					o.Diagnostics = append(o.Diagnostics, d)
				}
			}
		}
		o.Steps = append(o.Steps, sr)
	}
	if o.Tests != nil {
		for i := range o.Tests.Failures {
			o.Tests.Failures[i].File = relTo(p.Dir, o.Tests.Failures[i].File)
		}
	}
	slices.SortStableFunc(o.Diagnostics, func(a, b Diagnostic) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
	return o
}

func parseDiagnostics(k stepKind, out, report []byte, dir string) ([]Diagnostic, bool) {
	switch k {
	case kindGoVet:
		return ParseGoVet(out), true
	case kindTSC:
		return ParseTSC(out), true
	case kindESLint:
		ds, err := ParseESLintJSON(report)
		return ds, err == nil
	case kindCargoCheck:
		return ParseCargoJSON(out), true
	case kindRuff:
		return ParseRuff(out), true
	case kindMypy:
		return ParseMypy(out), true
	}
	return nil, false
}

func readCapped(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxCollect))
	return b
}

// goModule reads the module path of dir/go.mod ("" when there is none).
func goModule(dir string) string {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return ""
	}
	defer root.Close()
	_, data, err := readFirst(root, "go.mod")
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(data), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	return ""
}

// relTo makes an absolute path inside dir relative to it; other paths are returned cleaned.
func relTo(dir, p string) string {
	p = strings.TrimPrefix(p, "file://")
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) {
		if rel, err := filepath.Rel(dir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return filepath.ToSlash(rel)
		}
		return p
	}
	return filepath.ToSlash(filepath.Clean(p))
}

// coveredBy reports whether file is one of files or below one of them.
func coveredBy(file string, files []string) bool {
	for _, f := range files {
		f = strings.TrimSuffix(f, "/...")
		if f == "." || file == f || strings.HasPrefix(file, strings.TrimSuffix(f, "/")+"/") {
			return true
		}
	}
	return false
}

var ansi = lazyregexp.New(`\x1b\[[0-9;?]*[A-Za-z]`)

func stripANSI(s string) string { return ansi.ReplaceAllString(s, "") }

// RenderTests is the compact text of a test outcome: a counts line, then one line per failure
// ("FAIL name  file:line: message"). maxFailures caps the list.
func RenderTests(o *Outcome, maxFailures int) string {
	if maxFailures <= 0 {
		maxFailures = 50
	}
	var b strings.Builder
	tr := o.Tests
	sr := StepResult{Exit: -1}
	if len(o.Steps) > 0 {
		sr = o.Steps[0]
	}
	if tr == nil || !tr.Parsed {
		fmt.Fprintf(&b, "%s: %s; no test results could be read from its output\n", sr.Tool, exitText(sr.Exit))
		if tail := lastLines(stripANSI(string(sr.Output)), 30); tail != "" {
			b.WriteString("--- last lines ---\n" + tail + "\n")
		}
		return strings.TrimRight(b.String(), "\n")
	}
	counts := []string{fmt.Sprintf("%d passed", tr.Passed), fmt.Sprintf("%d failed", tr.Failed)}
	if tr.Skipped > 0 {
		counts = append(counts, fmt.Sprintf("%d skipped", tr.Skipped))
	}
	if tr.Errors > 0 {
		counts = append(counts, fmt.Sprintf("%d %s", tr.Errors, pluralS(tr.Errors, "error")))
	}
	fmt.Fprintf(&b, "%s: %s (%s)\n", tr.Runner, strings.Join(counts, ", "), exitText(sr.Exit))
	for i, f := range tr.Failures {
		if i == maxFailures {
			fmt.Fprintf(&b, "... %d more failures\n", len(tr.Failures)-maxFailures)
			break
		}
		tag := map[string]string{"build": "BUILD", "error": "ERROR"}[f.Kind]
		if tag == "" {
			tag = "FAIL"
		}
		fmt.Fprintf(&b, "%s %s", tag, f.Name)
		if loc := f.Location(); loc != "" {
			fmt.Fprintf(&b, "  %s", loc)
		}
		if f.Message != "" {
			fmt.Fprintf(&b, ": %s", f.Message)
		}
		b.WriteByte('\n')
	}
	if tr.Failed+tr.Errors == 0 && sr.Exit > 0 {
		if tail := lastLines(stripANSI(string(sr.Output)), 15); tail != "" {
			b.WriteString("--- the run failed outside the tests; last lines ---\n" + tail + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// RenderDiagnostics is one line per diagnostic after a counts line naming the tools run; a tool
// that failed without reporting anything shows its last lines.
func RenderDiagnostics(o *Outcome, maxItems int) string {
	if maxItems <= 0 {
		maxItems = 200
	}
	var b strings.Builder
	errs, warns, notes := 0, 0, 0
	for _, d := range o.Diagnostics {
		switch d.Severity {
		case "error":
			errs++
		case "warning":
			warns++
		default:
			notes++
		}
	}
	tools := make([]string, len(o.Steps))
	for i, s := range o.Steps {
		tools[i] = s.Tool
		if s.Exit != 0 {
			tools[i] += " " + exitText(s.Exit)
		}
	}
	fmt.Fprintf(&b, "%d %s, %d %s", errs, pluralS(errs, "error"), warns, pluralS(warns, "warning"))
	if notes > 0 {
		fmt.Fprintf(&b, ", %d %s", notes, pluralS(notes, "note"))
	}
	fmt.Fprintf(&b, " (%s)\n", strings.Join(tools, ", "))
	for i, d := range o.Diagnostics {
		if i == maxItems {
			fmt.Fprintf(&b, "... %d more\n", len(o.Diagnostics)-maxItems)
			break
		}
		b.WriteString(d.String() + "\n")
	}
	for _, s := range o.Steps {
		reported := slices.ContainsFunc(o.Diagnostics, func(d Diagnostic) bool { return d.Tool == s.Tool })
		if s.Exit != 0 && !reported {
			if tail := lastLines(stripANSI(string(s.Output)), 15); tail != "" {
				fmt.Fprintf(&b, "--- %s %s without diagnostics; last lines ---\n%s\n", s.Tool, exitText(s.Exit), tail)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func exitText(code int) string {
	if code < 0 {
		return "did not finish"
	}
	return "exit " + strconv.Itoa(code)
}

func pluralS(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

// lastLines returns the last n non-empty-trailing lines of s.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n ")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		if len(l) > 300 {
			lines[i] = l[:300] + "…"
		}
	}
	return strings.Join(lines, "\n")
}

// firstMeaningful returns the first non-empty line of s, trimmed and cut to n runes.
func firstMeaningful(s string, n int) string {
	for _, l := range strings.Split(stripANSI(s), "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return oneLine(t, n)
		}
	}
	return ""
}
