package database

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"toolhost/internal/database/pgtest"
)

// readerPassword has the characters that need escaping in a URL, so that masking is tested
// on its encoded forms too.
const readerPassword = "p@ss:w/rd%ü-4242"

var pgSetup = struct {
	once sync.Once
	err  error
}{}

// shopDSN returns the superuser's DSN for the shop database, created once per test binary.
// The superuser is what these tests connect as: every layer must hold even for a role that
// may do anything.
func shopDSN(t testing.TB) string {
	t.Helper()
	srv := pgtest.Require(t)
	pgSetup.once.Do(func() {
		ctx := context.Background()
		if pgSetup.err = srv.Exec(ctx, "postgres", "CREATE DATABASE shop"); pgSetup.err != nil {
			return
		}
		pgSetup.err = srv.Exec(ctx, "shop", `
CREATE ROLE reader LOGIN PASSWORD '`+strings.ReplaceAll(readerPassword, "'", "''")+`';
CREATE TABLE orgs (id int PRIMARY KEY, name text NOT NULL UNIQUE);
CREATE TABLE users (id serial PRIMARY KEY, org_id int REFERENCES orgs(id) ON DELETE CASCADE,
	email text NOT NULL CHECK (email <> ''), note text DEFAULT 'none', data jsonb, score numeric(6,2),
	active boolean, created timestamptz);
CREATE INDEX users_org ON users (org_id);
CREATE TABLE "Mixed Case" (x int);
INSERT INTO orgs VALUES (1, 'acme'), (2, 'initech');
INSERT INTO users (org_id, email, note, data, score, active, created) VALUES
	(1, 'a@x', 'line1
line2', '{"k": [1, 2]}', 1.5, true, '2024-01-02 03:04:05+00'),
	(2, 'b@x', NULL, NULL, -2, false, NULL),
	(1, 'c@x', '', 'null', 3, NULL, NULL);
INSERT INTO "Mixed Case" VALUES (7);
CREATE TABLE nums AS SELECT g AS n FROM generate_series(1, 5000) g;
ANALYZE nums;
CREATE SEQUENCE counter;
-- Functions the database owner wrote: the statement check cannot see inside them.
CREATE FUNCTION leak_setting() RETURNS text LANGUAGE sql AS $$ SELECT set_config('statement_timeout', '0', false) $$;
CREATE FUNCTION grab_lock() RETURNS boolean LANGUAGE sql AS $$ SELECT pg_try_advisory_lock(4242) $$;
CREATE FUNCTION sneaky_insert() RETURNS int LANGUAGE plpgsql AS $$ BEGIN INSERT INTO orgs VALUES (99, 'evil'); RETURN 1; END $$;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;
`)
	})
	if pgSetup.err != nil {
		t.Fatalf("set up the shop database: %v", pgSetup.err)
	}
	return srv.DSN(pgtest.Superuser, srv.Password, "shop")
}

func openTestPostgres(t testing.TB, dsn string, timeout time.Duration) (*Connections, DB) {
	t.Helper()
	conns := NewConnections([]Source{{Name: "shop", Driver: Postgres, DSN: dsn, Timeout: timeout}})
	t.Cleanup(func() { conns.Close() })
	db, err := conns.Open(context.Background(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	return conns, db
}

func TestPostgresQuery(t *testing.T) {
	_, db := openTestPostgres(t, shopDSN(t), 0)
	checkQueries(t, db, []queryCase{
		{"table", Query{SQL: "SELECT id, email, note FROM users ORDER BY id"}, FormatTable,
			"id | email | note\n1 | a@x | line1\\nline2\n2 | b@x | NULL\n3 | c@x | \n(3 rows)"},
		{"json types", Query{SQL: "SELECT id, data, score, active, created FROM users WHERE id = 1"}, FormatJSON,
			`{"id":1,"data":{"k": [1, 2]},"score":1.50,"active":true,"created":"2024-01-02 03:04:05+00"}` + "\n(1 row)"},
		{"parameters are typed by the server", Query{SQL: "SELECT email FROM users WHERE id = $1 OR email = $2 ORDER BY 1", Params: []any{int64(2), "c@x"}}, FormatTable,
			"email\nb@x\nc@x\n(2 rows)"},
		{"a number sent as text", Query{SQL: "SELECT $1::int + 1 AS n", Params: []any{"41"}}, FormatTable, "n\n42\n(1 row)"},
		{"null parameter", Query{SQL: "SELECT count(*) FROM users WHERE note IS NOT DISTINCT FROM $1", Params: []any{nil}}, FormatTable, "count\n1\n(1 row)"},
		{"row limit with total", Query{SQL: "SELECT n FROM nums ORDER BY n", MaxRows: 2}, FormatTable,
			"n\n1\n2\n(2 of 5000 rows shown: the row limit; narrow it with WHERE, aggregate, page with LIMIT/OFFSET, or raise limit)"},
		// A FETCH returns pgFetchChunk rows: the end of the rows at a chunk boundary.
		{"exactly one chunk", Query{SQL: "SELECT n FROM nums ORDER BY n LIMIT 100", MaxRows: 100}, FormatTable, numberLines(100) + "(100 rows)"},
		{"one past a chunk", Query{SQL: "SELECT n FROM nums ORDER BY n LIMIT 101", MaxRows: 100}, FormatTable,
			numberLines(100) + "(100 of 101 rows shown: the row limit; narrow it with WHERE, aggregate, page with LIMIT/OFFSET, or raise limit)"},
		{"no rows", Query{SQL: "SELECT n FROM nums WHERE n < 0"}, FormatTable, "n\n(0 rows)"},
		{"quoted table", Query{SQL: `TABLE "Mixed Case"`}, FormatTable, "x\n7\n(1 row)"},
		{"values", Query{SQL: "VALUES (1, 'a')"}, FormatJSON, `{"column1":1,"column2":"a"}` + "\n(1 row)"},
	})
}

// numberLines is the header n and the lines 1 to count.
func numberLines(count int) string {
	var b strings.Builder
	b.WriteString("n\n")
	for i := 1; i <= count; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

func TestPostgresHugeResult(t *testing.T) {
	_, db := openTestPostgres(t, shopDSN(t), 0)
	res, err := db.Query(context.Background(), Query{SQL: "SELECT g, repeat('x', 20) FROM generate_series(1, 2000000) g"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != DefaultMaxRows || res.Cut != "rows" {
		t.Errorf("kept %d rows (cut %q), want %d", len(res.Rows), res.Cut, DefaultMaxRows)
	}
	if res.Complete && res.Seen != 2000000 {
		t.Errorf("Seen = %d, want 2000000", res.Seen)
	}
	text, _ := res.Render(FormatTable, 100000)
	if !strings.Contains(text, "200 of ") {
		t.Errorf("summary: %s", text[strings.LastIndex(text, "\n")+1:])
	}
}

// pgState is what the refusal test checks before and after: table contents, the sequence,
// large objects, and who is connected.
func pgState(t *testing.T, db DB) string {
	t.Helper()
	res, err := db.Query(context.Background(), Query{SQL: `SELECT
		(SELECT md5(string_agg(o::text, ',' ORDER BY id)) FROM orgs o),
		(SELECT md5(string_agg(u::text, ',' ORDER BY id)) FROM users u),
		(SELECT last_value FROM counter),
		(SELECT count(*) FROM pg_largeobject_metadata),
		(SELECT count(*) FROM pg_class WHERE relname LIKE 'evil%'),
		current_setting('statement_timeout')`})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := res.Render(FormatJSON, 10000)
	return out
}

// TestPostgresRefusesWrites runs, as the superuser, what an attacker would try, and then
// checks that nothing changed: the tables, the sequence, large objects, files on the server's
// machine, and a bystander session that must still be alive.
func TestPostgresRefusesWrites(t *testing.T) {
	dsn := shopDSN(t)
	_, db := openTestPostgres(t, dsn, 0)
	ctx := context.Background()
	// A file the server could write if COPY ... TO PROGRAM or lo_export got through.
	outDir := t.TempDir()
	os.Chmod(outDir, 0o777)
	target := filepath.Join(outDir, "pwned")
	bystander, bystanderDB := openTestPostgres(t, dsn, 0)
	_ = bystander
	pid := queryText(t, bystanderDB, "SELECT pg_backend_pid()")
	before := pgState(t, db)
	attacks := []string{
		"INSERT INTO orgs VALUES (9, 'evil')",
		"UPDATE users SET email = 'evil'",
		"DELETE FROM users",
		"MERGE INTO orgs o USING (VALUES (1)) v(id) ON o.id = v.id WHEN MATCHED THEN DELETE",
		"TRUNCATE users",
		"DROP TABLE users",
		"CREATE TABLE evil (a int)",
		"CREATE TEMP TABLE evil (a int)",
		"ALTER TABLE users ADD COLUMN evil int",
		"COPY (SELECT 1) TO PROGRAM 'touch " + target + "'",
		"COPY orgs TO '" + target + "'",
		"COPY orgs FROM '/etc/hostname'",
		"SELECT * INTO evil FROM orgs",
		"WITH d AS (DELETE FROM users RETURNING *) SELECT * FROM d",
		"WITH i AS (INSERT INTO orgs VALUES (9, 'evil') RETURNING *) SELECT 1",
		"SELECT * FROM orgs FOR UPDATE",
		"SELECT nextval('counter')",
		"SELECT setval('counter', 99)",
		"SELECT lo_import('/etc/hostname')",
		"SELECT lo_create(0)",
		"SELECT lo_from_bytea(0, 'x')",
		"SELECT lo_export(1, '" + target + "')",
		"SELECT pg_terminate_backend(" + pid + ")",
		"SELECT pg_catalog.pg_cancel_backend(" + pid + ")",
		`SELECT "pg_terminate_backend"(` + pid + `)`,
		"SELECT set_config('statement_timeout', '0', false)",
		"SELECT pg_advisory_lock(1)",
		"SELECT pg_notify('chan', 'x')",
		"SELECT pg_reload_conf()",
		"SELECT pg_stat_reset()",
		"SELECT query_to_xml('select pg_terminate_backend(" + pid + ")', true, true, '')",
		"SELECT pg_read_file('/etc/hostname')",
		"SELECT sneaky_insert()",
		"SET statement_timeout = 0",
		"SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
		"RESET ALL",
		"BEGIN",
		"COMMIT",
		"LOCK TABLE users",
		"LISTEN chan",
		"NOTIFY chan",
		"DO $$ BEGIN INSERT INTO orgs VALUES (9, 'evil'); END $$",
		"ANALYZE users",
		"VACUUM users",
		"PREPARE p AS SELECT 1",
		"SELECT 1; DELETE FROM users",
		"SELECT 1 \\; DELETE FROM users",
		"SELECT 'x'; COMMIT; DELETE FROM users",
		"SELECT 'it''s'; DELETE FROM users",
		"SELECT $$ $$; DELETE FROM users",
		"/* */ DELETE FROM users",
		"EXPLAIN ANALYZE DELETE FROM users",
	}
	for _, q := range attacks {
		t.Run(q, func(t *testing.T) {
			res, err := db.Query(ctx, Query{SQL: q})
			e, ok := AsError(err)
			if !ok || (e.Kind != KindRefused && e.Kind != KindSQL && e.Kind != KindInvalid) {
				t.Fatalf("Query(%q) = %v, %v; want it refused", q, res, err)
			}
		})
	}
	if after := pgState(t, db); after != before {
		t.Errorf("the database changed:\nbefore %s\nafter  %s", before, after)
	}
	if _, err := os.Stat(target); err == nil {
		t.Errorf("the server wrote %s", target)
	}
	if got := queryText(t, bystanderDB, "SELECT pg_backend_pid()"); got != pid {
		t.Errorf("the bystander session was replaced: pid %s, want %s", got, pid)
	}
}

// TestPostgresTransactionRefusesWritesWithoutTheCheck sends writes into the session's
// transaction directly, past the statement check: the read-only transaction and the cursor
// must stop them on their own.
func TestPostgresTransactionRefusesWritesWithoutTheCheck(t *testing.T) {
	_, db := openTestPostgres(t, shopDSN(t), 0)
	before := pgState(t, db)
	for _, q := range []string{
		"INSERT INTO orgs VALUES (9, 'evil')",
		"UPDATE users SET email = 'evil'",
		"CREATE TABLE evil (a int)",
		"SELECT nextval('counter')",
		pgDeclarePrefix + "WITH d AS (DELETE FROM users RETURNING *) SELECT * FROM d",
		pgDeclarePrefix + "SELECT 1; DELETE FROM users",
		pgDeclarePrefix + "DELETE FROM users RETURNING *",
	} {
		err := db.(*pgDB).inTx(context.Background(), time.Minute, func(ctx context.Context, s *session) error {
			_, err := s.conn.ExecParams(ctx, q, nil, nil, nil, nil).Close()
			return err
		})
		if err == nil {
			t.Errorf("%q ran in the read-only transaction", q)
		}
	}
	if after := pgState(t, db); after != before {
		t.Errorf("the database changed:\nbefore %s\nafter  %s", before, after)
	}
}

// TestPostgresSessionStateIsDiscarded calls functions that leave state on the session (a
// setting, an advisory lock) from inside, where the statement check cannot see: the next call
// on the same pooled connection must find none of it.
func TestPostgresSessionStateIsDiscarded(t *testing.T) {
	dsn := shopDSN(t)
	_, db := openTestPostgres(t, dsn, 0)
	pid := queryText(t, db, "SELECT pg_backend_pid()")
	queryText(t, db, "SELECT leak_setting()")
	if got := queryText(t, db, "SELECT current_setting('statement_timeout')"); got != "30s" {
		t.Errorf("statement_timeout after a function set it = %q, want 30s", got)
	}
	queryText(t, db, "SELECT grab_lock()")
	_, other := openTestPostgres(t, dsn, 0)
	if got := queryText(t, other, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242"); got != "0" {
		t.Errorf("%s advisory locks still held after the call", got)
	}
	if got := queryText(t, db, "SELECT pg_backend_pid()"); got != pid {
		t.Errorf("the connection was not reused (pid %s, then %s): the test proves nothing", pid, got)
	}
	if got := queryText(t, db, "SELECT current_setting('transaction_read_only') || current_setting('default_transaction_read_only')"); got != "onon" {
		t.Errorf("read-only settings = %q, want onon", got)
	}
}

func TestPostgresTimeout(t *testing.T) {
	_, db := openTestPostgres(t, shopDSN(t), 300*time.Millisecond)
	start := time.Now()
	_, err := db.Query(context.Background(), Query{SQL: "SELECT pg_sleep(30)"})
	if e, ok := AsError(err); !ok || e.Kind != KindTimeout {
		t.Fatalf("pg_sleep(30) = %v, want a timeout", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the timeout took %s", d)
	}
	// The connection is usable after the cancelled statement.
	if got := queryText(t, db, "SELECT 1"); got != "1" {
		t.Errorf("after the timeout: %q", got)
	}
}

// TestPostgresConnectionErrors checks the failures of a source that cannot be used, and that
// the password appears in none of their texts.
func TestPostgresConnectionErrors(t *testing.T) {
	srv := pgtest.Require(t)
	shopDSN(t)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downPort := closed.Addr().(*net.TCPAddr).Port
	closed.Close()
	good := srv.DSN("reader", readerPassword, "shop")
	tests := []struct {
		name, dsn string
		kind      Kind
		want      string
	}{
		{"works", strings.Replace(good, readerPassword, urlEscape(readerPassword), 1), 0, ""},
		{"server down", fmt.Sprintf("postgres://reader:%s@127.0.0.1:%d/shop?sslmode=disable&connect_timeout=5", urlEscape(readerPassword), downPort), KindConnect, "connection refused"},
		{"wrong password", fmt.Sprintf("postgres://reader:wrong-%s@127.0.0.1:%d/shop?sslmode=disable", urlEscape(readerPassword), srv.Port), KindConnect, "password authentication failed"},
		{"unknown database", fmt.Sprintf("postgres://reader:%s@127.0.0.1:%d/nope?sslmode=disable", urlEscape(readerPassword), srv.Port), KindConnect, `database "nope" does not exist`},
		{"unparseable", fmt.Sprintf("postgres://reader:%s@127.0.0.1:notaport/shop", urlEscape(readerPassword)), KindUnavailable, "does not parse"},
		{"keyword form", fmt.Sprintf("host=127.0.0.1 port=%d user=reader password='%s' dbname=shop sslmode=disable", downPort, readerPassword), KindConnect, "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conns := NewConnections([]Source{{Name: "x", Driver: Postgres, DSN: tt.dsn}})
			defer conns.Close()
			for _, info := range conns.List() {
				if leaks(info.Target+info.Problem, readerPassword) {
					t.Errorf("List shows the password: %+v", info)
				}
			}
			var err error
			db, err := conns.Open(context.Background(), "x")
			if err == nil {
				_, err = db.Query(context.Background(), Query{SQL: "SELECT current_user"})
			}
			if tt.kind == 0 {
				if err != nil {
					t.Fatalf("a good DSN failed: %v", err)
				}
				return
			}
			e, ok := AsError(err)
			if !ok || e.Kind != tt.kind || !strings.Contains(e.Msg, tt.want) {
				t.Fatalf("error = %v, want kind %d containing %q", err, tt.kind, tt.want)
			}
			for _, text := range []string{e.Msg, e.Next, fmt.Sprint(e.Cause), fmt.Sprintf("%+v", err)} {
				if leaks(text, readerPassword) {
					t.Errorf("the error shows the password: %s", text)
				}
			}
		})
	}
}

func leaks(text, password string) bool {
	return strings.Contains(text, password) || strings.Contains(text, urlEscape(password)) || strings.Contains(text, "p%40ss")
}

func urlEscape(s string) string {
	r := strings.NewReplacer("@", "%40", ":", "%3A", "/", "%2F", "%", "%25", "ü", "%C3%BC")
	return r.Replace(s)
}

func TestPostgresSchema(t *testing.T) {
	_, db := openTestPostgres(t, shopDSN(t), 0)
	ctx := context.Background()
	tables, err := db.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range tables {
		names = append(names, tb.QualifiedName()+" "+tb.Kind)
	}
	if want := []string{"public.Mixed Case table", "public.nums table", "public.orgs table", "public.users table"}; !slices.Equal(names, want) {
		t.Errorf("Tables = %v, want %v", names, want)
	}
	info, err := db.Describe(ctx, "Users")
	if err != nil {
		t.Fatal(err)
	}
	if info.Rows != 3 || !info.RowsExact || !slices.Equal(info.PrimaryKey, []string{"id"}) {
		t.Errorf("Describe: rows %d exact %v pk %v", info.Rows, info.RowsExact, info.PrimaryKey)
	}
	var cols []string
	for _, c := range info.Columns {
		cols = append(cols, fmt.Sprintf("%s %s %v %s", c.Name, c.Type, c.Nullable, c.Default))
	}
	want := []string{"id integer false nextval('users_id_seq'::regclass)", "org_id integer true ", "email text false ",
		"note text true 'none'::text", "data jsonb true ", "score numeric(6,2) true ", "active boolean true ", "created timestamp with time zone true "}
	if !slices.Equal(cols, want) {
		t.Errorf("columns =\n%s\nwant\n%s", strings.Join(cols, "\n"), strings.Join(want, "\n"))
	}
	if len(info.Indexes) != 1 || info.Indexes[0].Definition != "btree (org_id)" {
		t.Errorf("indexes = %+v", info.Indexes)
	}
	cons := strings.Join(info.Constraints, "\n")
	if !strings.Contains(cons, "FOREIGN KEY (org_id) REFERENCES orgs(id) ON DELETE CASCADE") || !strings.Contains(cons, "CHECK (email <> ''::text)") {
		t.Errorf("constraints = %s", cons)
	}
	nums, err := db.Describe(ctx, "public.nums")
	if err != nil || nums.Rows != 5000 || nums.RowsExact {
		t.Errorf("Describe(nums) rows %d exact %v, %v; want the planner's 5000", nums.Rows, nums.RowsExact, err)
	}
	if _, err := db.Describe(ctx, `"Mixed Case"`); err != nil {
		t.Errorf("Describe(quoted) = %v", err)
	}
	_, err = db.Describe(ctx, "user")
	if e, ok := AsError(err); !ok || e.Kind != KindNotFound || !slices.Contains(e.Candidates, "public.users") {
		t.Errorf("Describe(unknown) = %v", err)
	}
	plan, err := db.Explain(ctx, Query{SQL: "SELECT * FROM users WHERE org_id = $1", Params: []any{int64(1)}})
	if err != nil || !strings.Contains(plan, "users") || !strings.Contains(plan, "cost=") {
		t.Errorf("Explain = %q, %v", plan, err)
	}
	if _, err := db.Explain(ctx, Query{SQL: "EXPLAIN ANALYZE SELECT pg_sleep(1)"}); err == nil {
		t.Error("Explain with ANALYZE succeeded, want refused")
	}
	_, err = db.Query(ctx, Query{SQL: "SELECT nope FROM users"})
	if e, ok := AsError(err); !ok || e.Kind != KindSQL || !strings.Contains(e.Msg, `column "nope" does not exist`) || !strings.Contains(e.Msg, "at character 8") {
		t.Errorf("unknown column = %v", err)
	}
}

func queryText(t testing.TB, db DB, sql string) string {
	t.Helper()
	res, err := db.Query(context.Background(), Query{SQL: sql})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		t.Fatalf("%s: %d rows", sql, len(res.Rows))
	}
	return res.Rows[0][0].Text
}

// TestPostgresCatalogWriters walks the catalog of the PostgreSQL the tests start: every
// volatile function in C is refused unless it is known to only read, so the functions that
// write inside BEGIN READ ONLY — index maintenance, large objects, sequences, advisory locks,
// other sessions, replication — are refused without a hand list naming them; the allow list
// names no function this server lacks, and common reads stay allowed.
func TestPostgresCatalogWriters(t *testing.T) {
	dsn := shopDSN(t)
	_, db := openTestPostgres(t, dsn, 0)
	ctx := context.Background()
	var writers map[string]bool
	var volatile []string
	err := db.(*pgDB).inTx(ctx, 30*time.Second, func(ctx context.Context, s *session) error {
		var err error
		if writers, err = s.loadWriters(ctx); err != nil {
			return err
		}
		rows, err := s.rows(ctx, pgWritersSQL)
		for _, r := range rows {
			volatile = append(volatile, r[0])
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range volatile {
		if !writers[name] && !isPgReadOnly(name) {
			t.Errorf("%s: neither refused nor known to only read", name)
		}
	}
	for _, name := range []string{"brin_summarize_new_values", "brin_summarize_range", "brin_desummarize_range",
		"gin_clean_pending_list", "lo_create", "lo_import", "lo_unlink", "lo_put", "nextval", "setval",
		"pg_advisory_lock", "pg_advisory_xact_lock", "pg_terminate_backend", "set_config", "pg_notify",
		"pg_switch_wal", "pg_create_restore_point", "pg_export_snapshot", "pg_nextoid", "pg_logical_emit_message",
		"pg_replication_origin_create", "pg_import_system_collations", "pg_stat_reset"} {
		if !writers[name] {
			t.Errorf("%s may write and is not refused", name)
		}
	}
	// The allow list is checked against what this server has: a name it lacks must come
	// from a newer PostgreSQL, which these are.
	newer := map[string]bool{"random_normal": true, "uuidv4": true, "uuidv7": true, "pg_sleep_for": true, "pg_sleep_until": true}
	for name := range pgReadOnlyVolatile {
		if !slices.Contains(volatile, name) && !newer[name] {
			t.Errorf("the read-only list names %s, which this server has no volatile C function of", name)
		}
	}
	for _, q := range []string{"SELECT random() < 2", "SELECT clock_timestamp() IS NOT NULL", "SELECT pg_relation_size('users') >= 0",
		"SELECT count(*) FROM users", "SELECT lower(email), now() FROM users ORDER BY 1 LIMIT 1", "SELECT currval('counter') IS NULL"} {
		if _, err := db.Query(ctx, Query{SQL: q}); err != nil {
			if e, ok := AsError(err); ok && e.Kind == KindRefused {
				t.Errorf("Query(%q) refused: %v", q, err)
			}
		}
	}
}

// TestPostgresIndexMaintenanceRefused: brin_summarize_new_values and gin_clean_pending_list
// write index pages and WAL inside BEGIN READ ONLY, and no hand list named them: the catalog
// does. Nothing changes on disk (the BRIN index's summary stays as it was).
func TestPostgresIndexMaintenanceRefused(t *testing.T) {
	srv := pgtest.Require(t)
	ctx := context.Background()
	if err := srv.Exec(ctx, "postgres", "CREATE DATABASE idx"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Exec(ctx, "idx", `CREATE TABLE t (n int, doc tsvector);
CREATE INDEX t_brin ON t USING brin (n) WITH (autosummarize = off);
CREATE INDEX t_gin ON t USING gin (doc) WITH (fastupdate = on);
INSERT INTO t SELECT g, to_tsvector('simple', 'word' || g) FROM generate_series(1, 20000) g;`); err != nil {
		t.Fatal(err)
	}
	_, db := openTestPostgres(t, srv.DSN(pgtest.Superuser, srv.Password, "idx"), 0)
	for _, q := range []string{"SELECT brin_summarize_new_values('t_brin')", "SELECT brin_summarize_range('t_brin', 0)",
		"SELECT gin_clean_pending_list('t_gin')", "SELECT pg_catalog.gin_clean_pending_list('t_gin'::regclass)"} {
		_, err := db.Query(ctx, Query{SQL: q})
		if e, ok := AsError(err); !ok || e.Kind != KindRefused || !strings.Contains(e.Msg, "catalog") {
			t.Errorf("Query(%q) = %v, want refused by the catalog", q, err)
		}
	}
	// By effect: the work is still there to do, as the superuser's own session finds.
	conn, err := pgconn.Connect(ctx, srv.DSN(pgtest.Superuser, srv.Password, "idx"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{"SELECT brin_summarize_new_values('t_brin')", "SELECT gin_clean_pending_list('t_gin')"} {
		res := conn.ExecParams(ctx, q, nil, nil, nil, nil).Read()
		if res.Err != nil || len(res.Rows) != 1 || string(res.Rows[0][0]) == "0" {
			t.Errorf("%s afterwards = %q, %v; want work left undone (the refused call did nothing)", q, res.Rows, res.Err)
		}
	}
}
