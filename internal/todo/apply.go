package todo

import (
	"fmt"
	"math"
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
// and new lists, in order (a todo before its subtasks); a missing status means not-started.
// Completed todos of the old list must all be present (they are the record of work done). A
// parent's status and progress follow its subtasks, so what the list gives for them is replaced,
// except that a parent given as completed while a subtask is open is refused.
func ApplyWrite(old List, todos []Todo, now time.Time) (List, error) {
	next, _ := flatten(clone(todos), max(maxNestedID(todos), maxID(old.Todos))+1)
	for i := range next {
		if next[i].Status == "" {
			next[i].Status = StatusNotStarted
		}
	}
	return finish(old, next, claims(next), false, now, checkCompletedKept(old.Todos, next))
}

// ApplyAdd appends todos, their subtasks after each. Ids are assigned after the highest
// existing id, a todo before its subtasks; an id given by the model must be the one it would get
// (so dependencies between new todos can be written), anything else is rejected rather than
// renumbered behind the model's back. A new todo may name an existing todo as its parent.
// Existing todos, completed ones included, are kept as they are (a parent's status follows its
// new subtasks).
func ApplyAdd(old List, todos []Todo, now time.Time) (List, error) {
	if len(todos) == 0 {
		return List{}, &ValidationError{Problems: []Problem{{Field: "new_todos", Reason: "give at least one todo to add"}}}
	}
	added, _, probs := number(clone(todos), maxID(old.Todos)+1, 0)
	for i := range added {
		if added[i].Status == "" {
			added[i].Status = StatusNotStarted
		}
	}
	return finish(old, append(clone(old.Todos), added...), claims(added), false, now, probs)
}

// number flattens new todos (see flatten) checking the ids the model gave: each must be the
// one it gets, next on in tree order. parent is the todo they are subtasks of (0: none given).
func number(todos []Todo, next, parent int) (out []Todo, after int, probs []Problem) {
	var walk func(items []Todo, parent, index int)
	walk = func(items []Todo, parent, index int) {
		for i, x := range items {
			at := index
			if at == 0 {
				at = i + 1
			}
			switch given := x.ID; {
			case given == 0:
			case given != next:
				probs = append(probs, Problem{Index: at, Field: "id", Reason: fmt.Sprintf(
					"add assigns ids after the highest existing one, so this todo gets id %d, not %d; leave id out or use %d", next, given, next)})
			}
			x.ID = next
			next++
			if parent != 0 {
				x.Parent = parent
			}
			subs := x.Subtasks
			x.Subtasks = nil
			out = append(out, x)
			walk(subs, x.ID, at)
		}
	}
	walk(todos, parent, 0)
	return out, next, probs
}

// ApplyUpdate changes fields of existing todos by id. Moving a todo out of blocked clears its
// blocked_reason unless the same patch sets one. The result must pass [Validate] as a whole, so
// "complete 3 and start 4" works in one call while "start 4" alone, with 3 in progress, does not.
// A patch's subtasks are added under its todo with new ids. A parent's status follows its
// subtasks: a patch that completes a parent with open subtasks is refused naming them, and one
// that sets another status than the subtasks give is refused too.
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
	nextID := maxID(old.Todos) + 1
	var added []Todo
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
		if len(p.Subtasks) > 0 {
			subs, after, sprobs := number(clone(p.Subtasks), nextID, p.ID)
			for j := range sprobs {
				sprobs[j].ID, sprobs[j].Index, sprobs[j].Field = p.ID, 0, "subtasks "+sprobs[j].Field
			}
			probs = append(probs, sprobs...)
			for j := range subs {
				if subs[j].Status == "" {
					subs[j].Status = StatusNotStarted
				}
			}
			added = append(added, subs...)
			nextID = after
		}
	}
	if len(probs) > 0 {
		return List{}, &ValidationError{Problems: probs}
	}
	return finish(old, append(next, added...), append(patches, claims(added)...), true, now, nil)
}

// finish completes an Apply: estimates are normalised, what the call says about parents'
// statuses (claims) checked, parents derived from their subtasks, the whole list validated and
// the status history kept. strict (update) refuses any claim the subtasks contradict.
func finish(old List, next []Todo, claimed []Patch, strict bool, now time.Time, probs []Problem) (List, error) {
	probs = append(probs, normalize(next)...)
	derive(next)
	probs = append(probs, checkParents(next, claimed, strict)...)
	probs = append(probs, validate(next)...)
	if len(probs) > 0 {
		return List{}, &ValidationError{Problems: probs}
	}
	track(old.Todos, next, now)
	return List{Version: old.Version + 1, UpdatedAt: now, Todos: next}, nil
}

// claims are the statuses todos were given, as patches, for checkParents.
func claims(todos []Todo) []Patch {
	out := make([]Patch, len(todos))
	for i, t := range todos {
		st := t.Status
		out[i] = Patch{ID: t.ID, Status: &st}
	}
	return out
}

// normalize rewrites each estimate in its canonical form, reporting those that do not parse.
func normalize(todos []Todo) []Problem {
	var probs []Problem
	for i := range todos {
		e, err := normalizeEstimate(todos[i].Estimate)
		if err != nil {
			probs = append(probs, Problem{ID: todos[i].ID, Field: "estimate", Reason: err.Error()})
			continue
		}
		todos[i].Estimate = e
	}
	return probs
}

// checkParents compares what the call said about parents (claimed) with what their subtasks
// make of them (derived). Completing a parent whose subtasks are open is refused with their ids.
// strict (update) also refuses a status or progress of a parent that its subtasks do not give;
// otherwise (write, add) a parent's other statuses are just replaced, so a list read back and
// written keeps what the last read showed.
func checkParents(derived []Todo, claimed []Patch, strict bool) []Problem {
	t := newTree(derived)
	var probs []Problem
	for _, p := range claimed {
		if !t.isParent(p.ID) {
			continue
		}
		d := t.get(p.ID)
		switch {
		case p.Status == nil:
		case *p.Status == StatusCompleted && d.Status != StatusCompleted:
			probs = append(probs, Problem{ID: p.ID, Field: "status", Reason: fmt.Sprintf(
				"cannot be completed while subtasks %s are open; complete them first (in the same call if they are done)", idList(t.openSubtasks(p.ID)))})
		case strict && *p.Status != d.Status:
			probs = append(probs, Problem{ID: p.ID, Field: "status", Reason: fmt.Sprintf(
				"follows its subtasks %s (it is %s now); set the status of the subtask you work on instead", idList(t.children[p.ID]), d.Status)})
		}
		if strict && p.Progress != nil && math.Abs(*p.Progress-d.Progress) > 0.005 {
			probs = append(probs, Problem{ID: p.ID, Field: "progress", Reason: fmt.Sprintf(
				"follows its subtasks %s (%d%% now); record progress on the subtasks", idList(t.children[p.ID]), int(d.Progress*100+0.5))})
		}
	}
	return probs
}

func (p Patch) empty() bool {
	return p.Title == nil && p.Description == nil && p.Status == nil && p.Priority == nil &&
		p.Dependencies == nil && p.CanRunParallel == nil && p.ParallelGroup == nil &&
		p.Progress == nil && p.BlockedReason == nil && p.Parent == nil && p.Estimate == nil &&
		len(p.Subtasks) == 0
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
	if p.Parent != nil {
		t.Parent = *p.Parent
	}
	if p.Estimate != nil {
		t.Estimate = *p.Estimate
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
