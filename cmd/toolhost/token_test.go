package main

import (
	"strings"
	"testing"
)

// TestTokenUpdateCLI: `toolhost token update` changes what it is given, keeps the rest, and
// refuses bad input with the token unchanged.
func TestTokenUpdateCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns the binary")
	}
	state, work := t.TempDir(), t.TempDir()
	createToken(t, state, work, "ci-bot", "--tier", "view_only", "--rate", "60/min")
	cases := []struct {
		name     string
		args     []string
		wantOut  string // stdout, or the error's text when wantFail
		wantFail bool
		wantList string // the token's row in `token list` afterwards
	}{
		{name: "tier", args: []string{"--tier", "execute_advanced"}, wantOut: "token ci-bot: tier execute_advanced, rate 60/min", wantList: "ci-bot   execute_advanced  60/min"},
		{name: "rate", args: []string{"--rate", "5/s"}, wantOut: "tier execute_advanced, rate 5/s", wantList: "ci-bot   execute_advanced  5/s"},
		{name: "default rate", args: []string{"--rate", "default"}, wantOut: "rate -", wantList: "ci-bot   execute_advanced  -"},
		{name: "unknown tier", args: []string{"--tier", "root"}, wantFail: true, wantOut: "tier", wantList: "ci-bot   execute_advanced  -"},
		{name: "bad rate", args: []string{"--rate", "often"}, wantFail: true, wantOut: "rate", wantList: "ci-bot   execute_advanced  -"},
		{name: "nothing to change", wantFail: true, wantOut: "nothing to change", wantList: "ci-bot   execute_advanced  -"},
		{name: "unknown token", args: []string{"--tier", "admin", "nobody"}, wantFail: true, wantOut: "no such token", wantList: "ci-bot   execute_advanced  -"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"token", "update"}, tc.args...)
			if len(tc.args) == 0 || tc.args[len(tc.args)-1] != "nobody" {
				args = append(args, "ci-bot")
			}
			out, errOut, err := cli(t, state, work, args...)
			if tc.wantFail && err == nil {
				t.Errorf("%v succeeded: %s", args, out)
			} else if !tc.wantFail && err != nil {
				t.Fatalf("%v: %v: %s", args, err, errOut)
			}
			if got := map[bool]string{false: out, true: errOut}[tc.wantFail]; !strings.Contains(got, tc.wantOut) {
				t.Errorf("%v printed %q, want %q", args, got, tc.wantOut)
			}
			list, _, err := cli(t, state, work, "token", "list")
			if err != nil || !strings.Contains(list, tc.wantList) {
				t.Errorf("token list afterwards (%v):\n%s\nwant a row %q", err, list, tc.wantList)
			}
		})
	}
}
