package database

import (
	"strings"
	"testing"
)

func TestCheckStatementAccepts(t *testing.T) {
	tests := []struct {
		name    string
		d       dialect
		sql     string
		wantSQL string
	}{
		{"select", dialectPostgres, "SELECT 1", "SELECT 1"},
		{"trailing semicolons and comment", dialectPostgres, "select 1;; -- done\n", "select 1"},
		{"with", dialectPostgres, "WITH x AS (SELECT 1) SELECT * FROM x", "WITH x AS (SELECT 1) SELECT * FROM x"},
		{"parenthesised", dialectPostgres, "(SELECT 1) UNION (SELECT 2)", "(SELECT 1) UNION (SELECT 2)"},
		{"values", dialectPostgres, "VALUES (1), (2)", "VALUES (1), (2)"},
		{"table", dialectPostgres, "TABLE users", "TABLE users"},
		{"leading comment", dialectPostgres, "/* a /* nested */ comment */ SELECT 1", "/* a /* nested */ comment */ SELECT 1"},
		{"denied name inside a string", dialectPostgres, "SELECT 'pg_terminate_backend(1); DROP TABLE t'", "SELECT 'pg_terminate_backend(1); DROP TABLE t'"},
		{"denied name inside a dollar quote", dialectPostgres, "SELECT $x$ set_config( ; $x$", "SELECT $x$ set_config( ; $x$"},
		{"denied name as a column", dialectPostgres, "SELECT nextval FROM t", "SELECT nextval FROM t"},
		{"semicolon in an identifier", dialectPostgres, `SELECT 1 AS "a;b"`, `SELECT 1 AS "a;b"`},
		{"E string with escaped quote", dialectPostgres, `SELECT E'it\'s; fine'`, `SELECT E'it\'s; fine'`},
		{"parameters", dialectPostgres, "SELECT * FROM t WHERE id = $1 AND v = $2", "SELECT * FROM t WHERE id = $1 AND v = $2"},
		{"cast", dialectPostgres, "SELECT '1'::int", "SELECT '1'::int"},
		{"sqlite select", dialectSQLite, "select * from [my table] where `x` = ?;", "select * from [my table] where `x` = ?"},
		{"sqlite pragma", dialectSQLite, "PRAGMA table_info(users)", "PRAGMA table_info(users)"},
		{"sqlite comment to the end", dialectSQLite, "SELECT 1 /* unfinished", "SELECT 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := checkStatement(tt.d, tt.sql)
			if err != nil {
				t.Fatalf("checkStatement(%q) = %v, want accepted", tt.sql, err)
			}
			if got.SQL != tt.wantSQL {
				t.Errorf("checkStatement(%q).SQL = %q, want %q", tt.sql, got.SQL, tt.wantSQL)
			}
		})
	}
}

// TestCheckStatementRefuses tries what an attacker would: writes, second statements hidden
// behind comments and quotes, and denied functions spelled every way the server accepts.
func TestCheckStatementRefuses(t *testing.T) {
	tests := []struct {
		name string
		d    dialect
		sql  string
		want string // in the message
		kind Kind
	}{
		{"insert", dialectPostgres, "INSERT INTO t VALUES (1)", "INSERT statements are refused", KindRefused},
		{"update", dialectSQLite, "update t set x = 1", "UPDATE statements are refused", KindRefused},
		{"delete", dialectPostgres, "DELETE FROM t", "DELETE statements are refused", KindRefused},
		{"ddl", dialectPostgres, "DROP TABLE t", "DROP statements are refused", KindRefused},
		{"create", dialectSQLite, "CREATE TABLE x(a)", "CREATE statements are refused", KindRefused},
		{"copy to program", dialectPostgres, "COPY (SELECT 1) TO PROGRAM 'touch /tmp/x'", "COPY statements are refused", KindRefused},
		{"attach", dialectSQLite, "ATTACH 'x.db' AS x", "ATTACH statements are refused", KindRefused},
		{"vacuum into", dialectSQLite, "VACUUM INTO 'copy.db'", "VACUUM statements are refused", KindRefused},
		{"set", dialectPostgres, "SET statement_timeout = 0", "SET statements are refused", KindRefused},
		{"do block", dialectPostgres, "DO $$ BEGIN PERFORM 1; END $$", "DO statements are refused", KindRefused},
		{"call", dialectPostgres, "CALL p()", "CALL statements are refused", KindRefused},
		{"begin", dialectSQLite, "BEGIN", "BEGIN statements are refused", KindRefused},
		{"explain in query", dialectPostgres, "EXPLAIN ANALYZE DELETE FROM t", "explain operation", KindRefused},
		{"pragma in postgres", dialectPostgres, "PRAGMA x", "PRAGMA statements are refused", KindRefused},
		{"second statement", dialectPostgres, "SELECT 1; DROP TABLE t", "more than one statement", KindRefused},
		{"second statement after a comment", dialectSQLite, "SELECT 1 /* ; */; DELETE FROM t", "more than one statement", KindRefused},
		{"second statement after a string", dialectPostgres, "SELECT 'a;b'; DELETE FROM t", "more than one statement", KindRefused},
		{"backslash does not escape in a standard string", dialectPostgres, `SELECT 'a\'; DELETE FROM t; --'`, "more than one statement", KindRefused},
		{"second statement after a dollar quote", dialectPostgres, "SELECT $$;$$; DELETE FROM t", "more than one statement", KindRefused},
		{"terminate backend", dialectPostgres, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity", "pg_terminate_backend() is refused", KindRefused},
		{"upper case", dialectPostgres, "SELECT PG_CANCEL_BACKEND(1)", "is refused", KindRefused},
		{"schema qualified", dialectPostgres, "SELECT pg_catalog.set_config('statement_timeout', '0', false)", "set_config() is refused", KindRefused},
		{"quoted name", dialectPostgres, `SELECT "pg_catalog"."set_config"('a', 'b', false)`, "set_config() is refused", KindRefused},
		{"comment before the parenthesis", dialectPostgres, "SELECT lo_import /* x */ ('/etc/passwd')", "lo_import() is refused", KindRefused},
		{"newline before the parenthesis", dialectPostgres, "SELECT nextval\n('s')", "nextval() is refused", KindRefused},
		{"in FROM", dialectPostgres, "SELECT * FROM dblink('host=x', 'DELETE FROM t') AS r(a int)", "dblink() is refused", KindRefused},
		{"sql text runner", dialectPostgres, "SELECT query_to_xml('select pg_terminate_backend(1)', true, true, '')", "query_to_xml() is refused", KindRefused},
		{"advisory lock", dialectPostgres, "SELECT pg_advisory_lock(1)", "is refused", KindRefused},
		{"notify", dialectPostgres, "SELECT pg_notify('c', 'x')", "pg_notify() is refused", KindRefused},
		{"server file", dialectPostgres, "SELECT pg_read_file('/etc/passwd')", "pg_read_file() is refused", KindRefused},
		{"in a CTE", dialectPostgres, "WITH x AS (SELECT lo_create(0)) SELECT * FROM x", "lo_create() is refused", KindRefused},
		{"after an E string", dialectPostgres, `SELECT E'\'', pg_reload_conf()`, "pg_reload_conf() is refused", KindRefused},
		{"unicode identifier", dialectPostgres, `SELECT U&"pg_terminate_backen\0064"(1)`, "Unicode-escaped", KindRefused},
		{"empty", dialectPostgres, "  -- nothing\n", "empty", KindInvalid},
		{"unterminated string", dialectPostgres, "SELECT 'abc", "unterminated string", KindInvalid},
		{"unterminated comment", dialectPostgres, "SELECT 1 /* /* */", "unterminated comment", KindInvalid},
		{"unterminated dollar quote", dialectPostgres, "SELECT $a$ x $b$", "unterminated dollar-quoted", KindInvalid},
		{"unterminated identifier", dialectSQLite, `SELECT "abc`, "unterminated quoted identifier", KindInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := checkStatement(tt.d, tt.sql)
			e, ok := AsError(err)
			if !ok {
				t.Fatalf("checkStatement(%q) = %v, want a refusal", tt.sql, err)
			}
			if e.Kind != tt.kind || !strings.Contains(e.Msg, tt.want) {
				t.Errorf("checkStatement(%q) = kind %d %q, want kind %d containing %q", tt.sql, e.Kind, e.Msg, tt.kind, tt.want)
			}
		})
	}
}

func TestStripExplain(t *testing.T) {
	tests := []struct {
		name, sql, want string
		d               dialect
		refused         bool
	}{
		{name: "bare", sql: "SELECT 1", want: "SELECT 1"},
		{name: "explain", sql: "EXPLAIN SELECT 1", want: " SELECT 1"},
		{name: "sqlite query plan", sql: "explain query plan select 1", want: " select 1", d: dialectSQLite},
		{name: "analyze", sql: "EXPLAIN ANALYZE SELECT 1", refused: true},
		{name: "options", sql: "EXPLAIN (ANALYZE) SELECT 1", refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.d
			if d == dialectSQLite && !strings.Contains(tt.name, "sqlite") {
				d = dialectPostgres
			}
			got, err := stripExplain(d, tt.sql)
			if tt.refused {
				if err == nil {
					t.Fatalf("stripExplain(%q) = %q, want refused", tt.sql, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("stripExplain(%q) = %q, %v, want %q", tt.sql, got, err, tt.want)
			}
		})
	}
}

func TestResolveTable(t *testing.T) {
	tables := []Table{
		{Schema: "audit", Name: "users"}, {Schema: "public", Name: "users"}, {Schema: "public", Name: "Orders"},
	}
	path := []string{"public"}
	tests := []struct {
		name, in, want string
		notFound       bool
	}{
		{name: "search path first", in: "users", want: "public.users"},
		{name: "qualified", in: "audit.users", want: "audit.users"},
		{name: "case-insensitive", in: "orders", want: "public.Orders"},
		{name: "quoted exact", in: `"Orders"`, want: "public.Orders"},
		{name: "quoted wrong case", in: `"orders"`, notFound: true},
		{name: "unknown", in: "customers", notFound: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolveTable(tables, tt.in, path)
			if tt.notFound {
				e, ok := AsError(err)
				if !ok || e.Kind != KindNotFound || len(e.Candidates) != 3 {
					t.Fatalf("resolveTable(%q) = %v, %v, want not found with candidates", tt.in, got, err)
				}
				return
			}
			if err != nil || got.QualifiedName() != tt.want {
				t.Errorf("resolveTable(%q) = %q, %v, want %q", tt.in, got.QualifiedName(), err, tt.want)
			}
		})
	}
}

func TestMaskDSN(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"url", "postgres://app:s3cr%40t@db:5432/app?sslmode=disable", "postgres://app:***@db:5432/app?sslmode=disable"},
		{"url query password", "postgres://db/app?password=s3cret&user=app", "postgres://db/app?password=***&user=app"},
		{"keywords", "host=db user=app password=s3cret dbname=app", "host=db user=app password=*** dbname=app"},
		{"quoted keyword", "host=db password='two words' sslpassword=x", "host=db password=*** sslpassword=***"},
		{"no password", "postgres://app@db/app", "postgres://app@db/app"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MaskDSN(tt.in); got != tt.want {
				t.Errorf("MaskDSN(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
