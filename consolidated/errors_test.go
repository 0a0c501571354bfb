package consolidated

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"toolhost/internal/golden"
)

// declaredCode is one ErrorCode constant as errors.go declares it.
type declaredCode struct {
	name, value, group, doc string
}

// declaredCodes reads the ErrorCode constants from errors.go: the doc comment of each const
// block is the group, the comment above each constant its doc line. Reading the source keeps the
// declaration the only place a code and its meaning are written.
func declaredCodes(t *testing.T) []declaredCode {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var out []declaredCode
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		group := strings.TrimSpace(gd.Doc.Text())
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "ErrorCode" || len(vs.Values) != 1 {
				t.Fatalf("errors.go: constant %s is not declared as `CodeX ErrorCode = \"x\"`", vs.Names[0].Name)
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Fatalf("errors.go: %s is not a string literal", vs.Names[0].Name)
			}
			value, _ := strconv.Unquote(lit.Value)
			doc := strings.Join(strings.Fields(vs.Doc.Text()), " ")
			name := vs.Names[0].Name
			if !strings.HasPrefix(doc, name+": ") {
				t.Errorf("errors.go: %s needs a doc line starting %q", name, name+": ")
			}
			out = append(out, declaredCode{name: name, value: value, group: group, doc: strings.TrimPrefix(doc, name+": ")})
		}
	}
	return out
}

// TestErrorCodesGolden pins the list of codes with their groups and meanings, so that a new or
// changed code is a reviewed change.
func TestErrorCodesGolden(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Error codes of consolidated.ToolError, by situation (generated from errors.go).\n")
	last := ""
	seen := map[string]string{}
	for _, c := range declaredCodes(t) {
		if prev, dup := seen[c.value]; dup {
			t.Errorf("code %q is declared twice: %s and %s", c.value, prev, c.name)
		}
		seen[c.value] = c.name
		if c.group != last {
			fmt.Fprintf(&b, "\n## %s\n", strings.Join(strings.Fields(c.group), " "))
			last = c.group
		}
		fmt.Fprintf(&b, "%-22s %s\n", c.value, c.doc)
	}
	golden.CheckString(t, "testdata/error_codes.golden", b.String())
}

// TestErrorCodesDeclared fails on a code written as a literal where a ToolError is built or
// compared, and on a guard code (authz.Code*) that GuardError would pass through undeclared.
func TestErrorCodesDeclared(t *testing.T) {
	declared := map[string]string{}
	for _, c := range declaredCodes(t) {
		declared[c.value] = c.name
	}
	literal := func(fset *token.FileSet, e ast.Expr, where string) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		v, _ := strconv.Unquote(lit.Value)
		hint := "declare it in errors.go"
		if name, ok := declared[v]; ok {
			hint = "use " + name
		}
		t.Errorf("%s: error code %q written as a literal %s; %s", fset.Position(lit.Pos()), v, where, hint)
	}
	files, _ := filepath.Glob("*.go")
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "errors.go" {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Code" {
					literal(fset, n.Value, "in a Code field")
				}
				// An execution record's code (engine.Outcome) is a code too.
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "ErrorCode" {
					literal(fset, n.Value, "in an ErrorCode field")
				}
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "Errorf" && len(n.Args) > 0 {
					literal(fset, n.Args[0], "in Errorf")
				}
			case *ast.BinaryExpr:
				for _, side := range [][2]ast.Expr{{n.X, n.Y}, {n.Y, n.X}} {
					if sel, ok := side[0].(*ast.SelectorExpr); ok && sel.Sel.Name == "Code" {
						literal(fset, side[1], "in a comparison")
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && id.Name == "code" && i < len(n.Rhs) {
						literal(fset, n.Rhs[i], "assigned to code")
					}
				}
			}
			return true
		})
	}
	for _, code := range guardCodes(t) {
		if _, ok := declared[code]; !ok {
			t.Errorf("authz declares the denial code %q, which GuardError passes to the model; declare it in errors.go", code)
		}
	}
	// web_operations passes the web and browser engines' codes through as they are.
	for _, dir := range []string{"internal/web", "internal/browser"} {
		for _, code := range packageCodes(t, dir) {
			if _, ok := declared[code]; !ok {
				t.Errorf("%s declares the error code %q, which web_operations passes to the model; declare it in errors.go", dir, code)
			}
		}
	}
}

// guardCodes reads the values of authz's Code* constants from its source.
func guardCodes(t *testing.T) []string {
	t.Helper()
	return packageCodes(t, "authz")
}

// packageCodes reads the values of the Code* string constants of a package of the module (dir
// relative to the module root) from its source.
func packageCodes(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, filepath.Join("..", filepath.FromSlash(dir)), func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.CONST {
					continue
				}
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if !strings.HasPrefix(n.Name, "Code") || i >= len(vs.Values) {
							continue
						}
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							v, _ := strconv.Unquote(lit.Value)
							out = append(out, v)
						}
					}
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("found no Code* constants in %s; has the package moved?", dir)
	}
	return out
}

// TestToolErrorCause: the model reads the message; the log gets the cause; errors.Is sees it.
func TestToolErrorCause(t *testing.T) {
	disk := errors.New("write /var/lib/x: no space left on device")
	var logged bytes.Buffer
	env := &Env{DefaultConversation: "c", Logger: slog.New(slog.NewTextHandler(&logged, nil))}
	tool := &Tool{Name: "think", Description: "t", Single: true, Operations: []Operation{
		Op("think", "fail", RiskRead, func(ctx context.Context, c *Call, a *thinkArgs) (*Result, error) {
			return nil, &ToolError{Code: CodeTooLarge, Param: "thoughts", Message: "too big", Cause: disk}
		}),
	}}
	reg := NewRegistry(env, []*Tool{tool}, nil)
	res := reg.Dispatch(context.Background(), "think", []byte(`{"thoughts":"x"}`), nil)
	text := res.Content[0].(*mcp.TextContent).Text
	if !res.IsError || text != "error too_large: too big\nparameter: thoughts" {
		t.Errorf("result = %q (isError %v), want the message alone", text, res.IsError)
	}
	if strings.Contains(text, "no space left") {
		t.Errorf("the cause reached the model: %q", text)
	}
	if log := logged.String(); !strings.Contains(log, "outcome=error:too_large") || !strings.Contains(log, `cause="write /var/lib/x: no space left on device"`) {
		t.Errorf("log = %q, want the outcome and the cause", log)
	}
	if te := (&ToolError{Cause: disk}); !errors.Is(te, disk) {
		t.Error("errors.Is(ToolError, cause) = false, want true")
	}
}
