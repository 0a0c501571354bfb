package tasks

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"Taskfile.yml":       "version: '3'\n\nvars:\n  X: y\n\ntasks:\n  build:\n    desc: Build it\n    cmds:\n      - go build\n  \"docs:serve\":\n    cmds: [x]\n  helper:\n    internal: true\n",
		"Makefile":           ".PHONY: all test\nVAR := 1\nall: build ## everything\nbuild test: deps\n\tgo build\n%.o: %.c\n\tcc\ndeps:\n-include x.mk\n",
		"package.json":       `{"scripts":{"test":"jest","lint:fix":"eslint --fix .","bad;name":"rm -rf /"}}`,
		"justfile":           "set shell := [\"bash\", \"-c\"]\n# run the linter\nlint:\n    echo lint\n_private:\n    echo\nrelease version:\n    echo {{version}}\n",
		"go.mod":             "module example.com/m\n\ngo 1.26\n",
		"a_test.go":          "package m\n",
		"sub/b_test.go":      "package sub\n",
		"vendor/v/c_test.go": "package v\n",
		"nested/go.mod":      "module other\n",
		"nested/d_test.go":   "package other\n",
	})
	got, err := Discover(dir)
	if err != nil {
		t.Fatalf("Discover: %v", err)
	}
	var lines []string
	for _, tk := range got {
		lines = append(lines, tk.Name+" | "+tk.Command+" | "+tk.Description)
	}
	want := []string{
		"task:build | task build | Build it",
		"task:docs:serve | task docs:serve | ",
		"make:all | make all | everything",
		"make:build | make build | ",
		"make:test | make test | ",
		"make:deps | make deps | ",
		"npm:lint:fix | npm run lint:fix | eslint --fix .",
		"npm:test | npm run test | jest",
		"just:lint | just lint | run the linter",
		"just:release | just release | ",
		"go:test | go test ./... | every package (2 with tests)",
		"go:vet | go vet ./... | ",
		"go:build | go build ./... | ",
		"go:test:. | go test . | ",
		"go:test:./sub | go test ./sub | ",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
}

func TestFind(t *testing.T) {
	ts := []Task{{Name: "make:test"}, {Name: "npm:test"}, {Name: "make:build"}, {Name: "go:test:./sub"}}
	tests := []struct {
		name, query string
		want        string
		wantErr     error
		candidates  []string
	}{
		{"qualified", "npm:test", "npm:test", nil, nil},
		{"unique bare name", "build", "make:build", nil, nil},
		{"bare name of several sources", "test", "", ErrAmbiguous, []string{"make:test", "npm:test"}},
		{"missing", "deploy", "", ErrNoTask, []string{"make:test", "npm:test", "make:build", "go:test:./sub"}},
		{"bare name with a colon", "test:./sub", "go:test:./sub", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, cands, err := Find(ts, tc.query)
			if !errors.Is(err, tc.wantErr) || got.Name != tc.want {
				t.Fatalf("Find(%q) = %q, %v; want %q, %v", tc.query, got.Name, err, tc.want, tc.wantErr)
			}
			if diff := cmp.Diff(tc.candidates, cands); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTestPlan(t *testing.T) {
	goProj := t.TempDir()
	writeFiles(t, goProj, map[string]string{"go.mod": "module m\n", "tests/test_x.py": ""})
	jsProj := t.TempDir()
	writeFiles(t, jsProj, map[string]string{"package.json": `{"devDependencies":{"vitest":"4"}}`, "node_modules/.bin/vitest": ""})
	jestMissing := t.TempDir()
	writeFiles(t, jestMissing, map[string]string{"package.json": `{"devDependencies":{"jest":"30"}}`})
	empty := t.TempDir()
	tests := []struct {
		name    string
		dir     string
		opts    TestOptions
		want    string
		also    []Runner
		wantErr error
	}{
		{"go module", goProj, TestOptions{}, "go test -json ./...", []Runner{RunnerPytest}, nil},
		{"go with packages and a filter", goProj, TestOptions{Paths: []string{"internal/git", "./x/..."}, Filter: "TestA|TestB"}, "go test -json -run 'TestA|TestB' ./internal/git ./x/...", []Runner{RunnerPytest}, nil},
		{"the other runner by name", goProj, TestOptions{Runner: RunnerPytest, Paths: []string{"tests/test_x.py::test_a b"}}, "-rfE --tb=short --color=no 'tests/test_x.py::test_a b'", []Runner{RunnerGo}, nil},
		{"vitest with a report file", jsProj, TestOptions{Filter: "adds"}, "node_modules/.bin/vitest run --reporter=default --reporter=json --outputFile={report} -t adds", nil, nil},
		{"a runner the project does not use", goProj, TestOptions{Runner: RunnerCargo}, "", nil, ErrNoRunner},
		{"no runner at all", empty, TestOptions{}, "", nil, ErrNoRunner},
		{"declared but not installed", jestMissing, TestOptions{}, "", nil, ErrNotInstalled},
		{"a filter that reads as an option", goProj, TestOptions{Filter: "-exec=evil"}, "", nil, ErrBadArgument},
		{"a path outside the project", goProj, TestOptions{Paths: []string{"../other"}}, "", nil, ErrBadArgument},
		{"a path that reads as an option", goProj, TestOptions{Paths: []string{"--upload-pack=x"}}, "", nil, ErrBadArgument},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := TestPlan(tc.dir, tc.opts)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("TestPlan error = %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if got := p.Steps[0].Command; !strings.HasSuffix(got, tc.want) {
				t.Errorf("command = %q, want it to end with %q", got, tc.want)
			}
			if diff := cmp.Diff(tc.also, p.Also); diff != "" {
				t.Errorf("Also (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckPlan(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod": "module m\n", "tsconfig.json": "{}", "node_modules/.bin/tsc": "",
		"eslint.config.js": "", "node_modules/.bin/eslint": "",
	})
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{"whole project", nil, []string{"go vet ./...", "node_modules/.bin/tsc --noEmit --pretty false", "node_modules/.bin/eslint --format json --output-file {report} ."}},
		{"go files map to packages", []string{"a.go", "pkg/b.go", "pkg/c.go"}, []string{"go vet . ./pkg"}},
		{"a ts file runs tsc and eslint on it", []string{"src/x.ts"}, []string{"node_modules/.bin/tsc --noEmit --pretty false", "node_modules/.bin/eslint --format json --output-file {report} src/x.ts"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := CheckPlan(dir, tc.files)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range p.Steps {
				got = append(got, s.Command)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := CheckPlan(t.TempDir(), nil); !errors.Is(err, ErrNoChecker) {
		t.Errorf("CheckPlan(empty) error = %v, want ErrNoChecker", err)
	}
}

// The script runs each step with its output teed into the report directory and its exit status
// beside it; Collect reads them back however the run ended.
func TestScriptAndCollect(t *testing.T) {
	dir := t.TempDir()
	reports := t.TempDir()
	p := &Plan{Dir: dir, Steps: []Step{
		{Tool: "go vet", kind: kindGoVet, Command: `printf 'vet: a.go:1:2: boom\n' >&2; exit 3`},
		{Tool: "eslint", kind: kindESLint, Command: `printf '[{"filePath":"` + dir + `/b.js","messages":[{"ruleId":"r","severity":1,"message":"m","line":4,"column":5}]}]' > {report}`},
		{Tool: "tsc", kind: kindTSC, Command: `echo "it's broken"; exit 2`},
	}}
	out, err := exec.Command("/bin/sh", "-c", p.Script(reports)).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Fatalf("script: %v, want the last failing step's exit 2\n%s", err, out)
	}
	if !strings.Contains(string(out), "$ printf 'vet:") || !strings.Contains(string(out), "vet: a.go:1:2: boom") {
		t.Errorf("the terminal log lacks the step header or output:\n%s", out)
	}
	o := p.Collect(reports)
	var exits []int
	for _, s := range o.Steps {
		exits = append(exits, s.Exit)
	}
	if diff := cmp.Diff([]int{3, 0, 2}, exits); diff != "" {
		t.Errorf("exit codes (-want +got):\n%s", diff)
	}
	got := RenderDiagnostics(o, 0)
	want := "1 error, 1 warning (go vet exit 3, eslint, tsc exit 2)\n" +
		"a.go:1:2: error boom\n" +
		"b.js:4:5: warning m [r]\n" +
		"--- tsc exit 2 without diagnostics; last lines ---\n" +
		"it's broken"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RenderDiagnostics (-want +got):\n%s", diff)
	}
	// A step that never ran (the run was stopped) is "did not finish".
	if err := os.Remove(filepath.Join(reports, "2.exit")); err != nil {
		t.Fatal(err)
	}
	if o := p.Collect(reports); o.Steps[2].Exit != -1 {
		t.Errorf("a step without an exit file has Exit %d, want -1", o.Steps[2].Exit)
	}
}

// TestDiscoverCargoAndPytest covers the conventions with no task file: a crate (with a binary
// or a library only) and the ways a Python project says it uses pytest (configuration
// sections, conftest.py, test files), with its virtual environment preferred.
func TestDiscoverCargoAndPytest(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"crate with a binary", map[string]string{"Cargo.toml": "[package]\nname = \"x\"\n", "src/main.rs": "fn main() {}\n"},
			[]string{"cargo:build | cargo build", "cargo:test | cargo test", "cargo:check | cargo check", "cargo:clippy | cargo clippy", "cargo:run | cargo run"}},
		{"library crate", map[string]string{"Cargo.toml": "[package]\nname = \"x\"\n", "src/lib.rs": ""},
			[]string{"cargo:build | cargo build", "cargo:test | cargo test", "cargo:check | cargo check", "cargo:clippy | cargo clippy"}},
		{"pyproject section, venv", map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n\n[tool.pytest.ini_options]\naddopts = \"-q\"\n", ".venv/bin/python": ""},
			[]string{"pytest | .venv/bin/python -m pytest"}},
		{"setup.cfg section", map[string]string{"setup.cfg": "[tool:pytest]\n", "venv/bin/python": ""}, []string{"pytest | venv/bin/python -m pytest"}},
		{"tox.ini section", map[string]string{"tox.ini": "[pytest]\n", "env/bin/python": ""}, []string{"pytest | env/bin/python -m pytest"}},
		{"conftest.py", map[string]string{"conftest.py": "", ".venv/bin/python": ""}, []string{"pytest | .venv/bin/python -m pytest"}},
		{"test files only", map[string]string{"tests/test_app.py": "", ".venv/bin/python": ""}, []string{"pytest | .venv/bin/python -m pytest"}},
		{"pyproject without pytest", map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n", "app.py": ""}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			got, err := Discover(dir)
			if err != nil {
				t.Fatalf("Discover: %v", err)
			}
			var lines []string
			for _, tk := range got {
				lines = append(lines, tk.Name+" | "+tk.Command)
			}
			if diff := cmp.Diff(tc.want, lines); diff != "" {
				t.Errorf("Discover (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckPlanRustAndPython: cargo check for a crate, ruff and mypy when configured and
// installed (a command on PATH, or mypy in the project's virtual environment), each only for
// the files it checks; nothing when the tool is configured but missing.
func TestCheckPlanRustAndPython(t *testing.T) {
	bin := t.TempDir()
	writeFiles(t, bin, map[string]string{"ruff": "#!/bin/sh\n"})
	if err := os.Chmod(filepath.Join(bin, "ruff"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	const mypyFlags = " --show-column-numbers --show-error-codes --no-error-summary --no-color-output --no-pretty"
	tests := []struct {
		name  string
		files map[string]string
		check []string
		want  []string
	}{
		{"crate", map[string]string{"Cargo.toml": "[package]\n"}, nil, []string{"cargo check --message-format=json --color never"}},
		{"crate, a Rust file", map[string]string{"Cargo.toml": "[package]\n"}, []string{"src/lib.rs"}, []string{"cargo check --message-format=json --color never"}},
		{"ruff and mypy from pyproject", map[string]string{"pyproject.toml": "[tool.ruff]\n[tool.mypy]\nfiles = [\"src\"]\n", ".venv/bin/python": "", ".venv/bin/mypy": ""}, nil,
			[]string{"ruff check --output-format=concise --no-fix .", ".venv/bin/python -m mypy" + mypyFlags}},
		{"ruff.toml, one file", map[string]string{"ruff.toml": "", "mypy.ini": "[mypy]\n"}, []string{"a.py"},
			[]string{"ruff check --output-format=concise --no-fix a.py"}},
		{"mypy.ini without files", map[string]string{"mypy.ini": "[mypy]\n", ".venv/bin/python": "", ".venv/bin/mypy": ""}, nil,
			[]string{".venv/bin/python -m mypy" + mypyFlags + " ."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			p, err := CheckPlan(dir, tc.check)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range p.Steps {
				got = append(got, s.Command)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
		})
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"mypy.ini": "[mypy]\n"})
	if _, err := CheckPlan(dir, nil); !errors.Is(err, ErrNoChecker) {
		t.Errorf("CheckPlan(mypy configured, not installed) error = %v, want ErrNoChecker", err)
	}
}
