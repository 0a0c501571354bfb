// Package todo is the engine behind the todo_operations tool: the conversation-scoped todo list a
// model keeps while it works on a multi-step task, its validation rules and its persistence.
//
// The package knows nothing about MCP. The tool layer decodes the model's arguments with
// [DecodeArgs] (which accepts the snake_case and camelCase spellings models send), calls [Read],
// [Write], [Add] or [Update], and shows the model [Render] of the returned [List]. Every rule
// violation comes back as a [*ValidationError] whose text names the todo, the field and the reason,
// and nothing is ever silently "fixed": a rejected call leaves the stored list untouched.
//
// A todo may have subtasks, three levels deep (a todo, its subtasks and theirs): the model nests
// them in Subtasks, and the list keeps them flat with Parent set. A parent's status and progress
// follow its subtasks (completing one while a subtask is open is refused with the open ids), so
// exactly one todo without subtasks is in progress at a time. Each todo keeps its status
// history (when it started, how long it was in progress, when it was completed), from which
// [Render] shows the time spent next to the [ParseEstimate]d estimate.
//
// Each conversation's list is one JSON document in the shared bbolt store, changed in a single
// store transaction per call, so several toolhost processes sharing a state directory serialise
// their changes and none is lost.
package todo

import (
	"time"
)

// Status is where a todo stands. A model moves a todo from not-started to in-progress when it
// starts the work and to completed right after finishing it; blocked needs a reason.
type Status string

// The four statuses. At most one todo may be in-progress at a time, which keeps the model working
// on one thing and makes "what am I doing now" answerable from the list alone.
const (
	StatusNotStarted Status = "not-started"
	StatusInProgress Status = "in-progress"
	StatusCompleted  Status = "completed"
	StatusBlocked    Status = "blocked"
)

// Statuses lists the valid statuses in the order they are reported, so error messages and schemas
// (the enum of the status parameter) can name them without repeating the list. It returns a new
// slice on every call, so callers cannot change the package's idea of what is valid.
func Statuses() []Status {
	return []Status{StatusNotStarted, StatusInProgress, StatusCompleted, StatusBlocked}
}

// Priority is optional; it lets a model order work without inventing its own vocabulary.
type Priority string

// The valid priorities; the empty Priority means "not set".
const (
	PriorityLow      Priority = "low"
	PriorityMedium   Priority = "medium"
	PriorityHigh     Priority = "high"
	PriorityCritical Priority = "critical"
)

// Priorities lists the valid non-empty priorities, lowest first, as a new slice.
func Priorities() []Priority {
	return []Priority{PriorityLow, PriorityMedium, PriorityHigh, PriorityCritical}
}

// Size caps. A todo list lives in every reminder and every read, so it is kept small on purpose;
// the caps are generous for planning and stop a runaway model from filling the store.
const (
	MaxTodos              = 200
	MaxTitleBytes         = 200
	MaxDescriptionBytes   = 2048
	MaxBlockedReasonBytes = 1024
	MaxParallelGroupBytes = 64
	MaxDependencies       = 50
	// MaxDepth is how deep subtasks nest: a todo, its subtasks and theirs.
	MaxDepth = 3
)

// Todo is one item of the list. The json tags are the canonical (stored and displayed) spelling;
// decoding also accepts camelCase spellings and a few aliases, see [DecodeTodos].
type Todo struct {
	ID             int      `json:"id" jsonschema:"todo id, a positive integer unique in the list"`
	Title          string   `json:"title" jsonschema:"short title"`
	Description    string   `json:"description,omitempty" jsonschema:"details, at most 2 KB"`
	Status         Status   `json:"status" jsonschema:"not-started, in-progress, completed or blocked"`
	Priority       Priority `json:"priority,omitempty" jsonschema:"low, medium, high or critical"`
	Dependencies   []int    `json:"dependencies,omitempty" jsonschema:"ids of todos this one depends on"`
	CanRunParallel bool     `json:"can_run_parallel,omitempty" jsonschema:"true if it may run alongside others"`
	ParallelGroup  string   `json:"parallel_group,omitempty" jsonschema:"name of a group of todos that may run together"`
	Progress       float64  `json:"progress,omitempty" jsonschema:"fraction done, 0.0 to 1.0"`
	BlockedReason  string   `json:"blocked_reason,omitempty" jsonschema:"why the todo is blocked; required when status is blocked"`
	// Parent is the id of the todo this one is a subtask of; 0 for a top-level todo. A parent's
	// status and progress follow its subtasks (see [ApplyWrite]).
	Parent int `json:"parent,omitempty"`
	// Estimate is how long the todo should take, normalised by [ParseEstimate] ("1h30m").
	Estimate string `json:"estimate,omitempty"`
	// Subtasks are child todos as the model writes them, nested; the Apply functions flatten
	// them into the list with Parent set, so a stored or returned list never has any.
	Subtasks []Todo `json:"subtasks,omitempty"`

	// The status history, kept by the Apply functions from each change of status (the model
	// cannot set these): when the todo first went in-progress, since when it is in-progress
	// now, the seconds of its earlier in-progress spells, and when it was completed.
	Started     time.Time `json:"started,omitzero"`
	ActiveSince time.Time `json:"active_since,omitzero"`
	ElapsedSec  int64     `json:"elapsed_s,omitempty"`
	CompletedAt time.Time `json:"completed_at,omitzero"`
}

// Elapsed is the time the todo has spent in-progress up to now, from its status history.
func (t Todo) Elapsed(now time.Time) time.Duration {
	d := time.Duration(t.ElapsedSec) * time.Second
	if !t.ActiveSince.IsZero() && now.After(t.ActiveSince) {
		d += now.Sub(t.ActiveSince)
	}
	return d
}

// List is a conversation's stored todo list. Version increases by one on every accepted change,
// which lets readers (reminders, other processes, tests) tell whether anything happened.
type List struct {
	Version   uint64    `json:"version"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
	Todos     []Todo    `json:"todos"`
}

// Stats summarises a list for the model: how much is done at a glance.
type Stats struct {
	Total      int `json:"total"`
	NotStarted int `json:"not_started"`
	InProgress int `json:"in_progress"`
	Completed  int `json:"completed"`
	Blocked    int `json:"blocked"`
	// PercentDone is completed/total in whole percent, rounded down so that 100 means all done.
	PercentDone int `json:"percent_done"`
}

// Stats counts the todos per status.
func (l List) Stats() Stats {
	var s Stats
	for _, t := range l.Todos {
		s.Total++
		switch t.Status {
		case StatusNotStarted:
			s.NotStarted++
		case StatusInProgress:
			s.InProgress++
		case StatusCompleted:
			s.Completed++
		case StatusBlocked:
			s.Blocked++
		}
	}
	if s.Total > 0 {
		s.PercentDone = s.Completed * 100 / s.Total
	}
	return s
}

// Snapshot is the structured form of a list for tool results (structuredContent): the todos plus
// their statistics, so a client need not recount.
type Snapshot struct {
	Version uint64 `json:"version"`
	Stats   Stats  `json:"stats"`
	Todos   []Todo `json:"todos"`
}

// Snapshot returns the structured form of l. Todos is never nil, so it encodes as [] not null.
func (l List) Snapshot() Snapshot {
	todos := l.Todos
	if todos == nil {
		todos = []Todo{}
	}
	return Snapshot{Version: l.Version, Stats: l.Stats(), Todos: todos}
}

// InProgress returns the todo being worked on, if any: the in-progress todo without subtasks
// (its ancestors are in progress with it).
func (l List) InProgress() (Todo, bool) {
	t := newTree(l.Todos)
	for _, x := range l.Todos {
		if x.Status == StatusInProgress && !t.isParent(x.ID) {
			return x, true
		}
	}
	for _, x := range l.Todos {
		if x.Status == StatusInProgress {
			return x, true
		}
	}
	return Todo{}, false
}

// Path returns the titles of id's ancestors, the top-level one first, for naming a subtask
// where it is shown alone ("Build the parser > Lexer").
func (l List) Path(id int) []Todo {
	t := newTree(l.Todos)
	var out []Todo
	seen := map[int]bool{}
	for {
		x, ok := t.pos[id]
		if !ok || seen[id] {
			break
		}
		seen[id] = true
		p := l.Todos[x].Parent
		if _, ok := t.pos[p]; !ok || p == 0 {
			break
		}
		out = append([]Todo{*t.get(p)}, out...)
		id = p
	}
	return out
}

// maxID is the highest id in todos, 0 for none.
func maxID(todos []Todo) int {
	m := 0
	for _, t := range todos {
		if t.ID > m {
			m = t.ID
		}
	}
	return m
}

// clone returns a deep copy so that applying changes never aliases the caller's slices.
func clone(todos []Todo) []Todo {
	out := make([]Todo, len(todos))
	for i, t := range todos {
		if t.Dependencies != nil {
			t.Dependencies = append([]int(nil), t.Dependencies...)
		}
		if t.Subtasks != nil {
			t.Subtasks = clone(t.Subtasks)
		}
		out[i] = t
	}
	return out
}
