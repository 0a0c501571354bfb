package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"toolhost/internal/app"
	"toolhost/internal/terminal"
)

// stateCommands keep the state directory small and export what it recorded.
var stateCommands = group{title: "State and recordings", commands: []cliCommand{
	{
		name: "compact",
		help: "rewrite the state file without its free space (refused while toolhost servers use the state directory)",
		run:  compactState,
	},
	{
		name: "sessions list", args: "[CONVERSATION]", maxArgs: 1, operator: true,
		help: "list the recorded terminal sessions, newest first",
		run:  listRecordings,
	},
	{
		name: "sessions export", args: "CONVERSATION SESSION", minArgs: 2, maxArgs: 2, operator: true,
		help: "write a terminal session's recording as asciicast v2 (asciinema play FILE replays it)",
		flags: func(fs *flag.FlagSet) action {
			out := fs.String("out", "", "write to `FILE` instead of standard output")
			return func(inv *invocation) error { return exportRecording(inv, *out) }
		},
	},
	attachCommand,
}}

func listRecordings(inv *invocation) error {
	a, err := operatorApp(inv)
	if err != nil {
		return err
	}
	if a.Terminals == nil {
		return errors.New("no terminal engine in this configuration")
	}
	conv := ""
	if len(inv.args) == 1 {
		conv = inv.args[0]
	}
	recs, err := a.Terminals.Recordings(conv)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		fmt.Fprintln(inv.stdout, "no recorded sessions")
		return nil
	}
	tw := tabwriter.NewWriter(inv.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CONVERSATION\tSESSION\tSTARTED\tSIZE\t")
	for _, r := range recs {
		note := ""
		if r.Cut {
			note = "cut to its bound"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Conversation, r.Session, r.Started.Local().Format(time.DateTime), app.HumanBytes(r.Bytes), note)
	}
	return tw.Flush()
}

func exportRecording(inv *invocation, out string) error {
	a, err := operatorApp(inv)
	if err != nil {
		return err
	}
	if a.Terminals == nil {
		return errors.New("no terminal engine in this configuration")
	}
	conv, id := inv.args[0], inv.args[1]
	var w io.Writer = inv.stdout
	var f *os.File
	if out != "" {
		if f, err = os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err != nil {
			return err
		}
		w = f
	}
	info, err := a.Terminals.ExportRecording(w, conv, id)
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(out)
		}
	}
	if errors.Is(err, terminal.ErrNoRecording) {
		return fmt.Errorf("%w (toolhost sessions list shows the recorded ones)", err)
	}
	if err != nil {
		return err
	}
	if out != "" {
		cut := ""
		if info.Cut {
			cut = "; cut to its bound, the file says where"
		}
		fmt.Fprintf(inv.stderr, "wrote %s: session %s of conversation %s, started %s%s\n", out, id, conv, info.Started.Local().Format(time.DateTime), cut)
	}
	return nil
}

func compactState(inv *invocation) error {
	a, err := inv.App()
	if err != nil {
		return err
	}
	rep, err := a.CompactState(inv.ctx)
	if errors.Is(err, app.ErrServersRunning) {
		return err
	}
	if err != nil {
		return fmt.Errorf("compact: %w (the state file is as it was)", err)
	}
	fmt.Fprintf(inv.stdout, "compacted %s: %s -> %s in %s\n", a.Store.Path(), app.HumanBytes(rep.Before), app.HumanBytes(rep.After), rep.Took.Round(1e6))
	return nil
}
