package todo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Decoding is lenient about spelling and strict about meaning. Models send camelCase keys
// (blockedReason, canRunParallel), ids as strings ("3"), statuses with underscores (in_progress)
// and whole arrays as JSON-encoded strings; all of that is unambiguous and accepted. A value that
// means something else (an unknown field, a status outside the four, a fractional id) is reported
// with the item and field, never guessed at.

// todoFields are the canonical keys of a todo, in the order error messages list them.
var todoFields = []string{"id", "title", "description", "status", "priority", "dependencies",
	"can_run_parallel", "parallel_group", "progress", "blocked_reason", "parent", "estimate", "subtasks"}

// keyAliases maps other names models use for a field to the canonical key.
var keyAliases = map[string]string{
	"content":      "title", // the spelling of some agents' built-in todo tools
	"todo_id":      "id",
	"depends_on":   "dependencies",
	"parallel":     "can_run_parallel",
	"block_reason": "blocked_reason",
	"parent_id":    "parent",
	"children":     "subtasks",
	"sub_tasks":    "subtasks",
	"estimated":    "estimate",
	"eta":          "estimate",
}

// NormalizeKey turns a parameter name as a model spelled it into the canonical snake_case key:
// "blockedReason" -> "blocked_reason", "TodoList" -> "todo_list", "can-run-parallel" ->
// "can_run_parallel". Exported so the tool layer can apply the same rule to its own parameters.
func NormalizeKey(k string) string {
	var b strings.Builder
	rs := []rune(strings.TrimSpace(k))
	for i, r := range rs {
		switch {
		case r == '-' || r == ' ' || r == '.':
			b.WriteByte('_')
		case unicode.IsUpper(r):
			// Start a new word at a lower->upper boundary and at the last capital of an
			// acronym followed by lower case ("todoID" -> "todo_id", "IDList" -> "id_list").
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) ||
				(unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]))) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func canonicalTodoKey(k string) string {
	n := NormalizeKey(k)
	if a, ok := keyAliases[n]; ok {
		return a
	}
	return n
}

// fieldDecoder decodes one raw value into its destination.
type fieldDecoder func(raw json.RawMessage) error

// decodeObject decodes a JSON object through a table of field decoders, reporting every unknown
// or malformed field. It returns the problems found (with Field set) and a possibly decoded id.
func decodeObject(data []byte, what string, fields map[string]fieldDecoder) []Problem {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return []Problem{{Reason: "must be " + what + ", got " + describeJSON(data)}}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return []Problem{{Reason: "is not valid JSON: " + err.Error()}}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var probs []Problem
	seen := map[string]string{}
	for _, k := range keys {
		key := canonicalTodoKey(k)
		dec, ok := fields[key]
		if !ok {
			probs = append(probs, Problem{Field: k, Reason: "unknown field; valid fields: " + strings.Join(fieldNames(fields), ", ")})
			continue
		}
		if prev, dup := seen[key]; dup {
			probs = append(probs, Problem{Field: key, Reason: fmt.Sprintf("given twice (as %q and %q)", prev, k)})
			continue
		}
		seen[key] = k
		if err := dec(m[k]); err != nil {
			if nested, ok := err.(nestedProblems); ok {
				for _, p := range nested {
					field := key
					switch {
					case p.ID > 0:
						field += fmt.Sprintf("[id %d]", p.ID)
					case p.Index > 0:
						field += fmt.Sprintf("[%d]", p.Index)
					}
					if p.Field != "" {
						field += "." + p.Field
					}
					probs = append(probs, Problem{Field: field, Reason: p.Reason})
				}
				continue
			}
			probs = append(probs, Problem{Field: key, Reason: err.Error()})
		}
	}
	return probs
}

func fieldNames(fields map[string]fieldDecoder) []string {
	var names []string
	for _, f := range todoFields {
		if _, ok := fields[f]; ok {
			names = append(names, f)
		}
	}
	return names
}

func describeJSON(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '[':
		return "an array"
	case '{':
		return "an object"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func decodeString(dst *string) fieldDecoder {
	return func(raw json.RawMessage) error {
		if isNull(raw) {
			*dst = ""
			return nil
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return fmt.Errorf("must be a string, got %s", describeJSON(raw))
		}
		return nil
	}
}

func decodeStringPtr(dst **string) fieldDecoder {
	return func(raw json.RawMessage) error {
		var s string
		if err := decodeString(&s)(raw); err != nil {
			return err
		}
		*dst = &s
		return nil
	}
}

// parseInt accepts 3, 3.0 and "3".
func parseInt(raw json.RawMessage) (int, error) {
	raw = bytes.TrimSpace(raw)
	var s string
	if len(raw) > 0 && raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, fmt.Errorf("must be an integer, got %s", describeJSON(raw))
		}
		s = strings.TrimPrefix(strings.TrimSpace(s), "#")
	} else {
		s = string(raw)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return 0, fmt.Errorf("must be an integer, got %s", string(raw))
	}
	return int(f), nil
}

func decodeInt(dst *int) fieldDecoder {
	return func(raw json.RawMessage) error {
		n, err := parseInt(raw)
		if err != nil {
			return err
		}
		*dst = n
		return nil
	}
}

// decodeIntList accepts [1, "2"], a single id, and a comma-separated string "1, 2".
func decodeIntList(dst *[]int) fieldDecoder {
	return func(raw json.RawMessage) error {
		raw = bytes.TrimSpace(raw)
		if isNull(raw) {
			*dst = []int{}
			return nil
		}
		var items []json.RawMessage
		switch {
		case len(raw) > 0 && raw[0] == '[':
			if err := json.Unmarshal(raw, &items); err != nil {
				return fmt.Errorf("must be an array of todo ids: %v", err)
			}
		case len(raw) > 0 && raw[0] == '"':
			var s string
			_ = json.Unmarshal(raw, &s)
			if strings.TrimSpace(s) == "" {
				break
			}
			for _, part := range strings.Split(s, ",") {
				items = append(items, json.RawMessage(strconv.Quote(strings.TrimSpace(part))))
			}
		default:
			items = []json.RawMessage{raw}
		}
		out := make([]int, 0, len(items))
		for _, it := range items {
			n, err := parseInt(it)
			if err != nil {
				return fmt.Errorf("must be an array of todo ids: %s is not an integer", string(it))
			}
			out = append(out, n)
		}
		*dst = out
		return nil
	}
}

func decodeFloat(dst *float64) fieldDecoder {
	return func(raw json.RawMessage) error {
		raw = bytes.TrimSpace(raw)
		s := string(raw)
		if len(raw) > 0 && raw[0] == '"' {
			if err := json.Unmarshal(raw, &s); err != nil {
				return fmt.Errorf("must be a number from 0.0 to 1.0, got %s", describeJSON(raw))
			}
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return fmt.Errorf("must be a number from 0.0 to 1.0, got %s", string(raw))
		}
		*dst = f
		return nil
	}
}

func decodeBool(dst *bool) fieldDecoder {
	return func(raw json.RawMessage) error {
		raw = bytes.TrimSpace(raw)
		switch strings.ToLower(strings.Trim(string(raw), `"`)) {
		case "true":
			*dst = true
		case "false", "null":
			*dst = false
		default:
			return fmt.Errorf("must be true or false, got %s", string(raw))
		}
		return nil
	}
}

// statusSynonyms maps the other words agents use for a status to toolhost's. Claude Code's and
// OpenAI's plan tools say pending/in_progress/completed, others todo, doing or done; each has one
// meaning. Words whose meaning is not one of the four (cancelled, skipped, waiting) are left for
// validation to refuse, so the model chooses.
var statusSynonyms = map[string]Status{
	"pending": StatusNotStarted, "todo": StatusNotStarted, "to-do": StatusNotStarted,
	"open": StatusNotStarted, "new": StatusNotStarted, "planned": StatusNotStarted,
	"queued": StatusNotStarted, "notstarted": StatusNotStarted, "not-begun": StatusNotStarted,
	"doing": StatusInProgress, "active": StatusInProgress, "started": StatusInProgress,
	"working": StatusInProgress, "ongoing": StatusInProgress, "wip": StatusInProgress,
	"inprogress": StatusInProgress, "in-process": StatusInProgress, "running": StatusInProgress,
	"done": StatusCompleted, "complete": StatusCompleted, "finished": StatusCompleted,
	"closed": StatusCompleted, "resolved": StatusCompleted, "fixed": StatusCompleted,
	"stuck": StatusBlocked,
}

// normalizeStatus accepts case and separator variants ("In_Progress", "not started") and the
// synonyms above; anything else is returned as given so validation can name it.
func normalizeStatus(s string) Status {
	n := strings.ToLower(strings.TrimSpace(s))
	n = strings.NewReplacer("_", "-", " ", "-").Replace(n)
	for _, st := range Statuses() {
		if n == string(st) {
			return st
		}
	}
	if st, ok := statusSynonyms[n]; ok {
		return st
	}
	return Status(s)
}

func normalizePriority(s string) Priority {
	n := strings.ToLower(strings.TrimSpace(s))
	for _, p := range Priorities() {
		if n == string(p) {
			return p
		}
	}
	return Priority(s)
}

func todoDecoders(t *Todo) map[string]fieldDecoder {
	var status, priority string
	return map[string]fieldDecoder{
		"id":          decodeInt(&t.ID),
		"title":       decodeString(&t.Title),
		"description": decodeString(&t.Description),
		"status": func(raw json.RawMessage) error {
			if err := decodeString(&status)(raw); err != nil {
				return err
			}
			t.Status = normalizeStatus(status)
			return nil
		},
		"priority": func(raw json.RawMessage) error {
			if err := decodeString(&priority)(raw); err != nil {
				return err
			}
			t.Priority = normalizePriority(priority)
			return nil
		},
		"dependencies":     decodeIntList(&t.Dependencies),
		"can_run_parallel": decodeBool(&t.CanRunParallel),
		"parallel_group":   decodeString(&t.ParallelGroup),
		"progress":         decodeFloat(&t.Progress),
		"blocked_reason":   decodeString(&t.BlockedReason),
		"parent":           decodeParent(&t.Parent),
		"estimate":         decodeString(&t.Estimate),
		"subtasks":         decodeSubtasks(&t.Subtasks),
	}
}

// decodeParent accepts an id, and null or 0 for "no parent".
func decodeParent(dst *int) fieldDecoder {
	return func(raw json.RawMessage) error {
		if isNull(raw) {
			*dst = 0
			return nil
		}
		return decodeInt(dst)(raw)
	}
}

// decodeSubtasks decodes nested todos with the rules of [DecodeTodos]; their problems come
// back as [nestedProblems], which decodeObject names by place ("subtasks[2].title").
func decodeSubtasks(dst *[]Todo) fieldDecoder {
	return func(raw json.RawMessage) error {
		subs, err := DecodeTodos(raw)
		if ve, ok := err.(*ValidationError); ok {
			return nestedProblems(ve.Problems)
		}
		if err != nil {
			return err
		}
		*dst = subs
		return nil
	}
}

// nestedProblems are the problems of the todos inside a todo's subtasks.
type nestedProblems []Problem

func (n nestedProblems) Error() string { return (&ValidationError{Problems: n}).Error() }

// UnmarshalJSON accepts the canonical snake_case keys, their camelCase spellings and a few
// aliases (content for title). Unknown fields are an error, so a misspelt field is never dropped
// silently. The error is a [*ValidationError].
func (t *Todo) UnmarshalJSON(data []byte) error {
	var out Todo
	if probs := decodeObject(data, "a JSON object with at least a title", todoDecoders(&out)); len(probs) > 0 {
		for i := range probs {
			probs[i].ID = out.ID
		}
		return &ValidationError{Problems: probs}
	}
	if len(out.Dependencies) == 0 {
		out.Dependencies = nil
	}
	*t = out
	return nil
}

// Patch is a partial update of one todo: nil fields are left as they are. Dependencies set to an
// empty list clears them; Priority set to "" clears it.
type Patch struct {
	ID             int       `json:"id" jsonschema:"id of the todo to change"`
	Title          *string   `json:"title,omitempty"`
	Description    *string   `json:"description,omitempty"`
	Status         *Status   `json:"status,omitempty"`
	Priority       *Priority `json:"priority,omitempty"`
	Dependencies   *[]int    `json:"dependencies,omitempty"`
	CanRunParallel *bool     `json:"can_run_parallel,omitempty"`
	ParallelGroup  *string   `json:"parallel_group,omitempty"`
	Progress       *float64  `json:"progress,omitempty"`
	BlockedReason  *string   `json:"blocked_reason,omitempty"`
	// Parent moves the todo under another one; 0 makes it top-level.
	Parent *int `json:"parent,omitempty"`
	// Estimate sets the estimate; "" clears it.
	Estimate *string `json:"estimate,omitempty"`
	// Subtasks are new todos to add under this one, numbered after the highest id.
	Subtasks []Todo `json:"subtasks,omitempty"`
}

func patchDecoders(p *Patch) map[string]fieldDecoder {
	return map[string]fieldDecoder{
		"id":          decodeInt(&p.ID),
		"title":       decodeStringPtr(&p.Title),
		"description": decodeStringPtr(&p.Description),
		"status": func(raw json.RawMessage) error {
			var s string
			if err := decodeString(&s)(raw); err != nil {
				return err
			}
			st := normalizeStatus(s)
			p.Status = &st
			return nil
		},
		"priority": func(raw json.RawMessage) error {
			var s string
			if err := decodeString(&s)(raw); err != nil {
				return err
			}
			pr := normalizePriority(s)
			p.Priority = &pr
			return nil
		},
		"dependencies": func(raw json.RawMessage) error {
			var deps []int
			if err := decodeIntList(&deps)(raw); err != nil {
				return err
			}
			p.Dependencies = &deps
			return nil
		},
		"can_run_parallel": func(raw json.RawMessage) error {
			var b bool
			if err := decodeBool(&b)(raw); err != nil {
				return err
			}
			p.CanRunParallel = &b
			return nil
		},
		"parallel_group": decodeStringPtr(&p.ParallelGroup),
		"progress": func(raw json.RawMessage) error {
			var f float64
			if err := decodeFloat(&f)(raw); err != nil {
				return err
			}
			p.Progress = &f
			return nil
		},
		"blocked_reason": decodeStringPtr(&p.BlockedReason),
		"parent": func(raw json.RawMessage) error {
			var n int
			if err := decodeParent(&n)(raw); err != nil {
				return err
			}
			p.Parent = &n
			return nil
		},
		"estimate": decodeStringPtr(&p.Estimate),
		"subtasks": decodeSubtasks(&p.Subtasks),
	}
}

// UnmarshalJSON accepts the same spellings as [Todo.UnmarshalJSON].
func (p *Patch) UnmarshalJSON(data []byte) error {
	var out Patch
	if probs := decodeObject(data, "a JSON object with an id and the fields to change", patchDecoders(&out)); len(probs) > 0 {
		for i := range probs {
			probs[i].ID = out.ID
		}
		return &ValidationError{Problems: probs}
	}
	*p = out
	return nil
}

// arrayItems splits a JSON array into its items. It also accepts the array sent as a JSON string
// and a single object standing for a one-item array, both common model mistakes with one obvious
// meaning. null and absence give nil; [] gives an empty, non-nil slice.
func arrayItems(raw json.RawMessage) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || isNull(raw) {
		return nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("must be an array of todo objects: %v", err)
		}
		inner := bytes.TrimSpace([]byte(s))
		if len(inner) == 0 || (inner[0] != '[' && inner[0] != '{') {
			return nil, fmt.Errorf("must be an array of todo objects, got a string")
		}
		raw = inner
	}
	if raw[0] == '{' {
		return []json.RawMessage{raw}, nil
	}
	if raw[0] != '[' {
		return nil, fmt.Errorf("must be an array of todo objects, got %s", describeJSON(raw))
	}
	items := []json.RawMessage{}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("must be an array of todo objects: %v", err)
	}
	return items, nil
}

// DecodeTodos decodes an array of todos for write or add (see [arrayItems] for the accepted
// shapes). All problems of all items are reported together in one [*ValidationError]; items
// without an id are named by their 1-based position.
func DecodeTodos(raw json.RawMessage) ([]Todo, error) {
	items, err := arrayItems(raw)
	if err != nil {
		return nil, &ValidationError{Problems: []Problem{{Reason: err.Error()}}}
	}
	if items == nil {
		return nil, nil
	}
	out := make([]Todo, 0, len(items))
	var probs []Problem
	for i, it := range items {
		var t Todo
		if err := json.Unmarshal(it, &t); err != nil {
			probs = append(probs, itemProblems(err, i+1)...)
			continue
		}
		out = append(out, t)
	}
	if len(probs) > 0 {
		return nil, &ValidationError{Problems: probs}
	}
	return out, nil
}

// DecodePatches decodes an array of partial updates for update.
func DecodePatches(raw json.RawMessage) ([]Patch, error) {
	items, err := arrayItems(raw)
	if err != nil {
		return nil, &ValidationError{Problems: []Problem{{Reason: err.Error()}}}
	}
	if items == nil {
		return nil, nil
	}
	out := make([]Patch, 0, len(items))
	var probs []Problem
	for i, it := range items {
		var p Patch
		if err := json.Unmarshal(it, &p); err != nil {
			probs = append(probs, itemProblems(err, i+1)...)
			continue
		}
		out = append(out, p)
	}
	if len(probs) > 0 {
		return nil, &ValidationError{Problems: probs}
	}
	return out, nil
}

func itemProblems(err error, index int) []Problem {
	var probs []Problem
	if ve, ok := err.(*ValidationError); ok {
		probs = ve.Problems
	} else {
		probs = []Problem{{Reason: err.Error()}}
	}
	for i := range probs {
		if probs[i].ID == 0 {
			probs[i].Index = index
		}
	}
	return probs
}

// Operation names of todo_operations, the values of the operation argument.
const (
	OpRead   = "read"
	OpWrite  = "write"
	OpUpdate = "update"
	OpAdd    = "add"
)

// Args is the decoded argument object of todo_operations. A nil slice means the argument was
// absent; an empty non-nil slice means it was given as [].
type Args struct {
	Operation   string
	TodoList    []Todo  // write: the whole new list (todo_list, todoList)
	NewTodos    []Todo  // add: todos to append (new_todos, newTodos)
	TodoUpdates []Patch // update: partial updates (todo_updates, todoUpdates, updates)
}

// DecodeArgs decodes the whole argument object of todo_operations. Keys it does not know
// (anything the tool layer owns) are ignored here; the tool layer
// validates its own parameters. "todos" is taken as the list of whichever operation is named.
func DecodeArgs(raw json.RawMessage) (Args, error) {
	var a Args
	var m map[string]json.RawMessage
	if len(bytes.TrimSpace(raw)) == 0 {
		return a, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return a, &ValidationError{Problems: []Problem{{Reason: "arguments must be a JSON object: " + err.Error()}}}
	}
	byKey := map[string]json.RawMessage{}
	for k, v := range m {
		byKey[NormalizeKey(k)] = v
	}
	if v, ok := byKey["operation"]; ok {
		if err := json.Unmarshal(v, &a.Operation); err != nil {
			return a, &ValidationError{Problems: []Problem{{Field: "operation", Reason: "must be a string: read, write, update or add"}}}
		}
		a.Operation = strings.ToLower(strings.TrimSpace(a.Operation))
	}
	var err error
	listKey := "todo_list"
	if _, ok := byKey[listKey]; !ok {
		if _, ok := byKey["todos"]; ok && a.Operation != OpAdd {
			listKey = "todos"
		}
	}
	if v, ok := byKey[listKey]; ok {
		if a.TodoList, err = DecodeTodos(v); err != nil {
			return a, prefixField(err, "todo_list")
		}
		if a.TodoList == nil {
			a.TodoList = []Todo{}
		}
	}
	newKey := "new_todos"
	if _, ok := byKey[newKey]; !ok && a.Operation == OpAdd {
		newKey = "todos"
	}
	if v, ok := byKey[newKey]; ok {
		if a.NewTodos, err = DecodeTodos(v); err != nil {
			return a, prefixField(err, "new_todos")
		}
	}
	updKey := "todo_updates"
	if _, ok := byKey[updKey]; !ok {
		updKey = "updates"
	}
	if v, ok := byKey[updKey]; ok {
		if a.TodoUpdates, err = DecodePatches(v); err != nil {
			return a, prefixField(err, "todo_updates")
		}
	}
	return a, nil
}

// prefixField names the argument in problems that concern the argument as a whole.
func prefixField(err error, arg string) error {
	ve, ok := err.(*ValidationError)
	if !ok {
		return err
	}
	for i := range ve.Problems {
		if ve.Problems[i].ID == 0 && ve.Problems[i].Index == 0 && ve.Problems[i].Field == "" {
			ve.Problems[i].Field = arg
		}
	}
	return ve
}
