package todo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Subtasks. A list is stored flat; a todo's Parent names the todo it is a subtask of, at most
// MaxDepth levels deep. A parent's status and progress are not the model's to set: they follow
// its subtasks (see derive), and a parent is completed only when every subtask is. Exactly one
// leaf (a todo without subtasks) may be in progress; its ancestors are in progress with it.

// tree indexes a flat list by parent.
type tree struct {
	todos    []Todo
	pos      map[int]int   // id -> index in todos
	children map[int][]int // parent id -> child ids, in list order; 0 holds the top level
}

func newTree(todos []Todo) *tree {
	t := &tree{todos: todos, pos: make(map[int]int, len(todos)), children: map[int][]int{}}
	for i, x := range todos {
		if _, dup := t.pos[x.ID]; !dup {
			t.pos[x.ID] = i
		}
	}
	for _, x := range todos {
		p := x.Parent
		if _, ok := t.pos[p]; !ok || p == x.ID {
			p = 0 // an orphan or a self-parent (refused by validate) shows at the top
		}
		t.children[p] = append(t.children[p], x.ID)
	}
	return t
}

func (t *tree) get(id int) *Todo { return &t.todos[t.pos[id]] }

func (t *tree) isParent(id int) bool { return len(t.children[id]) > 0 }

// order returns the list in tree order (each todo followed by its subtasks, depth first) with
// each todo's depth from 1. A parent cycle (refused by validate) leaves its members out of the
// walk; they are appended at depth 1 so nothing disappears from a rendering.
func (t *tree) order() (ids []int, depth map[int]int) {
	depth = map[int]int{}
	var walk func(parent, d int)
	walk = func(parent, d int) {
		for _, id := range t.children[parent] {
			if _, seen := depth[id]; seen {
				continue
			}
			depth[id] = d
			ids = append(ids, id)
			walk(id, d+1)
		}
	}
	walk(0, 1)
	for _, x := range t.todos {
		if _, seen := depth[x.ID]; !seen {
			depth[x.ID] = 1
			ids = append(ids, x.ID)
		}
	}
	return ids, depth
}

// descendants returns the ids below id, depth first.
func (t *tree) descendants(id int) []int {
	var out []int
	seen := map[int]bool{id: true}
	var walk func(int)
	walk = func(p int) {
		for _, c := range t.children[p] {
			if seen[c] {
				continue
			}
			seen[c] = true
			out = append(out, c)
			walk(c)
		}
	}
	walk(id)
	return out
}

// openSubtasks returns the ids of id's descendants that are not completed.
func (t *tree) openSubtasks(id int) []int {
	var out []int
	for _, d := range t.descendants(id) {
		if x := t.get(d); x.Status != StatusCompleted && !t.isParent(d) {
			out = append(out, d)
		}
	}
	return out
}

// flatten turns the nested Subtasks of todos into list entries right after their parent,
// numbering those without an id from next on (the parent before its subtasks) and setting
// Parent. It returns the flat list and the next free id.
func flatten(todos []Todo, next int) ([]Todo, int) {
	var out []Todo
	var walk func(items []Todo, parent int)
	walk = func(items []Todo, parent int) {
		for _, x := range items {
			if x.ID == 0 {
				x.ID = next
				next++
			}
			if parent != 0 {
				x.Parent = parent
			}
			subs := x.Subtasks
			x.Subtasks = nil
			out = append(out, x)
			walk(subs, x.ID)
		}
	}
	walk(todos, 0)
	return out, next
}

// maxNestedID is the highest id given anywhere in todos, subtasks included.
func maxNestedID(todos []Todo) int {
	m := 0
	for _, x := range todos {
		m = max(m, x.ID, maxNestedID(x.Subtasks))
	}
	return m
}

// derive sets each parent's status, progress and blocked reason from its subtasks, deepest
// first: completed when all are; in progress when one is; blocked when every unfinished one
// is; else not started. Progress is the mean of the subtasks' (1 for a completed one).
func derive(todos []Todo) {
	t := newTree(todos)
	ids, depth := t.order()
	byDepth := slices.Clone(ids)
	slices.SortStableFunc(byDepth, func(a, b int) int { return depth[b] - depth[a] })
	for _, id := range byDepth {
		kids := t.children[id]
		if len(kids) == 0 {
			continue
		}
		p := t.get(id)
		var done, active int
		var blocked []string
		var sum float64
		for _, k := range kids {
			c := t.get(k)
			switch c.Status {
			case StatusCompleted:
				done++
				sum++
			case StatusInProgress:
				active++
				sum += c.Progress
			case StatusBlocked:
				blocked = append(blocked, strconv.Itoa(k))
				sum += c.Progress
			default:
				sum += c.Progress
			}
		}
		p.Progress = sum / float64(len(kids))
		p.BlockedReason = ""
		switch {
		case done == len(kids):
			p.Status, p.Progress = StatusCompleted, 0
		case active > 0:
			p.Status = StatusInProgress
		case len(blocked) == len(kids)-done:
			p.Status = StatusBlocked
			noun := "subtask " + blocked[0] + " is"
			if len(blocked) > 1 {
				noun = "subtasks " + strings.Join(blocked, ", ") + " are"
			}
			p.BlockedReason = noun + " blocked"
		default:
			p.Status = StatusNotStarted
		}
	}
}

// track keeps the status history: for every todo whose status differs from its status in old
// (or that is new), it records the change at now. Todos of next carry over the history old has
// for the same id, so a write that round-trips a list keeps it.
func track(old, next []Todo, now time.Time) {
	prev := make(map[int]Todo, len(old))
	for _, x := range old {
		prev[x.ID] = x
	}
	for i := range next {
		x := &next[i]
		was, existed := prev[x.ID]
		if existed {
			x.Started, x.ActiveSince, x.ElapsedSec, x.CompletedAt = was.Started, was.ActiveSince, was.ElapsedSec, was.CompletedAt
		} else {
			x.Started, x.ActiveSince, x.ElapsedSec, x.CompletedAt = time.Time{}, time.Time{}, 0, time.Time{}
		}
		if existed && was.Status == x.Status {
			continue
		}
		if existed && was.Status == StatusInProgress && !x.ActiveSince.IsZero() {
			x.ElapsedSec += int64(now.Sub(x.ActiveSince) / time.Second)
			x.ActiveSince = time.Time{}
		}
		switch x.Status {
		case StatusInProgress:
			if x.Started.IsZero() {
				x.Started = now
			}
			x.ActiveSince = now
		case StatusCompleted:
			x.CompletedAt = now
		}
		if x.Status != StatusCompleted {
			x.CompletedAt = time.Time{}
		}
	}
}

// estimate is a todo's estimate, or for a parent without one the sum of its subtasks'.
func (t *tree) estimate(id int) time.Duration {
	x := t.get(id)
	if d := estimateOf(x.Estimate); d > 0 || !t.isParent(id) {
		return d
	}
	var sum time.Duration
	for _, c := range t.children[id] {
		sum += t.estimate(c)
	}
	return sum
}

// elapsed is the time a todo spent in progress: its own spells, or for a parent the sum of
// its subtasks' when that is more (a parent is in progress exactly while one of them is, so
// its own history says the same unless it was worked on before it had subtasks).
func (t *tree) elapsed(id int, now time.Time) time.Duration {
	own := t.get(id).Elapsed(now)
	if !t.isParent(id) {
		return own
	}
	var sum time.Duration
	for _, c := range t.children[id] {
		sum += t.elapsed(c, now)
	}
	return max(own, sum)
}

// idList renders ids as "4, 6".
func idList(ids []int) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(id)
	}
	return strings.Join(parts, ", ")
}

// checkTree reports problems of the parent links: a parent that does not exist, a todo that is
// its own ancestor, subtasks deeper than MaxDepth.
func checkTree(todos []Todo) []Problem {
	var probs []Problem
	ids := map[int]bool{}
	for _, x := range todos {
		ids[x.ID] = true
	}
	parent := map[int]int{}
	for _, x := range todos {
		parent[x.ID] = x.Parent
	}
	for _, x := range todos {
		switch {
		case x.Parent == 0:
			continue
		case x.Parent < 0:
			probs = append(probs, Problem{ID: x.ID, Field: "parent", Reason: fmt.Sprintf("must be the id of a todo, got %d", x.Parent)})
			continue
		case x.Parent == x.ID:
			probs = append(probs, Problem{ID: x.ID, Field: "parent", Reason: "a todo cannot be its own subtask"})
			continue
		case !ids[x.Parent]:
			probs = append(probs, Problem{ID: x.ID, Field: "parent", Reason: fmt.Sprintf("todo %d does not exist", x.Parent)})
			continue
		}
		depth, id := 1, x.ID
		seen := map[int]bool{id: true}
		for parent[id] != 0 && ids[parent[id]] {
			id = parent[id]
			if seen[id] {
				// A loop: reported by its members; a todo hanging below one has no depth.
				if id == x.ID {
					probs = append(probs, Problem{ID: x.ID, Field: "parent", Reason: fmt.Sprintf("todo %d would be its own ancestor; choose a parent outside its subtasks", x.ID)})
				}
				depth = 0
				break
			}
			seen[id] = true
			depth++
		}
		if depth > MaxDepth {
			probs = append(probs, Problem{ID: x.ID, Field: "parent", Reason: fmt.Sprintf(
				"makes it a subtask %d levels deep, at most %d (a todo, its subtasks and theirs); attach it higher up", depth, MaxDepth)})
		}
	}
	return probs
}
