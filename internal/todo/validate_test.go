package todo

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// ignoreHistory leaves the status history out of comparisons that are about other fields;
// TestStatusHistory checks it.
var ignoreHistory = cmpopts.IgnoreFields(Todo{}, "Started", "ActiveSince", "ElapsedSec", "CompletedAt")

func todo(id int, title string, status Status) Todo {
	return Todo{ID: id, Title: title, Status: status}
}

func withDeps(t Todo, deps ...int) Todo { t.Dependencies = deps; return t }

func TestValidate(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	manyTodos := make([]Todo, MaxTodos+1)
	for i := range manyTodos {
		manyTodos[i] = todo(i+1, "t", StatusNotStarted)
	}
	tests := []struct {
		name  string
		todos []Todo
		want  []Problem
	}{
		{"empty list is valid", nil, nil},
		{"valid list", []Todo{
			todo(1, "a", StatusCompleted),
			withDeps(todo(2, "b", StatusInProgress), 1),
			{ID: 3, Title: "c", Status: StatusBlocked, BlockedReason: "needs creds", Priority: PriorityHigh, Progress: 0.5},
		}, nil},
		{"empty title", []Todo{todo(1, "  ", StatusNotStarted)},
			[]Problem{{ID: 1, Field: "title", Reason: "must not be empty"}}},
		{"multi-line title", []Todo{todo(1, "a\nb", StatusNotStarted)},
			[]Problem{{ID: 1, Field: "title", Reason: "must be a single line; put details in description"}}},
		{"title too long", []Todo{todo(1, long(MaxTitleBytes+1), StatusNotStarted)},
			[]Problem{{ID: 1, Field: "title", Reason: "is 201 bytes, at most 200; keep the title short and put details in description"}}},
		{"description too long", []Todo{{ID: 1, Title: "a", Status: StatusNotStarted, Description: long(MaxDescriptionBytes + 1)}},
			[]Problem{{ID: 1, Field: "description", Reason: "is 2049 bytes, at most 2048"}}},
		{"blocked reason too long", []Todo{{ID: 1, Title: "a", Status: StatusBlocked, BlockedReason: long(MaxBlockedReasonBytes + 1)}},
			[]Problem{{ID: 1, Field: "blocked_reason", Reason: "is 1025 bytes, at most 1024"}}},
		{"parallel group too long", []Todo{{ID: 1, Title: "a", Status: StatusNotStarted, ParallelGroup: long(65)}},
			[]Problem{{ID: 1, Field: "parallel_group", Reason: "is 65 bytes, at most 64"}}},
		{"too many todos", manyTodos,
			[]Problem{{Reason: "the list has 201 todos, at most 200; finish or merge some before adding more"}}},
		{"bad status", []Todo{todo(1, "a", "done")},
			[]Problem{{ID: 1, Field: "status", Reason: `"done" is not a status; use one of not-started, in-progress, completed, blocked`}}},
		{"bad priority", []Todo{{ID: 1, Title: "a", Status: StatusNotStarted, Priority: "urgent"}},
			[]Problem{{ID: 1, Field: "priority", Reason: `"urgent" is not a priority; use one of low, medium, high, critical, or leave it out`}}},
		{"progress above one as percent", []Todo{{ID: 1, Title: "a", Status: StatusInProgress, Progress: 40}},
			[]Problem{{ID: 1, Field: "progress", Reason: "40 is out of range; progress is a fraction from 0.0 to 1.0 (use 0.4 for 40%)"}}},
		{"negative progress", []Todo{{ID: 1, Title: "a", Status: StatusInProgress, Progress: -0.1}},
			[]Problem{{ID: 1, Field: "progress", Reason: "-0.1 is out of range; progress is a fraction from 0.0 to 1.0"}}},
		{"NaN progress", []Todo{{ID: 1, Title: "a", Status: StatusInProgress, Progress: math.NaN()}},
			[]Problem{{ID: 1, Field: "progress", Reason: "NaN is out of range; progress is a fraction from 0.0 to 1.0"}}},
		{"blocked without reason", []Todo{todo(1, "a", StatusBlocked)},
			[]Problem{{ID: 1, Field: "blocked_reason", Reason: "is required when status is blocked; say what the todo waits for"}}},
		{"non-positive id", []Todo{todo(-2, "a", StatusNotStarted)},
			[]Problem{{Index: 1, Field: "id", Reason: "must be a positive integer, got -2"}}},
		{"duplicate ids", []Todo{todo(1, "a", StatusNotStarted), todo(2, "b", StatusNotStarted), todo(1, "c", StatusNotStarted)},
			[]Problem{{ID: 1, Field: "id", Reason: "is used by items 1 and 3; ids must be unique"}}},
		{"two in progress", []Todo{todo(1, "a", StatusInProgress), todo(2, "b", StatusInProgress)},
			[]Problem{{ID: 2, Field: "status", Reason: "todo 1 is already in-progress and at most one todo may be; mark todo 1 completed (or not-started) first, in the same call if you like"}}},
		{"missing dependency", []Todo{withDeps(todo(1, "a", StatusNotStarted), 9)},
			[]Problem{{ID: 1, Field: "dependencies", Reason: "depends on todo 9, which does not exist"}}},
		{"self dependency", []Todo{withDeps(todo(1, "a", StatusNotStarted), 1)},
			[]Problem{{ID: 1, Field: "dependencies", Reason: "a todo cannot depend on itself"}}},
		{"dependency listed twice", []Todo{todo(1, "a", StatusNotStarted), withDeps(todo(2, "b", StatusNotStarted), 1, 1)},
			[]Problem{{ID: 2, Field: "dependencies", Reason: "lists todo 1 twice"}}},
		{"two-todo cycle", []Todo{withDeps(todo(1, "a", StatusNotStarted), 2), withDeps(todo(2, "b", StatusNotStarted), 1)},
			[]Problem{{ID: 1, Field: "dependencies", Reason: "dependency cycle 1 -> 2 -> 1; remove one of these dependencies"}}},
		{"three-todo cycle behind a chain", []Todo{
			withDeps(todo(1, "a", StatusNotStarted), 2),
			withDeps(todo(2, "b", StatusNotStarted), 3),
			withDeps(todo(3, "c", StatusNotStarted), 4),
			withDeps(todo(4, "d", StatusNotStarted), 2),
		}, []Problem{{ID: 2, Field: "dependencies", Reason: "dependency cycle 2 -> 3 -> 4 -> 2; remove one of these dependencies"}}},
		{"diamond is not a cycle", []Todo{
			todo(1, "a", StatusNotStarted),
			withDeps(todo(2, "b", StatusNotStarted), 1),
			withDeps(todo(3, "c", StatusNotStarted), 1),
			withDeps(todo(4, "d", StatusNotStarted), 2, 3),
		}, nil},
		{"several problems listed together", []Todo{todo(1, "", "wip"), todo(2, "b", StatusBlocked)},
			[]Problem{
				{ID: 1, Field: "title", Reason: "must not be empty"},
				{ID: 1, Field: "status", Reason: `"wip" is not a status; use one of not-started, in-progress, completed, blocked`},
				{ID: 2, Field: "blocked_reason", Reason: "is required when status is blocked; say what the todo waits for"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Problem
			if err := Validate(tt.todos); err != nil {
				ve, ok := AsValidationError(err)
				if !ok {
					t.Fatalf("Validate() error %T %v, want *ValidationError", err, err)
				}
				got = ve.Problems
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate() problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidationErrorText(t *testing.T) {
	tests := []struct {
		name  string
		probs []Problem
		want  string
	}{
		{"one", []Problem{{ID: 3, Field: "status", Reason: "bad"}}, "todo list unchanged: todo 3 status: bad"},
		{"item without id", []Problem{{Index: 2, Field: "title", Reason: "must not be empty"}}, "todo list unchanged: item 2 title: must not be empty"},
		{"whole argument", []Problem{{Field: "todo_list", Reason: "x"}}, "todo list unchanged: todo_list: x"},
		{"whole todo", []Problem{{ID: 4, Reason: "does not exist"}}, "todo list unchanged: todo 4: does not exist"},
		{"several", []Problem{{ID: 1, Field: "title", Reason: "a"}, {Reason: "b"}},
			"todo list unchanged, 2 problems:\n- todo 1 title: a\n- b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (&ValidationError{Problems: tt.probs}).Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func mustProblems(t *testing.T, err error) []Problem {
	t.Helper()
	if err == nil {
		return nil
	}
	ve, ok := AsValidationError(err)
	if !ok {
		t.Fatalf("error %T %v, want *ValidationError", err, err)
	}
	return ve.Problems
}

func TestApplyWrite(t *testing.T) {
	old := List{Version: 4, Todos: []Todo{todo(1, "done a", StatusCompleted), todo(2, "done b", StatusCompleted), todo(3, "open", StatusNotStarted)}}
	tests := []struct {
		name      string
		todos     []Todo
		wantTodos []Todo
		want      []Problem
	}{
		{"keeps completed, drops open, assigns ids and default status",
			[]Todo{todo(1, "done a", StatusCompleted), todo(2, "done b", StatusCompleted), {Title: "new"}, {Title: "newer", Status: StatusInProgress}},
			[]Todo{todo(1, "done a", StatusCompleted), todo(2, "done b", StatusCompleted), todo(4, "new", StatusNotStarted), todo(5, "newer", StatusInProgress)},
			nil},
		{"reopening a completed todo is allowed",
			[]Todo{todo(1, "done a", StatusInProgress), todo(2, "done b", StatusCompleted)},
			[]Todo{todo(1, "done a", StatusInProgress), todo(2, "done b", StatusCompleted)},
			nil},
		{"dropping completed todos lists them", []Todo{todo(3, "open", StatusNotStarted)}, nil,
			[]Problem{{Field: "todo_list", Reason: `completed todos 1 ("done a"), 2 ("done b") are missing; completed todos cannot be deleted, include them with the same id (or use add to append new todos)`}}},
		{"empty write drops completed", []Todo{}, nil,
			[]Problem{{Field: "todo_list", Reason: `completed todos 1 ("done a"), 2 ("done b") are missing; completed todos cannot be deleted, include them with the same id (or use add to append new todos)`}}},
		{"dropping one completed todo", []Todo{todo(1, "done a", StatusCompleted)}, nil,
			[]Problem{{Field: "todo_list", Reason: `completed todo 2 ("done b") is missing; completed todos cannot be deleted, include them with the same id (or use add to append new todos)`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyWrite(old, tt.todos, t0)
			if diff := cmp.Diff(tt.want, mustProblems(t, err)); diff != "" {
				t.Fatalf("ApplyWrite() problems (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			want := List{Version: 5, UpdatedAt: t0, Todos: tt.wantTodos}
			if diff := cmp.Diff(want, got, ignoreHistory); diff != "" {
				t.Errorf("ApplyWrite() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplyAdd(t *testing.T) {
	allDone := List{Version: 2, Todos: []Todo{todo(1, "a", StatusCompleted), todo(2, "b", StatusCompleted)}}
	tests := []struct {
		name      string
		old       List
		add       []Todo
		wantTodos []Todo
		want      []Problem
	}{
		{"add after completion keeps completed and numbers after them", allDone,
			[]Todo{{Title: "c"}, withDeps(Todo{Title: "d"}, 3)},
			[]Todo{todo(1, "a", StatusCompleted), todo(2, "b", StatusCompleted), todo(3, "c", StatusNotStarted), withDeps(todo(4, "d", StatusNotStarted), 3)},
			nil},
		{"add to empty list starts at 1", List{}, []Todo{{Title: "x", Status: StatusInProgress}},
			[]Todo{todo(1, "x", StatusInProgress)}, nil},
		{"given id equal to the assigned one is accepted", allDone, []Todo{{ID: 3, Title: "c"}},
			[]Todo{todo(1, "a", StatusCompleted), todo(2, "b", StatusCompleted), todo(3, "c", StatusNotStarted)}, nil},
		{"other given id is rejected", allDone, []Todo{{ID: 1, Title: "c"}}, nil,
			[]Problem{{Index: 1, Field: "id", Reason: "add assigns ids after the highest existing one, so this todo gets id 3, not 1; leave id out or use 3"}}},
		{"nothing to add", allDone, []Todo{}, nil,
			[]Problem{{Field: "new_todos", Reason: "give at least one todo to add"}}},
		{"second in-progress rejected", List{Todos: []Todo{todo(1, "a", StatusInProgress)}}, []Todo{{Title: "b", Status: StatusInProgress}}, nil,
			[]Problem{{ID: 2, Field: "status", Reason: "todo 1 is already in-progress and at most one todo may be; mark todo 1 completed (or not-started) first, in the same call if you like"}}},
		{"dependency on a missing todo", allDone, []Todo{withDeps(Todo{Title: "c"}, 7)}, nil,
			[]Problem{{ID: 3, Field: "dependencies", Reason: "depends on todo 7, which does not exist"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyAdd(tt.old, tt.add, t0)
			if diff := cmp.Diff(tt.want, mustProblems(t, err)); diff != "" {
				t.Fatalf("ApplyAdd() problems (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			want := List{Version: tt.old.Version + 1, UpdatedAt: t0, Todos: tt.wantTodos}
			if diff := cmp.Diff(want, got, ignoreHistory); diff != "" {
				t.Errorf("ApplyAdd() (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestApplyUpdate(t *testing.T) {
	old := List{Version: 7, Todos: []Todo{
		todo(1, "a", StatusInProgress),
		todo(2, "b", StatusNotStarted),
		{ID: 3, Title: "c", Status: StatusBlocked, BlockedReason: "waiting"},
	}}
	tests := []struct {
		name      string
		patches   []Patch
		wantTodos []Todo
		want      []Problem
	}{
		{"complete one and start the next in one call",
			[]Patch{{ID: 1, Status: ptr(StatusCompleted)}, {ID: 2, Status: ptr(StatusInProgress), Progress: ptr(0.25)}},
			[]Todo{todo(1, "a", StatusCompleted), {ID: 2, Title: "b", Status: StatusInProgress, Progress: 0.25}, old.Todos[2]}, nil},
		{"every field",
			[]Patch{{ID: 2, Title: ptr("B"), Description: ptr("d"), Priority: ptr(PriorityCritical), Dependencies: ptr([]int{1}),
				CanRunParallel: ptr(true), ParallelGroup: ptr("g"), Progress: ptr(0.5)}},
			[]Todo{old.Todos[0], {ID: 2, Title: "B", Description: "d", Status: StatusNotStarted, Priority: PriorityCritical,
				Dependencies: []int{1}, CanRunParallel: true, ParallelGroup: "g", Progress: 0.5}, old.Todos[2]}, nil},
		{"leaving blocked clears the reason",
			[]Patch{{ID: 3, Status: ptr(StatusNotStarted)}},
			[]Todo{old.Todos[0], old.Todos[1], todo(3, "c", StatusNotStarted)}, nil},
		{"blocking needs a reason",
			[]Patch{{ID: 2, Status: ptr(StatusBlocked)}}, nil,
			[]Problem{{ID: 2, Field: "blocked_reason", Reason: "is required when status is blocked; say what the todo waits for"}}},
		{"starting a second one", []Patch{{ID: 2, Status: ptr(StatusInProgress)}}, nil,
			[]Problem{{ID: 2, Field: "status", Reason: "todo 1 is already in-progress and at most one todo may be; mark todo 1 completed (or not-started) first, in the same call if you like"}}},
		{"unknown id", []Patch{{ID: 9, Status: ptr(StatusCompleted)}}, nil,
			[]Problem{{ID: 9, Reason: "does not exist; existing ids: 1-3"}}},
		{"missing id", []Patch{{Status: ptr(StatusCompleted)}}, nil,
			[]Problem{{Index: 1, Field: "id", Reason: "is required: the id of the todo to change"}}},
		{"same id twice", []Patch{{ID: 2, Progress: ptr(0.1)}, {ID: 2, Progress: ptr(0.2)}}, nil,
			[]Problem{{ID: 2, Reason: "is updated twice in one call; merge the two updates"}}},
		{"empty patch", []Patch{{ID: 2}}, nil,
			[]Problem{{ID: 2, Reason: "the update changes nothing; give the fields to change (status, title, progress, ...)"}}},
		{"no patches", nil, nil, []Problem{{Field: "todo_updates", Reason: "give at least one update with an id and the fields to change"}}},
		{"cycle through update", []Patch{{ID: 1, Dependencies: ptr([]int{2})}, {ID: 2, Dependencies: ptr([]int{1})}}, nil,
			[]Problem{{ID: 1, Field: "dependencies", Reason: "dependency cycle 1 -> 2 -> 1; remove one of these dependencies"}}},
		{"progress out of range", []Patch{{ID: 1, Progress: ptr(1.5)}}, nil,
			[]Problem{{ID: 1, Field: "progress", Reason: "1.5 is out of range; progress is a fraction from 0.0 to 1.0"}}},
		{"empty title", []Patch{{ID: 1, Title: ptr("")}}, nil,
			[]Problem{{ID: 1, Field: "title", Reason: "must not be empty"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyUpdate(old, tt.patches, t0)
			if diff := cmp.Diff(tt.want, mustProblems(t, err)); diff != "" {
				t.Fatalf("ApplyUpdate() problems (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			want := List{Version: 8, UpdatedAt: t0, Todos: tt.wantTodos}
			if diff := cmp.Diff(want, got, ignoreHistory); diff != "" {
				t.Errorf("ApplyUpdate() (-want +got):\n%s", diff)
			}
		})
	}
	if old.Todos[0].Status != StatusInProgress {
		t.Errorf("ApplyUpdate modified its input")
	}
}
