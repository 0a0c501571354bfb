package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"toolhost/consolidated"
	"toolhost/internal/app"
)

// toolCommands show and run the tools in-process.
var toolCommands = group{title: "Tools", commands: []cliCommand{
	{
		name: "tools",
		help: "print the tools this configuration advertises, in order, with token estimates",
		flags: func(fs *flag.FlagSet) action {
			asJSON := fs.Bool("json", false, "print the tools as clients receive them, in JSON")
			markdown := fs.Bool("markdown", false, "print the README's tool table (Markdown)")
			return func(inv *invocation) error {
				if *asJSON && *markdown {
					return errors.New("tools: choose one of --json and --markdown")
				}
				a, err := inv.App()
				if err != nil {
					return err
				}
				if *markdown {
					_, err := fmt.Fprint(inv.stdout, a.Registry.MarkdownTable())
					return err
				}
				return printTools(a, *asJSON, inv.stdout)
			}
		},
	},
	{
		name: "call", args: "TOOL ['JSON']", minArgs: 1, maxArgs: 2,
		help: "run one tool call in-process and print the result",
		run:  callTool,
	},
}}

func printTools(a *app.App, asJSON bool, stdout io.Writer) error {
	tools := a.Registry.Tools()
	if asJSON {
		b, err := json.MarshalIndent(map[string]any{"profile": a.ProfileInForce(), "tools": tools}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, string(b))
		return err
	}
	total := 0
	fmt.Fprintf(stdout, "profile %s; workdir %s\n", a.ProfileInForce(), a.Workdir)
	for i, t := range tools {
		b, _ := json.Marshal(t)
		n := consolidated.EstimateTokens(string(b))
		total += n
		first, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(stdout, "%d. %-26s ~%5d tokens  %s\n", i+1, t.Name, n, first)
	}
	b, _ := json.Marshal(map[string]any{"tools": tools})
	fmt.Fprintf(stdout, "total ~%d tokens (%d bytes minified; estimate: bytes/4)\n", total, len(b))
	return nil
}

func callTool(inv *invocation) error {
	name, args := inv.args[0], "{}"
	if len(inv.args) == 2 {
		args = inv.args[1]
	}
	if !json.Valid([]byte(args)) {
		return errors.New("call: arguments are not valid JSON")
	}
	a, err := inv.App()
	if err != nil {
		return err
	}
	tool, raw, ok := a.Registry.Resolve(name, json.RawMessage(args))
	if !ok {
		return fmt.Errorf("no tool %q (tools: %s)", name, strings.Join(a.Registry.Names(), ", "))
	}
	// The result as a client receives it, plus the facts the handler reported (ids, exit codes,
	// statuses) as structuredContent, which clients never receive but scripts parse.
	res, facts := a.Registry.DispatchFacts(inv.ctx, tool, raw, nil)
	res.StructuredContent = facts
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintln(inv.stdout, string(b))
	if res.IsError {
		return errors.New("the call returned an error result")
	}
	return nil
}
