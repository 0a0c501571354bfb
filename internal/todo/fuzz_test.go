package todo

import (
	"encoding/json"
	"testing"
)

// FuzzOperations feeds arbitrary argument objects through decoding and the operations: nothing
// may panic, and every list an operation accepts must pass Validate and keep the completed todos.
// Plain `go test` runs the seeds; `go test -fuzz FuzzOperations` explores further.
func FuzzOperations(f *testing.F) {
	for _, seed := range []string{
		`{"operation":"write","todoList":[{"title":"a","status":"in_progress"},{"title":"b","dependencies":[1]}]}`,
		`{"operation":"add","newTodos":[{"title":"c","dependencies":["4"]},{"id":5,"title":"d","blockedReason":"x","status":"blocked"}]}`,
		`{"operation":"update","todoUpdates":[{"id":1,"status":"completed"},{"id":2,"status":"in-progress","progress":0.5}]}`,
		`{"operation":"update","todoUpdates":"[{\"id\":3,\"dependencies\":[3]}]"}`,
		`{"operation":"write","todos":[{"id":2,"title":"x","dependencies":[1]},{"id":1,"title":"y","dependencies":[2]}]}`,
		`{"operation":"add","todos":{"title":"z","priority":"HIGH","canRunParallel":"true"}}`,
	} {
		f.Add([]byte(seed))
	}
	base := List{Version: 3, Todos: []Todo{
		{ID: 1, Title: "done", Status: StatusCompleted},
		{ID: 2, Title: "doing", Status: StatusInProgress, Dependencies: []int{1}},
		{ID: 3, Title: "later", Status: StatusNotStarted},
	}}
	f.Fuzz(func(t *testing.T, raw []byte) {
		args, err := DecodeArgs(json.RawMessage(raw))
		if err != nil {
			if _, ok := AsValidationError(err); !ok {
				t.Fatalf("DecodeArgs error %T is not a *ValidationError: %v", err, err)
			}
			return
		}
		var got List
		switch args.Operation {
		case OpWrite:
			got, err = ApplyWrite(base, args.TodoList, t0)
		case OpAdd:
			got, err = ApplyAdd(base, args.NewTodos, t0)
		case OpUpdate:
			got, err = ApplyUpdate(base, args.TodoUpdates, t0)
		default:
			return
		}
		if err != nil {
			if _, ok := AsValidationError(err); !ok {
				t.Fatalf("%s error %T is not a *ValidationError: %v", args.Operation, err, err)
			}
			return
		}
		if err := Validate(got.Todos); err != nil {
			t.Fatalf("%s accepted an invalid list: %v", args.Operation, err)
		}
		if p := checkCompletedKept(base.Todos, got.Todos); p != nil {
			t.Fatalf("%s dropped completed todos: %v", args.Operation, p)
		}
		if got.Version != base.Version+1 {
			t.Fatalf("%s version %d, want %d", args.Operation, got.Version, base.Version+1)
		}
		_ = Render(got)
	})
}
