package todo

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalizeKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"todo_list", "todo_list"},
		{"todoList", "todo_list"},
		{"TodoList", "todo_list"},
		{"blockedReason", "blocked_reason"},
		{"canRunParallel", "can_run_parallel"},
		{"parallel-group", "parallel_group"},
		{"todoID", "todo_id"},
		{"IDList", "id_list"},
		{"newTodos", "new_todos"},
		{"todoUpdates", "todo_updates"},
		{"id", "id"},
	}
	for _, tt := range tests {
		if got := NormalizeKey(tt.in); got != tt.want {
			t.Errorf("NormalizeKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDecodeTodos(t *testing.T) {
	tests := []struct {
		name  string
		raw   string
		want  []Todo
		probs []Problem
	}{
		{"snake case", `[{"id":1,"title":"a","status":"blocked","blocked_reason":"r","can_run_parallel":true,"parallel_group":"g","progress":0.5,"priority":"high","dependencies":[2],"description":"d"}]`,
			[]Todo{{ID: 1, Title: "a", Status: StatusBlocked, BlockedReason: "r", CanRunParallel: true, ParallelGroup: "g", Progress: 0.5, Priority: PriorityHigh, Dependencies: []int{2}, Description: "d"}}, nil},
		{"camel case", `[{"id":1,"title":"a","status":"blocked","blockedReason":"r","canRunParallel":true,"parallelGroup":"g"}]`,
			[]Todo{{ID: 1, Title: "a", Status: StatusBlocked, BlockedReason: "r", CanRunParallel: true, ParallelGroup: "g"}}, nil},
		{"string ids, status spellings, content alias", `[{"id":"3","content":"a","status":"In_Progress","dependencies":["1", 2]},{"title":"b","status":"not started","priority":"HIGH"}]`,
			[]Todo{{ID: 3, Title: "a", Status: StatusInProgress, Dependencies: []int{1, 2}}, {Title: "b", Status: StatusNotStarted, Priority: PriorityHigh}}, nil},
		{"array sent as a JSON string", `"[{\"title\":\"a\"}]"`, []Todo{{Title: "a"}}, nil},
		{"single object", `{"title":"a"}`, []Todo{{Title: "a"}}, nil},
		{"empty array", `[]`, []Todo{}, nil},
		{"null", `null`, nil, nil},
		{"unknown status kept for validation", `[{"title":"a","status":"cancelled"}]`, []Todo{{Title: "a", Status: "cancelled"}}, nil},
		{"status synonyms of other agents' plan tools", `[{"title":"a","status":"pending"},{"title":"b","status":"in_progress"},{"title":"c","status":"Done"},{"title":"d","status":"TODO"},{"title":"e","status":"doing"},{"title":"f","status":"finished"},{"title":"g","status":"active"}]`,
			[]Todo{{Title: "a", Status: StatusNotStarted}, {Title: "b", Status: StatusInProgress}, {Title: "c", Status: StatusCompleted}, {Title: "d", Status: StatusNotStarted}, {Title: "e", Status: StatusInProgress}, {Title: "f", Status: StatusCompleted}, {Title: "g", Status: StatusInProgress}}, nil},
		{"unknown field", `[{"id":2,"title":"a","activeForm":"doing a"}]`, nil,
			[]Problem{{ID: 2, Field: "activeForm", Reason: "unknown field; valid fields: id, title, description, status, priority, dependencies, can_run_parallel, parallel_group, progress, blocked_reason, parent, estimate, subtasks"}}},
		{"wrong types named per item", `[{"title":"ok"},{"title":5,"progress":"lots","can_run_parallel":"maybe"}]`, nil,
			[]Problem{
				{Index: 2, Field: "can_run_parallel", Reason: `must be true or false, got "maybe"`},
				{Index: 2, Field: "progress", Reason: `must be a number from 0.0 to 1.0, got "lots"`},
				{Index: 2, Field: "title", Reason: "must be a string, got a number"},
			}},
		{"fractional id", `[{"id":1.5,"title":"a"}]`, nil, []Problem{{Index: 1, Field: "id", Reason: "must be an integer, got 1.5"}}},
		{"same field twice", `[{"id":1,"title":"a","blocked_reason":"x","blockedReason":"y"}]`, nil,
			[]Problem{{ID: 1, Field: "blocked_reason", Reason: `given twice (as "blockedReason" and "blocked_reason")`}}},
		{"not an object", `[3]`, nil, []Problem{{Index: 1, Reason: "must be a JSON object with at least a title, got a number"}}},
		{"not an array", `42`, nil, []Problem{{Reason: "must be an array of todo objects, got a number"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkDecode(t, "DecodeTodos", DecodeTodos, tt.raw, tt.want, tt.probs)
		})
	}
}

func TestDecodePatches(t *testing.T) {
	tests := []struct {
		name  string
		raw   string
		want  []Patch
		probs []Problem
	}{
		{"camel case and clearing", `[{"id":"2","status":"blocked","blockedReason":"r","dependencies":[],"priority":"","canRunParallel":false}]`,
			[]Patch{{ID: 2, Status: ptr(StatusBlocked), BlockedReason: ptr("r"), Dependencies: ptr([]int{}), Priority: ptr(Priority("")), CanRunParallel: ptr(false)}}, nil},
		{"progress and title", `[{"todo_id":1,"progress":0.3,"title":"t"}]`, []Patch{{ID: 1, Progress: ptr(0.3), Title: ptr("t")}}, nil},
		{"not an object", `[2]`, nil,
			[]Problem{{Index: 1, Reason: "must be a JSON object with an id and the fields to change, got a number"}}},
		{"unknown field", `[{"id":1,"state":"done"}]`, nil,
			[]Problem{{ID: 1, Field: "state", Reason: "unknown field; valid fields: id, title, description, status, priority, dependencies, can_run_parallel, parallel_group, progress, blocked_reason, parent, estimate, subtasks"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkDecode(t, "DecodePatches", DecodePatches, tt.raw, tt.want, tt.probs)
		})
	}
}

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		name  string
		raw   string
		want  Args
		probs []Problem
	}{
		{"write snake", `{"operation":"write","todo_list":[{"title":"a"}],"conversation_id":"c"}`,
			Args{Operation: OpWrite, TodoList: []Todo{{Title: "a"}}}, nil},
		{"write camel", `{"operation":"write","todoList":[{"title":"a"}]}`,
			Args{Operation: OpWrite, TodoList: []Todo{{Title: "a"}}}, nil},
		{"write empty list is present", `{"operation":"write","todoList":[]}`,
			Args{Operation: OpWrite, TodoList: []Todo{}}, nil},
		{"write null list is present", `{"operation":"write","todoList":null}`,
			Args{Operation: OpWrite, TodoList: []Todo{}}, nil},
		{"write todos alias", `{"operation":"write","todos":[{"title":"a"}]}`,
			Args{Operation: OpWrite, TodoList: []Todo{{Title: "a"}}}, nil},
		{"add camel", `{"operation":"add","newTodos":[{"title":"a"}]}`,
			Args{Operation: OpAdd, NewTodos: []Todo{{Title: "a"}}}, nil},
		{"add todos alias", `{"Operation":"ADD","todos":[{"title":"a"}]}`,
			Args{Operation: OpAdd, NewTodos: []Todo{{Title: "a"}}}, nil},
		{"update camel", `{"operation":"update","todoUpdates":[{"id":1,"status":"completed"}]}`,
			Args{Operation: OpUpdate, TodoUpdates: []Patch{{ID: 1, Status: ptr(StatusCompleted)}}}, nil},
		{"update updates alias", `{"operation":"update","updates":"[{\"id\":1,\"progress\":0.5}]"}`,
			Args{Operation: OpUpdate, TodoUpdates: []Patch{{ID: 1, Progress: ptr(0.5)}}}, nil},
		{"read", `{"operation":"read"}`, Args{Operation: OpRead}, nil},
		{"bad list type names the argument", `{"operation":"write","todoList":7}`, Args{Operation: OpWrite},
			[]Problem{{Field: "todo_list", Reason: "must be an array of todo objects, got a number"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkDecode(t, "DecodeArgs", DecodeArgs, tt.raw, tt.want, tt.probs)
		})
	}
}

// Standard encoding/json decoding of the exported types goes through the lenient decoders too,
// so a tool layer with typed argument structs gets the same behaviour.
func TestUnmarshalIntoTypedStruct(t *testing.T) {
	var args struct {
		TodoList []Todo `json:"todo_list"`
	}
	raw := `{"todo_list":[{"id":1,"title":"a","status":"blocked","blockedReason":"r"}]}`
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatalf("json.Unmarshal(%s) error: %v", raw, err)
	}
	want := []Todo{{ID: 1, Title: "a", Status: StatusBlocked, BlockedReason: "r"}}
	if diff := cmp.Diff(want, args.TodoList); diff != "" {
		t.Errorf("json.Unmarshal(%s) (-want +got):\n%s", raw, diff)
	}
}

// checkDecode runs the decoder named fn on raw: first its problems, then what it decoded.
func checkDecode[T any](t *testing.T, fn string, decode func(json.RawMessage) (T, error), raw string, want T, probs []Problem) {
	t.Helper()
	got, err := decode(json.RawMessage(raw))
	if diff := cmp.Diff(probs, mustProblems(t, err)); diff != "" {
		t.Fatalf("%s(%s) problems (-want +got):\n%s", fn, raw, diff)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s(%s) (-want +got):\n%s", fn, raw, diff)
	}
}
