package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

const intro = `toolhost — a small, stable set of MCP tools for coding agents: files, terminals,
todos, memory and more, behind a working-directory guard.

Usage:
  toolhost [flags] COMMAND [command flags]
`

const examples = `Examples:
  toolhost stdio --workdir ~/src/project
  toolhost serve --addr 127.0.0.1:8765
  toolhost call think '{"thoughts":"plan the refactor"}'
  toolhost tools --json
`

// printUsage prints the command list from the table and the global flags from their definitions.
func printUsage(w io.Writer) {
	fmt.Fprint(w, intro)
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, c := range g.commands {
			printEntry(w, usageLine(c)[len("toolhost "):], c.help)
		}
	}
	fmt.Fprint(w, "\nFlags (also accepted after the command; they override the config file):\n")
	printFlags(w, globalFlagSet())
	fmt.Fprint(w, "\n'toolhost help COMMAND' shows a command's own flags.\n\n", examples)
}

// printCommandHelp is a command's --help: its usage line, what it does, and its flags.
func printCommandHelp(w io.Writer, c cliCommand) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", usageLine(c), c.help)
	if fs := commandFlagSet(c); fs != nil {
		fmt.Fprint(w, "\nFlags:\n")
		printFlags(w, fs)
	}
	fmt.Fprint(w, "\nThe global flags ('toolhost help') are accepted too.\n")
}

// usageLine is "toolhost NAME ARGS [--flag VALUE]...", from the row and its flag definitions.
func usageLine(c cliCommand) string {
	parts := []string{"toolhost", c.name}
	if c.args != "" {
		parts = append(parts, c.args)
	}
	if fs := commandFlagSet(c); fs != nil {
		fs.VisitAll(func(f *flag.Flag) {
			if value, _ := flag.UnquoteUsage(f); value != "" {
				parts = append(parts, fmt.Sprintf("[--%s %s]", f.Name, value))
			} else {
				parts = append(parts, fmt.Sprintf("[--%s]", f.Name))
			}
		})
	}
	return strings.Join(parts, " ")
}

// commandFlagSet declares a command's own flags on a fresh set, for help texts; nil when it has
// none.
func commandFlagSet(c cliCommand) *flag.FlagSet {
	if c.flags == nil {
		return nil
	}
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.flags(fs)
	return fs
}

func globalFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("toolhost", flag.ContinueOnError)
	(&globalFlags{}).define(fs)
	return fs
}

// printFlags prints a "--name VALUE   usage" line per flag, sorted by name.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if value != "" {
			name += " " + value
		}
		printEntry(w, name, usage)
	})
}

// printEntry prints one "  left   text" line, moving text to its own line when left is long.
func printEntry(w io.Writer, left, text string) {
	const col = 22
	if len(left) < col-1 {
		fmt.Fprintf(w, "  %-*s%s\n", col, left, text)
		return
	}
	fmt.Fprintf(w, "  %s\n  %*s%s\n", left, col, "", text)
}
