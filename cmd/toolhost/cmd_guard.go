package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"toolhost/authz/cmdrules"
	"toolhost/internal/gate"
)

// errRulesDeny and errRulesAsk make `toolhost rules test` exit non-zero when the line would
// not run as it is, so a script can test a line before it sends it.
var (
	errRulesDeny = errors.New("the command rules deny this line")
	errRulesAsk  = errors.New("this line needs the user's approval")
)

// guardCommands show what stands between a model and the machine: the terminal command rules
// and sandbox, and the operator checks.
var guardCommands = group{title: "Terminal guard", commands: []cliCommand{
	{
		name: "rules test", args: "'CMD'", minArgs: 1, maxArgs: 1,
		help: "print the verdict of the terminal command rules on a shell line (exit status 1 unless allowed)",
		run: func(inv *invocation) error {
			a, err := inv.App()
			if err != nil {
				return err
			}
			// The gate's own verdict, as a terminal command in the working directory gets it.
			v, _, err := a.Gate.Explain(context.Background(), "", gate.Line{Text: inv.args[0], Dir: a.Workdir})
			if err != nil {
				return err
			}
			fmt.Fprint(inv.stdout, v)
			if v.Rule == "" && v.Reason == "" {
				fmt.Fprintf(inv.stdout, " (no rule matched; commands no rule matches: %s)", a.Gate.Rules().Unmatched())
			}
			fmt.Fprintln(inv.stdout)
			switch v.Action {
			case cmdrules.Deny:
				return errRulesDeny
			case cmdrules.Ask:
				return errRulesAsk
			}
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
			rs := a.Gate.Rules()
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
		help: "check state, memory, sandbox, embedder, token and port, and print the fixes",
		flags: func(fs *flag.FlagSet) action {
			repair := fs.Bool("repair", false, "rebuild a damaged state file from what can be read, keeping a copy of it, and the memory indexes from the memories (stop the servers using it first)")
			return func(inv *invocation) error { return doctor(inv, *repair) }
		},
	},
}}
