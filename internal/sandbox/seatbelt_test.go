package sandbox

import (
	"strings"
	"testing"

	"toolhost/internal/golden"
)

// The macOS profile for every shape of policy, pinned: the modes, hidden paths and none,
// protected paths inside a writable tree, granted paths, and names that need quoting. They run
// here; sandbox-exec reads them on a Mac.
func TestSeatbeltProfiles(t *testing.T) {
	home := "/Users/me"
	base := Policy{
		Writable:  []string{"/Users/me/proj", "/Users/me/Library/Caches/go-build", "/Users/me/go/pkg/mod", "/Users/me/.npm"},
		Temp:      []string{"/private/tmp", "/private/var/folders/xy/T"},
		Protected: []string{home + "/Library/Application Support/toolhost", home + "/.config/toolhost/config.toml"},
		Hidden:    []string{home + "/Library/Application Support/toolhost", home + "/.ssh", home + "/.aws", "/Users/me/other/.env"},
	}
	cases := []struct {
		name string
		edit func(p *Policy)
	}{
		{"workspace-write", func(p *Policy) { p.Mode = ModeWorkspaceWrite }},
		{"read-only", func(p *Policy) { p.Mode = ModeReadOnly }},
		{"no-hidden-paths", func(p *Policy) { p.Mode = ModeWorkspaceWrite; p.Hidden = nil }},
		{"protected-inside-workdir", func(p *Policy) {
			p.Mode = ModeWorkspaceWrite
			p.Protected = append(p.Protected, "/Users/me/proj/.toolhost-state")
		}},
		{"grants", func(p *Policy) {
			p.Mode = ModeWorkspaceWrite
			// Write grants on a tree and a file; a read grant opened ~/.ssh to terminals.
			p.Writable = append(p.Writable, "/Volumes/data/shared", "/Users/me/notes.txt")
			p.Hidden = []string{home + "/Library/Application Support/toolhost", home + "/.aws", "/Users/me/other/.env"}
		}},
		{"quoting", func(p *Policy) {
			p.Mode = ModeWorkspaceWrite
			p.Writable = []string{`/Users/me/a "quoted" dir`, `/Users/me/back\slash`}
			p.Temp = nil
			p.Protected = nil
			p.Hidden = nil
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := base
			p.Writable = append([]string(nil), base.Writable...)
			p.Protected = append([]string(nil), base.Protected...)
			p.Hidden = append([]string(nil), base.Hidden...)
			tc.edit(&p)
			got := p.SeatbeltProfile()
			golden.CheckString(t, "testdata/seatbelt/"+tc.name+".sb", got)
			// Whatever the shape, these hold.
			for _, must := range []string{"(deny default)", "(allow signal (target same-sandbox))"} {
				if !strings.Contains(got, must) {
					t.Errorf("profile lacks %s", must)
				}
			}
			if strings.Count(got, "(") != strings.Count(got, ")") {
				t.Errorf("unbalanced parentheses:\n%s", got)
			}
			if p.Mode == ModeReadOnly && strings.Contains(got, "/Users/me/proj") {
				t.Error("read-only profile lets commands write the working directory")
			}
		})
	}
}
