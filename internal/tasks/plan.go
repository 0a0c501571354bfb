package tasks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Errors of planning a run.
var (
	// ErrNoRunner means the project has no test runner this package knows.
	ErrNoRunner = errors.New("no test runner found")
	// ErrNoChecker means the project has no type checker or linter this package knows.
	ErrNoChecker = errors.New("no diagnostics tool found")
	// ErrNotInstalled means the project declares a tool that is not installed.
	ErrNotInstalled = errors.New("tool not installed")
	// ErrBadArgument means a path or filter cannot be passed to the tool.
	ErrBadArgument = errors.New("invalid argument")
)

// Runner names a test runner.
type Runner string

// The test runners TestPlan knows, in the order it prefers them.
const (
	RunnerGo     Runner = "go"
	RunnerCargo  Runner = "cargo"
	RunnerJest   Runner = "jest"
	RunnerVitest Runner = "vitest"
	RunnerPytest Runner = "pytest"
	// RunnerNPM is the package's own "test" script when its runner is none of the above; its
	// output is not parsed.
	RunnerNPM Runner = "npm"
)

// Runners lists every runner name TestPlan accepts.
var Runners = []Runner{RunnerGo, RunnerCargo, RunnerJest, RunnerVitest, RunnerPytest, RunnerNPM}

// Plan is a run of one or more tools in a project directory.
type Plan struct {
	// Dir is the project directory the script runs in.
	Dir   string
	Steps []Step
	// Also names the other runners found when a project has several (tests only).
	Also []Runner
	// Files restricts reported diagnostics to these paths (relative to Dir).
	Files []string
}

// Step is one tool run.
type Step struct {
	// Tool names the tool: go, cargo, jest, vitest, pytest, npm, go vet, tsc, eslint, ruff, mypy.
	Tool string
	// Command is the shell command; the token {report} stands for the step's report file.
	Command string
	kind    stepKind
}

type stepKind int

const (
	kindGoTest stepKind = iota
	kindCargoTest
	kindJSONTests // Jest and Vitest JSON reports
	kindPytest
	kindUnparsed
	kindGoVet
	kindTSC
	kindESLint
	kindCargoCheck
	kindRuff
	kindMypy
)

// TestOptions narrows a test run.
type TestOptions struct {
	// Runner picks one when the project has several (default: the first found).
	Runner Runner
	// Paths are packages, files or directories relative to the project directory.
	Paths []string
	// Filter selects tests by name: go -run, pytest -k, jest/vitest -t, cargo's test filter.
	Filter string
}

// DetectRunners lists the test runners a project uses, in preference order.
func DetectRunners(dir string) []Runner {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil
	}
	defer root.Close()
	var out []Runner
	if exists(root, "go.mod") {
		out = append(out, RunnerGo)
	}
	if exists(root, "Cargo.toml") {
		out = append(out, RunnerCargo)
	}
	if js := jsRunner(root); js != "" {
		out = append(out, js)
	}
	if usesPytest(root) {
		out = append(out, RunnerPytest)
	}
	return out
}

// jsRunner reads package.json: Vitest or Jest when declared, else npm when a test script exists.
func jsRunner(root *os.Root) Runner {
	_, data, err := readFirst(root, "package.json")
	if err != nil || data == nil {
		return ""
	}
	var pkg struct {
		Scripts         map[string]string `json:"scripts"`
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return ""
	}
	has := func(name string) bool {
		_, a := pkg.Dependencies[name]
		_, b := pkg.DevDependencies[name]
		return a || b || strings.Contains(pkg.Scripts["test"], name)
	}
	switch {
	case has("vitest"):
		return RunnerVitest
	case has("jest"):
		return RunnerJest
	case strings.TrimSpace(pkg.Scripts["test"]) != "" && !strings.Contains(pkg.Scripts["test"], "no test specified"):
		return RunnerNPM
	}
	return ""
}

// TestPlan builds the test run for dir.
func TestPlan(dir string, o TestOptions) (*Plan, error) {
	found := DetectRunners(dir)
	if len(found) == 0 {
		return nil, fmt.Errorf("%w in %s: looked for go.mod, Cargo.toml, package.json with jest, vitest or a test script, and pytest configuration or test_*.py files", ErrNoRunner, dir)
	}
	r := found[0]
	if o.Runner != "" {
		if !slices.Contains(found, o.Runner) {
			return nil, fmt.Errorf("%w: %s is not used here; found %s", ErrNoRunner, o.Runner, joinRunners(found))
		}
		r = o.Runner
	}
	if err := checkArg(o.Filter, "filter"); err != nil {
		return nil, err
	}
	root, paths, err := openProject(dir, o.Paths)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var s Step
	switch r {
	case RunnerGo:
		s = Step{Tool: "go", kind: kindGoTest, Command: "go test -json"}
		if o.Filter != "" {
			s.Command += " -run " + shellQuote(o.Filter)
		}
		pkgs := []string{"./..."}
		if len(paths) > 0 {
			pkgs = pkgs[:0]
			for _, p := range paths {
				if p != "." && !strings.HasPrefix(p, "./") {
					p = "./" + p
				}
				pkgs = append(pkgs, p)
			}
		}
		s.Command += " " + joinQuoted(pkgs)
	case RunnerCargo:
		if len(paths) > 0 {
			return nil, fmt.Errorf("%w: cargo test runs whole targets; use filter to select tests", ErrBadArgument)
		}
		s = Step{Tool: "cargo", kind: kindCargoTest, Command: "cargo test --no-fail-fast --color never"}
		if o.Filter != "" {
			s.Command += " " + shellQuote(o.Filter)
		}
	case RunnerJest, RunnerVitest:
		bin := "node_modules/.bin/" + string(r)
		if !exists(root, bin) {
			return nil, fmt.Errorf("%w: %s is declared in package.json but %s is missing; run npm install", ErrNotInstalled, r, bin)
		}
		s = Step{Tool: string(r), kind: kindJSONTests}
		if r == RunnerJest {
			s.Command = bin + " --json --outputFile={report} --testLocationInResults"
		} else {
			s.Command = bin + " run --reporter=default --reporter=json --outputFile={report}"
		}
		if o.Filter != "" {
			s.Command += " -t " + shellQuote(o.Filter)
		}
		if len(paths) > 0 {
			s.Command += " " + joinQuoted(paths)
		}
	case RunnerPytest:
		s = Step{Tool: "pytest", kind: kindPytest, Command: pythonCommand(root, "pytest") + " -rfE --tb=short --color=no"}
		if o.Filter != "" {
			s.Command += " -k " + shellQuote(o.Filter)
		}
		if len(paths) > 0 {
			s.Command += " " + joinQuoted(paths)
		}
	case RunnerNPM:
		if o.Filter != "" || len(paths) > 0 {
			return nil, fmt.Errorf("%w: the package's own test script takes no paths or filter", ErrBadArgument)
		}
		s = Step{Tool: "npm", kind: kindUnparsed, Command: "npm test"}
	default:
		return nil, fmt.Errorf("%w: unknown runner %q", ErrNoRunner, r)
	}
	p := &Plan{Dir: dir, Steps: []Step{s}}
	for _, f := range found {
		if f != r {
			p.Also = append(p.Also, f)
		}
	}
	return p, nil
}

// CheckPlan builds a diagnostics run for dir from the tools the project already has: go vet for a
// Go module, tsc for a tsconfig.json, eslint for an eslint configuration, cargo check for a crate,
// ruff and mypy when configured and installed. files (relative to dir) narrow the run where a tool
// takes files, and always narrow what is reported.
func CheckPlan(dir string, files []string) (*Plan, error) {
	root, rel, err := openProject(dir, files)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	p := &Plan{Dir: dir, Files: rel}
	if exists(root, "go.mod") {
		pkgs := []string{"./..."}
		if len(rel) > 0 {
			pkgs = goPackagesOf(root, rel)
		}
		if len(pkgs) > 0 {
			p.Steps = append(p.Steps, Step{Tool: "go vet", kind: kindGoVet, Command: "go vet " + joinQuoted(pkgs)})
		}
	}
	if exists(root, "tsconfig.json") && exists(root, "node_modules/.bin/tsc") && anyWithExt(rel, ".ts", ".tsx", ".mts", ".cts") {
		p.Steps = append(p.Steps, Step{Tool: "tsc", kind: kindTSC, Command: "node_modules/.bin/tsc --noEmit --pretty false"})
	}
	if hasESLintConfig(root) && exists(root, "node_modules/.bin/eslint") && anyWithExt(rel, ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".vue", ".svelte") {
		target := "."
		if len(rel) > 0 {
			target = joinQuoted(rel)
		}
		p.Steps = append(p.Steps, Step{Tool: "eslint", kind: kindESLint, Command: "node_modules/.bin/eslint --format json --output-file {report} " + target})
	}
	if exists(root, "Cargo.toml") && anyWithExt(rel, ".rs") {
		p.Steps = append(p.Steps, Step{Tool: "cargo check", kind: kindCargoCheck, Command: "cargo check --message-format=json --color never"})
	}
	pyFiles := anyWithExt(rel, ".py", ".pyi")
	if pyFiles && configured(root, []string{"ruff.toml", ".ruff.toml"}, "[tool.ruff") && onPath("ruff") {
		target := "."
		if len(rel) > 0 {
			target = joinQuoted(rel)
		}
		p.Steps = append(p.Steps, Step{Tool: "ruff", kind: kindRuff, Command: "ruff check --output-format=concise --no-fix " + target})
	}
	if pyFiles && configured(root, []string{"mypy.ini", ".mypy.ini"}, "[tool.mypy", "[mypy") && (onPath("mypy") || hasVenvTool(root, "mypy")) {
		target := ""
		switch {
		case len(rel) > 0:
			target = " " + joinQuoted(rel)
		case !mypyHasFiles(root):
			target = " ."
		}
		p.Steps = append(p.Steps, Step{Tool: "mypy", kind: kindMypy,
			Command: pythonCommand(root, "mypy") + " --show-column-numbers --show-error-codes --no-error-summary --no-color-output --no-pretty" + target})
	}
	if len(p.Steps) == 0 {
		return nil, fmt.Errorf("%w in %s: looked for go.mod, tsconfig.json and eslint configuration with node_modules installed, Cargo.toml, and ruff or mypy configuration with the tool installed", ErrNoChecker, dir)
	}
	return p, nil
}

// anyWithExt reports whether files is empty (the whole project) or holds a file with one of exts
// or a directory (no extension).
func anyWithExt(files []string, exts ...string) bool {
	if len(files) == 0 {
		return true
	}
	for _, f := range files {
		ext := filepath.Ext(f)
		if ext == "" || slices.Contains(exts, ext) {
			return true
		}
	}
	return false
}

// goPackagesOf maps Go files and directories to the package patterns go vet takes.
func goPackagesOf(root *os.Root, files []string) []string {
	var out []string
	for _, f := range files {
		var dir string
		switch {
		case strings.HasSuffix(f, ".go"):
			dir = filepath.Dir(f)
		case filepath.Ext(f) == "":
			dir = f
		default:
			continue
		}
		pat := "./" + filepath.ToSlash(dir)
		if dir == "." {
			pat = "."
		}
		if !slices.Contains(out, pat) {
			out = append(out, pat)
		}
	}
	return out
}

func hasESLintConfig(root *os.Root) bool {
	for _, n := range []string{"eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts", "eslint.config.mts",
		".eslintrc", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.json", ".eslintrc.yml", ".eslintrc.yaml"} {
		if exists(root, n) {
			return true
		}
	}
	return false
}

// configured reports a tool configuration: one of its own files, or one of sections in
// pyproject.toml or setup.cfg.
func configured(root *os.Root, files []string, sections ...string) bool {
	for _, f := range files {
		if exists(root, f) {
			return true
		}
	}
	for _, f := range []string{"pyproject.toml", "setup.cfg"} {
		_, data, err := readFirst(root, f)
		if err != nil || data == nil {
			continue
		}
		for _, s := range sections {
			if bytes.Contains(data, []byte(s)) {
				return true
			}
		}
	}
	return false
}

func mypyHasFiles(root *os.Root) bool {
	for _, f := range []string{"mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg"} {
		if _, data, err := readFirst(root, f); err == nil && data != nil {
			for _, l := range strings.Split(string(data), "\n") {
				if k, _, ok := strings.Cut(l, "="); ok && strings.TrimSpace(k) == "files" {
					return true
				}
			}
		}
	}
	return false
}

func hasVenvTool(root *os.Root, tool string) bool {
	for _, venv := range []string{".venv", "venv", "env"} {
		if exists(root, venv+"/bin/"+tool) {
			return true
		}
	}
	return false
}

// openProject checks the paths given for a run (relArgs) and opens the project directory.
func openProject(dir string, paths []string) (*os.Root, []string, error) {
	rel, err := relArgs(dir, paths)
	if err != nil {
		return nil, nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("open project: %w", err)
	}
	return root, rel, nil
}

// relArgs checks paths given for a run: inside dir, no NUL, no leading '-'. They are returned
// relative to dir, slash-separated.
func relArgs(dir string, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		if strings.HasPrefix(p, "-") || strings.ContainsAny(p, "\x00\n\r") {
			return nil, fmt.Errorf("%w: path %q", ErrBadArgument, oneLine(p, 60))
		}
		// A Go package pattern keeps its "/..." (a pytest node id keeps its "::name" as it is).
		suffix := ""
		if p == "..." || strings.HasSuffix(p, "/...") {
			suffix, p = "/...", strings.TrimSuffix(strings.TrimSuffix(p, "..."), "/")
			if p == "" {
				p = "."
			}
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(dir, p)
		}
		rel, err := filepath.Rel(dir, filepath.Clean(abs))
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, fmt.Errorf("%w: %s is outside the project directory %s", ErrBadArgument, oneLine(p, 200), dir)
		}
		out = append(out, filepath.ToSlash(rel)+suffix)
	}
	return out, nil
}

// checkArg refuses a filter that a tool could read as an option or that breaks a line.
func checkArg(s, what string) error {
	if strings.HasPrefix(s, "-") || strings.ContainsAny(s, "\x00\n\r") || len(s) > 512 {
		return fmt.Errorf("%w: %s %q", ErrBadArgument, what, oneLine(s, 60))
	}
	return nil
}

func joinQuoted(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = shellQuote(x)
	}
	return strings.Join(q, " ")
}

func joinRunners(rs []Runner) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return strings.Join(s, ", ")
}

// Commands are the tools' own commands of the script Script(reportDir) writes, one per line:
// what command rules judge, since the wrapper around them is toolhost's.
func (p *Plan) Commands(reportDir string) string {
	lines := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		lines[i] = strings.ReplaceAll(s.Command, "{report}", shellQuote(filepath.Join(reportDir, strconv.Itoa(i))+".json"))
	}
	return strings.Join(lines, "\n")
}

// Script is the shell script that runs the plan: each step prints its command, then runs with both
// streams through tee into reportDir/N.out, writing its exit status to reportDir/N.exit.
func (p *Plan) Script(reportDir string) string {
	var b strings.Builder
	for i, s := range p.Steps {
		base := filepath.Join(reportDir, strconv.Itoa(i))
		cmd := strings.ReplaceAll(s.Command, "{report}", shellQuote(base+".json"))
		fmt.Fprintf(&b, "printf '%%s\\n' %s\n", shellQuote("$ "+cmd))
		// The subshell keeps a step that calls exit from skipping the status file.
		fmt.Fprintf(&b, "{ (%s); echo $? > %s; } 2>&1 | tee %s\n", cmd, shellQuote(base+".exit"), shellQuote(base+".out"))
	}
	// The script's own status is the last failing step's, so the terminal's record of the run
	// (get_output, list_sessions) says what the tools said rather than tee's 0.
	fmt.Fprintf(&b, "s=0; for f in %s/*.exit; do read c < \"$f\" && [ \"$c\" != 0 ] && s=$c; done; exit $s\n", shellQuote(reportDir))
	return b.String()
}
