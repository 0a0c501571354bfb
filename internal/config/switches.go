package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"toolhost/internal/edit"
)

// Switches are the operations the operator console switched off, on top of the active
// profile. They live in a managed include file beside the configuration (SwitchesPath)
// rather than in it: the TOML library rewrites a file without its comments, and the user's
// configuration keeps them.
type Switches struct {
	// Disable lists tool or tool.operation names switched off, like Profile.Disable.
	Disable []string `toml:"disable"`
}

// SwitchesPath is the console's managed file for the configuration at configPath (the default
// path when empty): console.toml in the same directory.
func SwitchesPath(configPath string) string {
	if configPath == "" {
		configPath = DefaultPath()
	}
	return filepath.Join(filepath.Dir(configPath), "console.toml")
}

// LoadSwitches reads the managed file; a missing file switches nothing off.
func LoadSwitches(path string) (Switches, error) {
	var s Switches
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("read %s: %w", path, err)
	}
	md, err := toml.Decode(string(data), &s)
	if err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return s, fmt.Errorf("%s: %w %q", path, ErrUnknownKey, und[0].String())
	}
	return s, nil
}

// Off reports whether the switches turn tool.op off.
func (s Switches) Off(tool, op string) bool {
	return slices.Contains(s.Disable, tool) || slices.Contains(s.Disable, tool+"."+op)
}

// Write replaces the managed file atomically (edit.WriteAtomic), so a reader sees the old
// list or the new one.
func (s Switches) Write(path string) error {
	list := slices.Clone(s.Disable)
	slices.Sort(list)
	list = slices.Compact(list)
	var b bytes.Buffer
	b.WriteString("# Managed by the toolhost console (Tools page): operations switched off on top of the\n")
	b.WriteString("# active profile. The console rewrites this file; remove a line to switch one back on.\n")
	b.WriteString("disable = [\n")
	for _, name := range list {
		b.WriteString("  " + strconv.Quote(name) + ",\n")
	}
	b.WriteString("]\n")
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write switches: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("write switches: %w", err)
	}
	defer root.Close()
	if err := edit.WriteAtomic(root, filepath.Base(path), b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("write switches: %w", err)
	}
	return nil
}

// Summary says in a few words what a profile enables, for the console.
func (p Profile) Summary() string {
	var parts []string
	if p.ReadOnly {
		parts = append(parts, "read-only operations")
	}
	if len(p.Tools) > 0 {
		parts = append(parts, "only "+strings.Join(p.Tools, ", "))
	}
	if len(p.Disable) > 0 {
		parts = append(parts, "without "+strings.Join(p.Disable, ", "))
	}
	if p.BudgetTokens > 0 {
		parts = append(parts, fmt.Sprintf("results up to %d tokens", p.BudgetTokens))
	}
	if p.OutsideReads == "grant" {
		parts = append(parts, "outside reads need a grant")
	}
	if len(parts) == 0 {
		return "every tool and operation"
	}
	return strings.Join(parts, "; ")
}
