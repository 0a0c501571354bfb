package config

import (
	"reflect"
	"strings"

	"toolhost/internal/suggest"
)

// knownKeys lists every key the config file may hold, dotted, from the toml tags of Config; a
// map's keys (profile names, database names) are "*".
func knownKeys() []string {
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Map:
			walk(t.Elem(), prefix+".*")
			return
		case reflect.Struct:
		default:
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			key := name
			if prefix != "" {
				key = prefix + "." + name
			}
			out = append(out, key)
			walk(f.Type, key)
		}
	}
	walk(reflect.TypeFor[Config](), "")
	return out
}

// suggestKey returns the known key closest to the unknown dotted key k, with map segments ("*")
// filled in from k, or "" when none is close.
func suggestKey(k string) string {
	parts := strings.Split(k, ".")
	var cands []string
	for _, known := range knownKeys() {
		kp := strings.Split(known, ".")
		if len(kp) != len(parts) {
			continue
		}
		for i, p := range kp {
			if p == "*" {
				kp[i] = parts[i]
			}
		}
		cands = append(cands, strings.Join(kp, "."))
	}
	return suggest.Nearest(k, cands)
}
