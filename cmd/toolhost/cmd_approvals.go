package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"toolhost/authz"
	"toolhost/internal/app"
)

// approvalCommands are the user's answers to a model's authorization requests. The ones that
// decide are operator commands: refused inside a toolhost terminal.
var approvalCommands = group{title: "Approvals and grants", commands: []cliCommand{
	{name: "approvals", help: "list pending authorization requests", run: listApprovals},
	{
		name: "approve", args: "ID", minArgs: 1, maxArgs: 1, operator: true,
		help: "approve a model's authorization request (a time-limited grant for a path, or a host)",
		flags: func(fs *flag.FlagSet) action {
			forD := fs.Duration("for", 0, "the grant lasts `DURATION` (default: what the request asked, else 5m)")
			once := fs.Bool("once", false, "the grant is used up by one call")
			return func(inv *invocation) error {
				a, err := operatorApp(inv)
				if err != nil {
					return err
				}
				ap, g, err := a.Guard.Approve(inv.ctx, inv.args[0], *forD, *once, operatorName())
				if err != nil {
					return err
				}
				fmt.Fprintf(inv.stdout, "approved %s: grant %s for %s on %s%s until %s\n", ap.ID, g.ID, g.Access, g.Target(), recursiveMark(g.Recursive && g.Host == ""), g.Expires.Wall.Format(time.TimeOnly))
				return nil
			}
		},
	},
	{
		name: "deny", args: "ID", minArgs: 1, maxArgs: 1, operator: true,
		help: "deny an authorization request",
		run: func(inv *invocation) error {
			a, err := operatorApp(inv)
			if err != nil {
				return err
			}
			ap, err := a.Guard.Deny(inv.ctx, inv.args[0], operatorName())
			if err != nil {
				return err
			}
			fmt.Fprintf(inv.stdout, "denied %s (%s on %s)\n", ap.ID, ap.Access, ap.Target())
			return nil
		},
	},
	{name: "grants", help: "list active grants", run: listGrants},
	{
		name: "revoke", args: "ID", minArgs: 1, maxArgs: 1, operator: true,
		help: "revoke a grant",
		run: func(inv *invocation) error {
			a, err := operatorApp(inv)
			if err != nil {
				return err
			}
			if err := a.Guard.Revoke(inv.ctx, inv.args[0], operatorName()); err != nil {
				return err
			}
			fmt.Fprintf(inv.stdout, "revoked %s\n", inv.args[0])
			return nil
		},
	},
}}

// operatorName is who decided, as grants and the audit log record it: from the kernel's view,
// not the environment ($USER is whatever the caller set).
func operatorName() string {
	return authz.ProcessOrigin("cli", os.Getpid()).String()
}

// operatorApp opens the app for an operator command (one that decides, or reads every
// principal's executions), after checking that this process is not below a toolhost server:
// however it was started (env -i, a copied binary, setsid), such a process runs a model's
// command, and decisions and everyone's history are the user's.
func operatorApp(inv *invocation) (*app.App, error) {
	a, err := inv.App()
	if err != nil {
		return nil, err
	}
	if err := authz.CheckOperator(a.StateDir); err != nil {
		return nil, fmt.Errorf("refusing an operator command: %w; run it in your own terminal", err)
	}
	return a, nil
}

func listApprovals(inv *invocation) error {
	a, err := inv.App()
	if err != nil {
		return err
	}
	list, err := a.Guard.Approvals().List(inv.ctx, "", authz.StatusPending)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(inv.stdout, "no pending authorization requests")
	}
	for _, ap := range list {
		fmt.Fprintf(inv.stdout, "%s  %s on %s%s  conversation %s  expires %s\n", ap.ID, ap.Access, ap.Target(), recursiveMark(ap.Recursive && ap.Host == ""), ap.Conversation, ap.Expires.Wall.Format(time.TimeOnly))
		if ap.Command != "" {
			fmt.Fprintf(inv.stdout, "    command: %q\n", ap.Command)
		}
		if ap.Reason != "" {
			fmt.Fprintf(inv.stdout, "    reason: %s\n", ap.Reason)
		}
	}
	return nil
}

func listGrants(inv *invocation) error {
	a, err := inv.App()
	if err != nil {
		return err
	}
	list, err := a.Guard.Grants().List(inv.ctx, "")
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintln(inv.stdout, "no active grants")
	}
	for _, g := range list {
		uses := "unlimited uses"
		if g.Uses > 0 {
			uses = fmt.Sprintf("%d use(s) left", g.Uses)
		}
		exp := "never expires"
		if !g.Expires.Wall.IsZero() {
			exp = "expires " + g.Expires.Wall.Format(time.TimeOnly)
		}
		fmt.Fprintf(inv.stdout, "%s  %s on %s%s  %s, %s, by %s\n", g.ID, g.Access, g.Target(), recursiveMark(g.Recursive && g.Host == ""), exp, uses, g.By)
	}
	return nil
}

func recursiveMark(r bool) string {
	if r {
		return "/**"
	}
	return ""
}
