package todo

import (
	"testing"

	"toolhost/internal/golden"

	"github.com/google/go-cmp/cmp"
)

func TestRender(t *testing.T) {
	tests := []struct {
		name string
		list List
	}{
		{"empty", List{}},
		{"mixed", List{Version: 12, Todos: []Todo{
			{ID: 1, Title: "Read the parser code", Status: StatusCompleted, Description: "done, not shown"},
			{ID: 2, Title: "Write failing test for nested tables", Status: StatusCompleted, Progress: 1},
			{ID: 3, Title: "Fix nested table parsing", Status: StatusInProgress, Priority: PriorityHigh, Progress: 0.4,
				Dependencies: []int{2}, Description: "The parser drops keys after the second   level.\nCheck parseTable."},
			{ID: 4, Title: "Update docs", Status: StatusNotStarted, Dependencies: []int{3}, CanRunParallel: true},
			{ID: 5, Title: "Benchmark", Status: StatusNotStarted, ParallelGroup: "checks", Dependencies: []int{1}},
			{ID: 6, Title: "Release", Status: StatusBlocked, BlockedReason: "needs the maintainer's signing key", Priority: PriorityCritical},
		}}},
		{"all_done", List{Version: 3, Todos: []Todo{
			{ID: 1, Title: "a", Status: StatusCompleted},
			{ID: 2, Title: "b", Status: StatusCompleted},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden.CheckString(t, "testdata/render_"+tt.name+".golden", Render(tt.list)+"\n")
		})
	}
}

func TestStats(t *testing.T) {
	l := List{Todos: []Todo{todo(1, "a", StatusCompleted), todo(2, "b", StatusInProgress), todo(3, "c", StatusNotStarted), {ID: 4, Title: "d", Status: StatusBlocked, BlockedReason: "x"}}}
	want := Stats{Total: 4, NotStarted: 1, InProgress: 1, Completed: 1, Blocked: 1, PercentDone: 25}
	if diff := cmp.Diff(want, l.Stats()); diff != "" {
		t.Errorf("Stats() (-want +got):\n%s", diff)
	}
	if got := (List{}).Snapshot().Todos; got == nil {
		t.Errorf("Snapshot().Todos = nil, want empty slice")
	}
}

func TestShorten(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"a longer text", 10, "a longe..."},
		{"héééééé", 6, "hé..."},
	}
	for _, tt := range tests {
		if got := Shorten(tt.in, tt.n); got != tt.want {
			t.Errorf("Shorten(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
