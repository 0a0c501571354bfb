package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestXDGDirsNotedFromTheShell: a process started without XDG_* (as Codex and the TS SDK start
// stdio servers) finds the configuration and state the user's shell uses, through the note a
// command in that shell left; a note that cannot be trusted or points nowhere is ignored.
func TestXDGDirsNotedFromTheShell(t *testing.T) {
	tests := []struct {
		name string
		// shell is the environment of the command that notes the dirs (nil: none ran).
		shell map[string]string
		// spoil changes the note after it was written.
		spoil func(t *testing.T, home, custom string)
		// env is the environment of the process under test.
		env                 map[string]string
		wantConfig, wantDir string // relative to home ("~") or to the custom dir ("@")
	}{
		{"no note: the defaults", nil, nil, nil, "~/.config", "~/.local/state"},
		{"stripped environment follows the note", map[string]string{"XDG_CONFIG_HOME": "@/cfg", "XDG_STATE_HOME": "@/state"}, nil, nil, "@/cfg", "@/state"},
		{"a variable that is set wins", map[string]string{"XDG_STATE_HOME": "@/state"}, nil, map[string]string{"XDG_STATE_HOME": "@/other"}, "~/.config", "@/other"},
		{"only the variable the shell set", map[string]string{"XDG_STATE_HOME": "@/state"}, nil, nil, "~/.config", "@/state"},
		{"relative variable is not a path", map[string]string{"XDG_STATE_HOME": "@/state"}, nil, map[string]string{"XDG_STATE_HOME": "rel/state"}, "~/.config", "@/state"},
		{"noted dir removed", map[string]string{"XDG_STATE_HOME": "@/state"}, func(t *testing.T, home, custom string) {
			if err := os.RemoveAll(filepath.Join(custom, "state")); err != nil {
				t.Fatal(err)
			}
		}, nil, "~/.config", "~/.local/state"},
		{"note writable by others", map[string]string{"XDG_STATE_HOME": "@/state"}, func(t *testing.T, home, custom string) {
			if err := os.Chmod(xdgRecordPath(), 0o666); err != nil {
				t.Fatal(err)
			}
		}, nil, "~/.config", "~/.local/state"},
		{"note replaced by a directory", map[string]string{"XDG_STATE_HOME": "@/state"}, func(t *testing.T, home, custom string) {
			os.Remove(xdgRecordPath())
			if err := os.Mkdir(xdgRecordPath(), 0o700); err != nil {
				t.Fatal(err)
			}
		}, nil, "~/.config", "~/.local/state"},
		{"garbage note", map[string]string{"XDG_STATE_HOME": "@/state"}, func(t *testing.T, home, custom string) {
			if err := os.WriteFile(xdgRecordPath(), []byte("{not json"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, nil, "~/.config", "~/.local/state"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, custom := t.TempDir(), t.TempDir()
			path := func(p string) string {
				switch {
				case len(p) > 0 && p[0] == '~':
					return filepath.Join(home, p[1:])
				case len(p) > 0 && p[0] == '@':
					return filepath.Join(custom, p[1:])
				}
				return p
			}
			t.Setenv("HOME", home)
			setAll := func(env map[string]string) {
				for name := range xdgVars {
					t.Setenv(name, "")
				}
				for k, v := range env {
					t.Setenv(k, path(v))
					if filepath.IsAbs(path(v)) {
						if err := os.MkdirAll(path(v), 0o700); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			if tt.shell != nil {
				setAll(tt.shell)
				if err := RememberXDGDirs(); err != nil {
					t.Fatal(err)
				}
				if fi, err := os.Stat(xdgRecordPath()); err != nil || fi.Mode().Perm() != 0o600 {
					t.Fatalf("note %s: %v, %v; want mode 0600", xdgRecordPath(), fi, err)
				}
			}
			if tt.spoil != nil {
				tt.spoil(t, home, custom)
			}
			setAll(tt.env)
			if got, want := DefaultPath(), filepath.Join(path(tt.wantConfig), "toolhost", "config.toml"); got != want {
				t.Errorf("DefaultPath() = %s, want %s", got, want)
			}
			if got, want := DefaultStateDir(), filepath.Join(path(tt.wantDir), "toolhost"); got != want {
				t.Errorf("DefaultStateDir() = %s, want %s", got, want)
			}
		})
	}
}

// TestRememberXDGDirsKeepsWhatTheShellDidNotSay: a shell without one of the variables leaves
// its noted value alone, and an unchanged note is not rewritten.
func TestRememberXDGDirsKeepsWhatTheShellDidNotSay(t *testing.T) {
	home, custom := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(custom, "cfg"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(custom, "state"))
	if err := RememberXDGDirs(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	if err := RememberXDGDirs(); err != nil {
		t.Fatal(err)
	}
	rec := readXDGRecord()
	if rec["XDG_CONFIG_HOME"] != filepath.Join(custom, "cfg") || rec["XDG_STATE_HOME"] != filepath.Join(custom, "state") {
		t.Errorf("note = %v, want both dirs kept", rec)
	}
}
