package terminal

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestCommandLog: every finished one-shot command and every command typed into a bash session
// is logged per conversation with its exit code and duration; other conversations see none of
// them, and the log keeps only the last MaxCommandRecords.
func TestCommandLog(t *testing.T) {
	m := newTestManager(t, Config{})
	ctx := context.Background()
	if _, err := m.Run(ctx, "c", RunSpec{Command: "exit 4", Cwd: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	inf := createSession(t, m, "c", "s")
	runIn(t, m, "c", inf.ID, "false")
	runIn(t, m, "c", inf.ID, "echo hi")
	got := m.Commands("c")
	var lines []string
	for _, r := range got {
		lines = append(lines, fmt.Sprintf("%s:%s:%d", r.Session, r.Command, r.ExitCode))
		if r.Duration < 0 || r.Started.IsZero() {
			t.Errorf("record %+v has no start or a negative duration", r)
		}
	}
	want := fmt.Sprintf("cmd1:exit 4:4 %s:false:1 %s:echo hi:0", inf.ID, inf.ID)
	if strings.Join(lines, " ") != want {
		t.Errorf("Commands(c) = %q, want %q", strings.Join(lines, " "), want)
	}
	if other := m.Commands("other"); len(other) != 0 {
		t.Errorf("Commands(other) = %v, want none", other)
	}
	if s := m.Sessions("c"); len(s) != 1 || s[0].ID != inf.ID {
		t.Errorf("Sessions(c) = %v, want the one session", s)
	}

	var l commandLog
	for i := range MaxCommandRecords + 5 {
		l.add("c", CommandRecord{Command: fmt.Sprint(i)})
	}
	if recs := l.byID["c"]; len(recs) != MaxCommandRecords || recs[0].Command != "5" {
		t.Errorf("log after %d adds keeps %d, first %q; want %d from 5", MaxCommandRecords+5, len(recs), recs[0].Command, MaxCommandRecords)
	}
}
