package database

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Source is a database the user configured.
type Source struct {
	Name   string
	Driver Driver
	// DSN is the connection string (PostgreSQL) or the file's absolute path (SQLite). It is a
	// secret: nothing this package returns or logs contains it.
	DSN string
	// Timeout bounds one statement; zero means DefaultTimeout.
	Timeout time.Duration
	// Err says why the source cannot be used (an unset variable in its DSN); Open returns it
	// and List shows it.
	Err error
}

// ConnectionInfo describes a configured source for a listing, without secrets.
type ConnectionInfo struct {
	Name   string
	Driver Driver
	// Target is where it points: a file path, or postgres://user@host:port/db.
	Target string
	// Problem says why it cannot be used; empty when it can.
	Problem string
}

// Connections holds the configured sources and their PostgreSQL connection pools. Safe for
// concurrent use.
type Connections struct {
	sources []*source // fixed at construction
}

type source struct {
	Source
	target string
	pg     *postgres // PostgreSQL sources that parsed
	err    error     // why the source cannot be used
}

// NewConnections prepares the sources. It opens nothing: a connection is made on first use, so
// a server that is down costs nothing until a call needs it.
func NewConnections(sources []Source) *Connections {
	c := &Connections{}
	for _, s := range sources {
		src := &source{Source: s, err: s.Err}
		if src.Timeout <= 0 {
			src.Timeout = DefaultTimeout
		}
		switch {
		case src.err != nil:
			src.target = string(s.Driver)
		case s.Driver == SQLite:
			src.target = s.DSN
			if !filepath.IsAbs(s.DSN) {
				src.err = &Error{Kind: KindUnavailable, Msg: "the SQLite path is not absolute"}
			}
		case s.Driver == Postgres:
			src.pg, src.err = newPostgres(s.DSN, src.Timeout)
			if src.pg != nil {
				src.target = src.pg.target
			} else {
				src.target = "postgres"
			}
		default:
			src.target = string(s.Driver)
			src.err = &Error{Kind: KindUnavailable, Msg: fmt.Sprintf("unknown driver %q (want sqlite or postgres)", s.Driver)}
		}
		c.sources = append(c.sources, src)
	}
	return c
}

// List describes the configured sources in configuration order.
func (c *Connections) List() []ConnectionInfo {
	out := make([]ConnectionInfo, len(c.sources))
	for i, s := range c.sources {
		out[i] = ConnectionInfo{Name: s.Name, Driver: s.Driver, Target: s.target}
		if s.err != nil {
			out[i].Problem = s.err.Error()
		}
	}
	return out
}

// Names are the configured source names.
func (c *Connections) Names() []string {
	out := make([]string, len(c.sources))
	for i, s := range c.sources {
		out[i] = s.Name
	}
	return out
}

// Has reports whether name is a configured source.
func (c *Connections) Has(name string) bool { return c.find(name) != nil }

// Timeout is the statement timeout of the named source (DefaultTimeout if none).
func (c *Connections) Timeout(name string) time.Duration {
	if s := c.find(name); s != nil {
		return s.Timeout
	}
	return DefaultTimeout
}

func (c *Connections) find(name string) *source {
	for _, s := range c.sources {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Open opens the named source for one call. Close the DB after the call.
func (c *Connections) Open(ctx context.Context, name string) (DB, error) {
	s := c.find(name)
	if s == nil {
		return nil, &Error{Kind: KindNotFound, Msg: fmt.Sprintf("no configured connection %q", name), Candidates: c.Names()}
	}
	if s.err != nil {
		e := &Error{Kind: KindUnavailable, Msg: fmt.Sprintf("connection %s cannot be used: %s", name, s.err), Cause: s.err,
			Next: "the user can fix its [[databases]] entry in toolhost's configuration"}
		return nil, e
	}
	if s.pg != nil {
		return s.pg.open(), nil
	}
	// A configured file is the user's choice, so no guard check; it is still read through a
	// root at its directory and the read-only VFS.
	root, err := os.OpenRoot(filepath.Dir(s.DSN))
	if err != nil {
		return nil, &Error{Kind: KindNotFound, Msg: fmt.Sprintf("the directory of connection %s cannot be opened: %s", name, errText(err)), Cause: err}
	}
	db, err := OpenSQLite(ctx, root, filepath.Base(s.DSN), s.Timeout)
	if err != nil {
		root.Close()
		return nil, err
	}
	return &rootedDB{DB: db, root: root}, nil
}

// Close closes the idle PostgreSQL connections.
func (c *Connections) Close() error {
	for _, s := range c.sources {
		if s.pg != nil {
			s.pg.close()
		}
	}
	return nil
}

// rootedDB closes the root its SQLite file was opened under.
type rootedDB struct {
	DB
	root *os.Root
}

func (r *rootedDB) Close() error {
	err := r.DB.Close()
	r.root.Close()
	return err
}

// MaxTimeout is the longest statement timeout of any source (at least DefaultTimeout): how
// long a call may need.
func (c *Connections) MaxTimeout() time.Duration {
	d := DefaultTimeout
	for _, s := range c.sources {
		d = max(d, s.Timeout)
	}
	return d
}
