package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"toolhost/internal/sysfile"
)

// Codex and the TS SDK start stdio MCP servers with a minimal environment (HOME and PATH), so a
// user who sets XDG_CONFIG_HOME or XDG_STATE_HOME in their shell would get one configuration and
// state directory under those clients and another one in their shell, where `toolhost approve`
// runs. toolhost therefore notes the two variables, as the user's own shell sets them, in a file
// that needs only HOME to be found (~/.local/state/toolhost/xdg-dirs.json), and a process
// started without them reads them from there. Only a process whose environment is the user's
// own writes the note: the command line calls RememberXDGDirs from a terminal that no toolhost
// server started (a model types into toolhost's terminals; it must not move the user's state).

// xdgVars are the variables toolhost's default paths depend on.
var xdgVars = map[string]string{
	"XDG_CONFIG_HOME": ".config",
	"XDG_STATE_HOME":  filepath.Join(".local", "state"),
}

// xdgRecordPath is the note's path, under the default state home so that HOME alone finds it.
func xdgRecordPath() string {
	home, _ := os.UserHomeDir()
	return filepath.Join(home, xdgVars["XDG_STATE_HOME"], "toolhost", "xdg-dirs.json")
}

// xdgHome is the base directory named by the XDG variable name: the variable when set, else
// the value noted from the user's shell (while that directory exists), else the XDG default
// under HOME.
func xdgHome(name string) string {
	if v := os.Getenv(name); filepath.IsAbs(v) {
		return v
	}
	if v := readXDGRecord()[name]; filepath.IsAbs(v) {
		if fi, err := os.Stat(v); err == nil && fi.IsDir() {
			return v
		}
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, xdgVars[name])
}

// readXDGRecord reads the note. A note that someone else could have written (not owned by this
// user, or writable by group or others) is ignored.
func readXDGRecord() map[string]string {
	f, err := os.Open(xdgRecordPath())
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 || fi.Size() > 64<<10 {
		return nil
	}
	if sysfile.OwnedByOther(fi) {
		return nil
	}
	var rec map[string]string
	if json.NewDecoder(f).Decode(&rec) != nil {
		return nil
	}
	return rec
}

// RememberXDGDirs notes this process's XDG_CONFIG_HOME and XDG_STATE_HOME for toolhost processes
// started without them. The caller vouches that this environment is the user's own. Nothing is
// written when neither is set or the note already says the same.
func RememberXDGDirs() error {
	old := readXDGRecord()
	rec := map[string]string{}
	changed := false
	for name := range xdgVars {
		v := os.Getenv(name)
		if !filepath.IsAbs(v) {
			if old[name] != "" {
				rec[name] = old[name] // a shell without the variable says nothing about it
			}
			continue
		}
		rec[name] = filepath.Clean(v)
		changed = changed || old[name] != rec[name]
	}
	if !changed {
		return nil
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	dir, name := filepath.Split(xdgRecordPath())
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("note xdg dirs: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("note xdg dirs: %w", err)
	}
	defer root.Close()
	tmp := name + ".tmp"
	if err := root.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("note xdg dirs: %w", err)
	}
	if err := root.Rename(tmp, name); err != nil {
		root.Remove(tmp)
		return fmt.Errorf("note xdg dirs: %w", err)
	}
	return nil
}
