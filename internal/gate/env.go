package gate

import (
	"os"
	"slices"
	"strings"
	"sync"

	"toolhost/internal/secret"
)

// Which variables a process toolhost starts does not inherit. Every TOOLHOST_* variable; every
// variable the configuration names (what it expands, a database's dsn_env, an embedder's
// key_env: Config.Withhold); and every name that looks like a credential (LooksSecret), unless
// the user lets it through ([terminal] pass_env, Config.PassEnv).

// secretNames are variables that hold credentials by their exact name.
var secretNames = []string{
	"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "GITLAB_TOKEN",
	"NPM_TOKEN", "HF_TOKEN", "VAULT_TOKEN", "CARGO_REGISTRY_TOKEN",
	"DATABASE_URL", "PGPASSWORD", "PGPASSFILE", "MYSQL_PWD", "REDIS_PASSWORD",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN",
	"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
	"GOOGLE_APPLICATION_CREDENTIALS", "AZURE_CLIENT_SECRET", "DOCKER_AUTH_CONFIG",
	// Not a value but a key in hand: the agent signs with keys a command cannot read.
	"SSH_AUTH_SOCK",
}

// notSecret are variables whose names look like a secret's to secret.Name and are not: the
// shell's working directories.
var notSecret = []string{"PWD", "OLDPWD"}

// LooksSecret says whether a variable's name says it holds a credential: secret.Name decides
// (*_TOKEN, *_PASSWORD, *_API_KEY, *_SECRET, AWS_ACCESS_KEY_ID ...), and a few names hold
// credentials without saying so (DATABASE_URL, SSH_AUTH_SOCK).
func LooksSecret(name string) bool {
	n := strings.ToUpper(name)
	if slices.Contains(notSecret, n) {
		return false
	}
	return slices.Contains(secretNames, n) || strings.HasSuffix(n, "_DATABASE_URL") || strings.HasSuffix(n, "_WEBHOOK_URL") ||
		strings.HasSuffix(n, "_CONNECTION_STRING") || secret.Name(name)
}

// matchName reports whether name matches one of patterns (a trailing * matches a prefix).
func matchName(name string, patterns []string) bool {
	for _, s := range patterns {
		if p, ok := strings.CutSuffix(s, "*"); ok {
			if strings.HasPrefix(name, p) {
				return true
			}
		} else if s == name {
			return true
		}
	}
	return false
}

// Withheld says whether no child gets the variable name: every TOOLHOST_* variable, the
// configured ones and the credential-like ones, unless pass_env lets them through.
func (g *Gate) Withheld(name string) bool {
	if strings.HasPrefix(name, "TOOLHOST_") {
		return true
	}
	if g == nil {
		return false
	}
	if matchName(name, g.cfg.PassEnv) {
		return false
	}
	return matchName(name, g.cfg.Withhold) || LooksSecret(name)
}

// WithheldHere lists the variables of this process's environment that children do not get,
// sorted: what `toolhost doctor` shows (names only, never values).
func (g *Gate) WithheldHere() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if g.Withheld(name) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// envCache holds the environment a gate last worked out and the server environment it was
// worked out from: deciding each name (LooksSecret) was a fifth of the gate's work per start,
// and the server's environment rarely changes.
type envCache struct {
	mu       sync.Mutex
	from, to []string
}

// environ returns g's children's environment for the server's current one, a copy the caller
// may change.
func (c *envCache) environ(g *Gate) []string {
	from := os.Environ()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.to == nil || !slices.Equal(from, c.from) {
		c.from, c.to = from, g.environ(from)
	}
	return slices.Clone(c.to)
}
