package connect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// A small JSONC reader that keeps byte positions, so that an edit replaces or inserts one
// member and leaves every other byte of the file as it was: comments, order, indentation,
// trailing commas (VS Code's and Zed's settings are JSONC; Claude Code's ~/.claude.json is
// plain JSON with many keys toolhost must not touch).

// node is a JSON value in the text: its span, and for objects their members.
type node struct {
	kind       byte // '{', '[', '"', or 'v' for numbers and literals
	start, end int  // the value's bytes: text[start:end]
	members    []member
	items      []*node
}

// member is one "key": value of an object.
type member struct {
	key        string
	keyStart   int // the opening quote of the key
	value      *node
	commaAfter int // the position of the comma after the value, or -1
}

// get returns the member key of an object node.
func (n *node) get(key string) (member, bool) {
	if n == nil || n.kind != '{' {
		return member{}, false
	}
	for _, m := range n.members {
		if m.key == key {
			return m, true
		}
	}
	return member{}, false
}

// SyntaxError is a file that does not parse; toolhost never writes over it.
type SyntaxError struct {
	File string
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d: %s; fix the file (toolhost leaves a file it cannot read as it is)", e.File, e.Line, e.Msg)
}

type jsoncParser struct {
	text []byte
	i    int
}

// parseJSONC reads text, which holds one value (an object, for every client's file), with
// // and /* */ comments and trailing commas allowed.
func parseJSONC(text []byte) (*node, error) {
	p := &jsoncParser{text: text}
	p.space()
	if p.i == len(text) {
		return nil, nil // empty file
	}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(text) {
		return nil, p.fail("unexpected %q after the top-level value", text[p.i])
	}
	return n, nil
}

func (p *jsoncParser) fail(format string, args ...any) error {
	return &SyntaxError{Line: 1 + bytes.Count(p.text[:min(p.i, len(p.text))], []byte("\n")), Msg: fmt.Sprintf(format, args...)}
}

// space skips whitespace and comments.
func (p *jsoncParser) space() {
	for p.i < len(p.text) {
		switch c := p.text[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == '/' && p.i+1 < len(p.text) && p.text[p.i+1] == '/':
			for p.i < len(p.text) && p.text[p.i] != '\n' {
				p.i++
			}
		case c == '/' && p.i+1 < len(p.text) && p.text[p.i+1] == '*':
			end := bytes.Index(p.text[p.i+2:], []byte("*/"))
			if end < 0 {
				p.i = len(p.text)
				return
			}
			p.i += end + 4
		default:
			return
		}
	}
}

func (p *jsoncParser) value() (*node, error) {
	if p.i >= len(p.text) {
		return nil, p.fail("unexpected end of file")
	}
	switch c := p.text[p.i]; c {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		start := p.i
		if _, err := p.str(); err != nil {
			return nil, err
		}
		return &node{kind: '"', start: start, end: p.i}, nil
	default:
		start := p.i
		for p.i < len(p.text) && strings.IndexByte("+-.0123456789eEtruefalsn", p.text[p.i]) >= 0 {
			p.i++
		}
		if !json.Valid(p.text[start:p.i]) {
			p.i = start
			return nil, p.fail("unexpected %q", c)
		}
		return &node{kind: 'v', start: start, end: p.i}, nil
	}
}

// str reads a string and returns its value.
func (p *jsoncParser) str() (string, error) {
	start := p.i
	p.i++
	for p.i < len(p.text) {
		switch p.text[p.i] {
		case '\\':
			p.i += 2
			continue
		case '"':
			p.i++
			var s string
			if err := json.Unmarshal(p.text[start:p.i], &s); err != nil {
				p.i = start
				return "", p.fail("bad string")
			}
			return s, nil
		case '\n':
			p.i = start
			return "", p.fail("a string runs past the end of its line")
		}
		p.i++
	}
	p.i = start
	return "", p.fail("unterminated string")
}

func (p *jsoncParser) object() (*node, error) {
	n := &node{kind: '{', start: p.i}
	p.i++
	for {
		p.space()
		if p.i >= len(p.text) {
			return nil, p.fail("unterminated object")
		}
		if p.text[p.i] == '}' {
			p.i++
			n.end = p.i
			return n, nil
		}
		if p.text[p.i] != '"' {
			return nil, p.fail("want a quoted key, got %q", p.text[p.i])
		}
		m := member{keyStart: p.i, commaAfter: -1}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		m.key = key
		p.space()
		if p.i >= len(p.text) || p.text[p.i] != ':' {
			return nil, p.fail("want ':' after key %q", key)
		}
		p.i++
		p.space()
		if m.value, err = p.value(); err != nil {
			return nil, err
		}
		p.space()
		if p.i < len(p.text) && p.text[p.i] == ',' {
			m.commaAfter = p.i
			p.i++
		} else if p.i < len(p.text) && p.text[p.i] != '}' {
			return nil, p.fail("want ',' or '}' after the value of %q", key)
		}
		n.members = append(n.members, m)
	}
}

func (p *jsoncParser) array() (*node, error) {
	n := &node{kind: '[', start: p.i}
	p.i++
	for {
		p.space()
		if p.i >= len(p.text) {
			return nil, p.fail("unterminated array")
		}
		if p.text[p.i] == ']' {
			p.i++
			n.end = p.i
			return n, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, v)
		p.space()
		if p.i < len(p.text) && p.text[p.i] == ',' {
			p.i++
		} else if p.i < len(p.text) && p.text[p.i] != ']' {
			return nil, p.fail("want ',' or ']' in an array")
		}
	}
}

// lineIndent is the indentation of the line holding position i.
func lineIndent(text []byte, i int) string {
	start := bytes.LastIndexByte(text[:i], '\n') + 1
	j := start
	for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
		j++
	}
	return string(text[start:j])
}

// indentUnit guesses the file's indentation step from its first indented line (two spaces
// when there is none).
func indentUnit(text []byte) string {
	for _, line := range bytes.Split(text, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) > 0 && len(trimmed) < len(line) {
			return string(line[:len(line)-len(trimmed)])
		}
	}
	return "  "
}

// render is v as JSON in the file's style: indented by unit, its lines after the first
// starting at indent.
func render(v any, indent, unit string) string {
	b, _ := json.MarshalIndent(v, "", unit)
	b = bytes.ReplaceAll(b, []byte(`\u003c`), []byte("<"))
	b = bytes.ReplaceAll(b, []byte(`\u003e`), []byte(">"))
	b = bytes.ReplaceAll(b, []byte(`\u0026`), []byte("&"))
	return strings.ReplaceAll(string(b), "\n", "\n"+indent)
}

// setJSON sets path (object keys from the root) to v in text, creating the objects on the
// way, and returns the new text; only the bytes of the value set (or the member inserted)
// change. v nil removes the last key of path instead (nothing to remove: text unchanged).
func setJSON(text []byte, path []string, v any) ([]byte, error) {
	root, err := parseJSONC(text)
	if err != nil {
		return nil, err
	}
	unit := indentUnit(text)
	if root == nil {
		if v == nil {
			return text, nil
		}
		// An empty file: a new object.
		var nested any = v
		for i := len(path) - 1; i >= 0; i-- {
			nested = map[string]any{path[i]: nested}
		}
		return append([]byte(render(nested, "", unit)), '\n'), nil
	}
	if root.kind != '{' {
		return nil, &SyntaxError{Line: 1, Msg: "the file holds no JSON object"}
	}
	obj := root
	var parents []*node
	for depth, key := range path {
		m, ok := obj.get(key)
		last := depth == len(path)-1
		switch {
		case ok && last && v == nil:
			// The servers object that holds nothing else goes too (connect made it).
			for len(parents) > 0 && len(obj.members) == 1 {
				obj, key = parents[len(parents)-1], path[len(parents)-1]
				parents = parents[:len(parents)-1]
			}
			return removeMember(text, obj, key), nil
		case ok && last:
			indent := lineIndent(text, m.keyStart)
			return splice(text, m.value.start, m.value.end, render(v, indent, unit)), nil
		case ok && m.value.kind == '{':
			parents = append(parents, obj)
			obj = m.value
			continue
		case ok:
			return nil, &SyntaxError{Line: 1 + bytes.Count(text[:m.keyStart], []byte("\n")), Msg: fmt.Sprintf("%q is not an object", key)}
		case v == nil:
			return text, nil
		}
		// Insert the rest of the path as one new member of obj.
		var nested any = v
		for i := len(path) - 1; i > depth; i-- {
			nested = map[string]any{path[i]: nested}
		}
		return insertMember(text, obj, key, nested, unit), nil
	}
	return text, nil
}

func splice(text []byte, start, end int, with string) []byte {
	out := make([]byte, 0, len(text)+len(with))
	out = append(out, text[:start]...)
	out = append(out, with...)
	return append(out, text[end:]...)
}

// insertMember adds "key": v as the last member of obj.
func insertMember(text []byte, obj *node, key string, v any, unit string) []byte {
	k, _ := json.Marshal(key)
	if len(obj.members) == 0 {
		outer := lineIndent(text, obj.start)
		inner := outer + unit
		return splice(text, obj.start, obj.end, "{\n"+inner+string(k)+": "+render(v, inner, unit)+"\n"+outer+"}")
	}
	last := obj.members[len(obj.members)-1]
	indent := lineIndent(text, last.keyStart)
	member := string(k) + ": " + render(v, indent, unit)
	if last.commaAfter >= 0 { // a trailing comma (JSONC): keep the style
		return splice(text, last.commaAfter+1, last.commaAfter+1, "\n"+indent+member+",")
	}
	return splice(text, last.value.end, last.value.end, ",\n"+indent+member)
}

// removeMember takes key out of obj with its comma and the line it stood on.
func removeMember(text []byte, obj *node, key string) []byte {
	for i, m := range obj.members {
		if m.key != key {
			continue
		}
		start := m.keyStart
		end := m.value.end
		if m.commaAfter >= 0 {
			end = m.commaAfter + 1
		}
		switch {
		case i > 0 && m.commaAfter < 0:
			// The last member: take the comma before it instead.
			prev := obj.members[i-1]
			start = prev.commaAfter
		default:
			// Start at the beginning of the key's line when only space precedes it.
			ls := bytes.LastIndexByte(text[:start], '\n') + 1
			if len(bytes.TrimSpace(text[ls:start])) == 0 {
				start = ls
				if le := bytes.IndexByte(text[end:], '\n'); le >= 0 && len(bytes.TrimSpace(text[end:end+le])) == 0 {
					end += le + 1
				}
			}
		}
		return splice(text, start, end, "")
	}
	return text
}
