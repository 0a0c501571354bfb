package app

import (
	"fmt"
	"slices"
	"strings"

	"toolhost/consolidated"
	"toolhost/internal/config"
	"toolhost/internal/suggest"
)

// checkProfileNames refuses a profile whose tools or disable list names a tool or operation that
// does not exist: a typo there would silently leave a tool on that the user meant to turn off.
// It checks the active profile (the config's, with the --tools and --disable flags applied) and
// every profile in the config, so a mistake shows before the day that profile is used.
func checkProfileNames(active string, p config.Profile, profiles map[string]config.Profile, tools []*consolidated.Tool) error {
	if err := checkProfile(active, p, tools); err != nil {
		return err
	}
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := checkProfile(n, profiles[n], tools); err != nil {
			return err
		}
	}
	return nil
}

func checkProfile(name string, p config.Profile, tools []*consolidated.Tool) error {
	var known []string
	for _, t := range tools {
		known = append(known, t.Name)
		for _, op := range t.Operations {
			known = append(known, t.Name+"."+op.Name)
		}
	}
	for _, list := range []struct {
		what  string
		names []string
	}{{"tools", p.Tools}, {"disable", p.Disable}} {
		for _, n := range list.names {
			if slices.Contains(known, n) {
				continue
			}
			msg := fmt.Sprintf("profile %q %s (config or --%s): no tool or operation %q", name, list.what, list.what, n)
			if near := suggest.Nearest(n, known); near != "" {
				return fmt.Errorf("%s; did you mean %q?", msg, near)
			}
			return fmt.Errorf("%s; names are a tool (%s) or tool.operation", msg, toolNames(tools))
		}
	}
	return nil
}

func toolNames(tools []*consolidated.Tool) string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}
