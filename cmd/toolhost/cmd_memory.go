package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// memoryCommands maintain the semantic memory store and the user's standing instructions.
var memoryCommands = group{title: "Memory", commands: []cliCommand{
	{
		name: "memory reembed",
		help: "re-embed stored memories after changing [memory] embedder",
		run: func(inv *invocation) error {
			a, err := inv.App()
			if err != nil {
				return err
			}
			last := time.Time{}
			err = a.Memory.Reembed(inv.ctx, func(done, total int) {
				if time.Since(last) > time.Second || done == total {
					fmt.Fprintf(inv.stdout, "re-embedded %d/%d with %s\n", done, total, a.Memory.Embedder().ID())
					last = time.Now()
				}
			})
			if err == nil {
				fmt.Fprintln(inv.stdout, "memories are all embedded with", a.Memory.Embedder().ID())
			}
			return err
		},
	},
	{
		name: "memory instructions",
		help: "list the standing instructions the model stored from what you said",
		flags: func(fs *flag.FlagSet) action {
			asJSON := fs.Bool("json", false, "print JSON")
			all := fs.Bool("all", false, "every project's, not only this working directory's and yours")
			return func(inv *invocation) error {
				a, err := inv.App()
				if err != nil {
					return err
				}
				project := a.Workdir
				if *all {
					project = ""
				}
				ins, err := a.Memory.Instructions(inv.ctx, project)
				if err != nil {
					return err
				}
				if *asJSON {
					return printJSON(inv.stdout, ins)
				}
				if len(ins) == 0 {
					fmt.Fprintln(inv.stdout, "no standing instructions")
					return nil
				}
				for _, in := range ins {
					where := strings.TrimPrefix(in.Scope, "project:")
					fmt.Fprintf(inv.stdout, "%d\t%s\t%s\t%s\n", in.ID, where, in.Created.Local().Format("2006-01-02"), in.Text)
					if in.UserWords != "" && in.UserWords != in.Text {
						fmt.Fprintf(inv.stdout, "\tyou said: %q\n", in.UserWords)
					}
				}
				fmt.Fprintln(inv.stdout, "remove one with: toolhost memory forget ID")
				return nil
			}
		},
	},
	{
		name: "memory forget", args: "ID", minArgs: 1, maxArgs: 1, operator: true,
		help: "remove a standing instruction",
		run: func(inv *invocation) error {
			id, err := strconv.ParseUint(inv.args[0], 10, 64)
			if err != nil || id == 0 {
				return fmt.Errorf("ID %q: give the number that toolhost memory instructions shows", inv.args[0])
			}
			a, err := operatorApp(inv)
			if err != nil {
				return err
			}
			if err := a.Memory.Forget(inv.ctx, id); err != nil {
				return err
			}
			fmt.Fprintf(inv.stdout, "removed standing instruction %d\n", id)
			return nil
		},
	},
}}
