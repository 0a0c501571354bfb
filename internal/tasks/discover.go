package tasks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"toolhost/internal/lazyregexp"
)

// Task is a command the project declares.
type Task struct {
	// Name is qualified by its source ("make:build", "npm:test", "go:test"); Find also accepts
	// the bare name when it is unique.
	Name string
	// Source is where it was found: task, make, npm, just, go, cargo, pytest.
	Source string
	// Command is the shell command run_task runs in the project directory.
	Command     string
	Description string
}

// Errors of discovery and lookup.
var (
	// ErrNoTask means no task has the requested name.
	ErrNoTask = errors.New("no such task")
	// ErrAmbiguous means a bare name matches tasks of several sources.
	ErrAmbiguous = errors.New("task name is ambiguous")
)

// maxManifest bounds a build file read during discovery.
const maxManifest = 4 << 20

// Discover lists the tasks declared in dir, in a fixed order: Taskfile, Makefile, package.json,
// justfile, then the Go, Cargo and pytest conventions. Unreadable or malformed files are skipped and
// reported in the joined error; the tasks found elsewhere are still returned.
func Discover(dir string) ([]Task, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open project: %w", err)
	}
	defer root.Close()
	var out []Task
	var errs []error
	for _, src := range []func(*os.Root) ([]Task, error){taskfileTasks, makeTasks, npmTasks, justTasks, goTasks, cargoTasks, pytestTasks} {
		ts, err := src(root)
		if err != nil {
			errs = append(errs, err)
		}
		out = append(out, ts...)
	}
	return out, errors.Join(errs...)
}

// Find returns the task named name: a qualified name, or a bare one that only one source declares.
// On failure it returns the names a caller could mean (for ErrAmbiguous, the qualified choices).
func Find(tasks []Task, name string) (Task, []string, error) {
	var matches []Task
	for _, t := range tasks {
		if t.Name == name {
			return t, nil, nil
		}
		if _, bare, ok := strings.Cut(t.Name, ":"); ok && bare == name {
			matches = append(matches, t)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil, nil
	case 0:
		names := make([]string, len(tasks))
		for i, t := range tasks {
			names[i] = t.Name
		}
		return Task{}, names, fmt.Errorf("%w: %q", ErrNoTask, name)
	}
	names := make([]string, len(matches))
	for i, t := range matches {
		names[i] = t.Name
	}
	return Task{}, names, fmt.Errorf("%w: %q is declared by %s", ErrAmbiguous, name, strings.Join(names, ", "))
}

// readFirst reads the first of names that exists in root.
func readFirst(root *os.Root, names ...string) (name string, data []byte, err error) {
	for _, n := range names {
		f, err := root.Open(n)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return n, nil, err
		}
		st, err := f.Stat()
		if err == nil && !st.Mode().IsRegular() {
			err = fmt.Errorf("%s is not a regular file", n)
		}
		if err != nil {
			f.Close()
			return n, nil, err
		}
		var buf bytes.Buffer
		_, err = buf.ReadFrom(&limited{f: f, n: maxManifest})
		f.Close()
		return n, buf.Bytes(), err
	}
	return "", nil, nil
}

type limited struct {
	f *os.File
	n int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, fmt.Errorf("file larger than %d bytes", maxManifest)
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.f.Read(p)
	l.n -= int64(n)
	return n, err
}

func exists(root *os.Root, name string) bool {
	_, err := root.Stat(name)
	return err == nil
}

// taskNamePattern is what a name from a build file must look like to become part of a command:
// no leading '-', no shell metacharacters.
var taskNamePattern = lazyregexp.New(`^[A-Za-z0-9_][A-Za-z0-9_.:/+@-]*$`)

// taskfileTasks reads the task names under "tasks:" of Taskfile.yml (a line-based reading of the
// YAML: keys at the first indentation below tasks, desc and internal of each).
func taskfileTasks(root *os.Root) ([]Task, error) {
	name, data, err := readFirst(root, "Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml", "Taskfile.dist.yml", "Taskfile.dist.yaml")
	if err != nil || data == nil {
		return nil, wrapFile(name, err)
	}
	var out []Task
	inTasks, indent := false, -1
	var cur *Task
	internal := false
	flush := func() {
		if cur != nil && !internal {
			out = append(out, *cur)
		}
		cur, internal = nil, false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \r")
		trimmed := strings.TrimLeft(line, " ")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		ind := len(line) - len(trimmed)
		if ind == 0 {
			flush()
			inTasks = trimmed == "tasks:"
			indent = -1
			continue
		}
		if !inTasks {
			continue
		}
		if indent < 0 {
			indent = ind
		}
		if ind == indent {
			flush()
			key, ok := yamlKey(trimmed)
			if ok && taskNamePattern.MatchString(key) {
				cur = &Task{Name: "task:" + key, Source: "task", Command: "task " + shellQuote(key)}
			}
			continue
		}
		if cur == nil || ind <= indent {
			continue
		}
		if v, ok := strings.CutPrefix(trimmed, "desc:"); ok {
			cur.Description = strings.Trim(strings.TrimSpace(v), `"'`)
		}
		if v, ok := strings.CutPrefix(trimmed, "internal:"); ok && strings.TrimSpace(v) == "true" {
			internal = true
		}
	}
	flush()
	return out, nil
}

// yamlKey reads the key of a "key: value" line, quoted or not.
func yamlKey(line string) (string, bool) {
	if q := line[0]; q == '"' || q == '\'' {
		end := strings.IndexByte(line[1:], q)
		if end < 0 || !strings.HasPrefix(line[end+2:], ":") {
			return "", false
		}
		return line[1 : end+1], true
	}
	key, _, ok := strings.Cut(line, ":")
	return key, ok
}

var makeTarget = lazyregexp.New(`^([A-Za-z0-9_][A-Za-z0-9_./+-]*(?:[ \t]+[A-Za-z0-9_][A-Za-z0-9_./+-]*)*)[ \t]*::?(?:[^=]|$)`)

// makeTasks lists explicit targets of the Makefile (no pattern rules, no special .TARGETS, no
// variable assignments). A "## text" comment on the target line is its description.
func makeTasks(root *os.Root) ([]Task, error) {
	name, data, err := readFirst(root, "GNUmakefile", "makefile", "Makefile")
	if err != nil || data == nil {
		return nil, wrapFile(name, err)
	}
	var out []Task
	seen := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "#") {
			continue
		}
		m := makeTarget.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		desc := ""
		if _, c, ok := strings.Cut(line, "##"); ok {
			desc = strings.TrimSpace(c)
		}
		for _, t := range strings.Fields(m[1]) {
			if seen[t] || !taskNamePattern.MatchString(t) {
				continue
			}
			seen[t] = true
			out = append(out, Task{Name: "make:" + t, Source: "make", Command: "make " + shellQuote(t), Description: desc})
		}
	}
	return out, nil
}

// npmTasks lists package.json scripts; the description is the script itself.
func npmTasks(root *os.Root) ([]Task, error) {
	name, data, err := readFirst(root, "package.json")
	if err != nil || data == nil {
		return nil, wrapFile(name, err)
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return nil, wrapFile(name, err)
	}
	runner := "npm run"
	switch {
	case exists(root, "pnpm-lock.yaml"):
		runner = "pnpm run"
	case exists(root, "yarn.lock"):
		runner = "yarn run"
	case exists(root, "bun.lockb"), exists(root, "bun.lock"):
		runner = "bun run"
	}
	var out []Task
	for _, k := range slices.Sorted(maps.Keys(pkg.Scripts)) {
		if !taskNamePattern.MatchString(k) {
			continue
		}
		out = append(out, Task{Name: "npm:" + k, Source: "npm", Command: runner + " " + shellQuote(k), Description: oneLine(pkg.Scripts[k], 120)})
	}
	return out, nil
}

var justRecipe = lazyregexp.New(`^@?([A-Za-z_][A-Za-z0-9_-]*)(?:[ \t]+[^:=]*)?:(?:[^=]|$)`)

// justTasks lists justfile recipes (not private ones starting with '_'); a comment line just
// above a recipe is its description.
func justTasks(root *os.Root) ([]Task, error) {
	name, data, err := readFirst(root, "justfile", "Justfile", ".justfile")
	if err != nil || data == nil {
		return nil, wrapFile(name, err)
	}
	var out []Task
	comment := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if c, ok := strings.CutPrefix(line, "#"); ok {
			comment = strings.TrimSpace(c)
			continue
		}
		m := justRecipe.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(m[1], "_") || slices.Contains([]string{"set", "alias", "export", "import", "mod"}, m[1]) {
			comment = ""
			continue
		}
		out = append(out, Task{Name: "just:" + m[1], Source: "just", Command: "just " + shellQuote(m[1]), Description: comment})
		comment = ""
	}
	return out, nil
}

// maxGoPackages caps the per-package test tasks listed for a Go module.
const maxGoPackages = 40

// goTasks offers test, vet and build of the whole module, plus a test task per package that has
// tests (nested modules, vendor, testdata and hidden directories excluded).
func goTasks(root *os.Root) ([]Task, error) {
	if !exists(root, "go.mod") {
		return nil, nil
	}
	out := []Task{
		{Name: "go:test", Source: "go", Command: "go test ./...", Description: "every package"},
		{Name: "go:vet", Source: "go", Command: "go vet ./..."},
		{Name: "go:build", Source: "go", Command: "go build ./..."},
	}
	var pkgs []string
	_ = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			base := d.Name()
			if p != "." && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "vendor" || base == "testdata" || base == "node_modules" || exists(root, p+"/go.mod")) {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), "_test.go") {
			dir := "./" + filepath.ToSlash(filepath.Dir(p))
			if dir == "./." {
				dir = "."
			}
			if len(pkgs) == 0 || pkgs[len(pkgs)-1] != dir {
				pkgs = append(pkgs, dir)
			}
		}
		return nil
	})
	pkgs = slices.Compact(slices.Sorted(slices.Values(pkgs)))
	out[0].Description = fmt.Sprintf("every package (%d with tests)", len(pkgs))
	for i, p := range pkgs {
		if i == maxGoPackages {
			break // go:test covers the rest; the list stays short
		}
		if p != "." && !taskNamePattern.MatchString(strings.TrimPrefix(p, "./")) {
			continue
		}
		out = append(out, Task{Name: "go:test:" + p, Source: "go", Command: "go test " + shellQuote(p)})
	}
	return out, nil
}

// cargoTasks offers the standard cargo commands of a crate or workspace.
func cargoTasks(root *os.Root) ([]Task, error) {
	if !exists(root, "Cargo.toml") {
		return nil, nil
	}
	out := []Task{
		{Name: "cargo:build", Source: "cargo", Command: "cargo build"},
		{Name: "cargo:test", Source: "cargo", Command: "cargo test"},
		{Name: "cargo:check", Source: "cargo", Command: "cargo check"},
		{Name: "cargo:clippy", Source: "cargo", Command: "cargo clippy"},
	}
	if exists(root, "src/main.rs") || exists(root, "src/bin") {
		out = append(out, Task{Name: "cargo:run", Source: "cargo", Command: "cargo run"})
	}
	return out, nil
}

// pytestTasks offers pytest when the project configures it or has test files.
func pytestTasks(root *os.Root) ([]Task, error) {
	if !usesPytest(root) {
		return nil, nil
	}
	return []Task{{Name: "pytest", Source: "pytest", Command: pythonCommand(root, "pytest")}}, nil
}

func usesPytest(root *os.Root) bool {
	if exists(root, "pytest.ini") || exists(root, "conftest.py") {
		return true
	}
	for _, f := range []struct{ name, section string }{{"pyproject.toml", "[tool.pytest"}, {"setup.cfg", "[tool:pytest]"}, {"tox.ini", "[pytest]"}} {
		if _, data, err := readFirst(root, f.name); err == nil && bytes.Contains(data, []byte(f.section)) {
			return true
		}
	}
	for _, pat := range []string{"tests/test_*.py", "test/test_*.py", "test_*.py", "tests/*_test.py"} {
		if m, _ := fs.Glob(root.FS(), pat); len(m) > 0 {
			return true
		}
	}
	return false
}

// pythonCommand runs a Python tool as a module with the project's virtual environment when it has
// one, else the tool's own command when it is on PATH, else python3 -m.
func pythonCommand(root *os.Root, module string) string {
	for _, venv := range []string{".venv", "venv", "env"} {
		if exists(root, venv+"/bin/python") {
			return venv + "/bin/python -m " + module
		}
	}
	if onPath(module) {
		return module
	}
	return "python3 -m " + module
}

func onPath(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

func wrapFile(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", name, err)
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n]) + "…"
	}
	return s
}

// shellQuote quotes s for sh: single quotes, with embedded ones closed, escaped and reopened.
// Plain words stay unquoted so that commands read naturally.
func shellQuote(s string) string {
	if s != "" && safeWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var safeWord = lazyregexp.New(`^[A-Za-z0-9_./:+@=,-]+$`)
