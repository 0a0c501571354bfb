package todo

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// RenderDescriptionBytes caps each description in [Render]; the full text stays in the stored list
// and in [List.Snapshot].
const RenderDescriptionBytes = 200

// Render is the compact text a model reads after every todo operation: one header line with the
// counts per status and the percent done, then one line per todo with a status marker
// ([x] completed, [>] in-progress, [ ] not-started, [!] blocked), its id and title, and what
// matters for picking the next step (priority, progress, unfinished dependencies, estimate and
// time spent, blocked reason). Subtasks follow their parent, indented. Descriptions of unfinished
// todos follow, indented and shortened. Plain ASCII: it costs fewer tokens than symbols.
func Render(l List) string { return RenderAt(l, time.Now()) }

// RenderAt is Render with the clock that in-progress todos' elapsed time is measured against.
func RenderAt(l List, now time.Time) string {
	if len(l.Todos) == 0 {
		return "Todos: none. For a task with several steps, plan it with the todo_operations tool's write, then mark each todo in-progress before starting it and completed right after."
	}
	var b strings.Builder
	b.WriteString(Summary(l))
	status := map[int]Status{}
	for _, t := range l.Todos {
		status[t.ID] = t.Status
	}
	tr := newTree(l.Todos)
	ids, depth := tr.order()
	for _, id := range ids {
		t := *tr.get(id)
		indent := strings.Repeat("    ", depth[id]-1)
		b.WriteString("\n")
		b.WriteString(indent)
		b.WriteString(marker(t.Status))
		b.WriteString(" ")
		b.WriteString(strconv.Itoa(t.ID))
		b.WriteString(". ")
		b.WriteString(t.Title)
		var extra []string
		if t.Priority != "" {
			extra = append(extra, string(t.Priority))
		}
		if kids := tr.children[id]; len(kids) > 0 {
			done := 0
			for _, k := range kids {
				if status[k] == StatusCompleted {
					done++
				}
			}
			extra = append(extra, fmt.Sprintf("%d/%d subtasks", done, len(kids)))
		}
		if t.Progress > 0 && t.Status != StatusCompleted {
			extra = append(extra, strconv.Itoa(int(t.Progress*100+0.5))+"%")
		}
		// Time spent shows from a minute on, or next to an estimate to compare with.
		est := tr.estimate(id)
		if est > 0 {
			extra = append(extra, "est "+FormatDuration(est))
		}
		if spent := tr.elapsed(id, now); spent >= time.Minute || est > 0 && (spent > 0 || !t.Started.IsZero()) {
			word := "spent "
			if t.Status == StatusCompleted {
				word = "took "
			}
			extra = append(extra, word+FormatDuration(spent))
		}
		if t.Status != StatusCompleted {
			var waiting []string
			for _, d := range t.Dependencies {
				if status[d] != StatusCompleted {
					waiting = append(waiting, strconv.Itoa(d))
				}
			}
			if len(waiting) > 0 {
				extra = append(extra, "after "+strings.Join(waiting, ","))
			}
			if t.ParallelGroup != "" {
				extra = append(extra, "parallel group "+t.ParallelGroup)
			} else if t.CanRunParallel {
				extra = append(extra, "parallel")
			}
		}
		if len(extra) > 0 {
			b.WriteString(" (" + strings.Join(extra, ", ") + ")")
		}
		if t.Status == StatusBlocked {
			b.WriteString(" - blocked: " + Shorten(t.BlockedReason, RenderDescriptionBytes))
		}
		if t.Status != StatusCompleted && t.Description != "" {
			b.WriteString("\n    " + indent)
			b.WriteString(Shorten(strings.Join(strings.Fields(t.Description), " "), RenderDescriptionBytes))
		}
	}
	return b.String()
}

// Summary is the header line of [Render]: "Todos v7: 3/10 completed (30%), 1 in-progress, 5
// not-started, 1 blocked". Zero counts other than completed are left out.
func Summary(l List) string {
	s := l.Stats()
	var b strings.Builder
	fmt.Fprintf(&b, "Todos v%d: %d/%d completed (%d%%)", l.Version, s.Completed, s.Total, s.PercentDone)
	for _, c := range []struct {
		n    int
		name Status
	}{{s.InProgress, StatusInProgress}, {s.NotStarted, StatusNotStarted}, {s.Blocked, StatusBlocked}} {
		if c.n > 0 {
			fmt.Fprintf(&b, ", %d %s", c.n, c.name)
		}
	}
	return b.String()
}

func marker(s Status) string {
	switch s {
	case StatusCompleted:
		return "[x]"
	case StatusInProgress:
		return "[>]"
	case StatusBlocked:
		return "[!]"
	default:
		return "[ ]"
	}
}

// Shorten cuts s to at most n bytes on a rune boundary, marking the cut with "...". Used for every
// model-authored text shown in summaries, so one long description cannot blow a token budget.
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 3 {
		return "..."[:max(n, 0)]
	}
	cut := n - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " ") + "..."
}
