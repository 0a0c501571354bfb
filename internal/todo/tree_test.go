package todo

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"toolhost/internal/golden"
)

func sub(t Todo, parent int) Todo { t.Parent = parent; return t }

func TestSubtasksWrite(t *testing.T) {
	tests := []struct {
		name  string
		todos []Todo
		want  []Todo
		probs []Problem
	}{
		{"nested subtasks are numbered parent first and follow their children",
			[]Todo{{Title: "front end", Subtasks: []Todo{
				{Title: "lexer", Status: StatusCompleted},
				{Title: "parser", Status: StatusInProgress, Progress: 0.5, Subtasks: []Todo{{Title: "expressions", Status: StatusInProgress}}},
			}}, {Title: "docs"}},
			[]Todo{
				{ID: 1, Title: "front end", Status: StatusInProgress, Progress: 0.5},
				sub(todo(2, "lexer", StatusCompleted), 1),
				sub(todo(3, "parser", StatusInProgress), 1),
				sub(todo(4, "expressions", StatusInProgress), 3),
				todo(5, "docs", StatusNotStarted),
			}, nil},
		{"a parent whose subtasks are all completed is completed",
			[]Todo{{ID: 1, Title: "a", Status: StatusNotStarted}, sub(todo(2, "b", StatusCompleted), 1), sub(todo(3, "c", StatusCompleted), 1)},
			[]Todo{todo(1, "a", StatusCompleted), sub(todo(2, "b", StatusCompleted), 1), sub(todo(3, "c", StatusCompleted), 1)}, nil},
		{"a parent whose open subtasks are all blocked is blocked",
			[]Todo{todo(1, "a", StatusNotStarted), sub(todo(2, "b", StatusCompleted), 1), sub(Todo{ID: 3, Title: "c", Status: StatusBlocked, BlockedReason: "key"}, 1)},
			[]Todo{{ID: 1, Title: "a", Status: StatusBlocked, Progress: 0.5, BlockedReason: "subtask 3 is blocked"}, sub(todo(2, "b", StatusCompleted), 1),
				sub(Todo{ID: 3, Title: "c", Status: StatusBlocked, BlockedReason: "key"}, 1)}, nil},
		{"a parent's given status is replaced by its subtasks'",
			[]Todo{todo(1, "a", StatusInProgress), sub(todo(2, "b", StatusNotStarted), 1)},
			[]Todo{todo(1, "a", StatusNotStarted), sub(todo(2, "b", StatusNotStarted), 1)}, nil},
		{"completing a parent with open subtasks names them", []Todo{{Title: "a", Status: StatusCompleted, Subtasks: []Todo{
			{Title: "b", Status: StatusCompleted}, {Title: "c"}, {Title: "d", Subtasks: []Todo{{Title: "e"}}}}}}, nil,
			[]Problem{{ID: 1, Field: "status", Reason: "cannot be completed while subtasks 3, 5 are open; complete them first (in the same call if they are done)"}}},
		{"one leaf in progress; its parent does not count",
			[]Todo{todo(1, "a", StatusInProgress), sub(todo(2, "b", StatusInProgress), 1), todo(3, "c", StatusInProgress)}, nil,
			[]Problem{{ID: 3, Field: "status", Reason: "todo 2 is already in-progress and at most one todo may be; mark todo 2 completed (or not-started) first, in the same call if you like"}}},
		{"three levels are the limit",
			[]Todo{{Title: "1", Subtasks: []Todo{{Title: "2", Subtasks: []Todo{{Title: "3", Subtasks: []Todo{{Title: "4"}}}}}}}}, nil,
			[]Problem{{ID: 4, Field: "parent", Reason: "makes it a subtask 4 levels deep, at most 3 (a todo, its subtasks and theirs); attach it higher up"}}},
		{"a missing parent", []Todo{sub(todo(1, "a", StatusNotStarted), 7)}, nil,
			[]Problem{{ID: 1, Field: "parent", Reason: "todo 7 does not exist"}}},
		{"a parent cycle", []Todo{sub(todo(1, "a", StatusNotStarted), 2), sub(todo(2, "b", StatusNotStarted), 1)}, nil,
			[]Problem{
				{ID: 1, Field: "parent", Reason: "todo 1 would be its own ancestor; choose a parent outside its subtasks"},
				{ID: 2, Field: "parent", Reason: "todo 2 would be its own ancestor; choose a parent outside its subtasks"},
			}},
		{"own parent", []Todo{sub(todo(1, "a", StatusNotStarted), 1)}, nil,
			[]Problem{{ID: 1, Field: "parent", Reason: "a todo cannot be its own subtask"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ApplyWrite(List{}, tt.todos, t0)
			if diff := cmp.Diff(tt.probs, mustProblems(t, err)); diff != "" {
				t.Fatalf("ApplyWrite() problems (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got.Todos, ignoreHistory); diff != "" {
				t.Errorf("ApplyWrite() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSubtasksUpdateAndAdd(t *testing.T) {
	old := List{Version: 3, Todos: []Todo{
		todo(1, "build", StatusInProgress),
		sub(todo(2, "compile", StatusCompleted), 1),
		sub(todo(3, "link", StatusInProgress), 1),
		todo(4, "ship", StatusNotStarted),
	}}
	// old as the Apply functions leave it: the parent's progress follows its subtasks.
	derived := append([]Todo{{ID: 1, Title: "build", Status: StatusInProgress, Progress: 0.5}}, old.Todos[1:]...)
	updates := []struct {
		name    string
		patches []Patch
		want    []Todo
		probs   []Problem
	}{
		{"completing the last subtask completes the parent", []Patch{{ID: 3, Status: ptr(StatusCompleted)}, {ID: 4, Status: ptr(StatusInProgress)}},
			[]Todo{todo(1, "build", StatusCompleted), sub(todo(2, "compile", StatusCompleted), 1), sub(todo(3, "link", StatusCompleted), 1), todo(4, "ship", StatusInProgress)}, nil},
		{"completing the parent with them in one call", []Patch{{ID: 3, Status: ptr(StatusCompleted)}, {ID: 1, Status: ptr(StatusCompleted)}},
			[]Todo{todo(1, "build", StatusCompleted), sub(todo(2, "compile", StatusCompleted), 1), sub(todo(3, "link", StatusCompleted), 1), todo(4, "ship", StatusNotStarted)}, nil},
		{"completing the parent alone is refused with the open ids", []Patch{{ID: 1, Status: ptr(StatusCompleted)}}, nil,
			[]Problem{{ID: 1, Field: "status", Reason: "cannot be completed while subtasks 3 are open; complete them first (in the same call if they are done)"}}},
		{"another status for a parent is refused", []Patch{{ID: 1, Status: ptr(StatusNotStarted)}}, nil,
			[]Problem{{ID: 1, Field: "status", Reason: "follows its subtasks 2, 3 (it is in-progress now); set the status of the subtask you work on instead"}}},
		{"progress of a parent is refused", []Patch{{ID: 1, Progress: ptr(0.9)}}, nil,
			[]Problem{{ID: 1, Field: "progress", Reason: "follows its subtasks 2, 3 (50% now); record progress on the subtasks"}}},
		{"subtasks added by update get new ids", []Patch{{ID: 4, Subtasks: []Todo{{Title: "tag"}, {Title: "upload", Estimate: "90 min"}}}},
			append(append([]Todo{}, derived...), sub(todo(5, "tag", StatusNotStarted), 4), sub(Todo{ID: 6, Title: "upload", Status: StatusNotStarted, Estimate: "1h30m"}, 4)), nil},
		{"moving a todo under another", []Patch{{ID: 4, Parent: ptr(1)}},
			[]Todo{{ID: 1, Title: "build", Status: StatusInProgress, Progress: 1.0 / 3}, sub(todo(2, "compile", StatusCompleted), 1), sub(todo(3, "link", StatusInProgress), 1), sub(todo(4, "ship", StatusNotStarted), 1)}, nil},
		{"moving a parent under its own subtask", []Patch{{ID: 1, Parent: ptr(3)}}, nil,
			[]Problem{
				{ID: 1, Field: "parent", Reason: "todo 1 would be its own ancestor; choose a parent outside its subtasks"},
				{ID: 3, Field: "parent", Reason: "todo 3 would be its own ancestor; choose a parent outside its subtasks"},
			}},
		{"completing the parent's last open subtask and reopening one", []Patch{{ID: 3, Status: ptr(StatusCompleted)}, {ID: 2, Status: ptr(StatusNotStarted)}},
			[]Todo{{ID: 1, Title: "build", Status: StatusNotStarted, Progress: 0.5}, sub(todo(2, "compile", StatusNotStarted), 1), sub(todo(3, "link", StatusCompleted), 1), todo(4, "ship", StatusNotStarted)}, nil},
		{"a bad estimate", []Patch{{ID: 4, Estimate: ptr("2 days")}}, nil,
			[]Problem{{ID: 4, Field: "estimate", Reason: `"2 days": give days or weeks in hours (16h), since a working day is not a calendar day`}}},
	}
	for _, tt := range updates {
		t.Run("update/"+tt.name, func(t *testing.T) {
			got, err := ApplyUpdate(old, tt.patches, t0)
			if diff := cmp.Diff(tt.probs, mustProblems(t, err)); diff != "" {
				t.Fatalf("ApplyUpdate() problems (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got.Todos, ignoreHistory); diff != "" {
				t.Errorf("ApplyUpdate() (-want +got):\n%s", diff)
			}
		})
	}
	adds := []struct {
		name  string
		add   []Todo
		want  []Todo
		probs []Problem
	}{
		{"a subtask of an existing todo", []Todo{{Title: "sign", Parent: 4}},
			append(append([]Todo{}, derived...), sub(todo(5, "sign", StatusNotStarted), 4)), nil},
		{"nested subtasks with the ids they get", []Todo{{ID: 5, Title: "docs", Subtasks: []Todo{{ID: 6, Title: "api"}}}},
			append(append([]Todo{}, derived...), todo(5, "docs", StatusNotStarted), sub(todo(6, "api", StatusNotStarted), 5)), nil},
		{"a nested subtask with another id", []Todo{{Title: "docs", Subtasks: []Todo{{ID: 9, Title: "api"}}}}, nil,
			[]Problem{{Index: 1, Field: "id", Reason: "add assigns ids after the highest existing one, so this todo gets id 6, not 9; leave id out or use 6"}}},
		{"an open subtask joins the parent's progress", []Todo{{Title: "relink", Parent: 1}},
			[]Todo{{ID: 1, Title: "build", Status: StatusInProgress, Progress: 1.0 / 3}, old.Todos[1], old.Todos[2], old.Todos[3], sub(todo(5, "relink", StatusNotStarted), 1)}, nil},
	}
	for _, tt := range adds {
		t.Run("add/"+tt.name, func(t *testing.T) {
			got, err := ApplyAdd(old, tt.add, t0)
			if diff := cmp.Diff(tt.probs, mustProblems(t, err)); diff != "" {
				t.Fatalf("ApplyAdd() problems (-want +got):\n%s", diff)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got.Todos, ignoreHistory); diff != "" {
				t.Errorf("ApplyAdd() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAddReopensCompletedParent: an open subtask added under a completed todo reopens it, and
// the completed subtasks stay completed.
func TestAddReopensCompletedParent(t *testing.T) {
	done := List{Todos: []Todo{todo(1, "a", StatusCompleted), sub(todo(2, "b", StatusCompleted), 1)}}
	got, err := ApplyAdd(done, []Todo{{Title: "c", Parent: 1}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Todo{{ID: 1, Title: "a", Status: StatusNotStarted, Progress: 0.5}, sub(todo(2, "b", StatusCompleted), 1), sub(todo(3, "c", StatusNotStarted), 1)}
	if diff := cmp.Diff(want, got.Todos, ignoreHistory); diff != "" {
		t.Errorf("ApplyAdd() (-want +got):\n%s", diff)
	}
	if !got.Todos[0].CompletedAt.IsZero() {
		t.Errorf("reopened parent keeps completed_at %v", got.Todos[0].CompletedAt)
	}
}

// TestStatusHistory follows one todo through two in-progress spells: the time it spent is the
// sum of both, and a write that round-trips the list keeps the history.
func TestStatusHistory(t *testing.T) {
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	l, err := ApplyWrite(List{}, []Todo{{Title: "a", Status: StatusInProgress, Estimate: "1h"}, {Title: "b"}}, at(0))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		min     int
		patches []Patch
	}{
		{20, []Patch{{ID: 1, Status: ptr(StatusNotStarted)}, {ID: 2, Status: ptr(StatusInProgress)}}},
		{30, []Patch{{ID: 2, Status: ptr(StatusBlocked), BlockedReason: ptr("review")}, {ID: 1, Status: ptr(StatusInProgress)}}},
		{45, []Patch{{ID: 1, Status: ptr(StatusCompleted)}}},
	}
	for _, s := range steps {
		if l, err = ApplyUpdate(l, s.patches, at(s.min)); err != nil {
			t.Fatal(err)
		}
	}
	// Written back as read, with no history in it: the history stays.
	round := make([]Todo, len(l.Todos))
	for i, x := range l.Todos {
		round[i] = Todo{ID: x.ID, Title: x.Title, Status: x.Status, Estimate: x.Estimate, BlockedReason: x.BlockedReason}
	}
	if l, err = ApplyWrite(l, round, at(50)); err != nil {
		t.Fatal(err)
	}
	a, b := l.Todos[0], l.Todos[1]
	if got, want := a.Elapsed(at(90)), 35*time.Minute; got != want {
		t.Errorf("todo 1 elapsed = %v, want %v (20m, then 15m)", got, want)
	}
	if !a.Started.Equal(at(0)) || !a.CompletedAt.Equal(at(45)) {
		t.Errorf("todo 1 started %v completed %v, want %v and %v", a.Started, a.CompletedAt, at(0), at(45))
	}
	if got, want := b.Elapsed(at(90)), 10*time.Minute; got != want || !b.ActiveSince.IsZero() {
		t.Errorf("todo 2 elapsed = %v (active since %v), want %v and not active", got, b.ActiveSince, want)
	}
	golden.CheckString(t, "testdata/render_history.golden", RenderAt(l, at(90))+"\n")
}

func TestParseEstimate(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"45m", 45 * time.Minute, ""},
		{"2h", 2 * time.Hour, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"1.5h", 90 * time.Minute, ""},
		{"90 min", 90 * time.Minute, ""},
		{"2 Hours", 2 * time.Hour, ""},
		{"1m", time.Minute, ""},         // at the lower bound
		{"1000h", 1000 * time.Hour, ""}, // at the upper bound
		{"30s", 0, `"30s": unknown unit "s"; use m or h`},
		{"0.4m", 0, `"0.4m" is under a minute; estimate in minutes or hours`},
		{"1000h1m", 0, `"1000h1m" is over 1000h; split the todo into subtasks and estimate those`},
		{"99999999h", 0, `"99999999h" is over 1000h; split the todo into subtasks and estimate those`},
		{"2d", 0, `"2d": give days or weeks in hours (16h), since a working day is not a calendar day`},
		{"soon", 0, `"soon" is not a duration; write it as 45m, 2h or 1h30m`},
		{"45", 0, `"45" has no unit; write 45m or 2h`},
		{"", 0, "is empty; give a duration such as 45m or 2h"},
	}
	for _, tt := range tests {
		got, err := ParseEstimate(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseEstimate(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseEstimate(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
	}
	for d, want := range map[time.Duration]string{30 * time.Second: "<1m", 45 * time.Minute: "45m", 2 * time.Hour: "2h", 90 * time.Minute: "1h30m"} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestSubtaskDecodeErrors: a problem inside subtasks names its place, and an unknown field is
// named with the fields that exist.
func TestSubtaskDecodeErrors(t *testing.T) {
	_, err := DecodeTodos(json.RawMessage(`[{"title":"D","subtasks":[{"title":"x"},{"title":"y","owner":"me"}]}]`))
	want := []Problem{{Index: 1, Field: "subtasks[2].owner", Reason: "unknown field; valid fields: id, title, description, status, priority, dependencies, can_run_parallel, parallel_group, progress, blocked_reason, parent, estimate, subtasks"}}
	if diff := cmp.Diff(want, mustProblems(t, err)); diff != "" {
		t.Errorf("DecodeTodos(nested unknown field) problems (-want +got):\n%s", diff)
	}
	got, err := DecodeTodos(json.RawMessage(`[{"title":"D","subtasks":[{"title":"x","estimate":"45m","parentId":null}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Todo{{Title: "D", Subtasks: []Todo{{Title: "x", Estimate: "45m"}}}}, got); diff != "" {
		t.Errorf("DecodeTodos(subtasks) (-want +got):\n%s", diff)
	}
}

func TestRenderSubtasks(t *testing.T) {
	now := t0.Add(2 * time.Hour)
	l := List{Version: 4, Todos: []Todo{
		{ID: 1, Title: "Build the front end", Status: StatusInProgress, Progress: 0.5, Started: t0},
		{ID: 2, Title: "Lexer", Parent: 1, Status: StatusCompleted, Estimate: "30m", Started: t0, ElapsedSec: 40 * 60, CompletedAt: t0.Add(40 * time.Minute)},
		{ID: 3, Title: "Parser", Parent: 1, Status: StatusInProgress, Estimate: "2h", Started: t0.Add(40 * time.Minute), ActiveSince: t0.Add(time.Hour), ElapsedSec: 600},
		{ID: 4, Title: "Expressions", Parent: 3, Status: StatusInProgress, Started: t0.Add(time.Hour), ActiveSince: t0.Add(time.Hour), Description: "precedence climbing"},
		{ID: 5, Title: "Statements", Parent: 3, Status: StatusNotStarted, Estimate: "45m"},
		{ID: 6, Title: "Docs", Status: StatusNotStarted, Dependencies: []int{1}},
	}}
	golden.CheckString(t, "testdata/render_subtasks.golden", RenderAt(l, now)+"\n")
}
