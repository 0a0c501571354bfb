package codeintel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"toolhost/internal/codeindex"
	"toolhost/internal/codeintel/codetest"
	"toolhost/internal/fifotest"
	"toolhost/internal/filetest"
	"toolhost/internal/fsread"
	"toolhost/internal/lsp"
)

// brief renders an outline as "line kind container.name" lines, members indented.
func brief(ss []Symbol, indent string) []string {
	var out []string
	for _, s := range ss {
		n := s.Name
		if s.Container != "" {
			n = s.Container + "." + n
		}
		out = append(out, fmt.Sprintf("%s%d %s %s", indent, s.Line, s.Kind, n))
		out = append(out, brief(s.Children, indent+"  ")...)
	}
	return out
}

func TestBuiltinOutlines(t *testing.T) {
	cases := []struct {
		file string
		src  string
		want []string
	}{
		{"a.go", "package a\n\ntype T struct {\n\tX int\n}\n\nfunc (t *T) M() {}\n\nfunc F() {}\n\nconst (\n\tA = 1\n\tB\n)\n\ntype I interface {\n\tDo() error\n}\n",
			[]string{"3 type T", "  4 field T.X", "  7 method T.M", "9 function F", "12 constant A", "13 constant B", "16 interface I", "  17 method I.Do"}},
		{"a.py", "import os\n\nMAX = 3\nname = 'x'\n\nclass A:\n    \"\"\"Doc.\n    def not_this(): pass\n    \"\"\"\n    def m(self):\n        x = 1\n        def inner():\n            pass\n\n    async def n(self):\n        pass\n\ndef f(a, b):\n    return a\n",
			[]string{"3 constant MAX", "4 variable name", "6 class A", "  10 method A.m", "  12 method A.inner", "  15 method A.n", "18 function f"}},
		{"a.ts", "export interface Item {\n  name: string;\n}\n\nexport class Cart {\n  private items: Item[] = [];\n  add(item: Item): void {\n    if (item) {\n      this.items.push(item);\n    }\n  }\n}\n\nexport function f(x: number): number {\n  return x;\n}\nexport const g = (a: number) => a * 2;\nconst LIMIT = 3;\ntype Alias = string;\n",
			[]string{"1 interface Item", "  2 field Item.name", "5 class Cart", "  6 field Cart.items", "  7 method Cart.add", "14 function f", "17 function g", "18 constant LIMIT", "19 type Alias"}},
		{"a.rs", "pub struct S {\n    x: i32,\n}\n\nimpl S {\n    pub fn new() -> S { S { x: 0 } }\n}\n\npub trait T {\n    fn run(&self);\n}\n\nfn main() {}\n",
			[]string{"1 type S", "5 type S", "  6 method S.new", "9 interface T", "  10 method T.run", "13 function main"}},
		{"a.c", "#define MAX 3\n\nstruct point {\n  int x;\n};\n\nstatic int add(int a, int b) {\n  return a + b;\n}\n\nint main(void)\n{\n  return add(1, 2);\n}\n",
			[]string{"1 constant MAX", "3 type point", "7 function add", "11 function main"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got := brief(outline(c.file, []byte(c.src)), "")
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("outline(%s) (-want +got):\n%s", c.file, diff)
			}
		})
	}
}

func TestPositionConversions(t *testing.T) {
	text := "a := \"é😀\" + x\nsecond\n"
	// x is the 13th character; before it: 'é' is 2 bytes and 1 UTF-16 unit, '😀' 4 bytes and 2 units.
	for _, c := range []struct {
		utf8 bool
		want int
	}{{true, 16}, {false, 13}} {
		s := fakeServer(c.utf8)
		p, err := toLSP(s, text, Pos{Line: 1, Column: 13})
		if err != nil || p.Character != c.want {
			t.Errorf("toLSP(utf8=%v) = %+v, %v; want character %d", c.utf8, p, err, c.want)
		}
		if col := fromLSP(c.utf8, strings.Split(text, "\n")[0], c.want); col != 13 {
			t.Errorf("fromLSP(utf8=%v, %d) = %d, want 13", c.utf8, c.want, col)
		}
		off, err := byteOffset(c.utf8, text, lsp.Position{Line: 0, Character: c.want})
		if err != nil || text[off] != 'x' {
			t.Errorf("byteOffset(utf8=%v) = %d, %v", c.utf8, off, err)
		}
	}
	s := fakeServer(true)
	for _, p := range []Pos{{Line: 4, Column: 1}, {Line: 1, Column: 99}, {Line: 0, Column: 1}} {
		if _, err := toLSP(s, text, p); err == nil {
			t.Errorf("toLSP(%+v) accepted a position outside the text", p)
		}
	}
}

// fakeServer is a server value whose position encoding is set, for conversions only.
func fakeServer(utf8 bool) *lsp.Server { return lsp.NewTestServer(utf8) }

func TestApplyEdits(t *testing.T) {
	text := "one two\nthree two\n"
	e := func(l1, c1, l2, c2 int, s string) lsp.TextEdit {
		return lsp.TextEdit{Range: lsp.Range{Start: lsp.Position{Line: l1, Character: c1}, End: lsp.Position{Line: l2, Character: c2}}, NewText: s}
	}
	got, err := applyEdits(true, text, []lsp.TextEdit{e(1, 6, 1, 9, "2"), e(0, 4, 0, 7, "2")})
	if err != nil || got != "one 2\nthree 2\n" {
		t.Errorf("applyEdits = %q, %v", got, err)
	}
	if _, err := applyEdits(true, text, []lsp.TextEdit{e(0, 0, 0, 5, "x"), e(0, 3, 0, 6, "y")}); err == nil {
		t.Error("overlapping edits were applied")
	}
	if _, err := applyEdits(true, text, []lsp.TextEdit{e(9, 0, 9, 1, "x")}); err == nil {
		t.Error("an edit past the end was applied")
	}
}

// TestFindSymbolBuiltin finds definitions with the built-in parsers, with and without the
// index, by exact name, glob, kind and loosely.
func TestFindSymbolBuiltin(t *testing.T) {
	dir := t.TempDir()
	for _, p := range codetest.Projects {
		files := map[string]string{}
		for k, v := range p.Files {
			files[p.Lang+"/"+k] = v
		}
		filetest.Write(t, dir, files)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	ix := codeindex.Open(codeindex.Config{Dir: filepath.Join(t.TempDir(), "ix"), Root: root, RootPath: dir})
	defer ix.Close()
	ixs := codeindex.Open(codeindex.Config{Dir: filepath.Join(t.TempDir(), "ixs"), Root: root, RootPath: dir, Symbols: DefinedNames})
	defer ixs.Close()
	cases := []struct {
		q    SymbolQuery
		want []string
	}{
		{SymbolQuery{Name: "Cart"}, []string{"go/store/store.go:10 type", "python/shop/cart.py:1 class", "typescript/src/cart.ts:7 class"}},
		{SymbolQuery{Name: "Cart", Kind: "type"}, []string{"go/store/store.go:10 type", "python/shop/cart.py:1 class", "typescript/src/cart.ts:7 class"}},
		{SymbolQuery{Name: "add", Kind: "method"}, []string{"python/shop/cart.py:7 method", "typescript/src/cart.ts:10 method"}},
		{SymbolQuery{Name: "retry*"}, []string{"python/shop/cart.py:14 function", "typescript/src/cart.ts:20 function"}},
		{SymbolQuery{Name: "Total", Scope: "go"}, []string{"go/store/store.go:18 method"}},
		{SymbolQuery{Name: "Nothing"}, nil},
	}
	e := NewEngine(Config{Root: root, RootPath: dir})
	ei := NewEngine(Config{Root: root, RootPath: dir, Index: ix})
	eis := NewEngine(Config{Root: root, RootPath: dir, Index: ixs})
	for _, x := range []*codeindex.Index{ix, ixs} {
		if err := x.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for _, eng := range []*Engine{e, ei, eis} {
		for _, c := range cases {
			r, err := eng.FindSymbol(context.Background(), c.q)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range r.Symbols {
				got = append(got, fmt.Sprintf("%s:%d %s", s.Path, s.Line, s.Kind))
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("FindSymbol(%+v, index %v) (-want +got):\n%s", c.q, eng.cfg.Index != nil, diff)
			}
		}
	}
	for _, eng := range []*Engine{e, eis} {
		r, _ := eng.FindSymbol(context.Background(), SymbolQuery{Name: "retryupload"})
		if !r.Loose || len(r.Symbols) != 2 {
			t.Errorf("a name in the wrong case: %+v", r)
		}
	}
}

// TestReadRefusesFIFO: a FIFO where a source file was (swapped in after a walk listed the file)
// is refused as not regular; the open does not wait for a writer that never comes.
func TestReadRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifotest.Make(t, filepath.Join(dir, "p.go"))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	e := NewEngine(Config{Root: root, RootPath: dir})
	done := make(chan error, 1)
	go func() {
		_, _, err := e.read("p.go")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, fsread.ErrNotRegular) {
			t.Errorf("read(FIFO) = %v, want %v", err, fsread.ErrNotRegular)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("read(FIFO) still waits for a writer after 10s")
	}
}
