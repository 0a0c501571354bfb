package app

import (
	"os"
	"path/filepath"
	"strings"

	"toolhost/consolidated"
	"toolhost/internal/database"
)

// databaseTool builds database_operations from the [[databases]] entries. A DSN is resolved
// from the environment here, once; an entry whose variable is unset stays listed as
// unavailable rather than stopping the server (editors start stdio servers with environments
// of their own). A relative SQLite path is relative to the working directory. The tool closes
// the idle PostgreSQL connections when the registry closes.
func (a *App) databaseTool() *consolidated.Tool {
	var sources []database.Source
	for _, d := range a.Config.Databases {
		s := database.Source{Name: d.Name, Driver: database.Driver(d.Driver), Timeout: d.Timeout.Duration}
		dsn, err := d.ResolveDSN(os.LookupEnv)
		switch {
		case err != nil:
			s.Err = err
		case s.Driver == database.SQLite:
			s.DSN = sqlitePath(dsn, a.Workdir)
		default:
			s.DSN = dsn
		}
		sources = append(sources, s)
	}
	return consolidated.DatabaseTool(consolidated.DatabaseConfig{Connections: database.NewConnections(sources), Guard: a.Guard})
}

// sqlitePath makes a configured SQLite path absolute: "~/" is the home directory, and a
// relative path is relative to the working directory.
func sqlitePath(p, workdir string) string {
	p = strings.TrimPrefix(p, "file:")
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(workdir, p)
	}
	return filepath.Clean(p)
}
