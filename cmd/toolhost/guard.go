package main

import (
	"fmt"
	"io"
	"os"

	"toolhost/authz"
	"toolhost/authz/cmdrules"
	"toolhost/internal/app"
)

// rulesCommand runs `toolhost rules test 'CMD'` and `toolhost rules list`.
func rulesCommand(a *app.App, args []string, stdout io.Writer) error {
	rs := a.CommandRules()
	if args[0] == "list" {
		fmt.Fprintf(stdout, "commands no rule matches: %s\n", rs.Unmatched())
		for i, r := range rs.List() {
			fmt.Fprintf(stdout, "%2d. %-5s %s", i+1, r.Action, r.Pattern)
			if r.Name != r.Pattern {
				fmt.Fprintf(stdout, "  # %s", r.Name)
			}
			fmt.Fprintln(stdout)
		}
		return nil
	}
	v := rs.Check(args[1], cmdrules.Env{Dir: a.Workdir, ReadFile: os.ReadFile})
	fmt.Fprintln(stdout, v)
	return nil
}

// doctor prints what is enforced here: the terminal sandbox, the command rules and the
// operator checks.
func doctor(a *app.App, stdout io.Writer) error {
	st := a.SandboxStatus()
	fmt.Fprintln(stdout, st.Summary())
	for _, d := range st.Details() {
		fmt.Fprintln(stdout, "  "+d)
	}
	rs := a.CommandRules()
	fmt.Fprintf(stdout, "command rules: %d, unmatched commands: %s (toolhost rules list)\n", len(rs.List()), rs.Unmatched())
	if err := authz.CheckOperator(a.StateDir); err != nil {
		fmt.Fprintf(stdout, "operator actions from this shell: refused (%v)\n", err)
	} else {
		fmt.Fprintln(stdout, "operator actions from this shell: allowed (not under a toolhost server)")
	}
	fmt.Fprintln(stdout, "operator actions from toolhost terminals and their descendants: refused (process ancestry; toolhost servers are child subreapers)")
	return nil
}
