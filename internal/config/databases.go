package config

import (
	"fmt"
	"strings"
	"time"
	"toolhost/internal/lazyregexp"
)

// Database is one [[databases]] entry: a database database_operations may query.
type Database struct {
	// Name is what the model passes as connection.
	Name string `toml:"name"`
	// Driver is "sqlite" or "postgres".
	Driver string `toml:"driver"`
	// DSN is the connection string (PostgreSQL: a URL or key=value pairs; SQLite: the file's
	// path, relative to the working directory). ${VAR} is replaced by the environment variable.
	DSN string `toml:"dsn"`
	// DSNEnv names an environment variable holding the whole DSN instead.
	DSNEnv string `toml:"dsn_env"`
	// Timeout bounds one statement (default 30s).
	Timeout Duration `toml:"timeout"`
}

var databaseName = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// MaxDatabaseTimeout caps [[databases]] timeout; clients give up on a call long before.
const MaxDatabaseTimeout = 10 * time.Minute

func validateDatabases(dbs []Database) error {
	seen := map[string]bool{}
	for i, d := range dbs {
		where := fmt.Sprintf("config: databases[%d]", i)
		if d.Name != "" {
			where = "config: database " + d.Name
		}
		switch {
		case !databaseName.MatchString(d.Name):
			return fmt.Errorf("%s: name must be 1-64 letters, digits and . _ - (it is what the model passes as connection)", where)
		case seen[d.Name]:
			return fmt.Errorf("%s: the name is used twice", where)
		case d.Driver != "sqlite" && d.Driver != "postgres":
			return fmt.Errorf("%s: driver must be sqlite or postgres", where)
		case (d.DSN == "") == (d.DSNEnv == ""):
			return fmt.Errorf("%s: set exactly one of dsn and dsn_env", where)
		case d.Timeout.Duration < 0 || d.Timeout.Duration > MaxDatabaseTimeout:
			return fmt.Errorf("%s: timeout must be between 0 and 10m", where)
		}
		seen[d.Name] = true
	}
	return nil
}

var dsnVariable = lazyregexp.New(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// ResolveDSN returns the connection string: the value of dsn_env, or dsn with each ${VAR}
// replaced by the variable's value (a "$" not followed by "{" stays as it is, so passwords
// with dollar signs need no escaping). A variable that is unset or empty is an error naming
// it, never the DSN, which may hold a password.
func (d Database) ResolveDSN(lookup func(string) (string, bool)) (string, error) {
	if d.DSNEnv != "" {
		v, ok := lookup(d.DSNEnv)
		if !ok || strings.TrimSpace(v) == "" {
			return "", fmt.Errorf("environment variable %s (dsn_env) is not set", d.DSNEnv)
		}
		return v, nil
	}
	var missing []string
	out := dsnVariable.ReplaceAllStringFunc(d.DSN, func(m string) string {
		name := m[2 : len(m)-1]
		v, ok := lookup(name)
		if !ok || v == "" {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("environment variable %s (used in dsn) is not set", strings.Join(missing, ", "))
	}
	return out, nil
}
