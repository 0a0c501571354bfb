package terminal

import (
	"fmt"
	"strings"
)

// namedKeys maps key names a model may use to the bytes a terminal sends for them.
var namedKeys = map[string]string{
	"enter": "\r", "return": "\r", "tab": "\t", "esc": "\x1b", "escape": "\x1b",
	"backspace": "\x7f", "space": " ", "delete": "\x1b[3~", "del": "\x1b[3~",
	"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
	"home": "\x1b[H", "end": "\x1b[F", "pageup": "\x1b[5~", "pagedown": "\x1b[6~",
	"pgup": "\x1b[5~", "pgdn": "\x1b[6~", "insert": "\x1b[2~",
	"f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS",
	"f5": "\x1b[15~", "f6": "\x1b[17~", "f7": "\x1b[18~", "f8": "\x1b[19~",
	"f9": "\x1b[20~", "f10": "\x1b[21~", "f11": "\x1b[23~", "f12": "\x1b[24~",
}

// KeyNames lists the accepted key names for error messages and schema descriptions.
func KeyNames() string {
	return "enter, tab, esc, backspace, space, delete, up, down, left, right, home, end, pageup, pagedown, insert, f1..f12, ctrl-a..ctrl-z, ctrl-\\, ctrl-], ctrl-@"
}

// keyBytes resolves a key name: "ctrl-c", "Ctrl+C", "C-c" and "^C" are the same key.
func keyBytes(name string) (string, error) {
	k := strings.ToLower(strings.TrimSpace(name))
	if s, ok := namedKeys[k]; ok {
		return s, nil
	}
	var rest string
	switch {
	case strings.HasPrefix(k, "ctrl-"), strings.HasPrefix(k, "ctrl+"):
		rest = k[5:]
	case strings.HasPrefix(k, "c-"):
		rest = k[2:]
	case strings.HasPrefix(k, "^") && len(k) == 2:
		rest = k[1:]
	}
	if len(rest) == 1 {
		c := rest[0]
		switch {
		case c >= 'a' && c <= 'z':
			return string(rune(c - 'a' + 1)), nil
		case c == '@' || c == ' ':
			return "\x00", nil
		case c == '[':
			return "\x1b", nil
		case c == '\\':
			return "\x1c", nil
		case c == ']':
			return "\x1d", nil
		case c == '^':
			return "\x1e", nil
		case c == '_':
			return "\x1f", nil
		case c == '?':
			return "\x7f", nil
		}
	}
	return "", fmt.Errorf("%w: unknown key %q; valid keys: %s", ErrInvalid, name, KeyNames())
}
