package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigLayering runs the real binary: `toolhost config` shows each value's origin through
// the three layers, ${VAR} expands, and a project file that widens the boundary stops the start
// of every command that opens the app, naming the key.
func TestConfigLayering(t *testing.T) {
	state, wd := t.TempDir(), t.TempDir()
	cfgPath := filepath.Join(state, "config.toml")
	user := "budget_tokens = 20000\nlog_level = \"${TH_TEST_LEVEL:-warn}\"\n[terminal]\nyield = \"${TH_TEST_YIELD}\"\n"
	if err := os.WriteFile(cfgPath, []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, ".toolhost.toml"), []byte("budget_tokens = 9000\n[web]\ndeny = [\"ads.example\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := commandIn(t, state, wd, "config", "--log-level", "error")
	cmd.Env = append(cmd.Env, "TH_TEST_YIELD=7s")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("toolhost config: %v\n%s", err, out)
	}
	for _, want := range []string{
		"budget_tokens = 9000  # " + filepath.Join(wd, ".toolhost.toml") + ":1 (project)",
		"log_level = \"error\"  # flag --log-level",
		"yield = \"7s\"  # " + cfgPath + ":4",
		"deny = [\"ads.example\"]  # " + filepath.Join(wd, ".toolhost.toml") + ":3 (project)",
		"workdir = \"" + wd + "\"  # flag --workdir",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("toolhost config lacks %q:\n%s", want, out)
		}
	}

	// Without the variable, the start stops and names it.
	out, err = commandIn(t, state, wd, "config").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "${TH_TEST_YIELD}") || !strings.Contains(string(out), "config.toml:4") {
		t.Errorf("config with an unset variable = %v\n%s", err, out)
	}

	// A project file that widens the boundary: refused at start, before anything is served.
	if err := os.WriteFile(filepath.Join(wd, ".toolhost.toml"), []byte("[terminal]\nsandbox = \"off\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"config"}, {"call", "think", `{"thoughts":"x"}`}, {"stdio"}} {
		cmd := commandIn(t, state, wd, args...)
		cmd.Env = append(cmd.Env, "TH_TEST_YIELD=7s")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), `"terminal.sandbox" is a user-only key`) {
			t.Errorf("toolhost %s with a widening project file = %v\n%s", args[0], err, out)
		}
	}
}
