package secret

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxArgValue is the longest string value Args keeps whole; longer values are cut.
const MaxArgValue = 200

// MaxArgs bounds what Args returns: past it (many keys, long arrays) the arguments are kept as a
// JSON string, the start of their JSON text cut with a note of its size.
const MaxArgs = 4 << 10

// Args returns a call's arguments (the object's members, as the dispatcher split them) as the
// execution history, the log and the console keep them: the value of every secret-named member
// replaced by ***, every string masked with Text and cut at MaxArgValue with a note of its
// size, the whole at most MaxArgs bytes.
func Args(m map[string]json.RawMessage) json.RawMessage {
	if m == nil {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(maskValue(k, m[k]))
	}
	b.WriteByte('}')
	out := b.String()
	if len(out) <= MaxArgs {
		return json.RawMessage(out)
	}
	// Cut as a JSON string, whose escapes (every quote of the text) make it longer than the
	// text it holds: shrink the cut until the string fits.
	var cut []byte
	for n := MaxArgs; ; n = n * 3 / 4 {
		cut, _ = json.Marshal(cutString(out, n))
		if len(cut) <= MaxArgs {
			return cut
		}
	}
}

// RawArgs is Args for arguments that may not be an object: text that is not JSON is kept only
// by its size.
func RawArgs(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		b, _ := json.Marshal(fmt.Sprintf("(%d bytes, not a JSON object)", len(raw)))
		return b
	}
	return Args(m)
}

// maskValue masks one member's value: all of it under a secret name, else its strings.
func maskValue(key string, v json.RawMessage) json.RawMessage {
	v = json.RawMessage(strings.TrimSpace(string(v)))
	if len(v) == 0 {
		return json.RawMessage("null")
	}
	if Name(key) && string(v) != "null" && string(v) != `""` {
		return json.RawMessage(strconv.Quote(Mask))
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return json.RawMessage(`"(invalid string)"`)
		}
		b, _ := json.Marshal(cutString(Text(s), MaxArgValue))
		return b
	case '{', '[':
		var x any
		if json.Unmarshal(v, &x) != nil {
			return json.RawMessage(`"(invalid JSON)"`)
		}
		b, _ := json.Marshal(mask(key, x))
		return b
	}
	return v
}

// mask masks a decoded value below key.
func mask(key string, v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = mask(k, e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = mask(key, e)
		}
		return x
	case string:
		if key != "" && Name(key) && x != "" {
			return Mask
		}
		return cutString(Text(x), MaxArgValue)
	}
	return v
}

// cutString keeps the first max bytes of s on a rune boundary and says how much was cut.
func cutString(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s…(%d bytes)", s[:n], len(s))
}

// Cut is cutString for callers that keep a masked text within a bound of their own.
func Cut(s string, max int) string { return cutString(s, max) }
