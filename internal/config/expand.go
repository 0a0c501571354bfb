package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// ErrUndefinedVariable is wrapped by Load for a ${VAR} whose variable is not set and that has
// no ":-" default.
var ErrUndefinedVariable = errors.New("environment variable is not set")

// lateExpanded are keys whose ${VAR} is resolved where the value is used, not at load: a
// connection string may hold a password, which must stay out of the loaded configuration (and
// out of `toolhost config`), and an unset variable there only makes that database unavailable.
var lateExpanded = map[string]bool{"databases.dsn": true}

// Expand replaces ${VAR} by the variable's value and ${VAR:-default} by the value, or by
// default when the variable is unset or empty (as the shell does). "$${" is a literal "${"; a
// "$" not followed by "{" stays as it is. An unset ${VAR} without a default is an error naming
// the variable.
func Expand(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		if i > 0 && s[i-1] == '$' {
			b.WriteString(s[:i-1] + "${")
			s = s[i+2:]
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("unterminated ${ in %q", s[i:])
		}
		b.WriteString(s[:i])
		name, def, hasDef := strings.Cut(s[i+2:i+end], ":-")
		if strings.Contains(def, "${") {
			return "", fmt.Errorf("${%s:-...}: a default cannot hold another ${", name)
		}
		if !validVariable(name) {
			return "", fmt.Errorf("${%s}: not a variable name (letters, digits and _, not starting with a digit)", name)
		}
		v, ok := lookup(name)
		switch {
		case hasDef && v == "":
			v = def
		case !ok:
			return "", fmt.Errorf("%w: ${%s} (set it, or write ${%s:-default})", ErrUndefinedVariable, name, name)
		}
		b.WriteString(v)
		s = s[i+end+1:]
	}
}

func validVariable(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for _, r := range name {
		if r != '_' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// Variables returns the names s refers to with ${VAR} or ${VAR:-default}, in order.
func Variables(s string) []string {
	var names []string
	_, _ = Expand(s, func(name string) (string, bool) {
		names = append(names, name)
		return "", true
	})
	return names
}

// expandAll expands every string of c in place, naming the key of the first failure. The
// variables of late-expanded keys are looked up too (without being replaced), so a caller
// that records lookups learns every variable the configuration names.
func (c *Config) expandAll(lookup func(string) (string, bool)) error {
	var first error
	walkStrings(reflect.ValueOf(c).Elem(), "", func(key string, v reflect.Value) {
		if first != nil {
			return
		}
		if lateExpanded[key] {
			for _, name := range Variables(v.String()) {
				lookup(name)
			}
			return
		}
		if d, ok := v.Addr().Interface().(*Duration); ok {
			if d.unexpanded == "" {
				return
			}
			out, err := Expand(d.unexpanded, lookup)
			if err == nil {
				err = d.UnmarshalText([]byte(out))
			}
			if err != nil {
				first = &keyError{key: key, err: err}
			}
			return
		}
		out, err := Expand(v.String(), lookup)
		if err != nil {
			first = &keyError{key: key, err: err}
			return
		}
		v.SetString(out)
	})
	return first
}

// keyError is an error about one dotted key; Load adds the file and line.
type keyError struct {
	key string
	err error
}

func (e *keyError) Error() string { return e.key + ": " + e.err.Error() }
func (e *keyError) Unwrap() error { return e.err }

// walkStrings calls f with the dotted key of every settable string and Duration inside v:
// fields by their toml tags, slice elements under their slice's key, map values under
// "key.NAME".
func walkStrings(v reflect.Value, key string, f func(key string, v reflect.Value)) {
	if v.Type() == reflect.TypeFor[Duration]() {
		f(key, v)
		return
	}
	switch v.Kind() {
	case reflect.String:
		f(key, v)
	case reflect.Pointer:
		if !v.IsNil() {
			walkStrings(v.Elem(), key, f)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			name, ok := tomlName(t.Field(i))
			if ok {
				walkStrings(v.Field(i), join(key, name), f)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			walkStrings(v.Index(i), key, f)
		}
	case reflect.Map:
		// Map values are not addressable: copy, walk, store back.
		iter := v.MapRange()
		for iter.Next() {
			cp := reflect.New(iter.Value().Type()).Elem()
			cp.Set(iter.Value())
			walkStrings(cp, join(key, iter.Key().String()), f)
			v.SetMapIndex(iter.Key(), cp)
		}
	}
}

// tomlName is a field's key, false for fields that are not configuration (toml:"-") or are
// embedded helpers such as Duration's time.Duration.
func tomlName(f reflect.StructField) (string, bool) {
	tag := f.Tag.Get("toml")
	if tag == "" || tag == "-" || !f.IsExported() {
		return "", false
	}
	name, _, _ := strings.Cut(tag, ",")
	return name, true
}

func join(key, name string) string {
	if key == "" {
		return name
	}
	return key + "." + name
}

// refuseExpansion fails on the first string of c that holds a ${VAR}: a file the repository
// controls (.toolhost.toml) expands nothing, or it could copy the user's secrets (a token
// variable) into a value that errors and refusals echo to the model. The error names the key,
// never a value.
func (c *Config) refuseExpansion() error {
	var first error
	walkStrings(reflect.ValueOf(c).Elem(), "", func(key string, v reflect.Value) {
		if first != nil {
			return
		}
		s := v.String()
		if d, ok := v.Addr().Interface().(*Duration); ok {
			s = d.unexpanded
		}
		if strings.Contains(s, "${") {
			first = &keyError{key: key, err: ErrProjectExpansion}
		}
	})
	return first
}

// ErrProjectExpansion is returned for a ${VAR} in a project file.
var ErrProjectExpansion = errors.New("a project file expands no ${VAR} (the repository controls it, the variables are yours); write the value, or set the key in your own configuration")
