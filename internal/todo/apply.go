package todo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The Apply functions are the pure core of the operations: old list in, new list out, no I/O.
// The stored operations ([Write], [Add], [Update]) run them inside one store transaction; programs
// that keep a list elsewhere can use them directly. Each returns a list with Version old+1 and
// UpdatedAt now, or a [*ValidationError] and the zero List.

// ApplyWrite replaces the whole list. Todos without an id get ids after the highest id in the old
// and new lists, in order; a missing status means not-started. Completed todos of the old list
// must all be present (they are the record of work done).
func ApplyWrite(old List, todos []Todo, now time.Time) (List, error) {
	next := clone(todos)
	id := max(maxID(next), maxID(old.Todos)) + 1
	for i := range next {
		if next[i].ID == 0 {
			next[i].ID = id
			id++
		}
		if next[i].Status == "" {
			next[i].Status = StatusNotStarted
		}
	}
	probs := validate(next)
	probs = append(probs, checkCompletedKept(old.Todos, next)...)
	if len(probs) > 0 {
		return List{}, &ValidationError{Problems: probs}
	}
	return List{Version: old.Version + 1, UpdatedAt: now, Todos: next}, nil
}

// ApplyAdd appends todos. Ids are assigned after the highest existing id; an id given by the model
// must be the one it would get (so dependencies between new todos can be written), anything else
// is rejected rather than renumbered behind the model's back. Existing todos, completed ones
// included, are kept as they are.
func ApplyAdd(old List, todos []Todo, now time.Time) (List, error) {
	if len(todos) == 0 {
		return List{}, &ValidationError{Problems: []Problem{{Field: "new_todos", Reason: "give at least one todo to add"}}}
	}
	added := clone(todos)
	var probs []Problem
	id := maxID(old.Todos) + 1
	for i := range added {
		switch given := added[i].ID; {
		case given == 0:
			added[i].ID = id
		case given != id:
			probs = append(probs, Problem{Index: i + 1, Field: "id", Reason: fmt.Sprintf(
				"add assigns ids after the highest existing one, so this todo gets id %d, not %d; leave id out or use %d", id, given, id)})
			added[i].ID = id
		}
		id++
		if added[i].Status == "" {
			added[i].Status = StatusNotStarted
		}
	}
	next := append(clone(old.Todos), added...)
	probs = append(probs, validate(next)...)
	if len(probs) > 0 {
		return List{}, &ValidationError{Problems: probs}
	}
	return List{Version: old.Version + 1, UpdatedAt: now, Todos: next}, nil
}

// ApplyUpdate changes fields of existing todos by id. Moving a todo out of blocked clears its
// blocked_reason unless the same patch sets one. The result must pass [Validate] as a whole, so
// "complete 3 and start 4" works in one call while "start 4" alone, with 3 in progress, does not.
func ApplyUpdate(old List, patches []Patch, now time.Time) (List, error) {
	if len(patches) == 0 {
		return List{}, &ValidationError{Problems: []Problem{{Field: "todo_updates", Reason: "give at least one update with an id and the fields to change"}}}
	}
	next := clone(old.Todos)
	pos := make(map[int]int, len(next))
	for i, t := range next {
		pos[t.ID] = i
	}
	var probs []Problem
	seen := map[int]bool{}
	for i, p := range patches {
		at, ok := pos[p.ID]
		switch {
		case p.ID <= 0:
			probs = append(probs, Problem{Index: i + 1, Field: "id", Reason: "is required: the id of the todo to change"})
			continue
		case seen[p.ID]:
			probs = append(probs, Problem{ID: p.ID, Reason: "is updated twice in one call; merge the two updates"})
			continue
		case !ok:
			probs = append(probs, Problem{ID: p.ID, Reason: "does not exist; " + existingIDs(next)})
			continue
		case p.empty():
			probs = append(probs, Problem{ID: p.ID, Reason: "the update changes nothing; give the fields to change (status, title, progress, ...)"})
			continue
		}
		seen[p.ID] = true
		next[at] = p.apply(next[at])
	}
	if len(probs) > 0 {
		return List{}, &ValidationError{Problems: probs}
	}
	if probs := validate(next); len(probs) > 0 {
		return List{}, &ValidationError{Problems: probs}
	}
	return List{Version: old.Version + 1, UpdatedAt: now, Todos: next}, nil
}

func (p Patch) empty() bool {
	return p.Title == nil && p.Description == nil && p.Status == nil && p.Priority == nil &&
		p.Dependencies == nil && p.CanRunParallel == nil && p.ParallelGroup == nil &&
		p.Progress == nil && p.BlockedReason == nil
}

func (p Patch) apply(t Todo) Todo {
	if p.Title != nil {
		t.Title = *p.Title
	}
	if p.Description != nil {
		t.Description = *p.Description
	}
	if p.Status != nil {
		if t.Status == StatusBlocked && *p.Status != StatusBlocked && p.BlockedReason == nil {
			t.BlockedReason = ""
		}
		t.Status = *p.Status
	}
	if p.Priority != nil {
		t.Priority = *p.Priority
	}
	if p.Dependencies != nil {
		t.Dependencies = slices.Clone(*p.Dependencies)
		if len(t.Dependencies) == 0 {
			t.Dependencies = nil
		}
	}
	if p.CanRunParallel != nil {
		t.CanRunParallel = *p.CanRunParallel
	}
	if p.ParallelGroup != nil {
		t.ParallelGroup = *p.ParallelGroup
	}
	if p.Progress != nil {
		t.Progress = *p.Progress
	}
	if p.BlockedReason != nil {
		t.BlockedReason = *p.BlockedReason
	}
	return t
}

// existingIDs names the ids a model may use, compressed into ranges ("existing ids: 1-7, 9").
func existingIDs(todos []Todo) string {
	if len(todos) == 0 {
		return "the list is empty; use add or write first"
	}
	ids := make([]int, len(todos))
	for i, t := range todos {
		ids[i] = t.ID
	}
	slices.Sort(ids)
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, strconv.Itoa(ids[i])+"-"+strconv.Itoa(ids[j]))
		} else {
			parts = append(parts, strconv.Itoa(ids[i]))
		}
		i = j + 1
	}
	return "existing ids: " + strings.Join(parts, ", ")
}
