package main

import (
	"errors"
	"fmt"

	"toolhost/internal/app"
)

// stateCommands keep the state directory small and export what it recorded.
var stateCommands = group{title: "State and recordings", commands: []cliCommand{
	{
		name: "compact",
		help: "rewrite the state file without its free space (refused while toolhost servers use the state directory)",
		run:  compactState,
	},
}}

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
