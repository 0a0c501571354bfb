package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"toolhost/internal/lazyregexp"
	"unicode/utf8"
)

// MaxArgValue is the longest string value the history keeps whole; longer values are cut.
const MaxArgValue = 200

// secretKey matches parameter names whose values are secrets whatever they look like.
var secretKey = lazyregexp.New(`(?i)(pass(word|wd)?|secret|token|api[_-]?key|auth(orization)?|credential|cookie|private[_-]?key|dsn|connection[_-]?string)`)

// secretValue matches values that carry a secret inside ordinary text: bearer tokens, key=value
// pairs of a secret name, well-known token prefixes and credentials in URLs.
var secretValue = lazyregexp.New(`(?i)(bearer\s+[a-z0-9._~+/=-]{8,}|\b(pass(word)?|secret|token|api[_-]?key)\s*[=:]\s*\S+|\b(sk|pk|ghp|gho|ghs|github_pat|xox[bpas]|th|glpat)[-_][a-z0-9_-]{12,}|AKIA[0-9A-Z]{16}|://[^/\s:@]+:[^/\s@]+@)`)

// MaxArgs bounds the masked arguments a record keeps: past it (many keys, long arrays) they are
// kept as a JSON string, the start of their JSON text cut with a note of its size.
const MaxArgs = 4 << 10

// MaskArgs returns the arguments as the history keeps them: secrets masked and string values
// longer than MaxArgValue cut with a note of their size, the whole at most MaxArgs bytes. Input
// that is not JSON is kept only by its size.
func MaskArgs(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		b, _ := json.Marshal(fmt.Sprintf("(%d bytes, not JSON)", len(raw)))
		return b
	}
	b, err := json.Marshal(mask("", v))
	if err != nil {
		return nil
	}
	// Cut as a JSON string, whose escapes (every quote of the text) make it longer than the
	// text it holds: shrink the cut until the string fits.
	text := string(b)
	for n := MaxArgs; len(b) > MaxArgs; n = n * 3 / 4 {
		b, _ = json.Marshal(cutString(text, n))
	}
	return b
}

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
		if key != "" && secretKey.MatchString(key) && x != "" {
			return "***"
		}
		return cutString(MaskText(x), MaxArgValue)
	}
	return v
}

// MaskText masks the secrets inside free text (a command line): bearer tokens, NAME=value of
// secret names, well-known token prefixes and credentials in URLs.
func MaskText(x string) string {
	return secretValue.ReplaceAllStringFunc(x, func(m string) string {
		if strings.HasPrefix(m, "://") {
			return "://***@"
		}
		if i := strings.IndexAny(m, "=: \t"); i > 0 && !strings.HasPrefix(strings.ToLower(m), "bearer") {
			return m[:i+1] + "***"
		}
		if strings.HasPrefix(strings.ToLower(m), "bearer") {
			return m[:6] + " ***"
		}
		return "***"
	})
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
