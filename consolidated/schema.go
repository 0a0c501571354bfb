package consolidated

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"
)

// param is one parameter of an operation, read from its argument struct.
type param struct {
	Name        string
	Description string
	Required    bool
	Enum        []string
	Aliases     []string
	typ         reflect.Type
	// index locates the field in the argument struct (through embedded structs).
	index []int
}

var paramCache sync.Map // reflect.Type -> []param

// paramsOf reads the parameters of an argument struct: the json tag names the parameter,
// omitempty makes it optional, jsonschema describes it, enum lists allowed strings (comma
// separated) and alias lists other spellings models send. The fields of an embedded struct
// without a json tag are parameters of the outer struct, as encoding/json reads them, so a
// parameter set several operations share is declared once.
func paramsOf(t reflect.Type) []param {
	if v, ok := paramCache.Load(t); ok {
		return v.([]param)
	}
	ps := collectParams(t, nil)
	paramCache.Store(t, ps)
	return ps
}

func collectParams(t reflect.Type, index []int) []param {
	var ps []param
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		idx := append(append([]int(nil), index...), i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			ps = append(ps, collectParams(f.Type, idx)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := param{
			Name:        name,
			Description: f.Tag.Get("jsonschema"),
			Required:    !strings.Contains(opts, "omitempty"),
			typ:         f.Type,
			index:       idx,
		}
		if e := f.Tag.Get("enum"); e != "" {
			p.Enum = strings.Split(e, ",")
		}
		if a := f.Tag.Get("alias"); a != "" {
			p.Aliases = strings.Split(a, ",")
		}
		ps = append(ps, p)
	}
	return ps
}

// jsonType names the JSON schema type of a Go type. Every property gets a concrete type: no
// unions, so that Gemini and strict OpenAI clients accept the schema.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct, reflect.Interface:
		return "object"
	}
	panic(fmt.Sprintf("consolidated: no JSON type for %s", t))
}

// typeKey is the parameter's schema without descriptions, in a form two parameters share
// exactly when those schemas are equal: what Tool.validate compares.
func (p param) typeKey() string {
	k := string(mustJSON(typeSchema(p.typ, false)))
	if len(p.Enum) == 0 {
		return k
	}
	return k + " enum " + string(mustJSON(p.Enum))
}

// schema renders the parameter's property schema; desc controls whether descriptions are kept.
func (p param) schema(desc bool) object {
	o := typeSchema(p.typ, desc)
	if len(p.Enum) > 0 {
		o = append(o, field{"enum", p.Enum})
	}
	if desc && p.Description != "" {
		o = append(o, field{"description", p.Description})
	}
	return o
}

func typeSchema(t reflect.Type, desc bool) object {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	o := object{{"type", jsonType(t)}}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		o = append(o, field{"items", typeSchema(t.Elem(), desc)})
	case reflect.Map:
		o = append(o, field{"additionalProperties", typeSchema(t.Elem(), desc)})
	case reflect.Struct:
		var props object
		var req []string
		for _, p := range paramsOf(t) {
			props = append(props, field{p.Name, p.schema(desc)})
			if p.Required {
				req = append(req, p.Name)
			}
		}
		if len(props) > 0 {
			o = append(o, field{"properties", props})
		}
		if len(req) > 0 {
			o = append(o, field{"required", req})
		}
	}
	return o
}

// inputSchema derives the tool's flat input schema: an object whose properties are the union of
// every enabled operation's parameters, with operation as a string enum and the only required
// field. Property order is the table order, so the bytes never change between runs.
func (t *Tool) inputSchema(enabled []Operation) json.RawMessage {
	var props object
	seen := map[string]bool{}
	if !t.Single {
		names := make([]string, len(enabled))
		for i, op := range enabled {
			names[i] = op.Name
		}
		props = append(props, field{"operation", object{{"type", "string"}, {"enum", names}}})
	}
	for _, op := range enabled {
		for _, p := range paramsOf(op.args) {
			if seen[p.Name] {
				continue
			}
			seen[p.Name] = true
			props = append(props, field{p.Name, p.schema(true)})
		}
	}
	s := object{{"type", "object"}, {"properties", props}}
	if t.Single {
		var req []string
		for _, p := range paramsOf(enabled[0].args) {
			if p.Required {
				req = append(req, p.Name)
			}
		}
		if len(req) > 0 {
			s = append(s, field{"required", req})
		}
	} else {
		s = append(s, field{"required", []string{"operation"}})
	}
	return mustJSON(s)
}

// OperationsPlaceholder in a tool's Description is replaced by the names of its enabled
// operations. Without it, they end the first sentence ("Plan work: read, write.").
const OperationsPlaceholder = "{operations}"

// description is the lead, whose first sentence names the enabled operations (clients that
// defer MCP tools show only a description's start: Qwen Code about 150 characters), followed
// by one line per enabled operation that has a summary.
func (t *Tool) description(enabled []Operation) string {
	if t.Single {
		return t.Description
	}
	names := strings.Join(opNames(enabled), ", ")
	lead := t.Description
	if strings.Contains(lead, OperationsPlaceholder) {
		lead = strings.ReplaceAll(lead, OperationsPlaceholder, names)
	} else if i := strings.Index(lead+" ", ". "); i >= 0 {
		lead = lead[:i] + ": " + names + lead[i:]
	} else {
		lead = strings.TrimSuffix(lead, ".") + ": " + names + "."
	}
	var b strings.Builder
	b.WriteString(lead)
	for _, op := range enabled {
		if op.Summary != "" {
			fmt.Fprintf(&b, "\n- %s: %s", op.Name, op.Summary)
		}
	}
	return b.String()
}

// field and object give JSON objects a fixed key order.
type field struct {
	Key string
	Val any
}

type object []field

func (o object) MarshalJSON() ([]byte, error) { return o.appendJSON(nil) }

// appendJSON writes o directly, without a reflecting encoder per level: schemas are built on
// the way to a server's first tools/list, and nested Marshalers would each be encoded and
// compacted again by encoding/json. The bytes are what MarshalNoEscape gives.
func (o object) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	for i, f := range o {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, f.Key)
		b = append(b, ':')
		var err error
		switch v := f.Val.(type) {
		case object:
			b, err = v.appendJSON(b)
		case string:
			b = appendString(b, v)
		case []string:
			b = append(b, '[')
			for j, s := range v {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendString(b, s)
			}
			b = append(b, ']')
		default:
			var raw []byte
			raw, err = MarshalNoEscape(v)
			b = append(b, raw...)
		}
		if err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendString quotes s as encoding/json does without HTML escaping: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced, U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// MarshalNoEscape marshals without HTML escaping, as the go-sdk encodes messages, so
// descriptions keep their < and > readable and stay byte-identical however they are
// re-encoded.
func MarshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func mustJSON(v any) []byte {
	if o, ok := v.(object); ok {
		b, err := o.appendJSON(nil)
		if err != nil {
			panic(err)
		}
		return b
	}
	b, err := MarshalNoEscape(v)
	if err != nil {
		panic(err)
	}
	return b
}
