package config

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"toolhost/internal/secret"
)

// secretKeys are shown as set, never with their value.
var secretKeys = map[string]bool{"http.token": true}

// Render writes the effective configuration as TOML, one key a line with its origin as a
// comment ("# flag --workdir", "# /home/me/.config/toolhost/config.toml:3",
// "# /w/.toolhost.toml:2 (project)"). Keys left at their default are omitted; the token is
// hidden and connection strings are masked. With all, every key left at its default is listed
// too, as a comment, so the output names every key there is.
func (c *Config) Render(w io.Writer, all bool) error {
	tw := &errWriter{w: w}
	v := reflect.ValueOf(c).Elem()
	// Scalars of the top level first: TOML puts them before any table.
	c.renderTable(tw, v, "", false, all)
	t := v.Type()
	for i := range t.NumField() {
		name, ok := tomlName(t.Field(i))
		if !ok {
			continue
		}
		f := v.Field(i)
		switch {
		case f.Kind() == reflect.Struct && f.Type() != reflect.TypeFor[Duration]():
			c.renderTable(tw, f, name, true, all)
		case f.Kind() == reflect.Map:
			keys := f.MapKeys()
			slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
			for _, k := range keys {
				c.renderTable(tw, f.MapIndex(k), name+"."+k.String(), true, all)
			}
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct:
			for j := range f.Len() {
				fmt.Fprintf(tw, "\n[[%s]]  # %s\n", name, c.origin(name))
				c.renderTable(tw, f.Index(j), name, false, all)
			}
		}
	}
	return tw.err
}

// errWriter keeps the first write error, so that Render checks once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// renderTable writes the scalar keys of the table v (named key), with a header when header is
// set and some key is shown.
func (c *Config) renderTable(w io.Writer, v reflect.Value, key string, header, all bool) {
	t := v.Type()
	for i := range t.NumField() {
		name, ok := tomlName(t.Field(i))
		if !ok {
			continue
		}
		f, full := v.Field(i), join(key, name)
		if (f.Kind() == reflect.Struct && f.Type() != reflect.TypeFor[Duration]()) || f.Kind() == reflect.Map ||
			f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct {
			continue
		}
		_, set := c.Origins[full]
		if !set && f.IsZero() && !all {
			continue
		}
		if header {
			fmt.Fprintf(w, "\n[%s]\n", key)
			header = false
		}
		if !set && f.IsZero() {
			fmt.Fprintf(w, "# %s  (default)\n", name)
			continue
		}
		fmt.Fprintf(w, "%s = %s  # %s\n", name, renderValue(full, f), c.origin(full))
	}
}

func (c *Config) origin(key string) string {
	if o, ok := c.Origins[key]; ok {
		return o.String()
	}
	return "default"
}

func renderValue(key string, v reflect.Value) string {
	if secretKeys[key] && !v.IsZero() {
		return `"(set, hidden)"`
	}
	if key == "databases.dsn" {
		return strconv.Quote(MaskDSN(v.String()))
	}
	switch x := v.Interface().(type) {
	case Duration:
		return strconv.Quote(x.String())
	case string:
		return strconv.Quote(x)
	case []string:
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = strconv.Quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case *bool:
		return strconv.FormatBool(*x)
	}
	return fmt.Sprint(v.Interface())
}

// MaskDSN hides the passwords of a connection string (secret.DSN); ${VAR} references are shown
// as written (their values are resolved only when connecting).
func MaskDSN(dsn string) string { return secret.DSN(dsn) }
