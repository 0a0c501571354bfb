package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/BurntSushi/toml"
)

// ProjectFile is the project configuration's name, read from the working directory.
const ProjectFile = ".toolhost.toml"

// maxProjectBytes bounds the project file: it is a few lines, and anyone who can write the
// repository wrote it.
const maxProjectBytes = 1 << 20

// ErrUserOnlyKey is wrapped by MergeProject for a key only the user's own configuration may set.
var ErrUserOnlyKey = errors.New("is a user-only key")

// projectKeys are the keys a project file may set. It is an allow-list, not a deny-list: a
// project file is written by whoever wrote the repository (or by a model working in it), so a
// key is admitted only when no value of it can widen what toolhost lets a model do or reach —
// no paths, grants, guard, sandbox, rules, tokens, tiers, listeners, profiles, conversations,
// databases, embedder or browser endpoints, and no limit that would let a command run longer.
// web.deny is added to the user's list, never replacing it.
var projectKeys = map[string]bool{
	"log_level":                true,
	"budget_tokens":            true,
	"approval_wait":            true,
	"reminders":                true,
	"reminders.off":            true,
	"reminders.every_n_calls":  true,
	"reminders.max_tokens":     true,
	"memory":                   true,
	"memory.index":             true,
	"terminal":                 true,
	"terminal.yield":           true,
	"terminal.default_timeout": true,
	"terminal.history_bytes":   true,
	"output":                   true,
	"output.max_result_chars":  true,
	"output.max_result_lines":  true,
	"web":                      true,
	"web.deny":                 true,
	"web.timeout":              true,
}

// ProjectKeys lists the keys a project file may set, sorted (tables omitted).
func ProjectKeys() []string {
	var out []string
	for k := range projectKeys {
		if strings.Contains(k, ".") || k == "log_level" || k == "budget_tokens" || k == "approval_wait" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// An Origin says where a value came from.
type Origin struct {
	// File and Line locate a key in a configuration file.
	File string
	Line int
	// Project marks the project file (.toolhost.toml).
	Project bool
	// Flag names the command-line flag that set it ("--workdir").
	Flag string
	// Derived says how a default was worked out ("the current directory").
	Derived string
}

func (o Origin) String() string {
	switch {
	case o.Flag != "":
		return "flag " + o.Flag
	case o.Derived != "":
		return "default: " + o.Derived
	case o.File == "":
		return "default"
	}
	s := o.File
	if o.Line > 0 {
		s += ":" + strconv.Itoa(o.Line)
	}
	if o.Project {
		s += " (project)"
	}
	return s
}

// SetOrigin records where the value of a dotted key came from.
func (c *Config) SetOrigin(key string, o Origin) {
	if c.Origins == nil {
		c.Origins = map[string]Origin{}
	}
	c.Origins[key] = o
}

// MergeProject reads .toolhost.toml from workdir, if there is one, and merges it over c: its
// values replace the user's, except web.deny, which is added to. A key outside ProjectKeys is
// refused (ErrUserOnlyKey), naming the key and its line, and c is left unchanged. The file is
// read through an os.Root of workdir, so a symlink cannot make another file the project's.
func (c *Config) MergeProject(workdir string) error {
	data, path, err := readProject(workdir)
	if err != nil || data == nil {
		return err
	}
	p := &Config{}
	md, err := toml.Decode(string(data), p)
	if err != nil {
		return fmt.Errorf("project config %s: %w", path, err)
	}
	unknown := map[string]bool{}
	for _, k := range md.Undecoded() {
		unknown[k.String()] = true
	}
	for _, k := range md.Keys() {
		key := k.String()
		if projectKeys[key] {
			continue
		}
		line := keyLine(data, key)
		if unknown[key] {
			if near := suggestKey(key); near != "" {
				return fmt.Errorf("project config %s:%d: %w %q; did you mean %q?", path, line, ErrUnknownKey, key, near)
			}
			return fmt.Errorf("project config %s:%d: %w %q", path, line, ErrUnknownKey, key)
		}
		return fmt.Errorf("project config %s:%d: %q %w: a project file may not widen the boundary; set it in your own configuration (%s) if you mean it",
			path, line, key, ErrUserOnlyKey, userConfigName(c))
	}
	if err := p.refuseExpansion(); err != nil {
		var ke *keyError
		errors.As(err, &ke)
		return fmt.Errorf("project config %s:%d: %w", path, keyLine(data, ke.key), err)
	}
	if err := p.validate(); err != nil {
		return fmt.Errorf("project config %s: %w", path, err)
	}
	merged := *c
	merged.Web.Deny = slices.Clone(c.Web.Deny)
	merged.Origins = make(map[string]Origin, len(c.Origins))
	for k, v := range c.Origins {
		merged.Origins[k] = v
	}
	keys := indexKeys(data)
	for _, k := range md.Keys() {
		key := k.String()
		src, _ := fieldByKey(reflect.ValueOf(p).Elem(), key)
		if src.Kind() == reflect.Struct && src.Type() != reflect.TypeFor[Duration]() {
			continue // a table: its keys come one by one
		}
		dst, _ := fieldByKey(reflect.ValueOf(&merged).Elem(), key)
		if key == "web.deny" {
			for _, d := range p.Web.Deny {
				if !slices.Contains(merged.Web.Deny, d) {
					merged.Web.Deny = append(merged.Web.Deny, d)
				}
			}
		} else {
			dst.Set(src)
		}
		merged.SetOrigin(key, Origin{File: path, Line: keys.line(key), Project: true})
	}
	merged.Project = path
	*c = merged
	return nil
}

// readProject returns the project file's bytes and path; nil bytes when there is none.
func readProject(workdir string) ([]byte, string, error) {
	path := strings.TrimSuffix(workdir, string(os.PathSeparator)) + string(os.PathSeparator) + ProjectFile
	root, err := os.OpenRoot(workdir)
	if err != nil {
		return nil, "", fmt.Errorf("project config: %w", err)
	}
	defer root.Close()
	// O_NONBLOCK: a FIFO named .toolhost.toml must not hang the start; it is refused below.
	f, err := root.OpenFile(ProjectFile, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("project config %s: %w", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, "", fmt.Errorf("project config %s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxProjectBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("project config %s: %w", path, err)
	}
	if len(data) > maxProjectBytes {
		return nil, "", fmt.Errorf("project config %s: larger than %d bytes", path, maxProjectBytes)
	}
	return data, path, nil
}

// fieldByKey finds the struct field a dotted key names, through nested tables only.
func fieldByKey(v reflect.Value, key string) (reflect.Value, bool) {
	for part := range strings.SplitSeq(key, ".") {
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		found := false
		t := v.Type()
		for i := range t.NumField() {
			if name, ok := tomlName(t.Field(i)); ok && name == part {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			return reflect.Value{}, false
		}
	}
	return v, true
}

func userConfigName(c *Config) string {
	if c.Path != "" {
		return c.Path
	}
	return DefaultPath()
}
