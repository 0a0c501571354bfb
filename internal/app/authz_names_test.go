package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"toolhost/authz"
	"toolhost/consolidated"
)

// word is a run of the characters tool and operation names are made of.
var word = regexp.MustCompile(`[A-Za-z0-9_]+`)

// TestAuthzKnowsNoToolNames: authz decides on requests and knows no tool or operation by name
// (ARCHITECTURE.md §3); the names reach it from its callers (the Request, Config.Ask, a
// Runner). It fails on a string literal in authz's non-test source that holds the name of a
// tool, or of an operation of any tool the app declares, so a name cannot slip back in:
//
//   - a compound name (file_operations, read_file) anywhere in a literal, in authz and its
//     subpackages;
//   - a one-word name (think, ask, download), which is also English that messages and the
//     command rules' actions (allow, ask, deny) use, as a whole literal in package authz.
//
// The risk classes are authz's own words, also where an operation shares one (todo_operations'
// read and write).
func TestAuthzKnowsNoToolNames(t *testing.T) {
	names := map[string]string{} // name -> what it names
	for _, tool := range testApp(t).Registry.Declared() {
		names[tool.Name] = "the tool " + tool.Name
		for _, op := range tool.Operations {
			if _, ok := names[op.Name]; !ok {
				names[op.Name] = "an operation of " + tool.Name
			}
		}
	}
	if len(names) < len(consolidated.Order) {
		t.Fatalf("the app declares %d names; want at least the %d tools", len(names), len(consolidated.Order))
	}
	for _, c := range []authz.Class{authz.ClassRead, authz.ClassWrite, authz.ClassExecute, authz.ClassNetwork, authz.ClassCommand} {
		delete(names, string(c))
	}
	literals := 0
	dir := filepath.Join("..", "..", "authz")
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			literals++
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
			}
			hit := func(w string) {
				t.Errorf("%s: %s names %s; authz knows no tool or operation by name: have the caller pass it (a Request field, Config.Ask, a Runner)",
					fset.Position(lit.Pos()), lit.Value, names[w])
			}
			for _, w := range word.FindAllString(s, -1) {
				if _, ok := names[w]; ok && strings.Contains(w, "_") {
					hit(w)
				}
			}
			if _, ok := names[s]; ok && !strings.Contains(s, "_") && filepath.Dir(path) == dir {
				hit(s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if literals < 100 {
		t.Fatalf("scanned %d string literals of authz; has the package moved?", literals)
	}
}

// TestGuardNamesAreTheRegistrys: the names the wiring gives authz are those of declared tools
// and operations, so a renamed operation cannot leave a refusal asking for one that is gone.
func TestGuardNamesAreTheRegistrys(t *testing.T) {
	a := testApp(t)
	ops := map[string][]string{}
	for _, tool := range a.Registry.Declared() {
		for _, op := range tool.Operations {
			ops[tool.Name] = append(ops[tool.Name], op.Name)
		}
	}
	ask := consolidated.AskCall()
	if !slices.Contains(ops[ask.Tool], ask.Request) || !slices.Contains(ops[ask.Tool], ask.Poll) {
		t.Errorf("consolidated.AskCall() = %+v, which names no declared tool and operations of it", ask)
	}
	run := consolidated.TerminalRunner()
	if len(run.Operations) == 0 {
		t.Fatalf("the terminal guard's runner %+v has no operations that run commands", run)
	}
	for _, op := range run.Operations {
		if !slices.Contains(ops[run.Tool], op) {
			t.Errorf("the terminal guard's runner names %s.%s, which is not declared", run.Tool, op)
		}
	}
}
