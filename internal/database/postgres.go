package database

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// PostgreSQL connections are pooled per source: a trivial query on loopback takes four round
// trips (begin, declare, fetch, rollback and discard) and a new connection several more.
const (
	pgMaxIdle        = 2
	pgIdleTimeout    = 5 * time.Minute
	pgConnectTimeout = 10 * time.Second
	// pgCursor names the cursor a query runs as; it lives for one transaction.
	pgCursor = "toolhost_rows"
	// pgFetchChunk is how many rows one FETCH asks for.
	pgFetchChunk = 100
	// pgSlack lets the server's statement_timeout fire before the client's deadline, so that a
	// slow statement ends with a clean error on a connection that can be reused.
	pgSlack = 2 * time.Second
)

// postgres is one configured PostgreSQL source with its idle connections.
type postgres struct {
	cfg     *pgconn.Config
	target  string
	timeout time.Duration
	red     *redactor

	mu     sync.Mutex
	idle   []idleConn
	closed bool
	// writers are the functions the server's catalog says may write (pgwriters.go), read on
	// the first statement that calls a function.
	writers map[string]bool
}

type idleConn struct {
	conn  *pgconn.PgConn
	since time.Time
}

// newPostgres parses dsn. Every session it opens defaults to read-only transactions.
func newPostgres(dsn string, timeout time.Duration) (*postgres, error) {
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		red := newRedactor(dsn)
		return nil, &Error{Kind: KindUnavailable, Msg: "the connection string does not parse: " + red.text(err.Error()), Cause: red.err(err)}
	}
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > pgConnectTimeout {
		cfg.ConnectTimeout = pgConnectTimeout
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["default_transaction_read_only"] = "on"
	cfg.RuntimeParams["statement_timeout"] = strconv.FormatInt(timeout.Milliseconds(), 10)
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "toolhost"
	}
	return &postgres{cfg: cfg, target: postgresTarget(cfg), timeout: timeout, red: newRedactor(dsn, cfg.Password)}, nil
}

// open returns a DB for one call; it takes a connection on first use.
func (p *postgres) open() DB { return &pgDB{src: p} }

// acquire returns an idle connection (reused reports which) or a new one.
func (p *postgres) acquire(ctx context.Context) (conn *pgconn.PgConn, reused bool, err error) {
	p.mu.Lock()
	for len(p.idle) > 0 {
		ic := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if time.Since(ic.since) < pgIdleTimeout && !ic.conn.IsClosed() {
			p.mu.Unlock()
			return ic.conn, true, nil
		}
		go ic.conn.Close(context.Background())
	}
	p.mu.Unlock()
	conn, err = pgconn.ConnectConfig(ctx, p.cfg)
	if err != nil {
		return nil, false, p.connectError(err)
	}
	return conn, false, nil
}

// release returns a connection to the pool, or closes it when it may be in a bad state.
func (p *postgres) release(conn *pgconn.PgConn, healthy bool) {
	p.mu.Lock()
	if healthy && !p.closed && !conn.IsClosed() && len(p.idle) < pgMaxIdle {
		p.idle = append(p.idle, idleConn{conn, time.Now()})
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	conn.Close(ctx)
}

func (p *postgres) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, ic := range idle {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		ic.conn.Close(ctx)
		cancel()
	}
}

func (p *postgres) connectError(err error) error {
	next := "check that the server is running and reachable, and the connection settings of this [[databases]] entry"
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return &Error{Kind: KindConnect, Msg: fmt.Sprintf("the server at %s refused the connection: %s (SQLSTATE %s)", p.target, p.red.text(pe.Message), pe.Code),
			Next: next, Cause: p.red.err(err)}
	}
	reason := "the connection failed"
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.As(err, &oe) && oe.Err != nil:
		reason = oe.Err.Error()
		if errors.As(oe.Err, &ne) && ne.Timeout() {
			reason = "timed out"
		}
	case errors.As(err, &ne) && ne.Timeout():
		reason = "timed out"
	case errors.Is(err, context.DeadlineExceeded):
		reason = "timed out"
	}
	return &Error{Kind: KindConnect, Msg: fmt.Sprintf("cannot connect to %s: %s", p.target, p.red.text(reason)), Next: next, Cause: p.red.err(err)}
}

// pgDB runs each call in its own read-only transaction on a pooled connection.
type pgDB struct {
	src *postgres
}

func (d *pgDB) Close() error { return nil }

// session is one transaction on one connection.
type session struct {
	src  *postgres
	conn *pgconn.PgConn
	// healthy says the connection may go back to the pool.
	healthy bool
}

// inTx runs fn in BEGIN READ ONLY with the statement timeout, then rolls back and discards the
// session state, whatever fn did. A pooled connection that died while idle (a server restart)
// is replaced once, before anything ran on it.
func (d *pgDB) inTx(ctx context.Context, timeout time.Duration, fn func(ctx context.Context, s *session) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout+pgSlack)
	defer cancel()
	begin := fmt.Sprintf("BEGIN READ ONLY; SET LOCAL statement_timeout = %d; SET LOCAL standard_conforming_strings = on",
		timeout.Milliseconds())
	var s *session
	for attempt := 0; ; attempt++ {
		conn, reused, err := d.src.acquire(ctx)
		if err != nil {
			return err
		}
		s = &session{src: d.src, conn: conn}
		_, err = conn.Exec(ctx, begin).ReadAll()
		if err == nil {
			break
		}
		d.src.release(conn, false)
		if !reused || attempt > 0 || isPgError(err) {
			return d.src.connectError(err)
		}
	}
	err := fn(ctx, s)
	// ROLLBACK ends the transaction even after an error in it; DISCARD ALL then resets what a
	// function could have left on the session (settings, advisory locks, LISTEN, prepared
	// statements, temporary tables) before the next call.
	_, rbErr := s.conn.Exec(ctx, "ROLLBACK").ReadAll()
	if rbErr == nil {
		_, rbErr = s.conn.Exec(ctx, "DISCARD ALL").ReadAll()
	}
	d.src.release(s.conn, rbErr == nil)
	if err != nil {
		return s.error(ctx, err, timeout, 0)
	}
	return nil
}

func isPgError(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe)
}

// rows runs a statement of this package's own and returns its rows as text.
func (s *session) rows(ctx context.Context, sql string, params ...string) ([][]string, error) {
	vals := make([][]byte, len(params))
	for i, p := range params {
		vals[i] = []byte(p)
	}
	res := s.conn.ExecParams(ctx, sql, vals, nil, nil, nil).Read()
	if res.Err != nil {
		return nil, res.Err
	}
	out := make([][]string, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			out[i][j] = string(v)
		}
	}
	return out, nil
}

// pgTablesSQL lists the relations a query can read, outside the system schemas, with the
// planner's row estimate (-1: never analyzed).
const pgTablesSQL = `SELECT n.nspname, c.relname, c.relkind::text, c.reltuples::bigint, c.oid::text
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'v', 'm', 'f', 'p') AND NOT c.relispartition
  AND n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'
ORDER BY 1, 2`

var pgRelKinds = map[string]string{"r": "table", "v": "view", "m": "materialized view", "f": "foreign table", "p": "partitioned table"}

type pgTable struct {
	Table
	oid string
}

func (s *session) tables(ctx context.Context) ([]pgTable, error) {
	rows, err := s.rows(ctx, pgTablesSQL)
	if err != nil {
		return nil, err
	}
	out := make([]pgTable, len(rows))
	for i, r := range rows {
		n, _ := strconv.ParseInt(r[3], 10, 64)
		if n < 0 {
			n = -1
		}
		out[i] = pgTable{Table: Table{Schema: r[0], Name: r[1], Kind: pgRelKinds[r[2]], Rows: n}, oid: r[4]}
	}
	return out, nil
}

func (d *pgDB) Tables(ctx context.Context) ([]Table, error) {
	var out []Table
	err := d.inTx(ctx, d.src.timeout, func(ctx context.Context, s *session) error {
		ts, err := s.tables(ctx)
		for _, t := range ts {
			out = append(out, t.Table)
		}
		return err
	})
	return out, err
}

func (d *pgDB) Describe(ctx context.Context, name string) (*TableInfo, error) {
	var info *TableInfo
	err := d.inTx(ctx, d.src.timeout, func(ctx context.Context, s *session) error {
		ts, err := s.tables(ctx)
		if err != nil {
			return err
		}
		plain := make([]Table, len(ts))
		for i, t := range ts {
			plain[i] = t.Table
		}
		path, err := s.rows(ctx, "SELECT unnest(current_schemas(false))")
		if err != nil {
			return err
		}
		var searchPath []string
		for _, r := range path {
			searchPath = append(searchPath, r[0])
		}
		t, err := resolveTable(plain, name, searchPath)
		if err != nil {
			return err
		}
		var oid string
		for _, pt := range ts {
			if pt.Table == t {
				oid = pt.oid
			}
		}
		info, err = s.describe(ctx, t, oid)
		return err
	})
	return info, err
}

func (s *session) describe(ctx context.Context, t Table, oid string) (*TableInfo, error) {
	info := &TableInfo{Table: t}
	cols, err := s.rows(ctx, `SELECT a.attname, format_type(a.atttypid, a.atttypmod), (NOT a.attnotnull)::text,
	coalesce(pg_get_expr(d.adbin, d.adrelid), ''), a.attidentity::text, a.attgenerated::text
FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, oid)
	if err != nil {
		return nil, err
	}
	for _, r := range cols {
		c := Column{Name: r[0], Type: r[1], Nullable: r[2] == "true", Default: r[3]}
		switch {
		case r[4] == "a":
			c.Extra = "identity always"
		case r[4] == "d":
			c.Extra = "identity by default"
		case r[5] == "s":
			c.Extra, c.Default = "generated: "+c.Default, ""
		}
		info.Columns = append(info.Columns, c)
	}
	pk, err := s.rows(ctx, `SELECT a.attname FROM pg_catalog.pg_index i
JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
WHERE i.indrelid = $1::oid AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`, oid)
	if err != nil {
		return nil, err
	}
	for _, r := range pk {
		info.PrimaryKey = append(info.PrimaryKey, r[0])
	}
	idx, err := s.rows(ctx, `SELECT c.relname, i.indisunique::text, pg_get_indexdef(i.indexrelid, 0, true)
FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class c ON c.oid = i.indexrelid
WHERE i.indrelid = $1::oid AND NOT i.indisprimary ORDER BY 1`, oid)
	if err != nil {
		return nil, err
	}
	for _, r := range idx {
		def := r[2]
		if _, after, ok := strings.Cut(def, " USING "); ok {
			def = after
		}
		info.Indexes = append(info.Indexes, Index{Name: r[0], Unique: r[1] == "true", Definition: def})
	}
	cons, err := s.rows(ctx, `SELECT conname, pg_get_constraintdef(oid, true) FROM pg_catalog.pg_constraint
WHERE conrelid = $1::oid AND contype <> 'p' ORDER BY contype, conname`, oid)
	if err != nil {
		return nil, err
	}
	for _, r := range cons {
		info.Constraints = append(info.Constraints, r[0]+": "+r[1])
	}
	if t.Rows < 0 && (t.Kind == "table" || t.Kind == "partitioned table") {
		// Never analyzed: count, if that is quick. A count that runs out of time aborts the
		// transaction, so it comes last.
		if _, err := s.rows(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d", (CountTimeout/2).Milliseconds())); err == nil {
			if r, err := s.rows(ctx, "SELECT count(*) FROM "+quoteIdent(t.Schema)+"."+quoteIdent(t.Name)); err == nil && len(r) == 1 {
				info.Rows, _ = strconv.ParseInt(r[0][0], 10, 64)
				info.RowsExact = true
			}
		}
	}
	return info, nil
}

// pgParams encodes parameters as text with no declared type: the server infers each type from
// where the parameter is used, as it does for psql's \bind.
func pgParams(params []any) [][]byte {
	out := make([][]byte, len(params))
	for i, p := range params {
		switch v := p.(type) {
		case nil:
		case string:
			out[i] = []byte(v)
		case bool:
			out[i] = []byte(strconv.FormatBool(v))
		case int64:
			out[i] = []byte(strconv.FormatInt(v, 10))
		case float64:
			out[i] = []byte(strconv.FormatFloat(v, 'g', -1, 64))
		default:
			out[i] = []byte(fmt.Sprint(v))
		}
	}
	return out
}

const pgDeclarePrefix = "DECLARE " + pgCursor + " NO SCROLL CURSOR FOR "

func (d *pgDB) Query(ctx context.Context, q Query) (*Result, error) {
	st, err := checkStatement(dialectPostgres, q.SQL)
	if err != nil {
		return nil, err
	}
	var res *Result
	err = d.inTx(ctx, d.src.timeout, func(ctx context.Context, s *session) error {
		if err := s.checkCalls(ctx, st.Calls); err != nil {
			return err
		}
		// A cursor accepts only a query (no DML, no data-modifying WITH), and the extended
		// protocol only one statement.
		if _, err := s.conn.ExecParams(ctx, pgDeclarePrefix+st.SQL, pgParams(q.Params), nil, nil, nil).Close(); err != nil {
			return s.error(ctx, err, d.src.timeout, len(pgDeclarePrefix))
		}
		var c *collector
		var oids []uint32
		for {
			chunk := pgFetchChunk
			rr := s.conn.ExecParams(ctx, fmt.Sprintf("FETCH FORWARD %d FROM %s", chunk, pgCursor), nil, nil, nil, nil)
			if c == nil {
				fields := rr.FieldDescriptions()
				cols := make([]string, len(fields))
				oids = make([]uint32, len(fields))
				for i, f := range fields {
					cols[i], oids[i] = f.Name, f.DataTypeOID
				}
				c = newCollector(cols, q)
			}
			for rr.NextRow() {
				if !c.keeping() {
					c.res.Seen++
					continue
				}
				vals := rr.Values()
				row := make([]Value, len(vals))
				for i, v := range vals {
					row[i] = pgValue(oids[i], v)
				}
				c.add(row)
			}
			tag, err := rr.Close()
			if err != nil {
				return err
			}
			if tag.RowsAffected() < int64(chunk) {
				res = c.result(true)
				return nil
			}
			if !c.keeping() {
				break
			}
		}
		// The rest are counted on the server, without sending them, within CountTimeout.
		results, err := s.conn.Exec(ctx, fmt.Sprintf("SET LOCAL statement_timeout = %d; MOVE FORWARD ALL IN %s",
			CountTimeout.Milliseconds(), pgCursor)).ReadAll()
		if err == nil && len(results) == 2 {
			c.res.Seen += results[1].CommandTag.RowsAffected()
			res = c.result(true)
			return nil
		}
		res = c.result(false)
		if err != nil && !isPgError(err) {
			return err // the connection broke, not the count
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (d *pgDB) Explain(ctx context.Context, q Query) (string, error) {
	sqlText, err := stripExplain(dialectPostgres, q.SQL)
	if err != nil {
		return "", err
	}
	st, err := checkStatement(dialectPostgres, sqlText)
	if err != nil {
		return "", err
	}
	var plan strings.Builder
	err = d.inTx(ctx, d.src.timeout, func(ctx context.Context, s *session) error {
		if err := s.checkCalls(ctx, st.Calls); err != nil {
			return err
		}
		res := s.conn.ExecParams(ctx, "EXPLAIN "+st.SQL, pgParams(q.Params), nil, nil, nil).Read()
		if res.Err != nil {
			return s.error(ctx, res.Err, d.src.timeout, len("EXPLAIN "))
		}
		for i, r := range res.Rows {
			if i > 0 {
				plan.WriteByte('\n')
			}
			plan.Write(r[0])
		}
		return nil
	})
	return plan.String(), err
}

// error turns what went wrong in a session into an *Error the model can act on. offset is how
// many bytes this package put in front of the caller's SQL, so that an error position points
// into the caller's text.
func (s *session) error(ctx context.Context, err error, timeout time.Duration, offset int) error {
	if err == nil {
		return nil
	}
	if _, ok := AsError(err); ok {
		return err
	}
	red := s.src.red
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
			return &Error{Kind: KindTimeout, Msg: fmt.Sprintf("the statement ran longer than %s and was cancelled", timeout), Cause: red.err(err)}
		}
		return &Error{Kind: KindConnect, Msg: fmt.Sprintf("the connection to %s failed during the call", s.src.target),
			Next: "run it again; if it keeps failing, check the server", Cause: red.err(err)}
	}
	msg := red.text(pe.Message)
	if pe.Detail != "" {
		msg += "; " + red.text(pe.Detail)
	}
	if pos := int(pe.Position) - offset; pe.Position > 0 && pos > 0 {
		msg += fmt.Sprintf(" (at character %d)", pos)
	}
	e := &Error{Kind: KindSQL, Msg: fmt.Sprintf("%s [SQLSTATE %s]", msg, pe.Code), Next: red.text(pe.Hint), Cause: red.err(err)}
	switch {
	case pe.Code == "57014": // query_canceled: the statement_timeout
		e.Kind, e.Msg = KindTimeout, fmt.Sprintf("the statement ran longer than %s and was cancelled", timeout)
		e.Next = "make it cheaper: filter on an indexed column, add LIMIT, or check the plan with explain"
	case pe.Code == "25006", pe.Code == "0A000" && strings.Contains(pe.Message, "data-modifying"):
		e.Kind, e.Msg = KindRefused, "refused: "+msg+" (the connection only reads)"
	case pe.Code == "42P01":
		e.Next = "list_tables shows the tables and views"
	}
	return e
}

// pgValue converts a value in PostgreSQL's text format.
func pgValue(oid uint32, v []byte) Value {
	if v == nil {
		return Value{Kind: Null}
	}
	s := string(v)
	switch oid {
	case 16: // bool
		return Value{Kind: Bool, Text: strconv.FormatBool(s == "t")}
	case 20, 21, 23, 26, 700, 701, 1700: // integers, oid, float, numeric
		if s == "NaN" || strings.HasSuffix(s, "Infinity") {
			return Value{Kind: Text, Text: s}
		}
		return Value{Kind: Number, Text: s}
	case 114, 3802: // json, jsonb
		return textValue(RawJSON, s)
	}
	return textValue(Text, s)
}
