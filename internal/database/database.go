// Package database runs read-only SQL against SQLite files and PostgreSQL servers for the
// database_operations tool: schema discovery (tables, columns, keys, indexes, row estimates),
// queries with positional parameters under a row limit and a byte budget, and query plans. It
// knows nothing about MCP.
//
// Nothing is ever written, and each layer would hold on its own:
//
//   - Every statement is lexed first (statement.go): one statement, of a kind that only reads
//     (SELECT, WITH, VALUES, and TABLE or PRAGMA), and for PostgreSQL none of the functions
//     whose effects a read-only transaction does not stop (pg_terminate_backend, lo_import,
//     set_config, dblink, query_to_xml, ...).
//   - SQLite files are read through a read-only VFS over an os.Root: the file system SQLite sees
//     has no write, truncate, sync or delete, so no journal, -wal or -shm file is ever created,
//     and a path checked by the caller's guard cannot be swapped for another. The connection is
//     also opened with mode=ro, query_only and defensive mode, and an authorizer admits only
//     reads, report-only pragmas and harmless functions (no ATTACH, VACUUM INTO or DDL).
//   - PostgreSQL sessions start with default_transaction_read_only, every call runs in
//     BEGIN READ ONLY with a statement_timeout, the query runs as a cursor (DECLARE ... CURSOR
//     FOR accepts only a query, and the extended protocol only one statement), the transaction
//     is rolled back, and DISCARD ALL drops whatever session state a function left behind
//     before the connection is reused.
//
// A role with only SELECT privileges remains the right way to connect: functions and views
// the database owner wrote may call anything, and this package cannot see inside them.
//
// Connection strings are secrets. They never appear in results, errors or logs: Source.Target
// is a masked description, and every error text passes through the source's redactor.
package database

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Driver names a database engine.
type Driver string

// The supported drivers.
const (
	SQLite   Driver = "sqlite"
	Postgres Driver = "postgres"
)

// Defaults of Limits.
const (
	DefaultMaxRows = 200
	// MaxRowsCap bounds a caller's row limit; the byte budget usually cuts earlier.
	MaxRowsCap = 5000
	// DefaultTimeout bounds one statement.
	DefaultTimeout = 30 * time.Second
	// CountTimeout bounds counting the rows past the limit, for the total-row hint.
	CountTimeout = 2 * time.Second
	// MaxCellBytes bounds one value; a longer one is cut with a marker that gives its size.
	MaxCellBytes = 2000
)

// Kind classifies an *Error.
type Kind int

// Error kinds.
const (
	// KindRefused: the statement would change something, or is not one read statement.
	KindRefused Kind = iota + 1
	// KindInvalid: the SQL or an argument is malformed (unterminated string, empty SQL).
	KindInvalid
	// KindNotFound: no such table, connection or file.
	KindNotFound
	// KindSQL: the server rejected the statement (syntax, unknown column, wrong parameters).
	KindSQL
	// KindTimeout: the statement ran past its timeout and was cancelled.
	KindTimeout
	// KindConnect: the server could not be reached or refused the login.
	KindConnect
	// KindUnavailable: the source is misconfigured (a bad DSN, an unset variable).
	KindUnavailable
)

// Error is a failure to report to the model. Msg is safe to show: it never holds a connection
// string or password. Cause, for the log only, is redacted too.
type Error struct {
	Kind Kind
	Msg  string
	// Next is the next step, when there is a useful one.
	Next string
	// Candidates are names the caller may have meant (tables, for KindNotFound).
	Candidates []string
	Cause      error
}

func (e *Error) Error() string { return e.Msg }

func (e *Error) Unwrap() error { return e.Cause }

// AsError returns err's *Error, if it has one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Table is one entry of a table listing.
type Table struct {
	Schema string // PostgreSQL only
	Name   string
	Kind   string // table, view, materialized view, foreign table, partitioned table
	// Rows is a row count (RowsExact) or the planner's estimate; -1 when unknown.
	Rows      int64
	RowsExact bool
}

// QualifiedName is schema.name, or name when there is no schema.
func (t Table) QualifiedName() string {
	if t.Schema == "" {
		return t.Name
	}
	return t.Schema + "." + t.Name
}

// TableInfo describes one table.
type TableInfo struct {
	Table
	Columns     []Column
	PrimaryKey  []string
	Indexes     []Index
	ForeignKeys []ForeignKey
	// Constraints are constraints other than the primary key, as the server writes their
	// definitions (PostgreSQL: foreign keys, unique, check and exclusion constraints).
	Constraints []string
}

// Column is one column of a table.
type Column struct {
	Name     string
	Type     string
	Nullable bool
	Default  string // "" when none
	// Extra notes generated, identity or hidden columns.
	Extra string
}

// Index is one index of a table.
type Index struct {
	Name    string
	Unique  bool
	Columns []string
	// Definition is the full CREATE INDEX text where the server gives one (PostgreSQL).
	Definition string
}

// ForeignKey links columns of a table to another table.
type ForeignKey struct {
	Columns    []string
	RefTable   string
	RefColumns []string
	OnDelete   string
	OnUpdate   string
}

func (fk ForeignKey) String() string {
	s := fmt.Sprintf("(%s) -> %s(%s)", joinNames(fk.Columns), fk.RefTable, joinNames(fk.RefColumns))
	if fk.OnDelete != "" && fk.OnDelete != "NO ACTION" {
		s += " ON DELETE " + fk.OnDelete
	}
	if fk.OnUpdate != "" && fk.OnUpdate != "NO ACTION" {
		s += " ON UPDATE " + fk.OnUpdate
	}
	return s
}

// Query is one statement to run.
type Query struct {
	SQL string
	// Params are positional: $1, $2 ... for PostgreSQL, ? for SQLite. Each is nil, a string, a
	// bool, an int64 or a float64.
	Params []any
	// MaxRows limits the rows kept (default DefaultMaxRows, at most MaxRowsCap).
	MaxRows int
	// MaxBytes limits the bytes of the values kept; rows past it are counted, not kept.
	MaxBytes int
}

func (q *Query) limits() (rows, bytes int) {
	rows, bytes = q.MaxRows, q.MaxBytes
	if rows <= 0 {
		rows = DefaultMaxRows
	}
	rows = min(rows, MaxRowsCap)
	if bytes <= 0 {
		bytes = 1 << 20
	}
	return rows, bytes
}

// DB is an open read-only database. It is used for one tool call and closed after it.
type DB interface {
	Tables(ctx context.Context) ([]Table, error)
	Describe(ctx context.Context, table string) (*TableInfo, error)
	Query(ctx context.Context, q Query) (*Result, error)
	// Explain returns the plan of q.SQL, one step per line; the query does not run.
	Explain(ctx context.Context, q Query) (string, error)
	Close() error
}

// collector keeps the rows of a query within its limits and counts the rest, for the total.
type collector struct {
	res      *Result
	maxRows  int
	maxBytes int
	bytes    int
	countEnd time.Time
	// stopped says counting gave up at CountTimeout.
	stopped bool
}

func newCollector(cols []string, q Query) *collector {
	c := &collector{res: &Result{Columns: cols}}
	c.maxRows, c.maxBytes = q.limits()
	return c
}

// keeping reports whether the next row is kept (true) or only counted.
func (c *collector) keeping() bool { return c.res.Cut == "" }

// add keeps row, or starts counting when it is past a limit.
func (c *collector) add(row []Value) {
	c.res.Seen++
	size := cellBytes(row)
	switch {
	case len(c.res.Rows) >= c.maxRows:
		c.res.Cut = "rows"
	case len(c.res.Rows) > 0 && c.bytes+size > c.maxBytes:
		c.res.Cut = "bytes"
	default:
		c.res.Rows = append(c.res.Rows, row)
		c.bytes += size
		return
	}
	c.countEnd = time.Now().Add(CountTimeout)
}

// count counts a row that is not kept; false means counting ran out of time.
func (c *collector) count() bool {
	c.res.Seen++
	if c.res.Seen%256 == 0 && time.Now().After(c.countEnd) {
		c.stopped = true
		return false
	}
	return true
}

// result returns the rows; complete says every row was seen.
func (c *collector) result(complete bool) *Result {
	c.res.Complete = complete && !c.stopped
	return c.res
}

// resolveTable finds the table a caller named: schema-qualified or not, quoted (exact) or not
// (exact first, then ignoring case), preferring schemas in search-path order. A name that
// matches nothing is an *Error of kind KindNotFound with the table names as candidates.
func resolveTable(tables []Table, name string, searchPath []string) (Table, error) {
	parts := splitQualified(strings.TrimSpace(name))
	var schema, rel identPart
	switch len(parts) {
	case 1:
		rel = parts[0]
	case 2:
		schema, rel = parts[0], parts[1]
	default:
		return Table{}, &Error{Kind: KindInvalid, Msg: fmt.Sprintf("%q is not a table name; write table or schema.table", name)}
	}
	rank := func(t Table) int {
		for i, s := range searchPath {
			if s == t.Schema {
				return i
			}
		}
		return len(searchPath)
	}
	var best *Table
	bestScore := 0
	for i := range tables {
		t := &tables[i]
		if schema.text != "" && !schema.matches(t.Schema) {
			continue
		}
		score := 0
		switch {
		case rel.text == t.Name:
			score = 2
		case !rel.quoted && strings.EqualFold(rel.text, t.Name):
			score = 1
		default:
			continue
		}
		if best == nil || score > bestScore || (score == bestScore && rank(*t) < rank(*best)) {
			best, bestScore = t, score
		}
	}
	if best != nil {
		return *best, nil
	}
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.QualifiedName()
	}
	return Table{}, &Error{Kind: KindNotFound, Msg: fmt.Sprintf("no table or view %q", name), Candidates: names}
}

type identPart struct {
	text   string
	quoted bool
}

func (p identPart) matches(s string) bool {
	return p.text == s || (!p.quoted && strings.EqualFold(p.text, s))
}

// splitQualified splits schema.table at dots outside double quotes.
func splitQualified(name string) []identPart {
	var parts []identPart
	var cur strings.Builder
	quoted, inQuote := false, false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '"' && inQuote && i+1 < len(name) && name[i+1] == '"':
			cur.WriteByte('"')
			i++
		case c == '"':
			inQuote, quoted = !inQuote, true
		case c == '.' && !inQuote:
			parts = append(parts, identPart{cur.String(), quoted})
			cur.Reset()
			quoted = false
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, identPart{cur.String(), quoted})
}

func joinNames(names []string) string { return strings.Join(names, ", ") }
