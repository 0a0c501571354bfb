package database

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"toolhost/internal/sysfile"

	"modernc.org/sqlite"
	"modernc.org/sqlite/vfs"
)

// sqliteMagic starts every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// ErrNotSQLite is returned (wrapped in an *Error) for a file that is not a SQLite database.
var ErrNotSQLite = errors.New("not a SQLite database")

// sqliteDriver is a private driver: its connection hook installs the read-only authorizer on
// every connection it opens, and nothing registered on the package-level "sqlite" driver (by
// this program or a dependency) reaches it.
var sqliteDriver = func() *sqlite.Driver {
	d := &sqlite.Driver{}
	d.RegisterConnectionHook(func(c sqlite.ExecQuerierContext, _ string) error {
		a, ok := c.(sqlite.AuthorizerRegisterer)
		if !ok {
			return errors.New("sqlite: the driver offers no authorizer; refusing to open")
		}
		return a.RegisterAuthorizer(sqliteAuthorize)
	})
	return d
}()

// sqliteReportPragmas only report, and take no argument.
var sqliteReportPragmas = map[string]bool{
	"application_id": true, "auto_vacuum": true, "collation_list": true, "compile_options": true,
	"data_version": true, "database_list": true, "encoding": true, "foreign_keys": true,
	"freelist_count": true, "function_list": true, "journal_mode": true, "module_list": true,
	"page_count": true, "page_size": true, "pragma_list": true, "schema_version": true,
	"user_version": true,
}

// sqliteTablePragmas report on the table, index or check their argument names.
var sqliteTablePragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true, "index_list": true,
	"index_info": true, "index_xinfo": true, "foreign_key_list": true, "foreign_key_check": true,
	"integrity_check": true, "quick_check": true,
}

// sqliteDeniedFunctions could reach outside the database file (extensions are off in this
// build anyway; fts3_tokenizer's two-argument form registers native code).
var sqliteDeniedFunctions = map[string]bool{"load_extension": true, "fts3_tokenizer": true}

// sqliteAuthorize admits what a read needs: SELECT, reading columns, recursive CTEs, functions
// other than the denied ones, and pragmas that only report. Everything else — INSERT, UPDATE,
// DELETE, DDL, ATTACH (which VACUUM INTO also asks for), DETACH, transactions, savepoints,
// ANALYZE, REINDEX, virtual tables — is denied while the statement is compiled, before it can
// run.
func sqliteAuthorize(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthRecursive:
		return sqlite.AuthorizerOK
	case sqlite.AuthFunction:
		if sqliteDeniedFunctions[strings.ToLower(arg2)] {
			return sqlite.AuthorizerDeny
		}
		return sqlite.AuthorizerOK
	case sqlite.AuthPragma:
		name := strings.ToLower(arg1)
		if sqliteTablePragmas[name] || (sqliteReportPragmas[name] && arg2 == "") {
			return sqlite.AuthorizerOK
		}
	}
	return sqlite.AuthorizerDeny
}

// sqliteConnector opens connections of the private driver (sql.OpenDB needs a Connector, and
// sql.Register would be process-wide).
type sqliteConnector struct{ dsn string }

func (c sqliteConnector) Connect(context.Context) (driver.Conn, error) {
	return sqliteDriver.Open(c.dsn)
}
func (c sqliteConnector) Driver() driver.Driver { return sqliteDriver }

// sqliteDB is one SQLite file opened for reading.
type sqliteDB struct {
	db      *sql.DB
	vfs     *vfs.FS
	timeout time.Duration
	red     *redactor
}

// OpenSQLite opens the SQLite database at rel (slash-separated) under root for reading. Every
// byte SQLite reads comes through root, so a path the caller checked with its guard cannot be
// swapped for another; root must stay open until the DB is closed. A file that is not a
// SQLite database is an *Error of kind KindInvalid wrapping ErrNotSQLite.
func OpenSQLite(ctx context.Context, root *os.Root, rel string, timeout time.Duration) (DB, error) {
	fsys := readOnlyFS{root}
	wal, err := checkSQLiteHeader(fsys, rel)
	if err != nil {
		return nil, err
	}
	name, vfsFS, err := vfs.New(fsys)
	if err != nil {
		return nil, fmt.Errorf("sqlite: register read-only vfs: %w", err)
	}
	// locking_mode EXCLUSIVE keeps the WAL index in memory, so a WAL database is read with
	// the transactions in its -wal file and without a -shm file; nothing is locked, since the
	// VFS cannot lock. trusted_schema off keeps views and triggers from calling functions
	// that have side effects.
	q := url.Values{
		"vfs":         {name},
		"mode":        {"ro"},
		"_query_only": {"1"},
		"_defensive":  {"1"},
		"_pragma":     {"locking_mode(EXCLUSIVE)", "trusted_schema(0)"},
	}
	if _, err := root.Lstat(rel + "-wal"); wal && errors.Is(err, fs.ErrNotExist) {
		// A WAL database whose application closed it cleanly: the file is the whole database,
		// and SQLite would otherwise want to create the -wal file.
		q.Set("immutable", "1")
	}
	dsn := "file:" + (&url.URL{Path: rel}).EscapedPath() + "?" + q.Encode()
	db := sql.OpenDB(sqliteConnector{dsn})
	db.SetMaxOpenConns(1)
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	s := &sqliteDB{db: db, vfs: vfsFS, timeout: timeout, red: newRedactor("")}
	if err := db.PingContext(ctx); err != nil {
		s.Close()
		return nil, s.error(ctx, err)
	}
	return s, nil
}

// checkSQLiteHeader refuses files that are not SQLite databases before SQLite sees them (an
// empty file is an empty database), and reports whether the database is in WAL mode.
func checkSQLiteHeader(fsys readOnlyFS, rel string) (wal bool, err error) {
	f, err := fsys.Open(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, &Error{Kind: KindNotFound, Msg: fmt.Sprintf("%s does not exist", rel), Cause: err}
		}
		return false, &Error{Kind: KindInvalid, Msg: fmt.Sprintf("%s cannot be opened: %s", rel, errText(err)), Cause: err}
	}
	defer f.Close()
	var head [20]byte // the magic string, then the page size and the read and write versions
	n, err := io.ReadFull(f, head[:])
	if n == 0 && err == io.EOF {
		return false, nil
	}
	if n < len(head) || string(head[:len(sqliteMagic)]) != sqliteMagic {
		return false, &Error{Kind: KindInvalid, Msg: rel + " is not a SQLite database", Cause: ErrNotSQLite,
			Next: "name a SQLite database file (it starts with \"SQLite format 3\")"}
	}
	return head[18] == 2 && head[19] == 2, nil
}

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func (s *sqliteDB) Close() error {
	err := s.db.Close()
	return errors.Join(err, s.vfs.Close())
}

func (s *sqliteDB) Tables(ctx context.Context) ([]Table, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	out, err := s.tables(ctx)
	if err != nil {
		return nil, err
	}
	// Small databases are counted; a large one runs out of the shared budget, and its
	// remaining tables say "rows unknown" rather than slowing the listing down.
	deadline := time.Now().Add(CountTimeout / 4)
	for i := range out {
		if out[i].Kind == "table" {
			out[i].Rows, out[i].RowsExact = s.rowCount(ctx, out[i].Name, deadline)
		}
	}
	return out, nil
}

// tables lists the tables and views, without row counts.
func (s *sqliteDB) tables(ctx context.Context) ([]Table, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, type FROM sqlite_schema
		WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, s.error(ctx, err)
	}
	var out []Table
	for rows.Next() {
		t := Table{Rows: -1}
		if err := rows.Scan(&t.Name, &t.Kind); err != nil {
			rows.Close()
			return nil, s.error(ctx, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, s.error(ctx, err)
	}
	return out, nil
}

// rowCount returns sqlite_stat1's estimate for a table, else a count that finishes before
// deadline (exact), else -1.
func (s *sqliteDB) rowCount(ctx context.Context, table string, deadline time.Time) (int64, bool) {
	var stat string
	err := s.db.QueryRowContext(ctx, `SELECT stat FROM sqlite_stat1 WHERE tbl = ? ORDER BY idx IS NOT NULL LIMIT 1`, table).Scan(&stat)
	if err == nil {
		if f, _, _ := strings.Cut(stat, " "); f != "" {
			if n, err := strconv.ParseInt(f, 10, 64); err == nil {
				return n, false
			}
		}
	}
	cctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var n int64
	if err := s.db.QueryRowContext(cctx, "SELECT count(*) FROM "+quoteIdent(table)).Scan(&n); err != nil {
		return -1, false
	}
	return n, true
}

func (s *sqliteDB) Describe(ctx context.Context, name string) (*TableInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	tables, err := s.tables(ctx)
	if err != nil {
		return nil, err
	}
	t, err := resolveTable(tables, name, nil)
	if err != nil {
		return nil, err
	}
	info := &TableInfo{Table: t}
	if t.Kind == "table" {
		info.Rows, info.RowsExact = s.rowCount(ctx, t.Name, time.Now().Add(CountTimeout/2))
	}
	type pkCol struct {
		name string
		pos  int
	}
	var pk []pkCol
	err = s.each(ctx, `SELECT name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid`, []any{t.Name}, func(r *sql.Rows) error {
		var c Column
		var notNull, pkPos, hidden int
		var dflt sql.NullString
		if err := r.Scan(&c.Name, &c.Type, &notNull, &dflt, &pkPos, &hidden); err != nil {
			return err
		}
		c.Nullable, c.Default = notNull == 0 && pkPos == 0, dflt.String
		switch hidden {
		case 1:
			c.Extra = "hidden"
		case 2, 3:
			c.Extra = "generated"
		}
		if pkPos > 0 {
			pk = append(pk, pkCol{c.Name, pkPos})
		}
		info.Columns = append(info.Columns, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for p := 1; p <= len(pk); p++ {
		for _, c := range pk {
			if c.pos == p {
				info.PrimaryKey = append(info.PrimaryKey, c.name)
			}
		}
	}
	var idx []Index
	err = s.each(ctx, `SELECT name, "unique", origin, partial FROM pragma_index_list(?) ORDER BY name`, []any{t.Name}, func(r *sql.Rows) error {
		var ix Index
		var unique, partial int
		var origin string
		if err := r.Scan(&ix.Name, &unique, &origin, &partial); err != nil {
			return err
		}
		ix.Unique = unique == 1
		if origin == "pk" {
			return nil // the primary key is shown as such
		}
		if partial == 1 {
			ix.Definition = "partial"
		}
		idx = append(idx, ix)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range idx {
		err = s.each(ctx, `SELECT coalesce(name, '<expression>') FROM pragma_index_info(?) ORDER BY seqno`, []any{idx[i].Name}, func(r *sql.Rows) error {
			var col string
			if err := r.Scan(&col); err != nil {
				return err
			}
			idx[i].Columns = append(idx[i].Columns, col)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	info.Indexes = idx
	var fk *ForeignKey
	lastID := -1
	err = s.each(ctx, `SELECT id, "table", "from", coalesce("to", ''), on_update, on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq`, []any{t.Name}, func(r *sql.Rows) error {
		var id int
		var ref, from, to, onUpdate, onDelete string
		if err := r.Scan(&id, &ref, &from, &to, &onUpdate, &onDelete); err != nil {
			return err
		}
		if id != lastID {
			info.ForeignKeys = append(info.ForeignKeys, ForeignKey{RefTable: ref, OnUpdate: onUpdate, OnDelete: onDelete})
			fk, lastID = &info.ForeignKeys[len(info.ForeignKeys)-1], id
		}
		fk.Columns = append(fk.Columns, from)
		if to != "" {
			fk.RefColumns = append(fk.RefColumns, to)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return info, nil
}

// each runs a statement of this package's own and calls fn for every row.
func (s *sqliteDB) each(ctx context.Context, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return s.error(ctx, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return s.error(ctx, err)
		}
	}
	return s.error(ctx, rows.Err())
}

func (s *sqliteDB) Query(ctx context.Context, q Query) (*Result, error) {
	st, err := checkStatement(dialectSQLite, q.SQL)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	rows, err := s.db.QueryContext(ctx, st.SQL, q.Params...)
	if err != nil {
		return nil, s.error(ctx, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, s.error(ctx, err)
	}
	c := newCollector(cols, q)
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if !c.keeping() {
			if !c.count() {
				break
			}
			continue
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, s.error(ctx, err)
		}
		row := make([]Value, len(vals))
		for i, v := range vals {
			row[i] = goValue(v)
		}
		c.add(row)
	}
	if err := rows.Err(); err != nil {
		if !c.keeping() {
			// The rows are there; only the count of the rest stopped (the call's deadline).
			return c.result(false), nil
		}
		return nil, s.error(ctx, err)
	}
	return c.result(!c.stopped), nil
}

func (s *sqliteDB) Explain(ctx context.Context, q Query) (string, error) {
	sqlText, err := stripExplain(dialectSQLite, q.SQL)
	if err != nil {
		return "", err
	}
	st, err := checkStatement(dialectSQLite, sqlText)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	type step struct {
		id, parent int
		detail     string
	}
	var steps []step
	err = s.each(ctx, "EXPLAIN QUERY PLAN "+st.SQL, q.Params, func(r *sql.Rows) error {
		var st step
		var unused int
		if err := r.Scan(&st.id, &st.parent, &unused, &st.detail); err != nil {
			return err
		}
		steps = append(steps, st)
		return nil
	})
	if err != nil {
		return "", err
	}
	depth := map[int]int{0: -1}
	var b strings.Builder
	for _, st := range steps {
		d := depth[st.parent] + 1
		depth[st.id] = d
		b.WriteString(strings.Repeat("  ", d) + st.detail + "\n")
	}
	if b.Len() == 0 {
		return "(no plan: the statement reads no table)", nil
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// error turns a driver error into an *Error the model can act on.
func (s *sqliteDB) error(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := AsError(err); ok {
		return err
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Kind: KindTimeout, Msg: fmt.Sprintf("the statement ran longer than %s and was interrupted", s.timeout),
			Next: "make it cheaper: filter on an indexed column, add LIMIT, or check the plan with explain", Cause: err}
	}
	msg := err.Error()
	var se *sqlite.Error
	if errors.As(err, &se) {
		msg = strings.TrimSpace(strings.TrimSuffix(se.Error(), fmt.Sprintf("(%d)", se.Code())))
		switch se.Code() & 0xff {
		case 23, 8: // SQLITE_AUTH, SQLITE_READONLY
			return &Error{Kind: KindRefused, Msg: "refused: the statement would write, attach a file or change the connection, and the connection only reads (" + msg + ")", Cause: err}
		case 11, 26: // SQLITE_CORRUPT, SQLITE_NOTADB
			return &Error{Kind: KindSQL, Msg: msg, Next: "the file is damaged, or an application was writing it while it was read (reads take no lock): run the query again", Cause: err}
		}
		if strings.Contains(msg, "not authorized") {
			return &Error{Kind: KindRefused, Msg: "refused: " + msg + " (functions that reach outside the database are denied)", Cause: err}
		}
	}
	return &Error{Kind: KindSQL, Msg: s.red.text(msg), Cause: s.red.err(err)}
}

// readOnlyFS is the file system the SQLite VFS reads through: files under an os.Root, opened
// without following a final symlink and without blocking on a FIFO, and only if they are
// regular files.
type readOnlyFS struct{ root *os.Root }

func (r readOnlyFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := r.root.OpenFile(name, os.O_RDONLY|sysfile.OpenReadFlags, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("not a regular file")}
	}
	return &positionedFile{f: f}, nil
}

// positionedFile turns the VFS's seek-then-read into one pread per page.
type positionedFile struct {
	f   *os.File
	off int64
}

func (p *positionedFile) Stat() (fs.FileInfo, error) { return p.f.Stat() }
func (p *positionedFile) Close() error               { return p.f.Close() }

func (p *positionedFile) Read(b []byte) (int, error) {
	n, err := p.f.ReadAt(b, p.off)
	p.off += int64(n)
	return n, err
}

func (p *positionedFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += p.off
	case io.SeekEnd:
		st, err := p.f.Stat()
		if err != nil {
			return p.off, err
		}
		off += st.Size()
	}
	if off < 0 {
		return p.off, errors.New("seek before the start of the file")
	}
	p.off = off
	return off, nil
}

// quoteIdent quotes a name for SQL text, for the statements this package writes itself.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}
