package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"toolhost/authz"
	"toolhost/consolidated"
	"toolhost/internal/app"
	"toolhost/internal/engine"
	"toolhost/internal/server"
)

// executionCommands read and steer the execution history every toolhost process on the state
// directory shares, as the operator (who sees every principal's executions): like the decisions,
// they are refused inside a toolhost terminal and below a toolhost server, where a model types
// the commands and must see only its own principal's executions.
var executionCommands = group{title: "Executions and tokens", commands: []cliCommand{
	{
		name: "history", operator: true,
		help: "finished executions, newest first (filters as GET /api/executions; --conversation filters too)",
		flags: func(fs *flag.FlagSet) action {
			tool := fs.String("tool", "", "only this `TOOL`")
			category := fs.String("category", "", "only this risk `CATEGORY` (safe, moderate, dangerous)")
			status := fs.String("status", "", "only this `STATUS` (running, success, failed, cancelled, timeout, denied, rate_limited)")
			principal := fs.String("principal", "", "only this `PRINCIPAL` (token name or stdio)")
			since := fs.String("since", "", "started at or after `TIME` (RFC 3339, or a duration ago: 15m, 2h)")
			until := fs.String("until", "", "started before `TIME`")
			limit := fs.Int("limit", 50, "at most `N` executions (1-100)")
			offset := fs.Int("offset", 0, "skip `N` matching executions")
			asJSON := fs.Bool("json", false, "print JSON")
			return func(inv *invocation) error {
				q := map[string][]string{"limit": {fmt.Sprint(*limit)}, "offset": {fmt.Sprint(*offset)}}
				for k, v := range map[string]string{"tool": *tool, "category": *category, "status": *status, "conversation": inv.global.conversation,
					"principal": *principal, "since": *since, "until": *until} {
					if v != "" {
						q[k] = []string{v}
					}
				}
				f, err := server.ParseFilter(q)
				if err != nil {
					return flagError(err)
				}
				a, err := operatorApp(inv)
				if err != nil {
					return err
				}
				if a.Executions == nil {
					return fmt.Errorf("execution history is off in this state directory: %w", a.ExecutionsErr)
				}
				f.Viewer = authz.StdioPrincipal
				page, err := a.Executions.List(inv.ctx, f)
				if err != nil {
					return flagError(err)
				}
				if *asJSON {
					return printJSON(inv.stdout, page)
				}
				printRecords(inv.stdout, page.Executions)
				if page.More {
					fmt.Fprintf(inv.stdout, "more: --offset %d\n", f.Offset+f.Limit)
				}
				return nil
			}
		},
	},
	{
		name: "stats", operator: true,
		help: "totals, success rate, p50/p95 per tool, top operations, categories, active count",
		flags: withJSON(func(inv *invocation, a *app.App, asJSON bool) error {
			s, err := a.Executions.Stats(inv.ctx, authz.StdioPrincipal)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(inv.stdout, s)
			}
			printStats(inv.stdout, s)
			return nil
		}),
	},
	{
		name: "active", operator: true,
		help: "executions running now in every toolhost process on the state directory",
		flags: withJSON(func(inv *invocation, a *app.App, asJSON bool) error {
			list := a.Executions.Active(inv.ctx, authz.StdioPrincipal)
			if asJSON {
				return printJSON(inv.stdout, map[string]any{"executions": list})
			}
			if len(list) == 0 {
				fmt.Fprintln(inv.stdout, "no running executions")
				return nil
			}
			printRecords(inv.stdout, list)
			return nil
		}),
	},
	{
		name: "cancel", args: "ID", minArgs: 1, maxArgs: 1, operator: true,
		help: "cancel a running execution (its process trees are killed), also one of another process",
		run: func(inv *invocation) error {
			id := inv.args[0]
			if !engine.ValidID(id) {
				return fmt.Errorf("no execution %q: ids look like exec_20260102T150405.000000_0123456789", id)
			}
			a, err := operatorApp(inv)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(inv.ctx, 15*time.Second)
			defer cancel()
			r, err := a.Executions.Cancel(ctx, authz.StdioPrincipal, id)
			switch {
			case errors.Is(err, engine.ErrNotFound):
				return fmt.Errorf("no execution %s", id)
			case errors.Is(err, engine.ErrFinished):
				return fmt.Errorf("execution %s already finished (%s)", id, r.Status)
			case errors.Is(err, context.DeadlineExceeded):
				return fmt.Errorf("cancel of %s requested, but it has not ended within 15s (its process, owner %s, may be stuck)", id, r.Owner)
			case err != nil:
				return err
			}
			fmt.Fprintf(inv.stdout, "%s %s after %s\n", r.ID, r.Status, fmtDuration(r.DurationMS))
			return nil
		},
	},
	{
		name: "token create", args: "NAME", minArgs: 1, maxArgs: 1, operator: true,
		help: "make an HTTP client token with a tier; prints the token once (only its hash is kept)",
		flags: func(fs *flag.FlagSet) action {
			tier := fs.String("tier", "", "`TIER`: view_only, execute_basic, execute_advanced or admin (required)")
			rate := fs.String("rate", "", "the token's own rate limit, `N/s`, N/min or N/h (default: [limits] per_principal)")
			return func(inv *invocation) error {
				t, err := authz.ParseTier(*tier)
				if err != nil {
					return fmt.Errorf("--tier: %w", err)
				}
				if _, err := engine.ParseRate(*rate); err != nil {
					return fmt.Errorf("--rate: %w", err)
				}
				a, err := operatorApp(inv)
				if err != nil {
					return err
				}
				secret, tok, err := a.Tokens.Create(inv.ctx, inv.args[0], t, *rate)
				if err != nil {
					return err
				}
				fmt.Fprintln(inv.stdout, secret)
				fmt.Fprintf(inv.stderr, "token %s (tier %s, rate %s) created; it is shown only now, keep it: Authorization: Bearer <token>\n",
					tok.Name, tok.Tier, orDash(tok.Rate))
				return nil
			}
		},
	},
	{
		name: "token list",
		help: "HTTP client tokens: name, tier, rate, created (never the tokens)",
		run: func(inv *invocation) error {
			a, err := inv.App()
			if err != nil {
				return err
			}
			if a.Executions == nil {
				return fmt.Errorf("execution history is off in this state directory: %w", a.ExecutionsErr)
			}
			list, err := a.Tokens.List(inv.ctx)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(inv.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tTIER\tRATE\tCREATED")
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", server.DefaultPrincipal.Name, server.DefaultPrincipal.Tier, "-", "(the serve token)")
			for _, t := range list {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, t.Tier, orDash(t.Rate), t.Created.Format(time.RFC3339))
			}
			return tw.Flush()
		},
	},
	{
		name: "token update", args: "NAME", minArgs: 1, maxArgs: 1, operator: true,
		help: "change an HTTP client token's tier or rate; its next call uses them (the console's Tools page does the same)",
		flags: func(fs *flag.FlagSet) action {
			tier := fs.String("tier", "", "the new `TIER`: view_only, execute_basic, execute_advanced or admin (default: kept)")
			rate := fs.String("rate", "", "the new rate limit, `N/s`, N/min or N/h, or default for [limits] per_principal (default: kept)")
			return func(inv *invocation) error {
				a, err := operatorApp(inv)
				if err != nil {
					return err
				}
				tok, err := a.UpdateToken(inv.ctx, inv.args[0], app.TokenChange{Tier: *tier, Rate: *rate}, operatorName())
				if err != nil {
					return err
				}
				fmt.Fprintf(inv.stdout, "token %s: tier %s, rate %s\n", tok.Name, tok.Tier, orDash(tok.Rate))
				return nil
			}
		},
	},
	{
		name: "token revoke", args: "NAME", minArgs: 1, maxArgs: 1, operator: true,
		help: "revoke an HTTP client token; its next request is refused",
		run: func(inv *invocation) error {
			a, err := operatorApp(inv)
			if err != nil {
				return err
			}
			if err := a.Tokens.Revoke(inv.ctx, inv.args[0]); err != nil {
				return err
			}
			fmt.Fprintf(inv.stdout, "revoked token %s\n", inv.args[0])
			return nil
		},
	},
}}

// withJSON is the flags of an operator command whose only flag is --json: it opens the app as
// the operator (operatorApp) and runs f.
func withJSON(f func(inv *invocation, a *app.App, asJSON bool) error) func(fs *flag.FlagSet) action {
	return func(fs *flag.FlagSet) action {
		asJSON := fs.Bool("json", false, "print JSON")
		return func(inv *invocation) error {
			a, err := operatorApp(inv)
			if err != nil {
				return err
			}
			if a.Executions == nil {
				return fmt.Errorf("execution history is off in this state directory: %w", a.ExecutionsErr)
			}
			return f(inv, a, *asJSON)
		}
	}
}

// flagError names the flag of a bad filter.
func flagError(err error) error {
	var fe *engine.FilterError
	if errors.As(err, &fe) {
		return fmt.Errorf("--%s: %s", fe.Param, fe.Message)
	}
	return err
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printRecords(w io.Writer, recs []engine.Record) {
	if len(recs) == 0 {
		fmt.Fprintln(w, "no executions")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tTOOL\tSTATUS\tDURATION\tPRINCIPAL\tDETAIL")
	for _, r := range recs {
		op := r.Tool
		if r.Operation != "" && r.Operation != r.Tool {
			op += "." + r.Operation
		}
		dur := fmtDuration(r.DurationMS)
		if !r.Finished() {
			dur = fmtDuration(float64(time.Since(r.Start).Milliseconds())) + "…"
		}
		detail := r.Command
		if r.ExitCode != nil {
			detail = fmt.Sprintf("%s (exit %d)", detail, *r.ExitCode)
		}
		if r.ErrorCode != "" && r.ErrorCode != string(consolidated.CodeExitStatus) { // the exit code says that one
			detail = strings.TrimSpace(detail + " " + r.ErrorCode + ": " + r.Error)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Start.Local().Format(time.DateTime), op, r.Status, dur, r.Principal, oneLine(detail, 80))
	}
	tw.Flush()
}

func printStats(w io.Writer, s engine.Stats) {
	fmt.Fprintf(w, "executions %d, success rate %.1f%%, running now %d\n", s.Total, 100*s.SuccessRate, s.Active)
	for _, st := range engine.Statuses {
		if n := s.ByStatus[st]; n > 0 {
			fmt.Fprintf(w, "  %-12s %d\n", st, n)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nTOOL\tCALLS\tSUCCESS\tP50\tP95")
	for _, g := range s.Tools {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%s\t%s\n", g.Name, g.Count, 100*g.SuccessRate, fmtDuration(g.P50MS), fmtDuration(g.P95MS))
	}
	fmt.Fprintln(tw, "\nCATEGORY\tCALLS\tSUCCESS\tP50\tP95")
	for _, g := range s.Categories {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%s\t%s\n", g.Name, g.Count, 100*g.SuccessRate, fmtDuration(g.P50MS), fmtDuration(g.P95MS))
	}
	fmt.Fprintln(tw, "\nTOP OPERATIONS\tCALLS")
	for _, o := range s.TopOperations {
		fmt.Fprintf(tw, "%s\t%d\n", o.Operation, o.Count)
	}
	tw.Flush()
}

func fmtDuration(ms float64) string {
	d := time.Duration(ms * float64(time.Millisecond))
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
