package tasks

import (
	"encoding/json"
	"path"
	"slices"
	"strconv"
	"strings"
	"toolhost/internal/lazyregexp"
)

// goEvent is one line of `go test -json` (test2json), including the build events go test emits
// since Go 1.24 (ImportPath, build-output, build-fail).
type goEvent struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string
	FailedBuild string
}

type goTest struct {
	pkg, name string
	result    string // pass, fail, skip; "" while running
	output    []string
}

// ParseGoTest parses `go test -json` output. module is the main module's path, used to turn
// package import paths into directories; lines that are not JSON (a stray stderr line) are kept
// only for the package-level message of a failure.
func ParseGoTest(out []byte, module string) TestReport {
	var tr TestReport
	tests := map[string]*goTest{}
	var order []string
	pkgOut := map[string][]string{}
	pkgFailed := map[string]bool{}
	buildLines := map[string][]string{}
	var buildOrder []string
	jsonLines(out, func(line []byte) {
		var ev goEvent
		if json.Unmarshal(line, &ev) != nil {
			return
		}
		tr.Parsed = true
		switch ev.Action {
		case "build-output":
			if _, seen := buildLines[ev.ImportPath]; !seen {
				buildOrder = append(buildOrder, ev.ImportPath)
			}
			buildLines[ev.ImportPath] = append(buildLines[ev.ImportPath], strings.TrimRight(ev.Output, "\n"))
			return
		case "build-fail", "start":
			return
		}
		if ev.Test == "" {
			switch ev.Action {
			case "output":
				pkgOut[ev.Package] = append(pkgOut[ev.Package], strings.TrimRight(ev.Output, "\n"))
			case "fail":
				if ev.FailedBuild == "" {
					pkgFailed[ev.Package] = true
				}
			}
			return
		}
		key := ev.Package + "\x00" + ev.Test
		t := tests[key]
		if t == nil {
			t = &goTest{pkg: ev.Package, name: ev.Test}
			tests[key] = t
			order = append(order, key)
		}
		switch ev.Action {
		case "output":
			t.output = append(t.output, strings.TrimRight(ev.Output, "\n"))
		case "pass", "fail", "skip":
			t.result = ev.Action
		}
	})
	for _, ip := range buildOrder {
		// "example.com/p [example.com/p.test]" names the package whose test binary failed.
		pkg, _, _ := strings.Cut(strings.TrimSpace(ip), " ")
		pkgDir := goPkgDir(pkg, module)
		n := 0
		for _, l := range buildLines[ip] {
			if d, ok := parseFileLineCol(l); ok {
				tr.Failures = append(tr.Failures, Failure{Name: pkg, Kind: "build", File: d.File, Line: d.Line, Message: d.Message})
				n++
			}
		}
		if n == 0 {
			tr.Failures = append(tr.Failures, Failure{Name: pkg, Kind: "build", File: pkgDir, Message: firstMeaningful(strings.Join(buildLines[ip], "\n"), 200)})
		}
		tr.Errors++
	}
	// A test with subtests is counted through them.
	parent := map[string]bool{}
	for _, k := range order {
		t := tests[k]
		if i := strings.LastIndexByte(t.name, '/'); i > 0 {
			for p := t.name[:i]; ; {
				parent[t.pkg+"\x00"+p] = true
				j := strings.LastIndexByte(p, '/')
				if j < 0 {
					break
				}
				p = p[:j]
			}
		}
	}
	failedPkgs := map[string]bool{}
	for _, k := range order {
		t := tests[k]
		if parent[k] && t.result != "" {
			continue
		}
		switch t.result {
		case "pass":
			tr.Passed++
		case "skip":
			tr.Skipped++
		default: // fail, or never finished (timeout, crash, the run was stopped)
			tr.Failed++
			failedPkgs[t.pkg] = true
			f := goFailure(t, goPkgDir(t.pkg, module))
			tr.Failures = append(tr.Failures, f)
		}
	}
	// A package that failed with no failing test (TestMain, init panic, a crash between tests).
	for _, pkg := range sortedKeys(pkgFailed) {
		if failedPkgs[pkg] {
			continue
		}
		lines := pkgOut[pkg]
		msg := ""
		for _, l := range lines {
			t := strings.TrimSpace(l)
			if t == "" || t == "FAIL" || strings.HasPrefix(t, "FAIL\t") || strings.HasPrefix(t, "exit status") {
				continue
			}
			msg = oneLine(t, 200)
			break
		}
		tr.Failures = append(tr.Failures, Failure{Name: pkg, Kind: "error", File: goPkgDir(pkg, module), Message: msg})
		tr.Errors++
	}
	return tr
}

var (
	// goTestLine is a t.Error/t.Fatal line: "    file_test.go:17: message".
	goTestLine = lazyregexp.New(`^\s+([^\s:]+\.go):(\d+): (.*)$`)
	// goFrame is a stack frame's location line: "\t/path/file.go:37 +0x28".
	goFrame = lazyregexp.New(`^\t(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$`)
)

// goFailure finds where a Go test failed: its first t.Error line, or for a panic the first stack
// frame inside the package's directory.
func goFailure(t *goTest, pkgDir string) Failure {
	f := Failure{Name: t.name, Kind: "test"}
	var panicMsg string
	for i, l := range t.output {
		if m := goTestLine.FindStringSubmatch(l); m != nil && f.File == "" {
			f.File = path.Join(pkgDir, m[1])
			f.Line, _ = strconv.Atoi(m[2])
			f.Message = oneLine(m[3], 200)
			// A message continued on indented lines ("got: ..., want: ...").
			for _, next := range t.output[i+1:] {
				if !strings.HasPrefix(next, "        ") || len(f.Message) > 200 {
					break
				}
				f.Message = oneLine(f.Message+" "+strings.TrimSpace(next), 240)
			}
		}
		if strings.HasPrefix(l, "panic: ") && panicMsg == "" {
			panicMsg = oneLine(recovered.ReplaceAllString(l, ""), 200)
		}
	}
	if panicMsg != "" && f.File == "" {
		f.Message = panicMsg
		f.File, f.Line = goPanicFrame(t, pkgDir)
	}
	if t.result == "" {
		why := "did not finish (timed out or the run was stopped)"
		if panicMsg != "" {
			why = panicMsg
		}
		f.Message = why
	}
	if f.Message == "" {
		// No t.Error line: the last output before the verdict says something.
		for i := len(t.output) - 1; i >= 0; i-- {
			s := strings.TrimSpace(t.output[i])
			if s == "" || strings.HasPrefix(s, "--- FAIL") || strings.HasPrefix(s, "=== ") {
				continue
			}
			f.Message = oneLine(s, 200)
			break
		}
	}
	return f
}

var recovered = lazyregexp.New(`\s*\[recovered[^\]]*\]$`)

// goPanicFrame locates a panic (or a timeout's stack dump) in the test's own function: the frame
// after the line naming pkg.TestName, else the first frame in a _test.go file.
func goPanicFrame(t *goTest, pkgDir string) (string, int) {
	top, _, _ := strings.Cut(t.name, "/")
	fn := t.pkg + "." + top
	at := func(loc string) (string, int) {
		m := goFrame.FindStringSubmatch(loc)
		if m == nil {
			return "", 0
		}
		n, _ := strconv.Atoi(m[2])
		if pkgDir != "" {
			return path.Join(pkgDir, path.Base(m[1])), n
		}
		return m[1], n
	}
	for i, l := range t.output {
		if (strings.HasPrefix(l, fn+"(") || strings.HasPrefix(l, fn+".")) && i+1 < len(t.output) {
			if file, n := at(t.output[i+1]); file != "" {
				return file, n
			}
		}
	}
	for _, l := range t.output {
		if m := goFrame.FindStringSubmatch(l); m != nil && strings.HasSuffix(m[1], "_test.go") {
			return at(l)
		}
	}
	return "", 0
}

// goPkgDir maps an import path to a directory relative to the module root ("." for the root).
func goPkgDir(importPath, module string) string {
	if module == "" {
		return ""
	}
	if importPath == module {
		return "."
	}
	if rel, ok := strings.CutPrefix(importPath, module+"/"); ok {
		return rel
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

var (
	pytestSummary = lazyregexp.New(`^=*\s*((?:\d+ [a-z]+(?:, )?)+)(?: in [\d.]+s.*?)?\s*=*$`)
	pytestCount   = lazyregexp.New(`(\d+) ([a-z]+)`)
	pytestSection = lazyregexp.New(`^_{2,} (.+?) _{2,}$`)
	pytestHeader  = lazyregexp.New(`^={3,} (.+?) ={3,}$`)
	pytestShort   = lazyregexp.New(`^(FAILED|ERROR) (\S+)(?: - (.*))?$`)
	pytestFrame   = lazyregexp.New(`^(\S+\.py):(\d+): `)
)

// ParsePytest parses pytest's text output run with -rfE --tb=short: the final counts line, the
// short test summary (one FAILED or ERROR line per problem) and the traceback sections that
// locate each.
func ParsePytest(out []byte) TestReport {
	var tr TestReport
	lines := strings.Split(strings.ReplaceAll(stripANSI(string(out)), "\r\n", "\n"), "\n")
	type section struct {
		title string
		body  []string
	}
	var sections []section
	var shorts [][]string
	where := ""
	for _, l := range lines {
		if m := pytestHeader.FindStringSubmatch(l); m != nil {
			where = m[1]
			if c := pytestSummary.FindStringSubmatch(l); c != nil && strings.Contains(l, " in ") {
				pytestCounts(&tr, c[1])
			}
			continue
		}
		switch {
		case where == "FAILURES" || where == "ERRORS":
			if m := pytestSection.FindStringSubmatch(l); m != nil {
				sections = append(sections, section{title: m[1]})
			} else if len(sections) > 0 {
				sections[len(sections)-1].body = append(sections[len(sections)-1].body, l)
			}
		case where == "short test summary info":
			if m := pytestShort.FindStringSubmatch(l); m != nil {
				shorts = append(shorts, m)
			}
		}
		// -q runs end with a bare counts line.
		if c := pytestSummary.FindStringSubmatch(l); c != nil && strings.Contains(l, " in ") && !strings.HasPrefix(l, "=") {
			pytestCounts(&tr, c[1])
		}
		if strings.Contains(l, "no tests ran in ") {
			tr.Parsed = true
		}
	}
	locate := func(title string) (file string, line int, msg string) {
		for _, s := range sections {
			if s.title != title {
				continue
			}
			for _, b := range s.body {
				if m := pytestFrame.FindStringSubmatch(b); m != nil && !strings.Contains(m[1], "site-packages") && !strings.HasPrefix(m[1], "/usr/") {
					file = m[1]
					line, _ = strconv.Atoi(m[2])
				}
				if e, ok := strings.CutPrefix(b, "E   "); ok && msg == "" {
					msg = oneLine(e, 200)
				}
			}
			return
		}
		return
	}
	for _, m := range shorts {
		kind, id, msg := "test", m[2], m[3]
		if m[1] == "ERROR" {
			kind = "error"
		}
		f := Failure{Name: id, Kind: kind, Message: oneLine(msg, 200)}
		for _, s := range sections {
			if pytestTitleMatches(s.title, id) {
				file, line, emsg := locate(s.title)
				f.File, f.Line = file, line
				if f.Message == "" {
					f.Message = emsg
				}
				break
			}
		}
		if f.File == "" {
			f.File, _, _ = strings.Cut(id, "::")
		}
		tr.Failures = append(tr.Failures, f)
	}
	if len(shorts) == 0 {
		// Without -r: one failure per section.
		for _, s := range sections {
			file, line, msg := locate(s.title)
			kind := "test"
			if strings.HasPrefix(s.title, "ERROR ") {
				kind = "error"
			}
			tr.Failures = append(tr.Failures, Failure{Name: s.title, Kind: kind, File: file, Line: line, Message: msg})
		}
	}
	return tr
}

func pytestCounts(tr *TestReport, s string) {
	tr.Parsed = true
	tr.Passed, tr.Failed, tr.Skipped, tr.Errors = 0, 0, 0, 0
	for _, m := range pytestCount.FindAllStringSubmatch(s, -1) {
		n, _ := strconv.Atoi(m[1])
		switch m[2] {
		case "passed", "xpassed":
			tr.Passed += n
		case "failed":
			tr.Failed += n
		case "skipped", "xfailed", "deselected":
			tr.Skipped += n
		case "error", "errors":
			tr.Errors += n
		}
	}
}

// pytestTitleMatches pairs a traceback section title ("test_x", "TestC.test_y",
// "ERROR at setup of test_x", "ERROR collecting tests/t.py") with a node id.
func pytestTitleMatches(title, id string) bool {
	for _, p := range []string{"ERROR at setup of ", "ERROR at teardown of ", "ERROR collecting "} {
		title = strings.TrimPrefix(title, p)
	}
	if title == id {
		return true
	}
	t := strings.ReplaceAll(title, ".", "::")
	return strings.HasSuffix(id, "::"+t) || strings.HasSuffix(id, "::"+title)
}

var (
	cargoTestLine  = lazyregexp.New(`^test (\S+) \.\.\. (ok|FAILED|ignored)\b`)
	cargoResult    = lazyregexp.New(`^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored`)
	cargoSection   = lazyregexp.New(`^---- (\S+) (?:stdout|stderr) ----$`)
	cargoPanicNew  = lazyregexp.New(`^thread '([^']*)'(?: \(\d+\))? panicked at ([^:\s]+):(\d+):\d+:$`)
	cargoPanicOld  = lazyregexp.New(`^thread '([^']*)'(?: \(\d+\))? panicked at '(.*)', ([^:\s]+):(\d+):\d+$`)
	cargoCompile   = lazyregexp.New(`^error(?:\[(E\d+)\])?: (.*)$`)
	cargoArrowLine = lazyregexp.New(`^\s*--> ([^:\s]+):(\d+):(\d+)$`)
	// cargoNoise are cargo's own error lines about failed targets, not compiler errors.
	cargoNoise = lazyregexp.New(`^(test failed|\d+ targets? failed|could not compile|aborting due to)`)
)

// ParseCargoTest parses `cargo test` output: the "test result:" lines of every test binary, the
// "---- name stdout ----" sections with the panic location and message, and compiler errors when
// the tests did not build.
func ParseCargoTest(out []byte) TestReport {
	var tr TestReport
	lines := strings.Split(strings.ReplaceAll(stripANSI(string(out)), "\r\n", "\n"), "\n")
	failed := map[string]*Failure{}
	var order []string
	summaries := false
	var p, f, ig int
	var lp, lf, li int
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := cargoResult.FindStringSubmatch(l); m != nil {
			tr.Parsed, summaries = true, true
			a, _ := strconv.Atoi(m[1])
			b, _ := strconv.Atoi(m[2])
			c, _ := strconv.Atoi(m[3])
			p, f, ig = p+a, f+b, ig+c
			continue
		}
		if m := cargoTestLine.FindStringSubmatch(l); m != nil {
			tr.Parsed = true
			switch m[2] {
			case "ok":
				lp++
			case "FAILED":
				lf++
				if failed[m[1]] == nil {
					failed[m[1]] = &Failure{Name: m[1], Kind: "test"}
					order = append(order, m[1])
				}
			case "ignored":
				li++
			}
			continue
		}
		if m := cargoSection.FindStringSubmatch(l); m != nil {
			fl := failed[m[1]]
			if fl == nil {
				fl = &Failure{Name: m[1], Kind: "test"}
				failed[m[1]] = fl
				order = append(order, m[1])
			}
			for j := i + 1; j < len(lines) && !strings.HasPrefix(lines[j], "---- ") && lines[j] != "failures:"; j++ {
				if pm := cargoPanicNew.FindStringSubmatch(lines[j]); pm != nil {
					fl.File = pm[2]
					fl.Line, _ = strconv.Atoi(pm[3])
					var msg []string
					for k := j + 1; k < len(lines) && strings.TrimSpace(lines[k]) != "" && !strings.HasPrefix(lines[k], "note: ") && !strings.HasPrefix(lines[k], "stack backtrace:"); k++ {
						msg = append(msg, strings.TrimSpace(lines[k]))
					}
					fl.Message = oneLine(strings.Join(msg, "; "), 240)
					break
				}
				if pm := cargoPanicOld.FindStringSubmatch(lines[j]); pm != nil {
					fl.Message = oneLine(pm[2], 240)
					fl.File = pm[3]
					fl.Line, _ = strconv.Atoi(pm[4])
					break
				}
			}
			continue
		}
		if m := cargoCompile.FindStringSubmatch(l); m != nil && !cargoNoise.MatchString(m[2]) {
			fl := Failure{Name: "build", Kind: "build", Message: oneLine(m[2], 200)}
			if m[1] != "" {
				fl.Message += " [" + m[1] + "]"
			}
			for j := i + 1; j < len(lines) && j < i+4; j++ {
				if am := cargoArrowLine.FindStringSubmatch(lines[j]); am != nil {
					fl.File = am[1]
					fl.Line, _ = strconv.Atoi(am[2])
					break
				}
			}
			tr.Parsed = true
			tr.Errors++
			tr.Failures = append(tr.Failures, fl)
		}
	}
	if summaries {
		tr.Passed, tr.Failed, tr.Skipped = p, f, ig
	} else {
		tr.Passed, tr.Failed, tr.Skipped = lp, lf, li
	}
	for _, name := range order {
		tr.Failures = append(tr.Failures, *failed[name])
	}
	return tr
}

// jestReport is the JSON report of Jest (--json) and Vitest (--reporter=json).
type jestReport struct {
	NumPassedTests  int `json:"numPassedTests"`
	NumFailedTests  int `json:"numFailedTests"`
	NumPendingTests int `json:"numPendingTests"`
	NumTodoTests    int `json:"numTodoTests"`
	TestResults     []struct {
		Name             string `json:"name"`
		Status           string `json:"status"`
		Message          string `json:"message"`
		AssertionResults []struct {
			FullName        string   `json:"fullName"`
			Status          string   `json:"status"`
			FailureMessages []string `json:"failureMessages"`
			Location        *struct {
				Line int `json:"line"`
			} `json:"location"`
		} `json:"assertionResults"`
	} `json:"testResults"`
}

// jsFrame is a stack frame location: "at fn (/abs/file.js:10:23)", "at /abs/file.js:10:23",
// "at file:///abs/file.mjs:3:1".
var jsFrame = lazyregexp.New(`\(?((?:file://)?[^\s()]+\.[cm]?[jt]sx?):(\d+):(\d+)\)?`)

// ParseJestJSON parses a Jest or Vitest JSON report. Failures are located at the first stack
// frame outside node_modules, else at the test's declaration; suites that failed to load count as
// errors. root makes absolute paths relative.
func ParseJestJSON(report []byte, root string) (TestReport, error) {
	var r jestReport
	if err := json.Unmarshal(report, &r); err != nil {
		return TestReport{}, err
	}
	tr := TestReport{Parsed: true, Passed: r.NumPassedTests, Failed: r.NumFailedTests, Skipped: r.NumPendingTests + r.NumTodoTests}
	for _, suite := range r.TestResults {
		file := relTo(root, suite.Name)
		failedHere := 0
		for _, a := range suite.AssertionResults {
			if a.Status != "failed" {
				continue
			}
			failedHere++
			f := Failure{Name: a.FullName, Kind: "test", File: file}
			if a.Location != nil {
				f.Line = a.Location.Line
			}
			if len(a.FailureMessages) > 0 {
				msg := stripANSI(a.FailureMessages[0])
				f.Message = jsMessage(msg)
				if ff, fl, ok := jsLocation(msg, root); ok {
					f.File, f.Line = ff, fl
				}
			}
			tr.Failures = append(tr.Failures, f)
		}
		if suite.Status == "failed" && failedHere == 0 {
			msg := stripANSI(suite.Message)
			f := Failure{Name: file, Kind: "error", File: file, Message: firstMeaningful(strings.ReplaceAll(msg, "● Test suite failed to run", ""), 200)}
			tr.Errors++
			tr.Failures = append(tr.Failures, f)
		}
	}
	return tr, nil
}

// jsMessage keeps the first lines of a failure message (the assertion and its expected and
// received values), up to the stack.
func jsMessage(msg string) string {
	var keep []string
	for _, l := range strings.Split(msg, "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "at ") {
			break
		}
		if t != "" {
			keep = append(keep, t)
		}
		if len(keep) == 3 {
			break
		}
	}
	return oneLine(strings.Join(keep, "; "), 240)
}

// jsLocation finds the first stack frame of msg outside node_modules and Node's internals.
func jsLocation(msg, root string) (string, int, bool) {
	for _, l := range strings.Split(msg, "\n") {
		if !strings.Contains(l, " at ") && !strings.HasPrefix(strings.TrimSpace(l), "at ") {
			continue
		}
		m := jsFrame.FindStringSubmatch(l)
		if m == nil || strings.Contains(m[1], "node_modules") || strings.HasPrefix(m[1], "node:") {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		return relTo(root, strings.TrimPrefix(m[1], "file://")), n, true
	}
	return "", 0, false
}
