package main

import (
	"flag"
	"fmt"
	"time"

	"toolhost/internal/app"
	"toolhost/internal/codeindex"
)

// indexCommands manage the working directory's index (see docs/code-intelligence.md).
var indexCommands = group{title: "Index", commands: []cliCommand{
	{
		name: "index status",
		help: "show the working directory's index: files, size, when it was built",
		flags: func(fs *flag.FlagSet) action {
			asJSON := fs.Bool("json", false, "print JSON")
			return func(inv *invocation) error {
				a, err := inv.App()
				if err != nil {
					return err
				}
				if a.Index == nil {
					fmt.Fprintln(inv.stdout, "index: off ([index] mode = \"off\")")
					return nil
				}
				s := a.Index.Status()
				if *asJSON {
					return printJSON(inv.stdout, s)
				}
				printIndexStatus(inv, a.Workdir, s)
				return nil
			}
		},
	},
	{
		name: "index rebuild",
		help: "build the working directory's index now (from scratch)",
		run: func(inv *invocation) error {
			a, err := inv.App()
			if err != nil {
				return err
			}
			if a.Index == nil {
				return fmt.Errorf("the index is off ([index] mode = \"off\")")
			}
			if err := a.Index.Drop(); err != nil {
				return err
			}
			start := time.Now()
			if err := a.Index.Build(inv.ctx); err != nil {
				return fmt.Errorf("index rebuild: %w", err)
			}
			s := a.Index.Status()
			fmt.Fprintf(inv.stdout, "indexed %d files (%s of text) in %s\n", s.Files, app.HumanBytes(s.Bytes), time.Since(start).Round(time.Millisecond))
			return nil
		},
	},
	{
		name: "index drop",
		help: "delete the working directory's index (searches walk the tree until it is built again)",
		run: func(inv *invocation) error {
			a, err := inv.App()
			if err != nil {
				return err
			}
			if a.Index == nil {
				fmt.Fprintln(inv.stdout, "index: off, nothing to drop")
				return nil
			}
			if err := a.Index.Drop(); err != nil {
				return err
			}
			fmt.Fprintln(inv.stdout, "dropped the index of", a.Workdir)
			return nil
		},
	},
}}

func printIndexStatus(inv *invocation, workdir string, s codeindex.Status) {
	w := inv.stdout
	fmt.Fprintf(w, "index of %s: %s\n", workdir, s.State)
	if s.Files > 0 || s.State == "ready" || s.State == "stored" {
		fmt.Fprintf(w, "  %d files in %d directories, %s of text, %s on disk in %d segment(s)\n", s.Files, s.Dirs, app.HumanBytes(s.Bytes), app.HumanBytes(s.DiskBytes), s.Segments)
	}
	if !s.BuiltAt.IsZero() {
		fmt.Fprintf(w, "  built %s (took %s)\n", s.BuiltAt.Format(time.RFC3339), s.Build.Round(time.Millisecond))
	}
	if s.Error != "" {
		fmt.Fprintf(w, "  last build failed: %s\n", s.Error)
	}
	fmt.Fprintf(w, "  stored in %s\n", s.Dir)
}
