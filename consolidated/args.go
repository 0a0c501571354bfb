package consolidated

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"toolhost/internal/suggest"
)

// rawArgs splits a call's arguments into a map. Null or empty arguments are an empty map.
func rawArgs(raw json.RawMessage) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]json.RawMessage{}, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, &ToolError{Code: CodeInvalidArguments, Message: "arguments must be a JSON object"}
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	return m, nil
}

// canonicalKeys renames keys to the tool's snake_case parameter names: declared aliases first,
// then the camelCase spelling of a known name. Unknown keys are left as they are, so that the
// validator can name them.
//
// The called operation's own names and aliases come first: a word that is one operation's
// parameter and another's alias (rename_symbol's new_name, rename_file's alias of new_path)
// means what the called operation means by it; for the other operations a parameter's name
// beats another's alias.
func canonicalKeys(t *Tool, m map[string]json.RawMessage) map[string]json.RawMessage {
	// conversation_id is no parameter; known here so that any spelling of it gets the
	// registry's refusal, which says who chooses the conversation.
	known := map[string]string{"operation": "operation", "conversation_id": "conversation_id"}
	var called string
	if v, ok := m["operation"]; ok {
		json.Unmarshal(v, &called)
	}
	own := map[string]bool{}
	aliasOf := map[string][]string{} // alias -> the parameters it names
	for _, op := range t.Operations {
		for _, p := range paramsOf(op.args) {
			if op.Name == called {
				own[p.Name] = true
			}
			for _, a := range p.Aliases {
				aliasOf[a] = append(aliasOf[a], p.Name)
				known[a] = p.Name
			}
		}
	}
	for _, op := range t.Operations {
		for _, p := range paramsOf(op.args) {
			known[p.Name] = p.Name
		}
	}
	// For the called operation: an alias of one of its parameters means that parameter,
	// and its own names mean themselves.
	for a, names := range aliasOf {
		for _, n := range names {
			if own[n] && !own[a] {
				known[a] = n
			}
		}
	}
	for n := range own {
		known[n] = n
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		name := k
		if c, ok := known[k]; ok {
			name = c
		} else if c, ok := known[snakeCase(k)]; ok {
			name = c
		}
		if _, dup := out[name]; dup && name != k {
			continue // the canonical spelling wins over an alias
		}
		out[name] = v
	}
	return out
}

// snakeCase turns camelCase into snake_case: blockedReason -> blocked_reason.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isZeroJSON reports whether a value carries nothing: some clients send every property of the
// flat schema, filling the ones that do not apply with null, "", 0, false, [] or {}.
func isZeroJSON(v json.RawMessage) bool {
	switch strings.TrimSpace(string(v)) {
	case "null", `""`, "0", "false", "[]", "{}", "":
		return true
	}
	return false
}

// injectedKey reports whether a key is one clients add to every tool's arguments on their own,
// which toolhost drops without a word: Gemini CLI puts wait_for_previous into each MCP tool's
// schema and forwards it, and keys starting with an underscore are clients' metadata.
func injectedKey(k string) bool {
	return snakeCase(k) == "wait_for_previous" || strings.HasPrefix(k, "_")
}

// decodeArgs validates m against op and returns a pointer to a filled argument struct.
//
// Keys the operation does not take are forgiven when the call is otherwise complete: the
// call runs, and ignored names them for a short note, since a model that added a key the
// operation does not know has usually said what it meant with the others. With a required
// parameter missing as well, the unknown key is likely a misspelling of it, and the call fails
// naming both. Client-injected keys (injectedKey) are dropped silently.
func decodeArgs(op Operation, m map[string]json.RawMessage) (args any, ignored []string, err error) {
	params := paramsOf(op.args)
	byName := make(map[string]param, len(params))
	for _, p := range params {
		byName[p.Name] = p
	}
	clean := make(map[string]json.RawMessage, len(m))
	var unexpected []string
	for k, v := range m {
		if k == "operation" || injectedKey(k) {
			continue
		}
		p, ok := byName[k]
		if !ok {
			if !isZeroJSON(v) {
				unexpected = append(unexpected, k)
			}
			continue
		}
		if string(bytes.TrimSpace(v)) == "null" {
			continue
		}
		clean[k] = coerce(p.typ, v)
	}
	slices.Sort(unexpected)
	var missing []string
	for _, p := range params {
		if _, ok := clean[p.Name]; p.Required && !ok {
			missing = append(missing, p.Name)
		}
	}
	if len(unexpected) > 0 && len(missing) > 0 {
		return nil, nil, &ToolError{
			Code:    CodeUnexpectedParameter,
			Param:   strings.Join(unexpected, ", "),
			Message: fmt.Sprintf("%s does not take %s, and requires %s", op.Name, strings.Join(unexpected, ", "), strings.Join(missing, ", ")),
			Next:    "valid parameters: " + paramList(params),
		}
	}
	if len(missing) > 0 {
		return nil, nil, &ToolError{
			Code:    CodeMissingParameter,
			Param:   strings.Join(missing, ", "),
			Message: fmt.Sprintf("%s requires %s", op.Name, strings.Join(missing, ", ")),
			Next:    "valid parameters: " + paramList(params),
		}
	}
	ptr := reflect.New(op.args)
	for _, p := range params {
		v, ok := clean[p.Name]
		if !ok {
			continue
		}
		f := ptr.Elem().FieldByIndex(p.index)
		if err := json.Unmarshal(v, f.Addr().Interface()); err != nil {
			// A parameter type with its own decoder says precisely what is wrong.
			var te *ToolError
			if errors.As(err, &te) {
				return nil, nil, te
			}
			return nil, nil, typeError(op, p, err)
		}
		if len(p.Enum) > 0 && f.Kind() == reflect.String && f.String() != "" && !slices.Contains(p.Enum, f.String()) {
			return nil, nil, &ToolError{
				Code:    CodeInvalidValue,
				Param:   p.Name,
				Message: fmt.Sprintf("%s must be one of %s", p.Name, strings.Join(p.Enum, ", ")),
			}
		}
	}
	return ptr.Interface(), unexpected, nil
}

// ignoredNote is the note a result carries when the call named parameters the operation does
// not take (decodeArgs).
func ignoredNote(op Operation, ignored []string) string {
	return fmt.Sprintf("Note: %s does not take %s; ignored. Its parameters: %s.", op.Name, strings.Join(ignored, ", "), paramList(paramsOf(op.args)))
}

func typeError(op Operation, p param, err error) error {
	want := jsonType(p.typ)
	if want == "array" {
		want = "an array of " + jsonType(p.typ.Elem()) + "s"
	} else {
		want = "a " + want
	}
	var te *json.UnmarshalTypeError
	detail := ""
	if errors.As(err, &te) && te.Field != "" {
		detail = fmt.Sprintf(" (field %s: got %s)", te.Field, te.Value)
	}
	return &ToolError{
		Code:    CodeInvalidType,
		Param:   p.Name,
		Message: fmt.Sprintf("%s must be %s%s", p.Name, want, detail),
		Next:    "valid parameters: " + paramList(paramsOf(op.args)),
	}
}

// coerce repairs the type slips models make most often, where the intent is unambiguous: numbers
// and booleans sent as strings, arrays or objects sent as JSON text, a single string where a list
// of strings is expected.
func coerce(t reflect.Type, v json.RawMessage) json.RawMessage {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || v[0] != '"' {
		return v
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return v
	}
	switch jsonType(t) {
	case "integer":
		if _, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
			return json.RawMessage(strings.TrimSpace(s))
		}
	case "number":
		if _, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return json.RawMessage(strings.TrimSpace(s))
		}
	case "boolean":
		if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
			return json.RawMessage(strconv.FormatBool(b))
		}
	case "array":
		ts := strings.TrimSpace(s)
		if strings.HasPrefix(ts, "[") && json.Valid([]byte(ts)) {
			return json.RawMessage(ts)
		}
		if jsonType(t.Elem()) == "string" {
			return json.RawMessage("[" + string(v) + "]")
		}
	case "object":
		ts := strings.TrimSpace(s)
		if strings.HasPrefix(ts, "{") && json.Valid([]byte(ts)) {
			return json.RawMessage(ts)
		}
	}
	return v
}

// paramList renders "path (required), start_line, ..." for error texts.
func paramList(ps []param) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		s := p.Name + " " + jsonType(p.typ)
		if p.Required {
			s += " (required)"
		}
		parts[i] = s
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// nearest returns the candidate closest to s by edit distance, if it is close enough to be a
// plausible typo.
func nearest(s string, candidates []string) string { return suggest.Nearest(s, candidates) }
