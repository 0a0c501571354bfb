package codeintel

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"unicode/utf8"

	"toolhost/internal/lazyregexp"
	"toolhost/internal/lsp"
)

// Symbol kinds, as the answers name them (and find_symbol's kind parameter takes them).
const (
	KindFunction  = "function"
	KindMethod    = "method"
	KindType      = "type"
	KindClass     = "class"
	KindInterface = "interface"
	KindField     = "field"
	KindVariable  = "variable"
	KindConstant  = "constant"
	KindModule    = "module"
	KindEnum      = "enum"
	KindOther     = "other"
)

// Kinds lists the kinds find_symbol filters by.
var Kinds = []string{KindFunction, KindMethod, KindType, KindClass, KindInterface, KindField, KindVariable, KindConstant, KindModule, KindEnum}

// Symbol is one definition: where it is (1-based line and column, in characters), what it is,
// what contains it and its signature (its first source line, or what the server says).
type Symbol struct {
	Path      string   `json:"path"`
	Name      string   `json:"name"`
	Kind      string   `json:"kind"`
	Container string   `json:"container,omitempty"`
	Line      int      `json:"line"`
	Column    int      `json:"column"`
	EndLine   int      `json:"end_line,omitempty"`
	Signature string   `json:"signature,omitempty"`
	Children  []Symbol `json:"children,omitempty"`
}

// lspKind maps the protocol's symbol kinds to ours.
func lspKind(k lsp.SymbolKind) string {
	switch k {
	case 12, 24: // function, operator
		return KindFunction
	case 6, 9: // method, constructor
		return KindMethod
	case 5: // class
		return KindClass
	case 11: // interface
		return KindInterface
	case 23, 26: // struct, type parameter
		return KindType
	case 8, 7, 22: // field, property, enum member
		return KindField
	case 13: // variable
		return KindVariable
	case 14: // constant
		return KindConstant
	case 2, 3, 4: // module, namespace, package
		return KindModule
	case 10: // enum
		return KindEnum
	}
	return KindOther
}

// kindMatches reports whether a symbol's kind answers a kind filter: "type" also takes
// classes, interfaces and enums, "function" also methods.
func kindMatches(have, want string) bool {
	if want == "" || have == want {
		return true
	}
	switch want {
	case KindType:
		return have == KindClass || have == KindInterface || have == KindEnum
	case KindFunction:
		return have == KindMethod
	}
	return false
}

// outline returns the symbols of one file from the built-in parsers: go/parser for Go, a
// line-based recogniser for the others. Top-level symbols hold their members as children.
func outline(rel string, src []byte) []Symbol {
	switch lsp.LanguageOf(rel) {
	case "go":
		if syms, ok := goOutline(rel, src); ok {
			return syms
		}
	}
	return heuristicOutline(rel, src)
}

// goOutline parses Go source. ok is false when the file does not parse at all (the
// heuristics then do what they can).
func goOutline(rel string, src []byte) ([]Symbol, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution|parser.ParseComments)
	if f == nil || (err != nil && len(f.Decls) == 0) {
		return nil, false
	}
	lines := splitLines(src)
	pos := func(p token.Pos) (int, int) {
		ps := fset.Position(p)
		return ps.Line, charColumn(lines, ps.Line, ps.Column)
	}
	sig := func(line int) string { return lineText(lines, line) }
	var out []Symbol
	methods := map[string][]Symbol{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			l, c := pos(d.Name.Pos())
			s := Symbol{Path: rel, Name: d.Name.Name, Kind: KindFunction, Line: l, Column: c, EndLine: fset.Position(d.End()).Line, Signature: sig(l)}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				s.Kind = KindMethod
				s.Container = recvName(d.Recv.List[0].Type)
				methods[s.Container] = append(methods[s.Container], s)
			}
			out = append(out, s)
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					l, c := pos(sp.Name.Pos())
					s := Symbol{Path: rel, Name: sp.Name.Name, Kind: KindType, Line: l, Column: c, EndLine: fset.Position(sp.End()).Line, Signature: sig(l)}
					switch t := sp.Type.(type) {
					case *ast.StructType:
						for _, fl := range t.Fields.List {
							for _, n := range fl.Names {
								fl2, fc := pos(n.Pos())
								s.Children = append(s.Children, Symbol{Path: rel, Name: n.Name, Kind: KindField, Container: sp.Name.Name, Line: fl2, Column: fc, Signature: sig(fl2)})
							}
							if len(fl.Names) == 0 { // embedded
								fl2, fc := pos(fl.Type.Pos())
								s.Children = append(s.Children, Symbol{Path: rel, Name: recvName(fl.Type), Kind: KindField, Container: sp.Name.Name, Line: fl2, Column: fc, Signature: sig(fl2)})
							}
						}
					case *ast.InterfaceType:
						s.Kind = KindInterface
						for _, m := range t.Methods.List {
							for _, n := range m.Names {
								ml, mc := pos(n.Pos())
								s.Children = append(s.Children, Symbol{Path: rel, Name: n.Name, Kind: KindMethod, Container: sp.Name.Name, Line: ml, Column: mc, Signature: sig(ml)})
							}
						}
					}
					out = append(out, s)
				case *ast.ValueSpec:
					kind := KindVariable
					if d.Tok == token.CONST {
						kind = KindConstant
					}
					for _, n := range sp.Names {
						if n.Name == "_" {
							continue
						}
						l, c := pos(n.Pos())
						out = append(out, Symbol{Path: rel, Name: n.Name, Kind: kind, Line: l, Column: c, Signature: sig(l)})
					}
				}
			}
		}
	}
	// Methods are listed under their type as well as at their place: the outline reads
	// type by type, find_symbol finds both.
	for i := range out {
		if out[i].Kind != KindMethod && len(methods[out[i].Name]) > 0 && out[i].Kind != KindFunction {
			for _, m := range methods[out[i].Name] {
				out[i].Children = append(out[i].Children, m)
			}
		}
	}
	var top []Symbol
	for _, s := range out {
		if s.Kind == KindMethod && hasType(out, s.Container) {
			continue // shown under its type
		}
		top = append(top, s)
	}
	return top, true
}

func hasType(syms []Symbol, name string) bool {
	for _, s := range syms {
		if s.Name == name && s.Kind != KindMethod && s.Kind != KindFunction {
			return true
		}
	}
	return false
}

// recvName is the type name of a receiver or embedded field: *T, T[K], pkg.T → T.
func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.Ident:
		return t.Name
	}
	return ""
}

// A rule recognises one kind of definition on a line; the name is the regexp's "name" group.
type rule struct {
	re   *lazyregexp.Regexp
	kind string
	// opens says the definition contains members (a class): they are its children.
	opens bool
}

func rules(exprs ...any) []rule {
	var out []rule
	for i := 0; i < len(exprs); i += 3 {
		out = append(out, rule{re: lazyregexp.New(exprs[i].(string)), kind: exprs[i+1].(string), opens: exprs[i+2].(bool)})
	}
	return out
}

// languageRules are the built-in recognisers of languages without a parser here. They read
// one line at a time and assume code formatted as usual (one definition per line); each
// compiles on first use, not at every start.
var languageRules = map[string][]rule{
	"python": rules(
		`^\s*class\s+(?P<name>[A-Za-z_]\w*)`, KindClass, true,
		`^\s*(?:async\s+)?def\s+(?P<name>[A-Za-z_]\w*)\s*\(`, KindFunction, false,
		`^(?P<name>[A-Z][A-Z0-9_]*)\s*(?::[^=]*)?=[^=]`, KindConstant, false,
		`^(?P<name>[A-Za-z_]\w*)\s*(?::[^=]*)?=[^=]`, KindVariable, false,
	),
	"typescript": rules(
		`^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+(?P<name>[A-Za-z_$][\w$]*)`, KindClass, true,
		`^\s*(?:export\s+)?(?:declare\s+)?interface\s+(?P<name>[A-Za-z_$][\w$]*)`, KindInterface, true,
		`^\s*(?:export\s+)?(?:declare\s+)?(?:const\s+)?enum\s+(?P<name>[A-Za-z_$][\w$]*)`, KindEnum, true,
		`^\s*(?:export\s+)?(?:declare\s+)?type\s+(?P<name>[A-Za-z_$][\w$]*)\s*(?:<[^=]*>)?\s*=`, KindType, false,
		`^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\s*\*?\s*(?P<name>[A-Za-z_$][\w$]*)`, KindFunction, false,
		`^\s*(?:export\s+)?(?:declare\s+)?(?:const|let|var)\s+(?P<name>[A-Za-z_$][\w$]*)\s*(?::[^=]*)?=\s*(?:async\s*)?(?:\([^)]*\)|[A-Za-z_$][\w$]*)\s*(?::[^=]*)?=>`, KindFunction, false,
		`^\s*(?:export\s+)?(?:declare\s+)?const\s+(?P<name>[A-Za-z_$][\w$]*)`, KindConstant, false,
		`^\s*(?:export\s+)?(?:declare\s+)?(?:let|var)\s+(?P<name>[A-Za-z_$][\w$]*)`, KindVariable, false,
		`^\s+(?:(?:public|private|protected|static|readonly|async|abstract|override|get|set)\s+)*(?P<name>[A-Za-z_$#][\w$]*)\s*(?:<[^>]*>)?\s*\([^)]*\)?\s*(?::[^{;]*)?\{?\s*$`, KindMethod, false,
		`^\s+(?:(?:public|private|protected|static|readonly|declare)\s+)*(?P<name>[A-Za-z_$#][\w$]*)[?!]?\s*(?::\s*[^;=]+)?(?:=[^;]*)?;\s*$`, KindField, false,
	),
	"rust": rules(
		`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?trait\s+(?P<name>[A-Za-z_]\w*)`, KindInterface, true,
		`^\s*(?:pub(?:\([^)]*\))?\s+)?struct\s+(?P<name>[A-Za-z_]\w*)`, KindType, true,
		`^\s*(?:pub(?:\([^)]*\))?\s+)?enum\s+(?P<name>[A-Za-z_]\w*)`, KindEnum, true,
		`^\s*(?:unsafe\s+)?impl(?:<[^>]*>)?\s+(?:[\w:<>, ]+\s+for\s+)?(?P<name>[A-Za-z_]\w*)`, KindType, true,
		`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+(?P<name>[A-Za-z_]\w*)`, KindFunction, false,
		`^\s*(?:pub(?:\([^)]*\))?\s+)?type\s+(?P<name>[A-Za-z_]\w*)`, KindType, false,
		`^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const|static)\s+(?:mut\s+)?(?P<name>[A-Za-z_]\w*)`, KindConstant, false,
		`^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(?P<name>[A-Za-z_]\w*)`, KindModule, true,
	),
	"c": rules(
		`^\s*(?:typedef\s+)?(?:struct|union)\s+(?P<name>[A-Za-z_]\w*)\s*\{?\s*$`, KindType, true,
		`^\s*(?:template\s*<[^>]*>\s*)?class\s+(?P<name>[A-Za-z_]\w*)[^;]*$`, KindClass, true,
		`^\s*(?:typedef\s+)?enum\s+(?:class\s+)?(?P<name>[A-Za-z_]\w*)`, KindEnum, true,
		`^\s*namespace\s+(?P<name>[A-Za-z_]\w*)`, KindModule, false,
		`^\s*#\s*define\s+(?P<name>[A-Za-z_]\w*)`, KindConstant, false,
		`^\s*typedef\s+[^;]*?\b(?P<name>[A-Za-z_]\w*)\s*;`, KindType, false,
		`^[A-Za-z_][\w\s\*&:<>,]*?[\s\*&](?P<name>[A-Za-z_][\w:~]*)\s*\([^;]*$`, KindFunction, false,
	),
}

// keywords that a method-looking line may start with without being a method.
var notNames = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "return": true,
	"function": true, "else": true, "do": true, "try": true, "new": true, "await": true, "yield": true, "throw": true,
	"super": true, "this": true, "typeof": true, "delete": true, "void": true, "case": true, "sizeof": true}

// heuristicOutline recognises definitions line by line: classes (and the like) open a block
// whose members become their children, by indentation for Python and by braces elsewhere.
func heuristicOutline(rel string, src []byte) []Symbol {
	lang := lsp.LanguageOf(rel)
	rs := languageRules[lang]
	if rs == nil {
		return nil
	}
	lines := splitLines(src)
	type open struct {
		idx    int // in out
		indent int // python: the class's indentation
		depth  int // braces: the depth inside the block
	}
	var (
		out   []Symbol
		stack []open
		depth int
		inDoc bool // inside a block comment or docstring
	)
	for i, raw := range lines {
		line := string(raw)
		trimmed := strings.TrimSpace(line)
		// Skip block comments and Python docstrings crudely.
		if inDoc {
			if strings.Contains(trimmed, "*/") || ((lang == "python") && (strings.Contains(trimmed, `"""`) || strings.Contains(trimmed, `'''`))) {
				inDoc = false
			}
			continue
		}
		if strings.HasPrefix(trimmed, "/*") && !strings.Contains(trimmed, "*/") {
			inDoc = true
			continue
		}
		if lang == "python" && (strings.HasPrefix(trimmed, `"""`) || strings.HasPrefix(trimmed, `'''`)) && strings.Count(trimmed, trimmed[:3]) == 1 {
			inDoc = true
			continue
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "//") || strings.HasPrefix(trimmed, "#") && lang != "c" {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		if lang == "python" {
			for len(stack) > 0 && indent <= stack[len(stack)-1].indent {
				stack = stack[:len(stack)-1]
			}
		} else {
			for len(stack) > 0 && depth < stack[len(stack)-1].depth {
				stack = stack[:len(stack)-1]
			}
		}
		inBlock := len(stack) > 0
		for _, r := range rs {
			m := r.re.FindStringSubmatchIndex(line)
			if m == nil {
				continue
			}
			gi := r.re.SubexpIndex("name")
			name := line[m[2*gi]:m[2*gi+1]]
			member := r.kind == KindMethod || r.kind == KindField
			if member && notNames[name] {
				continue
			}
			if member && lang != "python" && (!inBlock || depth != stack[len(stack)-1].depth) {
				continue // a statement inside a method, not a member
			}
			kind := r.kind
			topOnly := kind == KindVariable || kind == KindConstant && lang == "python"
			if topOnly && (indent > 0 || inBlock) {
				continue
			}
			if (kind == KindMethod || kind == KindField) && !inBlock {
				continue // a bare call or statement, not a member
			}
			if kind == KindFunction && inBlock && lang != "c" {
				kind = KindMethod
			}
			s := Symbol{Path: rel, Name: name, Kind: kind, Line: i + 1, Column: utf8.RuneCountInString(line[:m[2*gi]]) + 1, Signature: strings.TrimSpace(line)}
			if inBlock {
				p := &out[stack[len(stack)-1].idx]
				s.Container = p.Name
				if !r.opens {
					p.Children = append(p.Children, s)
					break
				}
			}
			if r.opens {
				// A nested class is listed at the top with its container named.
				out = append(out, s)
				stack = append(stack, open{idx: len(out) - 1, indent: indent, depth: depth + 1})
			} else if !inBlock {
				out = append(out, s)
			}
			break
		}
		if lang != "python" {
			depth += braceDelta(line)
			if depth < 0 {
				depth = 0
			}
		}
	}
	return out
}

// braceDelta counts { minus } outside strings and line comments, roughly.
func braceDelta(line string) int {
	d := 0
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '/' && i+1 < len(line) && line[i+1] == '/':
			return d
		case c == '{':
			d++
		case c == '}':
			d--
		}
	}
	return d
}

// splitLines splits src into lines without their terminators.
func splitLines(src []byte) [][]byte {
	lines := bytes.Split(src, []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimSuffix(l, []byte("\r"))
	}
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	return lines
}

// lineText is a line's text, trimmed and cut for an answer.
func lineText(lines [][]byte, line int) string {
	if line < 1 || line > len(lines) {
		return ""
	}
	t := strings.TrimSpace(string(lines[line-1]))
	if len(t) > 160 {
		cut := 157
		for cut > 0 && !utf8.RuneStart(t[cut]) {
			cut--
		}
		t = t[:cut] + "..."
	}
	if !utf8.ValidString(t) {
		t = strings.ToValidUTF8(t, "\uFFFD")
	}
	return t
}

// charColumn converts a 1-based byte column of a line to a 1-based character column.
func charColumn(lines [][]byte, line, byteCol int) int {
	if line < 1 || line > len(lines) {
		return byteCol
	}
	l := lines[line-1]
	if byteCol-1 > len(l) {
		return byteCol
	}
	return utf8.RuneCount(l[:byteCol-1]) + 1
}
