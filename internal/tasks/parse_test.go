package tasks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func capture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "capture", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseTestOutput(t *testing.T) {
	jest := func(root string) func([]byte) TestReport {
		return func(b []byte) TestReport {
			r, err := ParseJestJSON(b, root)
			if err != nil {
				t.Fatalf("ParseJestJSON: %v", err)
			}
			return r
		}
	}
	tests := []struct {
		name  string
		file  string
		parse func([]byte) TestReport
		want  TestReport
	}{
		{
			name: "go test with a build failure, subtests, a skip and a panic", file: "go_test.json",
			parse: func(b []byte) TestReport { return ParseGoTest(b, "example.com/proj") },
			want: TestReport{Parsed: true, Passed: 3, Failed: 3, Skipped: 1, Errors: 1, Failures: []Failure{
				{Name: "example.com/proj/broken", Kind: "build", File: "broken/b.go", Line: 3, Message: `cannot use "x" (untyped string constant) as int value in return statement`},
				{Name: "TestAddWrong", Kind: "test", File: "calc_test.go", Line: 17, Message: "Add(2, 2) = 4, want 5"},
				{Name: "TestTable/bad", Kind: "test", File: "calc_test.go", Line: 29, Message: "Add = 2, want 3"},
				{Name: "TestPanics", Kind: "test", File: "calc_test.go", Line: 37, Message: "panic: assignment to entry in nil map"},
			}},
		},
		{
			name: "go test killed by its own -timeout", file: "go_test_timeout.json",
			parse: func(b []byte) TestReport { return ParseGoTest(b, "example.com/hang") },
			want: TestReport{Parsed: true, Passed: 1, Failed: 1, Failures: []Failure{
				{Name: "TestHang", Kind: "test", File: "h_test.go", Line: 11, Message: "panic: test timed out after 2s"},
			}},
		},
		{
			name: "go test output of another module keeps absolute frames", file: "go_test_timeout.json",
			parse: func(b []byte) TestReport { return ParseGoTest(b, "") },
			want: TestReport{Parsed: true, Passed: 1, Failed: 1, Failures: []Failure{
				{Name: "TestHang", Kind: "test", File: "/home/dev/gohang/h_test.go", Line: 11, Message: "panic: test timed out after 2s"},
			}},
		},
		{
			name: "pytest failures, fixture error, skip and xfail", file: "pytest_short.txt", parse: ParsePytest,
			want: TestReport{Parsed: true, Passed: 2, Failed: 3, Skipped: 2, Errors: 1, Failures: []Failure{
				{Name: "tests/test_calc.py::test_add_wrong", Kind: "test", File: "tests/test_calc.py", Line: 11, Message: "assert 4 == 5"},
				{Name: "tests/test_calc.py::test_raises", Kind: "test", File: "tests/test_calc.py", Line: 20, Message: "ValueError: boom in helper"},
				{Name: "tests/test_calc.py::test_param[2-5]", Kind: "test", File: "tests/test_calc.py", Line: 29, Message: "assert 4 == 5"},
				{Name: "tests/test_calc.py::test_uses_fixture", Kind: "error", File: "tests/test_calc.py", Line: 34, Message: "RuntimeError: fixture broke"},
			}},
		},
		{
			name: "pytest collection errors", file: "pytest_collect_error.txt", parse: ParsePytest,
			want: TestReport{Parsed: true, Errors: 2, Failures: []Failure{
				{Name: "tests/test_calc.py", Kind: "error", File: "tests/test_calc.py", Line: 2, Message: "ModuleNotFoundError: No module named 'calc'"},
				{Name: "tests/test_syntax.py", Kind: "error", File: "tests/test_syntax.py", Line: 1, Message: "ModuleNotFoundError: No module named 'nonexistent_module_xyz'"},
			}},
		},
		{
			name: "cargo test over two test binaries", file: "cargo_test.txt", parse: ParseCargoTest,
			want: TestReport{Parsed: true, Passed: 2, Failed: 3, Skipped: 1, Failures: []Failure{
				{Name: "tests::panics", Kind: "test", File: "src/lib.rs", Line: 27, Message: "index out of bounds: the len is 0 but the index is 3"},
				{Name: "tests::adds_wrong", Kind: "test", File: "src/lib.rs", Line: 17, Message: "assertion `left == right` failed: two plus two; left: 4; right: 5"},
				{Name: "integ_fail", Kind: "test", File: "tests/integration.rs", Line: 8, Message: "math is broken"},
			}},
		},
		{
			name: "cargo test with backtraces", file: "cargo_test_backtrace.txt", parse: ParseCargoTest,
			want: TestReport{Parsed: true, Passed: 1, Failed: 2, Skipped: 1, Failures: []Failure{
				{Name: "tests::adds_wrong", Kind: "test", File: "src/lib.rs", Line: 17, Message: "assertion `left == right` failed: two plus two; left: 4; right: 5"},
				{Name: "tests::panics", Kind: "test", File: "src/lib.rs", Line: 27, Message: "index out of bounds: the len is 0 but the index is 3"},
			}},
		},
		{
			name: "jest report with a suite that does not load", file: "jest.json", parse: jest("/home/dev/jsproj"),
			want: TestReport{Parsed: true, Passed: 1, Failed: 2, Skipped: 1, Errors: 1, Failures: []Failure{
				{Name: "add adds wrong", Kind: "test", File: "src/calc.test.js", Line: 10, Message: "Error: expect(received).toBe(expected) // Object.is equality; Expected: 5; Received: 4"},
				{Name: "add throws", Kind: "test", File: "src/calc.test.js", Line: 16, Message: "Error: boom"},
				{Name: "src/broken.test.js", Kind: "error", File: "src/broken.test.js", Message: "Cannot find module './nope' from 'src/broken.test.js'"},
			}},
		},
		{
			name: "vitest report", file: "vitest.json", parse: jest("/home/dev/vtproj"),
			want: TestReport{Parsed: true, Passed: 1, Failed: 2, Skipped: 1, Errors: 1, Failures: []Failure{
				{Name: "src/broken.test.js", Kind: "error", File: "src/broken.test.js", Message: "Cannot find module './nope.js' imported from /home/dev/vtproj/src/broken.test.js"},
				{Name: "add adds wrong", Kind: "test", File: "src/calc.test.js", Line: 10, Message: "AssertionError: expected 4 to be 5 // Object.is equality"},
				{Name: "add throws", Kind: "test", File: "src/calc.test.js", Line: 16, Message: "Error: boom"},
			}},
		},
		{
			name: "output without results", file: "tsc.txt", parse: ParsePytest,
			want: TestReport{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.parse(capture(t, tc.file))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parse(%s) (-want +got):\n%s", tc.file, diff)
			}
		})
	}
}

func TestParseDiagnostics(t *testing.T) {
	eslint := func(b []byte) []Diagnostic {
		ds, err := ParseESLintJSON(b)
		if err != nil {
			t.Fatalf("ParseESLintJSON: %v", err)
		}
		return ds
	}
	tests := []struct {
		name  string
		input []byte
		parse func([]byte) []Diagnostic
		want  []string
	}{
		{"go vet type error and analyzers", capture(t, "go_vet.txt"), ParseGoVet, []string{
			`broken/b.go:3:23: error cannot use "x" (untyped string constant) as int value in return statement`,
			"vetme.go:8:2: warning self-assignment of x",
			`vetme.go:6:14: warning fmt.Printf format %d has arg "str" of wrong type string`,
		}},
		{"tsc", capture(t, "tsc.txt"), ParseTSC, []string{
			"ts/a.ts:1:7: error Type 'string' is not assignable to type 'number'. [TS2322]",
			"ts/a.ts:3:12: error Property 'lenght' does not exist on type 'string'. Did you mean 'length'? [TS2551]",
			"ts/a.ts:7:21: error Type 'string' is not assignable to type 'number'. [TS2322]",
			"ts/a.ts:8:43: error Type 'string' is not assignable to type 'number'. [TS2322]",
		}},
		{"tsc continuation lines", []byte("src/x.ts(4,3): error TS2322: Type '{ a: string; }' is not assignable to type 'P'.\n  Types of property 'a' are incompatible.\n    Type 'string' is not assignable to type 'number'.\n"), ParseTSC, []string{
			"src/x.ts:4:3: error Type '{ a: string; }' is not assignable to type 'P'. Types of property 'a' are incompatible. Type 'string' is not assignable to type 'number'. [TS2322]",
		}},
		{"mypy errors and a note", capture(t, "mypy_mixed.txt"), ParseMypy, []string{
			`calc.py:6:12: error Incompatible return value type (got "int", expected "str") [return-value]`,
			`notes.py:3:17: note Revealed type is "builtins.int"`,
			`notes.py:4:12: error Name "undefined_name" is not defined [name-defined]`,
		}},
		{"mypy without columns", []byte("pkg/a.py:3: error: Missing return statement  [return]\n"), ParseMypy, []string{
			"pkg/a.py:3: error Missing return statement [return]",
		}},
		{"ruff concise", capture(t, "ruff_concise.txt"), ParseRuff, []string{
			"app/main.py:1:8: error `os` imported but unused [F401]",
			"app/main.py:6:5: error Local variable `unused` is assigned to but never used [F841]",
			"app/main.py:9:1: error SyntaxError: Expected an expression [E999]",
			"app/util.py:3:5: error Undefined name `helper` [undefined-name]",
		}},
		{"cargo check error", capture(t, "cargo_check.json"), ParseCargoJSON, []string{
			"src/lib.rs:33:5: error mismatched types [E0308]",
		}},
		{"cargo check warning", capture(t, "cargo_check_warn.json"), ParseCargoJSON, []string{
			"src/lib.rs:32:9: warning unused variable: `unused` [unused_variables]",
		}},
		{"eslint", capture(t, "eslint.json"), eslint, []string{
			"/home/dev/jsproj/src/lint.js:1:7: warning 'unused' is assigned a value but never used. [no-unused-vars]",
			"/home/dev/jsproj/src/lint.js:2:5: error 'x' is not defined. [no-undef]",
			"/home/dev/jsproj/src/lint.js:3:3: error Unexpected 'debugger' statement. [no-debugger]",
		}},
		{"noise is not a diagnostic", []byte("# example.com/x\nok  \texample.com/x\t0.1s\nFound 0 errors.\n"), ParseGoVet, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, d := range tc.parse(tc.input) {
				got = append(got, d.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// The parsers read whatever a tool printed, including output cut off mid-line or mixed with
// other text: they must never panic, and counts never go negative.
func FuzzParseTestOutput(f *testing.F) {
	for _, n := range []string{"go_test.json", "go_test_timeout.json", "pytest_short.txt", "pytest_collect_error.txt", "cargo_test.txt", "cargo_test_backtrace.txt"} {
		f.Add(capture(f, n))
	}
	f.Add([]byte(`{"Action":"run","Package":"p","Test":"T/"}` + "\n" + `{"Action":"fail","Package":"p","Test":"T//x"}`))
	f.Add([]byte("thread 'x' panicked at 'y', :1:1\n---- x stdout ----\nthread 'x' (1) panicked at a.rs:1:1:\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, tr := range []TestReport{ParseGoTest(b, "p"), ParseGoTest(b, ""), ParsePytest(b), ParseCargoTest(b)} {
			if tr.Passed < 0 || tr.Failed < 0 || tr.Skipped < 0 || tr.Errors < 0 {
				t.Fatalf("negative counts: %+v", tr)
			}
			for _, fl := range tr.Failures {
				if fl.Line < 0 {
					t.Fatalf("negative line: %+v", fl)
				}
			}
		}
		if tr, err := ParseJestJSON(b, "/r"); err == nil && tr.Failed < 0 {
			t.Fatalf("negative counts: %+v", tr)
		}
	})
}

func FuzzParseDiagnostics(f *testing.F) {
	for _, n := range []string{"go_vet.txt", "tsc.txt", "mypy_mixed.txt", "ruff_concise.txt", "cargo_check.json", "eslint.json"} {
		f.Add(capture(f, n))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		all := [][]Diagnostic{ParseGoVet(b), ParseTSC(b), ParseMypy(b), ParseRuff(b), ParseCargoJSON(b)}
		if ds, err := ParseESLintJSON(b); err == nil {
			all = append(all, ds)
		}
		for _, ds := range all {
			for _, d := range ds {
				if d.Line < 0 || d.Col < 0 || d.Severity == "" {
					t.Fatalf("bad diagnostic %+v", d)
				}
				_ = d.String()
			}
		}
	})
}
