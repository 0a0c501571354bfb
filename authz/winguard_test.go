package authz

import (
	"errors"
	"strings"
	"testing"
)

// The guard's reading of Windows paths, run here against the Windows path model: what comes out
// is the one spelling the guard decides on, or an invalid_path refusal the model can fix.
func TestWindowsGuardPath(t *testing.T) {
	cases := []struct {
		name, in, want, refusal string
	}{
		{name: "drive path", in: `C:\Users\me\proj\main.go`, want: "/C:/Users/me/proj/main.go"},
		{name: "forward slashes", in: `c:/Users/me/proj`, want: "/C:/Users/me/proj"},
		{name: "guard form handed back", in: "/C:/Users/me/proj", want: "/C:/Users/me/proj"},
		{name: "UNC", in: `\\fs\team\proj`, want: "/UNC/fs/team/proj"},
		{name: "long path prefix", in: `\\?\C:\Users\me`, want: "/C:/Users/me"},
		{name: "relative with backslashes", in: `src\..\.git\config`, want: "src/../.git/config"},
		{name: "relative", in: `notes.txt`, want: "notes.txt"},
		{name: "home shorthand stays relative", in: `~\.ssh\id_ed25519`, want: "~/.ssh/id_ed25519"},
		{name: "drive-relative", in: `C:secrets.txt`, refusal: "drive-relative"},
		{name: "rooted on the current drive", in: `\Users\me\.ssh`, refusal: "without a drive"},
		{name: "Unix absolute", in: "/etc/passwd", refusal: "without a drive"},
		{name: "device", in: `\\.\C:`, refusal: "device namespace"},
		{name: "reserved name", in: `C:\proj\con.txt`, refusal: "reserved"},
		{name: "stream", in: `C:\proj\.env:x`, refusal: "colon"},
		{name: "trailing dot hides .git", in: `.git.\hooks\pre-commit`, refusal: "ends in a dot"},
		{name: "trailing space", in: `C:\Users\me\.ssh \id_rsa`, refusal: "ends in a dot or a space"},
		{name: "guard form with a bad name", in: "/C:/proj/NUL", refusal: "reserved"},
		{name: "incomplete UNC guard form", in: "/UNC/fs", refusal: "without a drive"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := windowsGuardPath(tc.in)
			if tc.refusal == "" {
				if err != nil || got != tc.want {
					t.Fatalf("windowsGuardPath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
				}
				return
			}
			var pe *pathErr
			if !errors.As(err, &pe) || pe.code != "invalid_path" || !strings.Contains(pe.msg, tc.refusal) {
				t.Fatalf("windowsGuardPath(%q) = %q, %v; want invalid_path saying %q", tc.in, got, err, tc.refusal)
			}
		})
	}
}

// On a case-insensitive file system a protected path matches every spelling of its case; a
// name that merely starts like it does not. Exact everywhere else.
func TestRuleWithinFold(t *testing.T) {
	cases := []struct {
		p, dir     string
		fold, want bool
	}{
		{"/Users/me/.ssh/id_rsa", "/Users/me/.ssh", false, true},
		{"/Users/me/.SSH/id_rsa", "/Users/me/.ssh", false, false},
		{"/Users/me/.SSH/id_rsa", "/Users/me/.ssh", true, true},
		{"/C:/Users/ME/AppData/Roaming/toolhost", "/C:/Users/me/AppData/Roaming/toolhost", true, true},
		{"/Users/me/.sshx", "/Users/me/.ssh", true, false},
		{"/Users/me/.ss", "/Users/me/.ssh", true, false},
		{"/Users/me", "/Users/me/.ssh", true, false},
	}
	for _, tc := range cases {
		if got := ruleWithin(tc.p, tc.dir, tc.fold); got != tc.want {
			t.Errorf("ruleWithin(%q, %q, %v) = %v, want %v", tc.p, tc.dir, tc.fold, got, tc.want)
		}
	}
}
