package codeintel

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"toolhost/internal/lsp"
)

// goScan finds the definitions of gofmt-formatted Go source line by line, about twenty times
// faster than go/parser: what find_symbol reads when it has hundreds of candidate files (and
// what the index records as each file's defined names). Declarations start in column 0; a
// struct's fields and an interface's methods are one tab in; grouped const, var and type
// declarations too. Raw strings and block comments that span lines are skipped. Symbols come
// flat, members with their container set.
func goScan(rel string, src []byte) []Symbol {
	var out []Symbol
	goScanFunc(src, func(name, kind, cont string, line, at int, l []byte) {
		out = append(out, Symbol{Path: rel, Name: name, Kind: kind, Container: cont, Line: line,
			Column: utf8.RuneCount(l[:at]) + 1, Signature: scanSignature(l)})
	})
	return out
}

// goScanFunc scans src and calls emit with each definition: its name, kind, container, line,
// byte column and the line's text.
func goScanFunc(src []byte, emit func(name, kind, cont string, line, at int, l []byte)) {
	s := goScanner{emit: emit}
	for len(src) > 0 {
		s.line++
		var l []byte
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			l, src = src[:i], src[i+1:]
		} else {
			l, src = src, nil
		}
		l = bytes.TrimSuffix(l, []byte{'\r'})
		if s.insideLiteral(l) {
			continue
		}
		s.l = l
		switch s.state {
		case scanStruct, scanInterface:
			s.member(l)
		case scanConst, scanVar, scanType:
			s.groupLine(l)
		default:
			s.topLevel(l)
		}
	}
}

// What goScanner is reading: top-level code, the body of a struct or interface, or a grouped
// declaration.
const (
	scanTop = iota
	scanStruct
	scanInterface
	scanConst
	scanVar
	scanType
)

// goScanner is goScanFunc's state from one line to the next.
type goScanner struct {
	emit             func(name, kind, cont string, line, at int, l []byte)
	state            int
	container        string // the struct or interface whose members are read
	depth            int    // extra braces inside a struct or interface (nested literal types)
	inRaw, inComment bool
	line             int
	l                []byte // the current line
}

// add emits a definition on the current line; blank and missing names are none.
func (s *goScanner) add(name, kind, cont string, at int) {
	if name == "" || name == "_" {
		return
	}
	s.emit(name, kind, cont, s.line, at, s.l)
}

// insideLiteral reports whether line l belongs to a raw string or block comment that spans
// lines, and notes where one opens or closes.
func (s *goScanner) insideLiteral(l []byte) bool {
	if s.inRaw {
		if bytes.Count(l, []byte{'`'})%2 == 1 {
			s.inRaw = false
		}
		return true
	}
	if s.inComment {
		if bytes.Contains(l, []byte("*/")) {
			s.inComment = false
		}
		return true
	}
	if bytes.HasPrefix(l, []byte("/*")) && !bytes.Contains(l, []byte("*/")) {
		s.inComment = true
		return true
	}
	if rawTicks(l)%2 == 1 {
		s.inRaw = true // the rest is the raw string's until its end
	}
	return false
}

// member reads a line of a struct's or interface's body: a field, an embedded type or a
// method, one tab in.
func (s *goScanner) member(l []byte) {
	t := bytes.TrimLeft(l, "\t")
	switch {
	case len(l) > 0 && l[0] == '}' && s.depth == 0:
		s.state = scanTop
		return
	case len(l)-len(t) == 1 && s.depth == 0 && len(t) > 0 && !bytes.HasPrefix(t, []byte("//")):
		name, at := identAt(l, 1)
		if s.state == scanInterface {
			if name != "" && at+len(name) < len(l) && l[at+len(name)] == '(' {
				s.add(name, KindMethod, s.container, at)
			}
		} else {
			s.field(l, t, name, at)
		}
	}
	s.depth += bytes.Count(l, []byte{'{'}) - bytes.Count(l, []byte{'}'})
	if s.depth < 0 {
		s.depth = 0
	}
}

// field reads a struct's field line whose first identifier is name at byte at (t is the line
// without its tab).
func (s *goScanner) field(l, t []byte, name string, at int) {
	rest := bytes.TrimSpace(l[at+len(name):])
	switch {
	case name == "":
		if t[0] == '*' { // embedded *T
			n, a := identAt(l, 2)
			s.add(lastSelector(l, a, n), KindField, s.container, a)
		}
	case len(rest) == 0 || rest[0] == '.' || rest[0] == '`' || bytes.HasPrefix(rest, []byte("//")):
		s.add(lastSelector(l, at, name), KindField, s.container, at) // embedded T or pkg.T
	default:
		s.add(name, KindField, s.container, at)
		for rest[0] == ',' { // A, B int
			rest = bytes.TrimSpace(rest[1:])
			n, _ := identAt(rest, 0)
			if n == "" {
				break
			}
			s.add(n, KindField, s.container, bytes.Index(l, []byte(n)))
			rest = bytes.TrimSpace(rest[len(n):])
			if len(rest) == 0 {
				break
			}
		}
	}
}

// groupLine reads a line of a grouped const, var or type declaration.
func (s *goScanner) groupLine(l []byte) {
	if len(l) > 0 && l[0] == ')' {
		s.state = scanTop
		return
	}
	if len(l) < 2 || l[0] != '\t' || l[1] == '\t' || l[1] == '/' || l[1] == ' ' {
		return
	}
	name, at := identAt(l, 1)
	if name == "" {
		return
	}
	switch s.state {
	case scanConst:
		s.valueNames(l, name, at, KindConstant)
	case scanVar:
		s.valueNames(l, name, at, KindVariable)
	case scanType:
		// (The members of a struct inside a type group are two tabs in: left out.)
		kind, _ := typeKind(l[at+len(name):])
		s.add(name, kind, "", at)
	}
}

// valueNames emits a constant's or variable's name at byte at and the names listed after it
// (const A, B = 1, 2).
func (s *goScanner) valueNames(l []byte, name string, at int, kind string) {
	s.add(name, kind, "", at)
	rest := l[at+len(name):]
	for len(rest) > 1 && rest[0] == ',' {
		rest = bytes.TrimLeft(rest[1:], " ")
		n, _ := identAt(rest, 0)
		if n == "" {
			break
		}
		s.add(n, kind, "", bytes.Index(l, []byte(n)))
		rest = rest[len(n):]
	}
}

// topLevel reads a line outside any body: declarations start in column 0.
func (s *goScanner) topLevel(l []byte) {
	switch {
	case bytes.HasPrefix(l, []byte("func ")):
		rest := l[5:]
		if len(rest) > 0 && rest[0] == '(' {
			end := bytes.IndexByte(rest, ')')
			if end < 0 {
				return
			}
			recv := recvType(rest[1:end])
			name, at := identAt(l, 5+end+1+countSpaces(rest[end+1:]))
			s.add(name, KindMethod, recv, at)
		} else {
			name, at := identAt(l, 5)
			s.add(name, KindFunction, "", at)
		}
	case bytes.HasPrefix(l, []byte("type ")):
		if bytes.HasPrefix(l[5:], []byte("(")) {
			s.state = scanType
			return
		}
		name, at := identAt(l, 5)
		kind, opens := typeKind(l[at+len(name):])
		s.add(name, kind, "", at)
		closed := bytes.HasSuffix(bytes.TrimSpace(l), []byte("}"))
		if opens == 1 && closed {
			s.oneLineStruct(l, name)
		}
		if opens != 0 && !closed {
			s.state, s.container, s.depth = scanStruct, name, 0
			if opens == 2 {
				s.state = scanInterface
			}
		}
	case bytes.HasPrefix(l, []byte("const ")), bytes.HasPrefix(l, []byte("var ")):
		kind, start, group := KindConstant, 6, scanConst
		if l[0] == 'v' {
			kind, start, group = KindVariable, 4, scanVar
		}
		if bytes.HasPrefix(l[start:], []byte("(")) {
			if !bytes.HasSuffix(bytes.TrimSpace(l), []byte(")")) {
				s.state = group
			}
			return
		}
		name, at := identAt(l, start)
		s.valueNames(l, name, at, kind)
	}
}

// oneLineStruct emits the fields of a struct declared on one line: struct{ A, B int; c string }.
func (s *goScanner) oneLineStruct(l []byte, name string) {
	o := bytes.IndexByte(l, '{')
	if o < 0 {
		return
	}
	inner := l[o+1 : bytes.LastIndexByte(l, '}')]
	for _, part := range bytes.Split(inner, []byte{';'}) {
		p := bytes.TrimSpace(part)
		if len(p) == 0 {
			continue
		}
		fields := bytes.Fields(p)
		if len(fields) == 1 { // embedded
			n := string(bytes.TrimLeft(fields[0], "*"))
			if i := strings.LastIndexByte(n, '.'); i >= 0 {
				n = n[i+1:]
			}
			s.add(n, KindField, name, bytes.Index(l, []byte(n)))
			continue
		}
		for _, f := range bytes.Split(bytes.Join(fields[:len(fields)-1], nil), []byte{','}) {
			if n, _ := identAt(bytes.TrimSpace(f), 0); n != "" {
				s.add(n, KindField, name, o+1+bytes.Index(inner, []byte(n)))
			}
		}
	}
}

// rawTicks counts the backticks of a line that open or close raw strings: not those in
// double-quoted strings, rune literals or a comment.
func rawTicks(l []byte) int {
	n := 0
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '`':
			j := bytes.IndexByte(l[i+1:], '`')
			if j < 0 {
				return n + 1 // opens a raw string that goes on
			}
			n += 2
			i += j + 1
		case '"':
			for i++; i < len(l) && l[i] != '"'; i++ {
				if l[i] == '\\' {
					i++
				}
			}
		case '\'':
			for i++; i < len(l) && l[i] != '\''; i++ {
				if l[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 < len(l) && l[i+1] == '/' && n%2 == 0 {
				return n
			}
		}
	}
	return n
}

// typeKind reads what follows a type's name: "struct {" opens a struct (1), "interface {" an
// interface (2).
func typeKind(rest []byte) (string, int) {
	r := bytes.TrimSpace(rest)
	if len(r) > 0 && r[0] == '[' { // type parameters
		if end := bytes.LastIndexByte(r, ']'); end > 0 && (bytes.Contains(r[end:], []byte("struct")) || bytes.Contains(r[end:], []byte("interface"))) {
			r = bytes.TrimSpace(r[end+1:])
		}
	}
	switch {
	case bytes.HasPrefix(r, []byte("struct")):
		if bytes.HasPrefix(r, []byte("struct {")) || bytes.HasPrefix(r, []byte("struct{")) {
			return KindType, 1
		}
		return KindType, 0
	case bytes.HasPrefix(r, []byte("interface")):
		if bytes.HasPrefix(r, []byte("interface {")) || bytes.HasPrefix(r, []byte("interface{")) {
			return KindInterface, 2
		}
		return KindInterface, 0
	}
	return KindType, 0
}

// identAt returns the identifier starting at byte i of l (after spaces) and where it starts.
func identAt(l []byte, i int) (string, int) {
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	j := i
	for j < len(l) {
		r, n := utf8.DecodeRune(l[j:])
		if !isWordRune(r) || r == '$' {
			break
		}
		j += n
	}
	if j == i {
		return "", i
	}
	if r, _ := utf8.DecodeRune(l[i:]); r >= '0' && r <= '9' {
		return "", i
	}
	return string(l[i:j]), i
}

// lastSelector is the type name of an embedded field: T of pkg.T.
func lastSelector(l []byte, at int, name string) string {
	rest := l[at+len(name):]
	if len(rest) > 1 && rest[0] == '.' {
		if n, _ := identAt(rest, 1); n != "" {
			return n
		}
	}
	return name
}

// recvType is the type of a receiver "r *T[K]": T.
func recvType(recv []byte) string {
	f := bytes.Fields(recv)
	if len(f) == 0 {
		return ""
	}
	t := f[len(f)-1]
	t = bytes.TrimLeft(t, "*")
	if i := bytes.IndexByte(t, '['); i >= 0 {
		t = t[:i]
	}
	return string(t)
}

func countSpaces(b []byte) int {
	n := 0
	for n < len(b) && b[n] == ' ' {
		n++
	}
	return n
}

// scanSignature is a definition line for an answer.
func scanSignature(l []byte) string {
	return lineText([][]byte{l}, 1)
}

// DefinedNames calls emit with each name a file defines, for the index (find_symbol then reads
// only the files that define a name): the Go scanner for Go, the line recogniser for the
// others.
func DefinedNames(rel string, src []byte, emit func(name string)) {
	switch lsp.LanguageOf(rel) {
	case "":
	case "go":
		goScanFunc(src, func(name, _, _ string, _, _ int, _ []byte) { emit(name) })
	default:
		for _, s := range flatten(heuristicOutline(rel, src)) {
			emit(s.Name)
		}
	}
}
