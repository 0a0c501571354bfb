package connect

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MarshalYAML writes an obj's pairs in order.
func (o obj) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, p := range o {
		var k, v yaml.Node
		if err := k.Encode(p.Key); err != nil {
			return nil, err
		}
		if err := v.Encode(p.Value); err != nil {
			return nil, err
		}
		n.Content = append(n.Content, &k, &v)
	}
	return n, nil
}

// parseYAML reads text as one YAML document whose top level is a mapping, reporting a syntax
// error with its line.
func parseYAML(text []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		line := 1
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			fmt.Sscanf(strings.TrimPrefix(err.Error(), "yaml: "), "line %d:", &line)
		}
		return nil, &SyntaxError{Line: line, Msg: err.Error()}
	}
	if doc.Kind == 0 {
		return nil, nil // empty
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &SyntaxError{Line: root.Line, Msg: "the file's top level is not a mapping"}
	}
	return root, nil
}

// yamlList returns the value node of key in the top-level mapping, and the key node.
func yamlList(root *yaml.Node, key string) (k, v *yaml.Node, next *yaml.Node) {
	if root == nil {
		return nil, nil, nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			if i+2 < len(root.Content) {
				next = root.Content[i+2]
			}
			return root.Content[i], root.Content[i+1], next
		}
	}
	return nil, nil, nil
}

// yamlItems decodes the list under key (Continue's mcpServers) as maps.
func yamlItems(text []byte, key string) ([]map[string]any, error) {
	root, err := parseYAML(text)
	if err != nil {
		return nil, err
	}
	_, v, _ := yamlList(root, key)
	if v == nil || v.Kind != yaml.SequenceNode {
		return nil, nil
	}
	var items []map[string]any
	for _, it := range v.Content {
		var m map[string]any
		if it.Decode(&m) == nil {
			items = append(items, m)
		}
	}
	return items, nil
}

// setYAMLItem sets the item named name of the list under key (a block sequence of mappings
// with a name, as Continue's mcpServers) to v: the item's lines are replaced, or a new item
// follows the last; a missing list is added at the end of the file. v nil removes the item.
// The rest of the file stays as it was.
func setYAMLItem(text []byte, key, name string, v any) ([]byte, error) {
	root, err := parseYAML(text)
	if err != nil {
		return nil, err
	}
	lines := strings.SplitAfter(string(text), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	item := ""
	if v != nil {
		var b strings.Builder
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		item = b.String()
	}
	// indentItem writes the item as a sequence entry at indent.
	indentItem := func(indent string) string {
		var out strings.Builder
		for i, l := range strings.SplitAfter(strings.TrimSuffix(item, "\n"), "\n") {
			if i == 0 {
				out.WriteString(indent + "- " + l)
			} else {
				out.WriteString(indent + "  " + l)
			}
		}
		return out.String() + "\n"
	}
	k, list, next := yamlList(root, key)
	if k == nil || list.Kind != yaml.SequenceNode || len(list.Content) == 0 || list.Style&yaml.FlowStyle != 0 {
		if v == nil {
			return text, nil
		}
		if k != nil && !(list.Kind == yaml.SequenceNode && len(list.Content) == 0) && !(list.Kind == yaml.ScalarNode && list.Tag == "!!null") {
			return nil, &SyntaxError{Line: k.Line, Msg: fmt.Sprintf("%s is not a list of servers connect can add to; edit it by hand", key)}
		}
		block := key + ":\n" + indentItem("  ")
		if k != nil {
			// An empty list (mcpServers: [] or mcpServers:) gives its line to the new one.
			lines[k.Line-1] = block
			return []byte(strings.Join(lines, "")), nil
		}
		out := string(text)
		if out != "" && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		return []byte(out + block), nil
	}
	// The lines of each item: from its first line to the next item's (or the list's end).
	end := len(lines) + 1 // 1-based line after the list
	if next != nil {
		end = next.Line
	}
	at := -1
	for i, it := range list.Content {
		var m map[string]any
		if it.Decode(&m) == nil && m["name"] == name {
			at = i
		}
	}
	last := list.Content[len(list.Content)-1]
	dash := lineIndent([]byte(strings.Join(lines, "")), lineStart(lines, last.Line))
	if at < 0 {
		if v == nil {
			return text, nil
		}
		stop := trimBack(lines, last.Line, end)
		out := strings.Join(lines[:stop], "")
		if !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		return []byte(out + indentItem(dash) + strings.Join(lines[stop:], "")), nil
	}
	from := list.Content[at].Line
	to := end
	if at+1 < len(list.Content) {
		to = list.Content[at+1].Line
	}
	stop := trimBack(lines, from, to)
	replacement := ""
	if v != nil {
		replacement = indentItem(dash)
	}
	if v == nil && len(list.Content) == 1 {
		// The last item: the list goes too.
		out := strings.Join(lines[:k.Line-1], "") + strings.Join(lines[stop:], "")
		return []byte(out), nil
	}
	return []byte(strings.Join(lines[:from-1], "") + replacement + strings.Join(lines[stop:], "")), nil
}

// lineStart is the byte offset of 1-based line n.
func lineStart(lines []string, n int) int {
	off := 0
	for i := 0; i < n-1 && i < len(lines); i++ {
		off += len(lines[i])
	}
	return off
}

// trimBack returns the 0-based index just after the last line in [from, to) (1-based lines)
// that is neither blank nor a comment at the list's end.
func trimBack(lines []string, from, to int) int {
	stop := min(to-1, len(lines))
	for stop > from {
		t := strings.TrimSpace(lines[stop-1])
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		stop--
	}
	return stop
}
