package main

import (
	"errors"
	"fmt"
	"strings"

	"toolhost/authz"
	"toolhost/internal/app"
)

// errDoctorFound makes `toolhost doctor` exit non-zero when something needs fixing, so scripts
// can use it.
var errDoctorFound = errors.New("doctor found problems; the fixes are above")

// doctor prints one line per check (ok or FIX), the terminal guard's details, and with repair
// rebuilds a damaged state file first.
func doctor(inv *invocation, repair bool) error {
	a, err := inv.App()
	if err != nil {
		return err
	}
	out := inv.stdout
	checks := a.Doctor(inv.ctx)
	if repair {
		if checks[0].OK {
			fmt.Fprintln(out, "repair: the state file reads whole; nothing to rebuild there")
		} else {
			rep, err := a.RepairState(inv.ctx)
			if err != nil {
				return fmt.Errorf("repair: %w", err)
			}
			fmt.Fprintf(out, "repair: kept the damaged file as %s\n", rep.Backup)
			if rep.Unreadable != nil {
				fmt.Fprintf(out, "repair: nothing could be read (%v); the new state file starts empty\n", rep.Unreadable)
			}
			fmt.Fprintf(out, "repair: carried over %d values\n", rep.Copied)
			for _, l := range rep.Lost {
				fmt.Fprintf(out, "repair: lost part of %s\n", l)
			}
			// Check the rebuilt file with a fresh app, as the next server will open it.
			inv.closeApp()
			inv.app, inv.closeApp = nil, nil
			if a, err = inv.App(); err != nil {
				return err
			}
			checks = a.Doctor(inv.ctx)
		}
		// A bucket salvaged in part leaves the memory indexes out of step with the memories.
		if checks[0].OK && !checks[1].OK {
			rep, err := a.RepairMemory(inv.ctx)
			if err != nil {
				return fmt.Errorf("repair: %w", err)
			}
			fmt.Fprintf(out, "repair: memory: set right %s\n", rep)
			checks = a.Doctor(inv.ctx)
		}
	}
	failed := false
	for _, c := range checks {
		if c.OK {
			fmt.Fprintf(out, "ok   %-8s %s\n", c.Name, c.Detail)
			continue
		}
		failed = true
		fmt.Fprintf(out, "FIX  %-8s %s\n     fix: %s\n", c.Name, c.Detail, c.Fix)
	}
	if parts, err := a.StateSizes(inv.ctx); err == nil {
		var total int64
		for _, p := range parts {
			total += p.Bytes
		}
		fmt.Fprintf(out, "     state directory %s: %s\n", a.StateDir, app.HumanBytes(total))
		for _, p := range parts {
			line := fmt.Sprintf("       %-20s %10s", p.Name, app.HumanBytes(p.Bytes))
			if p.Detail != "" {
				line += "  " + p.Detail
			}
			fmt.Fprintln(out, line)
		}
	}
	st := a.SandboxStatus()
	for _, d := range st.Details() {
		fmt.Fprintln(out, "     "+d)
	}
	if names := a.Gate.WithheldHere(); len(names) > 0 {
		fmt.Fprintf(out, "     withheld from commands (names only; [terminal] pass_env lets one through): %s\n", strings.Join(names, ", "))
	} else {
		fmt.Fprintln(out, "     withheld from commands: none of this environment's variables (every TOOLHOST_*, credential-like and configured name would be)")
	}
	if hidden := a.Gate.HiddenHere(); len(hidden) > 0 {
		fmt.Fprintf(out, "     unreadable to commands: %s\n", strings.Join(hidden, ", "))
	}
	rs := a.Gate.Rules()
	fmt.Fprintf(out, "     command rules: %d, unmatched commands: %s (toolhost rules list)\n", len(rs.List()), rs.Unmatched())
	if err := authz.CheckOperator(a.StateDir); err != nil {
		fmt.Fprintf(out, "     operator actions from this shell: refused (%v)\n", err)
	} else {
		fmt.Fprintln(out, "     operator actions from this shell: allowed (not under a toolhost server)")
	}
	fmt.Fprintln(out, "     operator actions from toolhost terminals and their descendants: refused (process ancestry; toolhost servers are child subreapers)")
	if failed {
		return errDoctorFound
	}
	return nil
}
