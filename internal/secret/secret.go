// Package secret decides, in one place, what in a value is a secret, and masks it wherever a
// value is shown or stored: a result's text, the log, the execution history and its resources,
// the audit log, the console. Masking only ever changes what is shown or stored, never a value a
// tool then uses.
//
// What counts as a secret:
//
//   - a value whose name says so ([Name]): a URL query or fragment parameter, a header, a JSON
//     key, a NAME=value pair, a variable (token, access_token, *_token, key, api_key, sig,
//     signature, X-Amz-Credential/Signature/Security-Token, password, secret, auth, credential,
//     cookie, session ids...);
//   - the password of a URL's userinfo, and of a connection string ([DSN]);
//   - the value of an Authorization, Proxy-Authorization, Cookie or Set-Cookie header, and a
//     bearer token anywhere;
//   - a private key block (-----BEGIN ... PRIVATE KEY-----);
//   - a token of a well-known format wherever it stands: GitHub (ghp_, gho_, ghu_, ghs_, ghr_,
//     github_pat_), OpenAI and Anthropic (sk-...), Slack (xox?-), AWS access key ids
//     (AKIA/ASIA...), GitLab (glpat-), npm (npm_), Hugging Face (hf_), toolhost's own (th_),
//     and JSON Web Tokens.
package secret

import (
	"net/url"
	"strings"
	"unicode"

	"toolhost/internal/lazyregexp"
)

// Mask stands in for a secret value.
const Mask = "***"

// secretWords are the words of a name (split at anything but letters and digits, and at
// camelCase) that make its value secret; secretEndings end a word that does (accesstoken,
// apikey). "key" alone counts too: it is the API key of many services' query strings.
var (
	secretWords = []string{"sig", "pass", "pwd", "jwt", "hmac", "dsn", "cookie", "key", "bearer"}
	secretEnds  = []string{"token", "apikey", "signature", "password", "passwd", "secret", "secrets", "auth",
		"authorization", "credential", "credentials", "passphrase", "privatekey", "accesskey", "secretkey", "sessionid"}
	// secretPairs are two adjacent words that make a secret together (api key, private key).
	secretPairs = [][2]string{{"api", "key"}, {"private", "key"}, {"access", "key"}, {"secret", "key"},
		{"connection", "string"}, {"session", "token"}, {"client", "secret"}}
)

// nameStems is in every name Name finds secret: a name holding none of them is not, which
// most names show without being split into words.
var nameStems = []string{"sig", "pass", "pwd", "jwt", "hmac", "dsn", "cookie", "key", "bearer", "token", "secret",
	"auth", "credential", "sessionid", "string"}

// Name reports whether a value named name carries a secret: a query or form parameter, a
// header, a JSON key, a NAME=value or an environment variable's name.
func Name(name string) bool {
	stem := false
	for _, st := range nameStems {
		if containsFold(name, st) {
			stem = true
			break
		}
	}
	if !stem {
		return false
	}
	words := splitName(name)
	for i, w := range words {
		for _, s := range secretWords {
			if w == s {
				return true
			}
		}
		for _, e := range secretEnds {
			if strings.HasSuffix(w, e) {
				return true
			}
		}
		if i+1 < len(words) {
			for _, p := range secretPairs {
				if w == p[0] && words[i+1] == p[1] {
					return true
				}
			}
		}
	}
	return false
}

// queryName is Name for the parameters of a URL, where a session id is the session itself
// (?sessionId=..., ?sid=...), unlike toolhost's own session_id arguments, which name a terminal.
func queryName(name string) bool {
	if Name(name) {
		return true
	}
	for _, w := range splitName(name) {
		if w == "session" || w == "sid" || w == "sessid" {
			return true
		}
	}
	return false
}

// splitName lowers a name and splits it into words at non-alphanumerics and camelCase.
func splitName(name string) []string {
	var words []string
	var cur []rune
	prevLower := false
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range name {
		switch {
		case unicode.IsUpper(r):
			if prevLower {
				flush()
			}
			cur = append(cur, unicode.ToLower(r))
			prevLower = false
		case unicode.IsLower(r) || unicode.IsDigit(r):
			cur = append(cur, r)
			prevLower = true
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return words
}

// URL returns u as text for messages, results and logs: its userinfo password and the values of
// query and fragment parameters that [Name] finds secret replaced by ***. Nothing else of it
// changes.
func URL(u *url.URL) string {
	if u == nil {
		return ""
	}
	c := *u
	if c.User != nil {
		if _, has := c.User.Password(); has {
			c.User = url.UserPassword(c.User.Username(), "__MASK__")
		}
	}
	c.RawQuery = Query(c.RawQuery)
	c.Fragment, c.RawFragment = "", ""
	s := strings.Replace(c.String(), "__MASK__", Mask, 1)
	if u.Fragment != "" {
		s += "#" + Query(u.EscapedFragment())
	}
	return s
}

// Query masks the values of the secret parameters of a raw query string, keeping the order and
// spelling of everything else.
func Query(raw string) string {
	if raw == "" {
		return raw
	}
	parts := strings.Split(raw, "&")
	for i, part := range parts {
		k, _, hasValue := strings.Cut(part, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if hasValue && queryName(name) {
			parts[i] = k + "=" + Mask
		}
	}
	return strings.Join(parts, "&")
}

// keywordPassword matches a password in a keyword/value connection string: password=x,
// password = 'two words', sslpassword=... .
var keywordPassword = lazyregexp.New(`(?i)\b((?:ssl)?password)\s*=\s*('(?:[^'\\]|\\.)*'|\S*)`)

// DSN masks the passwords of a connection string, in the URL form
// (postgres://user:secret@host/db?sslpassword=...) and the keyword form (password=secret).
// ${VAR} references are kept as written: their values are resolved only when connecting.
func DSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" && u.Host != "" {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "__MASK__")
		}
		u.RawQuery = Query(u.RawQuery)
		return strings.Replace(u.String(), "__MASK__", Mask, 1)
	}
	return keywordPassword.ReplaceAllString(dsn, "${1}="+Mask)
}

// The patterns Text masks, in the order it applies them. Each runs only when the text holds
// what the pattern needs (a regexp pass over every log line cost more than the line did).
var (
	privateKeyBlock = lazyregexp.New(`-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(-----END ([A-Z0-9 ]*)PRIVATE KEY-----|$)`)
	authHeader      = lazyregexp.New(`(?i)\b((?:proxy-)?authorization|cookie|set-cookie)(\s*[:=]\s*)([^\r\n"']*)`)
	bearer          = lazyregexp.New(`(?i)\b(bearer|basic|token)\s+([A-Za-z0-9._~+/=-]{8,})`)
	urlPattern      = lazyregexp.New(`\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`)
	tokenFormat     = lazyregexp.New(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{20,}|npm_[A-Za-z0-9]{30,}|hf_[A-Za-z0-9]{30,}|th_[A-Za-z0-9_-]{16,}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})`)
	// userinfo is a user:password@ anywhere, the scheme of its URL lost or mangled
	// (scp-like user:pw@host, a path that collapsed "//").
	userinfo = lazyregexp.New(`(^|[/\s"'=(])([^/\s:@"']*):([^/\s@"']+)@([A-Za-z0-9.-]+)`)
)

// tokenPrefixes start the token formats tokenFormat knows.
var tokenPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "sk-", "xoxa-", "xoxb-", "xoxp-",
	"xoxo-", "xoxs-", "xoxr-", "AKIA", "ASIA", "glpat-", "npm_", "hf_", "th_", "eyJ"}

// Text masks the secrets inside free text (a command line, a log line, an error message, a
// header block): private key blocks, authorization and cookie headers, bearer tokens, URLs (as
// [URL] does), user:password@ wherever it stands, tokens of well-known formats, and NAME=value,
// NAME: value or "NAME": value of secret names.
func Text(s string) string {
	if len(s) < 6 {
		return s
	}
	if strings.Contains(s, "-----BEGIN") {
		s = privateKeyBlock.ReplaceAllString(s, "-----BEGIN ${1}PRIVATE KEY----- "+Mask+" -----END ${1}PRIVATE KEY-----")
	}
	if containsFold(s, "authorization") || containsFold(s, "cookie") {
		s = authHeader.ReplaceAllString(s, "${1}${2}"+Mask)
	}
	if containsFold(s, "bearer") || containsFold(s, "basic") || containsFold(s, "token") {
		s = bearer.ReplaceAllString(s, "${1} "+Mask)
	}
	if strings.Contains(s, "://") {
		// In place: a URL in text keeps its spelling, only its secret parameters masked (its
		// password goes with the user:password@ pass below).
		s = urlPattern.ReplaceAllStringFunc(s, func(m string) string {
			rest, frag, hasFrag := strings.Cut(m, "#")
			head, query, hasQuery := strings.Cut(rest, "?")
			out := head
			if hasQuery {
				out += "?" + Query(query)
			}
			if hasFrag {
				out += "#" + Query(frag)
			}
			return out
		})
	}
	if strings.IndexByte(s, '@') >= 0 {
		s = userinfo.ReplaceAllStringFunc(s, func(m string) string {
			sub := userinfo.FindStringSubmatch(m)
			if sub[3] == Mask {
				return m
			}
			return sub[1] + sub[2] + ":" + Mask + "@" + sub[4]
		})
	}
	for _, p := range tokenPrefixes {
		if strings.Contains(s, p) {
			s = tokenFormat.ReplaceAllString(s, Mask)
			break
		}
	}
	if strings.ContainsAny(s, "=:") {
		s = namedValues(s)
	}
	return s
}

// containsFold reports whether s contains the lower-case ASCII word w, in any case.
func containsFold(s, w string) bool {
	n := len(w)
	for i := 0; i+n <= len(s); i++ {
		if s[i]|0x20 == w[0] && strings.EqualFold(s[i:i+n], w) {
			return true
		}
	}
	return false
}

// namedValues masks the value of every NAME=value, NAME: value (a blank after the colon: YAML,
// a header) and "NAME": value (JSON) whose name Name finds secret. A colon with no blank after
// it is a scheme, a port or a drive, never a pair.
func namedValues(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '=' && c != ':' {
			continue
		}
		// The name before the separator: identifier characters, maybe quoted, maybe blanks
		// before '='.
		end := i
		if c == '=' {
			for end > 0 && (s[end-1] == ' ' || s[end-1] == '\t') {
				end--
			}
		}
		quoted := end > 0 && s[end-1] == '"'
		if quoted {
			end--
			if end > 0 && s[end-1] == '\\' { // \"name\": JSON inside a quoted string
				end--
			}
		} else if c == ':' && (i+1 >= len(s) || s[i+1] != ' ' && s[i+1] != '\t') {
			continue
		}
		start := end
		for start > 0 && isNameByte(s[start-1]) {
			start--
		}
		if start == end || !isBoundary(s, start, quoted) {
			continue
		}
		if !Name(strings.TrimLeft(s[start:end], "-")) {
			continue
		}
		// The value after the separator and blanks.
		v := i + 1
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		ve := v
		if v+1 < len(s) && s[v] == '\\' && s[v+1] == '"' {
			// A JSON string inside a quoted one: \"value\".
			ve = v + 2
			for ve+1 < len(s) && !(s[ve] == '\\' && s[ve+1] == '"') {
				ve++
			}
			ve = min(ve+2, len(s))
		} else if v < len(s) && (s[v] == '"' || s[v] == '\'') {
			q := s[v]
			ve = v + 1
			for ve < len(s) && s[ve] != q {
				ve++
			}
			if ve < len(s) {
				ve++
			}
		} else {
			for ve < len(s) && !strings.ContainsRune(" \t\r\n;,&\"'}])", rune(s[ve])) {
				ve++
			}
		}
		if ve == v || s[v:ve] == Mask || s[v:ve] == `""` || s[v:ve] == "''" {
			continue
		}
		b.WriteString(s[last:v])
		b.WriteString(Mask)
		last, i = ve, ve-1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// isBoundary reports whether a name may start at start: the text's start, or after a blank,
// a separator or an opening bracket (a quoted name after its opening quote).
func isBoundary(s string, start int, quoted bool) bool {
	if quoted {
		if start == 0 || s[start-1] != '"' {
			return false
		}
		start--
		if start > 0 && s[start-1] == '\\' {
			start--
		}
	}
	return start == 0 || strings.IndexByte(" \t\r\n;,&?#{([/\\\"'", s[start-1]) >= 0
}
