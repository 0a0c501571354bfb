package main

import (
	"fmt"
	"time"
)

// memoryCommands maintain the semantic memory store.
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
}}
