package app

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"toolhost/authz"
	"toolhost/consolidated"
	"toolhost/internal/config"
	"toolhost/internal/console"
	"toolhost/internal/server"
)

// ConsoleTools is the console's view of the tools: the registry's declared tools and the
// switches, applied to every server Server built.
func (a *App) ConsoleTools() console.Tools { return consoleTools{a} }

type consoleTools struct{ a *App }

func (t consoleTools) Catalog() console.Catalog {
	a := t.a
	a.RefreshSwitches() // another serve process's console may have switched since
	cat := console.Catalog{Profile: a.ProfileName, File: a.SwitchesFile(), ProfileFrom: a.profileFrom(), Config: a.Config.Path}
	if cat.Config == "" {
		cat.Config = config.DefaultPath()
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range config.Builtin {
			if !yield(n) {
				return
			}
		}
		for n := range a.Config.Profiles {
			if _, builtin := config.Builtin[n]; !builtin && !yield(n) {
				return
			}
		}
	})
	for _, n := range names {
		p, ok := a.Config.Profiles[n]
		if !ok {
			p = config.Builtin[n]
		}
		cat.Profiles = append(cat.Profiles, console.ProfileInfo{Name: n, Summary: p.Summary()})
	}
	for _, tool := range a.Registry.Declared() {
		ti := console.ToolInfo{Name: tool.Name, Place: slices.Index(consolidated.Order, tool.Name) + 1}
		for _, op := range tool.Operations {
			oi := console.OperationInfo{Name: op.Name, Summary: op.Summary, Risk: string(op.Risk),
				Tier: string(authz.Least(op.RiskCategory())), Enabled: a.Registry.Enabled(tool.Name, op.Name)}
			if !a.Profile.Enabled(tool.Name, op.Name, string(op.Risk)) {
				oi.Locked = "profile " + a.ProfileName
			}
			ti.Advertised = ti.Advertised || oi.Enabled
			ti.Operations = append(ti.Operations, oi)
		}
		cat.Tools = append(cat.Tools, ti)
	}
	for _, tier := range authz.Tiers {
		cat.Tiers = append(cat.Tiers, string(tier))
	}
	if a.Tokens != nil {
		tokens, err := a.Tokens.List(context.Background())
		if err != nil {
			a.Logger.Warn("console: list tokens", "err", err)
		}
		for _, tk := range tokens {
			cat.Tokens = append(cat.Tokens, console.TokenInfo{Name: tk.Name, Tier: string(tk.Tier), Rate: tk.Rate, Created: tk.Created})
		}
	}
	return cat
}

// profileFrom says where the active profile was chosen: the profile key's origin, and the
// flags that narrowed it (--read-only, --tools, --disable).
func (a *App) profileFrom() string {
	from := "default"
	if o, ok := a.Config.Origins["profile"]; ok {
		from = o.String()
	}
	if flags := a.profileFlags(); len(flags) > 0 {
		from += ", narrowed by " + strings.Join(flags, " ")
	}
	return from
}

// ProfileInForce names the active profile as it applies: its name, and the flags that
// narrowed it ("full, narrowed by --read-only").
func (a *App) ProfileInForce() string {
	if flags := a.profileFlags(); len(flags) > 0 {
		return a.ProfileName + ", narrowed by " + strings.Join(flags, " ")
	}
	return a.ProfileName
}

// profileFlags are the command-line flags that narrowed the active profile, sorted.
func (a *App) profileFlags() []string {
	var flags []string
	for key, o := range a.Config.Origins {
		if strings.HasPrefix(key, "profiles."+a.ProfileName+".") && o.Flag != "" {
			flags = append(flags, o.Flag)
		}
	}
	slices.Sort(flags)
	return flags
}

func (t consoleTools) UpdateToken(ctx context.Context, name, tier, rate, by string) error {
	_, err := t.a.UpdateToken(ctx, name, TokenChange{Tier: tier, Rate: rate}, by)
	return err
}

func (t consoleTools) SetEnabled(ctx context.Context, tool, op string, on bool) error {
	a := t.a
	var found *consolidated.Operation
	for _, d := range a.Registry.Declared() {
		if d.Name != tool {
			continue
		}
		for i := range d.Operations {
			if d.Operations[i].Name == op {
				found = &d.Operations[i]
			}
		}
	}
	if found == nil {
		return fmt.Errorf("no operation %s.%s", tool, op)
	}
	if on && !a.Profile.Enabled(tool, op, string(found.Risk)) {
		return fmt.Errorf("profile %s disables %s.%s; change the profile in the configuration", a.ProfileName, tool, op)
	}
	// Another serve process's console may have written the file since this one read it:
	// change the list as it stands now.
	a.RefreshSwitches()
	a.switchMu.Lock()
	defer a.switchMu.Unlock()
	next := config.Switches{Disable: slices.DeleteFunc(slices.Clone(a.switches.Disable), func(s string) bool { return s == tool+"."+op })}
	if !on {
		next.Disable = append(next.Disable, tool+"."+op)
	} else if slices.Contains(next.Disable, tool) {
		return fmt.Errorf("the whole tool %s is switched off in %s; remove it there", tool, a.SwitchesFile())
	}
	if err := next.Write(a.SwitchesFile()); err != nil {
		return err
	}
	// Stamped after the write: this process need not read back what it wrote.
	a.switchStamp = stampFile(a.SwitchesFile())
	a.applySwitches(next)
	return nil
}

// Console builds the operator console over this app's engines; credential is the operator
// secret sessions are bound to, listeners the addresses serve listens on.
func (a *App) Console(credential func() (string, error), listeners ...string) (*console.Console, error) {
	return console.New(console.Options{
		Guard:      a.Guard,
		Credential: credential,
		Store:      a.Store,
		Memory:     a.Memory,
		Terminals:  a.Terminals,
		Typed:      a.Typed,
		Tools:      a.ConsoleTools(),
		Executions: a.consoleExecutions(),
		AuditFile:  filepath.Join(a.StateDir, "audit.jsonl"),
		Logger:     a.Logger,
		Health: func(ctx context.Context) console.Health {
			h := console.Health{Version: Version, Started: a.Started, Workdir: a.Workdir, Profile: a.ProfileName,
				StateDir: a.StateDir, Sandbox: a.SandboxStatus().Summary(), Embedder: a.Memory.Embedder().ID(), Listeners: listeners,
				Sessions: a.sessionSummary()}
			if parts, err := a.StateSizes(ctx); err == nil {
				for _, p := range parts {
					h.State = append(h.State, console.StatePart{Name: p.Name, Bytes: p.Bytes, Detail: p.Detail})
				}
			}
			return h
		},
	})
}

// consoleExecutions is the engine as the activity page reads it; nil without an engine.
func (a *App) consoleExecutions() console.Executions {
	if a.Executions == nil {
		return nil
	}
	return consoleExecutions{a.Executions}
}

// CountSessionsWith takes the function that counts serve's live HTTP sessions (the session
// keeper's), for the console's health page.
func (a *App) CountSessionsWith(count func() server.SessionCounts) {
	a.sessionsMu.Lock()
	a.countSessions = count
	a.sessionsMu.Unlock()
}

// sessionSummary says how many HTTP sessions are live, in all and by principal, against
// their bounds; "" when this process serves none.
func (a *App) sessionSummary() string {
	a.sessionsMu.Lock()
	count := a.countSessions
	a.sessionsMu.Unlock()
	if count == nil {
		return ""
	}
	c := count()
	s := fmt.Sprintf("%d of max_sessions %d", c.Live, c.Limits.Max)
	for _, p := range slices.Sorted(maps.Keys(c.ByPrincipal)) {
		s += fmt.Sprintf("; %s: %d of %d", p, c.ByPrincipal[p], c.Limits.PerPrincipal)
	}
	return s
}
