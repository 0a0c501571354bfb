package connect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// decodeTOML decodes text, reporting a syntax error with its line.
func decodeTOML(text []byte, v any) error {
	if _, err := toml.Decode(string(text), v); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return &SyntaxError{Line: pe.Position.Line, Msg: pe.Message}
		}
		return &SyntaxError{Line: 1, Msg: err.Error()}
	}
	return nil
}

// setTOML sets the table named table ("mcp_servers.toolhost") to v, a map of keys to strings,
// string lists and string maps: its block of lines (its header, its keys, its subtables) is
// replaced, or a new block is added at the end. v nil removes the block. The rest of the file
// stays as it was.
func setTOML(text []byte, table string, v any) ([]byte, error) {
	var all map[string]any
	if err := decodeTOML(text, &all); err != nil {
		return nil, err
	}
	parent, name, _ := strings.Cut(table, ".")
	lines := strings.SplitAfter(string(text), "\n")
	header := regexp.MustCompile(`^\s*\[\s*` + regexp.QuoteMeta(parent) + `\s*\.\s*("` + regexp.QuoteMeta(name) + `"|` + regexp.QuoteMeta(name) + `)\s*\]\s*(#.*)?$`)
	sub := regexp.MustCompile(`^\s*\[\s*` + regexp.QuoteMeta(parent) + `\s*\.\s*("` + regexp.QuoteMeta(name) + `"|` + regexp.QuoteMeta(name) + `)\s*\.`)
	anyHeader := regexp.MustCompile(`^\s*\[`)
	start := slices.IndexFunc(lines, func(l string) bool { return header.MatchString(strings.TrimRight(l, "\r\n")) })
	_, present := lookupTOML(all, parent, name)
	if start < 0 && present {
		return nil, &SyntaxError{Line: 1, Msg: fmt.Sprintf("%s is set in a form connect does not edit (not a [%s] table); edit or remove it by hand", table, table)}
	}
	block := ""
	if v != nil {
		block = renderTOML(table, v)
	}
	if start < 0 {
		if v == nil {
			return text, nil
		}
		out := string(text)
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		if out != "" && !strings.HasSuffix(out, "\n\n") {
			out += "\n"
		}
		return []byte(out + block), nil
	}
	end := start + 1
	for end < len(lines) && (!anyHeader.MatchString(lines[end]) || sub.MatchString(lines[end])) {
		end++
	}
	// Blank lines and comments at the block's end belong to what follows.
	for end > start+1 && (strings.TrimSpace(lines[end-1]) == "" || strings.HasPrefix(strings.TrimSpace(lines[end-1]), "#")) {
		end--
	}
	out := strings.Join(lines[:start], "") + block
	rest := strings.Join(lines[end:], "")
	if v == nil {
		// Removing: take one blank line that separated the block from what follows, or at
		// the end of the file the one before it.
		if rest == "" {
			out = strings.TrimSuffix(out, "\n\n") + "\n"
		} else {
			rest = strings.TrimPrefix(rest, "\n")
		}
	}
	return []byte(out + rest), nil
}

func lookupTOML(all map[string]any, parent, name string) (any, bool) {
	p, ok := all[parent].(map[string]any)
	if !ok {
		return nil, false
	}
	v, ok := p[name]
	return v, ok
}

// renderTOML writes table v as a [table] block, keys in their order.
func renderTOML(table string, v any) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "[%s]\n", table)
	for _, p := range v.(obj) {
		fmt.Fprintf(&b, "%s = %s\n", p.Key, tomlValue(p.Value))
	}
	return b.String()
}

func tomlValue(v any) string {
	switch x := v.(type) {
	case string:
		q, _ := json.Marshal(x)
		return string(q)
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = tomlValue(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case obj:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = tomlValue(p.Key) + " = " + tomlValue(p.Value)
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	case bool:
		return fmt.Sprint(x)
	}
	return fmt.Sprintf("%q", fmt.Sprint(v))
}
