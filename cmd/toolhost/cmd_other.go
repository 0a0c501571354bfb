package main

import (
	"fmt"
	"strings"

	"toolhost/internal/app"
)

// otherCommands are about toolhost itself.
var otherCommands = group{title: "Other", commands: []cliCommand{
	{
		name: "help", args: "[COMMAND]", maxArgs: -1,
		help: "print this, or a command's usage and flags",
		run: func(inv *invocation) error {
			if len(inv.args) == 0 {
				printUsage(inv.stdout)
				return nil
			}
			c, rest, err := lookup(inv.args)
			if err != nil || len(rest) > 0 {
				return fmt.Errorf("no command %q", strings.Join(inv.args, " "))
			}
			printCommandHelp(inv.stdout, c)
			return nil
		},
	},
	{
		name: "version",
		help: "print the version, commit, build date and platform",
		run: func(inv *invocation) error {
			fmt.Fprintln(inv.stdout, app.BuildInfo())
			return nil
		},
	},
}}
