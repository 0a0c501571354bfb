package gate

import (
	"context"
	"errors"
	"testing"

	"toolhost/authz"
	"toolhost/authz/cmdrules"
)

// TestUserLinesAreNotRefused: what the user types (WithUser) runs whatever the rules say and
// files no approval request; the same line from a model is refused. The rules still read the
// user's lines: an alias the user defines is in the session's memory when a model's line uses
// it, and an unfinished statement is still reported as such.
func TestUserLinesAreNotRefused(t *testing.T) {
	g, guard, wd := newGate(t, []string{"deny make deploy*", "ask curl*"}, nil)
	ctx := context.Background()
	user := WithUser(ctx)
	if ByUser(ctx) || !ByUser(user) {
		t.Fatalf("ByUser(plain) = %v, ByUser(WithUser) = %v; want false, true", ByUser(ctx), ByUser(user))
	}
	var mem Memory
	tests := []struct {
		name string
		line Line
		want error // for the user; nil means it runs
	}{
		{"denied for a model", Line{Text: "make deploy-prod", Dir: wd, Session: "s1", Memory: &mem}, nil},
		{"asked of a model", Line{Text: "curl http://127.0.0.1/", Dir: wd, Session: "s1", Memory: &mem}, nil},
		{"editing keys", Line{Text: "make dep", Dir: wd, Session: "s1", Unknown: true, Memory: &mem}, nil},
		{"alias definition", Line{Text: "alias ship='make deploy-prod'", Dir: wd, Session: "s1", Memory: &mem}, nil},
		{"unfinished", Line{Text: "for x in 1; do", Dir: wd, Session: "s1", Memory: &mem}, ErrIncomplete},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := g.Check(user, "c1", tt.line); !errors.Is(err, tt.want) && err != tt.want {
				t.Errorf("Check(user, %q) = %v, want %v", tt.line.Text, err, tt.want)
			}
		})
	}
	if pending, err := guard.Approvals().List(ctx, "c1", authz.StatusPending); err != nil || len(pending) != 0 {
		t.Errorf("the user's lines filed %d requests (%v), want none", len(pending), err)
	}
	// A model's line: refused, and the user's alias does not hide what it runs.
	for _, line := range []string{"make deploy-prod", "ship"} {
		var r *cmdrules.Refusal
		if err := g.Check(ctx, "c1", Line{Text: line, Dir: wd, Session: "s1", Memory: &mem}); !errors.As(err, &r) || r.Verdict.Action != cmdrules.Deny {
			t.Errorf("Check(model, %q) = %v, want a denial", line, err)
		}
	}
}
