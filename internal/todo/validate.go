package todo

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Problem is one reason a call was rejected, precise enough for a model to fix its next call.
type Problem struct {
	// ID is the todo the problem concerns; 0 when the item has no id yet or the problem concerns
	// the list as a whole.
	ID int
	// Index is the 1-based position of the item in the input array, used to name items without
	// an id; 0 when not applicable.
	Index int
	// Field is the canonical field name ("status", "dependencies"), or the argument name for
	// problems with a whole argument; empty when the problem concerns the whole todo.
	Field string
	// Reason says what is wrong and, where there is one, what to do instead.
	Reason string
}

// String renders the problem as the model reads it: "todo 3 status: ...".
func (p Problem) String() string {
	var who string
	switch {
	case p.ID > 0:
		who = "todo " + strconv.Itoa(p.ID)
	case p.Index > 0:
		who = "item " + strconv.Itoa(p.Index)
	}
	switch {
	case who != "" && p.Field != "":
		who += " " + p.Field
	case who == "":
		who = p.Field
	}
	if who == "" {
		return p.Reason
	}
	return who + ": " + p.Reason
}

// ValidationError is every problem found in one call. Its text is written for the model: it says
// that nothing was changed and lists each problem with the todo, the field and the reason.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	switch len(e.Problems) {
	case 0:
		return "todo list rejected"
	case 1:
		return "todo list unchanged: " + e.Problems[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "todo list unchanged, %d problems:", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n- ")
		b.WriteString(p.String())
	}
	return b.String()
}

// AsValidationError reports whether err is (or wraps) a [*ValidationError], for tool layers that
// show those to the model as fixable errors and log anything else.
func AsValidationError(err error) (*ValidationError, bool) {
	var ve *ValidationError
	ok := errors.As(err, &ve)
	return ve, ok
}

func statusNames() string {
	names := make([]string, len(Statuses()))
	for i, s := range Statuses() {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

func priorityNames() string {
	names := make([]string, len(Priorities()))
	for i, p := range Priorities() {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// checkTodo validates the fields of one todo on its own.
func checkTodo(t Todo, index int) []Problem {
	var probs []Problem
	add := func(field, reason string) {
		p := Problem{ID: t.ID, Field: field, Reason: reason}
		if t.ID <= 0 {
			p.ID, p.Index = 0, index
		}
		probs = append(probs, p)
	}
	if t.ID <= 0 {
		add("id", fmt.Sprintf("must be a positive integer, got %d", t.ID))
	}
	switch title := strings.TrimSpace(t.Title); {
	case title == "":
		add("title", "must not be empty")
	case strings.ContainsAny(t.Title, "\n\r"):
		add("title", "must be a single line; put details in description")
	case len(t.Title) > MaxTitleBytes:
		add("title", fmt.Sprintf("is %d bytes, at most %d; keep the title short and put details in description", len(t.Title), MaxTitleBytes))
	}
	if len(t.Description) > MaxDescriptionBytes {
		add("description", fmt.Sprintf("is %d bytes, at most %d", len(t.Description), MaxDescriptionBytes))
	}
	if !slices.Contains(Statuses(), t.Status) {
		add("status", fmt.Sprintf("%q is not a status; use one of %s", string(t.Status), statusNames()))
	}
	if t.Priority != "" && !slices.Contains(Priorities(), t.Priority) {
		add("priority", fmt.Sprintf("%q is not a priority; use one of %s, or leave it out", string(t.Priority), priorityNames()))
	}
	switch {
	case math.IsNaN(t.Progress) || t.Progress < 0 || t.Progress > 1:
		reason := fmt.Sprintf("%v is out of range; progress is a fraction from 0.0 to 1.0", t.Progress)
		if t.Progress >= 2 && t.Progress <= 100 {
			reason += fmt.Sprintf(" (use %v for %v%%)", t.Progress/100, t.Progress)
		}
		add("progress", reason)
	}
	if t.Status == StatusBlocked && strings.TrimSpace(t.BlockedReason) == "" {
		add("blocked_reason", "is required when status is blocked; say what the todo waits for")
	}
	if len(t.BlockedReason) > MaxBlockedReasonBytes {
		add("blocked_reason", fmt.Sprintf("is %d bytes, at most %d", len(t.BlockedReason), MaxBlockedReasonBytes))
	}
	if len(t.ParallelGroup) > MaxParallelGroupBytes {
		add("parallel_group", fmt.Sprintf("is %d bytes, at most %d", len(t.ParallelGroup), MaxParallelGroupBytes))
	}
	if len(t.Dependencies) > MaxDependencies {
		add("dependencies", fmt.Sprintf("has %d entries, at most %d", len(t.Dependencies), MaxDependencies))
	}
	seen := map[int]bool{}
	for _, d := range t.Dependencies {
		switch {
		case d == t.ID && d > 0:
			add("dependencies", "a todo cannot depend on itself")
		case seen[d]:
			add("dependencies", fmt.Sprintf("lists todo %d twice", d))
		}
		seen[d] = true
	}
	return probs
}

// Validate checks a whole list against every rule: field rules, size caps, unique ids, at most one
// in-progress todo, dependencies that exist, and no dependency cycles. It returns nil or a
// [*ValidationError] listing every problem.
func Validate(todos []Todo) error {
	if probs := validate(todos); len(probs) > 0 {
		return &ValidationError{Problems: probs}
	}
	return nil
}

func validate(todos []Todo) []Problem {
	var probs []Problem
	if len(todos) > MaxTodos {
		probs = append(probs, Problem{Reason: fmt.Sprintf("the list has %d todos, at most %d; finish or merge some before adding more", len(todos), MaxTodos)})
	}
	ids := map[int]int{} // id -> 1-based index of first occurrence
	for i, t := range todos {
		probs = append(probs, checkTodo(t, i+1)...)
		if t.ID <= 0 {
			continue
		}
		if first, dup := ids[t.ID]; dup {
			probs = append(probs, Problem{ID: t.ID, Field: "id", Reason: fmt.Sprintf("is used by items %d and %d; ids must be unique", first, i+1)})
			continue
		}
		ids[t.ID] = i + 1
	}
	probs = append(probs, checkTree(todos)...)
	// One leaf in progress: a parent is in progress exactly while one of its subtasks is.
	tr := newTree(todos)
	var inProgress []int
	for _, t := range todos {
		if t.Status == StatusInProgress && !tr.isParent(t.ID) {
			inProgress = append(inProgress, t.ID)
		}
	}
	for _, id := range inProgress[min(1, len(inProgress)):] {
		probs = append(probs, Problem{ID: id, Field: "status", Reason: fmt.Sprintf(
			"todo %d is already in-progress and at most one todo may be; mark todo %d completed (or not-started) first, in the same call if you like",
			inProgress[0], inProgress[0])})
	}
	for _, t := range todos {
		for _, d := range t.Dependencies {
			if _, ok := ids[d]; !ok && d != t.ID {
				probs = append(probs, Problem{ID: t.ID, Field: "dependencies", Reason: fmt.Sprintf("depends on todo %d, which does not exist", d)})
			}
		}
	}
	for _, cycle := range findCycles(todos, ids) {
		parts := make([]string, len(cycle))
		for i, id := range cycle {
			parts[i] = strconv.Itoa(id)
		}
		probs = append(probs, Problem{ID: cycle[0], Field: "dependencies", Reason: "dependency cycle " +
			strings.Join(parts, " -> ") + "; remove one of these dependencies"})
	}
	return probs
}

// findCycles returns each dependency cycle once, as the path of ids starting and ending at the
// same id (1 -> 3 -> 1). Self-dependencies are reported by checkTodo and skipped here.
func findCycles(todos []Todo, index map[int]int) [][]int {
	const (
		white = iota
		grey
		black
	)
	color := map[int]int{}
	var cycles [][]int
	var stack []int
	var visit func(id int)
	visit = func(id int) {
		color[id] = grey
		stack = append(stack, id)
		t := todos[index[id]-1]
		for _, d := range t.Dependencies {
			if _, ok := index[d]; !ok || d == id {
				continue
			}
			switch color[d] {
			case white:
				visit(d)
			case grey:
				start := slices.Index(stack, d)
				cycle := append(slices.Clone(stack[start:]), d)
				cycles = append(cycles, cycle)
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = black
	}
	for i, t := range todos {
		if index[t.ID] == i+1 && color[t.ID] == white {
			visit(t.ID)
		}
	}
	return cycles
}

// checkCompletedKept reports completed todos of old that are missing from next: completed work is
// the record of what was done and is never deleted, only reopened by an explicit update.
func checkCompletedKept(old, next []Todo) []Problem {
	present := map[int]bool{}
	for _, t := range next {
		present[t.ID] = true
	}
	var missing []string
	for _, t := range old {
		if t.Status == StatusCompleted && !present[t.ID] {
			missing = append(missing, fmt.Sprintf("%d (%q)", t.ID, t.Title))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	noun, verb := "todo", "is"
	if len(missing) > 1 {
		noun, verb = "todos", "are"
	}
	return []Problem{{Field: "todo_list", Reason: fmt.Sprintf(
		"completed %s %s %s missing; completed todos cannot be deleted, include them with the same id (or use add to append new todos)",
		noun, strings.Join(missing, ", "), verb)}}
}
