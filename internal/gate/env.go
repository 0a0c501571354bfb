package gate

import (
	"os"
	"slices"
	"strings"
)

// Which variables a process toolhost starts does not inherit. Every TOOLHOST_* variable; every
// variable the configuration names (what it expands, a database's dsn_env, an embedder's
// key_env: Config.Withhold); and every name that looks like a credential, unless the user lets
// it through ([terminal] pass_env, Config.PassEnv). Names are compared in upper case.

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

// secretSuffixes end names of credentials (API_KEY, *_TOKEN, *_DATABASE_URL ...).
var secretSuffixes = []string{
	"_TOKEN", "_SECRET", "_SECRETS", "_PASSWORD", "_PASSWD", "_PASSPHRASE",
	"_API_KEY", "_APIKEY", "_SECRET_KEY", "_PRIVATE_KEY", "_ACCESS_KEY", "_ACCESS_KEY_ID",
	"_AUTH_TOKEN", "_CREDENTIALS", "_CREDENTIAL", "_DATABASE_URL", "_CONNECTION_STRING",
	"_WEBHOOK_URL",
}

// secretParts appear inside names of credentials (PG*PASSWORD, *_ACCESS_KEY_SECRET ...).
var secretParts = []string{"PASSWORD", "PASSWD", "SECRET", "PRIVATE_KEY", "API_KEY", "ACCESS_KEY"}

// LooksSecret says whether a variable's name says it holds a credential.
func LooksSecret(name string) bool {
	n := strings.ToUpper(name)
	if slices.Contains(secretNames, n) {
		return true
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(n, s) || n == s[1:] {
			return true
		}
	}
	for _, p := range secretParts {
		if strings.Contains(n, p) {
			return true
		}
	}
	return false
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
