package main

import (
	"fmt"
	"os"

	"toolhost/authz"
	"toolhost/authz/cmdrules"
)

// guardCommands show what stands between a model and the machine: the terminal command rules
// and sandbox, and the operator checks.
var guardCommands = group{title: "Terminal guard", commands: []cliCommand{
	{
		name: "rules test", args: "'CMD'", minArgs: 1, maxArgs: 1,
		help: "print the verdict of the terminal command rules on a shell line",
		run: func(inv *invocation) error {
			a, err := inv.App()
			if err != nil {
				return err
			}
			v := a.CommandRules().Check(inv.args[0], cmdrules.Env{Dir: a.Workdir, ReadFile: os.ReadFile})
			fmt.Fprintln(inv.stdout, v)
			return nil
		},
	},
	{
		name: "rules list",
		help: "print the command rules in the order they apply",
		run: func(inv *invocation) error {
			a, err := inv.App()
			if err != nil {
				return err
			}
			rs := a.CommandRules()
			fmt.Fprintf(inv.stdout, "commands no rule matches: %s\n", rs.Unmatched())
			for i, r := range rs.List() {
				fmt.Fprintf(inv.stdout, "%2d. %-5s %s", i+1, r.Action, r.Pattern)
				if r.Name != r.Pattern {
					fmt.Fprintf(inv.stdout, "  # %s", r.Name)
				}
				fmt.Fprintln(inv.stdout)
			}
			return nil
		},
	},
	{
		name: "doctor",
		help: "print what the terminal sandbox, the command rules and the operator checks enforce here",
		run: func(inv *invocation) error {
			a, err := inv.App()
			if err != nil {
				return err
			}
			out := inv.stdout
			st := a.SandboxStatus()
			fmt.Fprintln(out, st.Summary())
			for _, d := range st.Details() {
				fmt.Fprintln(out, "  "+d)
			}
			rs := a.CommandRules()
			fmt.Fprintf(out, "command rules: %d, unmatched commands: %s (toolhost rules list)\n", len(rs.List()), rs.Unmatched())
			if err := authz.CheckOperator(a.StateDir); err != nil {
				fmt.Fprintf(out, "operator actions from this shell: refused (%v)\n", err)
			} else {
				fmt.Fprintln(out, "operator actions from this shell: allowed (not under a toolhost server)")
			}
			fmt.Fprintln(out, "operator actions from toolhost terminals and their descendants: refused (process ancestry; toolhost servers are child subreapers)")
			return nil
		},
	},
}}
