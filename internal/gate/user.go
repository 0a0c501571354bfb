package gate

import (
	"context"

	"toolhost/authz/cmdrules"
)

// userKey marks a context whose lines the user types (the console's terminal view, toolhost
// attach), not a model.
type userKey struct{}

// WithUser returns ctx marked as the user's: Check lets every line typed under it run. The
// command rules and approvals are the user's limits on a model; the user at the keyboard is
// whom they serve, and what the user types is audited by whoever marks the context.
func WithUser(ctx context.Context) context.Context { return context.WithValue(ctx, userKey{}, true) }

// ByUser reports whether ctx was marked by WithUser.
func ByUser(ctx context.Context) bool {
	v, _ := ctx.Value(userKey{}).(bool)
	return v
}

// checkUser is Check for a line the user typed: no verdict refuses it and nothing is asked,
// but the rules still read it, so the aliases and functions it defines are in the session's
// memory when a model's later line is checked (an alias the user made cannot hide a command
// from the rules), and an unfinished statement is still reported so the terminal keeps
// following the shell's line.
func (g *Gate) checkUser(rules *cmdrules.Rules, l Line) error {
	if l.Unknown {
		return nil
	}
	if v := g.verdict(rules, l); v.Incomplete && !l.ForegroundShell {
		return ErrIncomplete
	}
	return nil
}
