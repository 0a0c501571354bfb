package consolidated

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the read-write driver, to make test databases

	"toolhost/authz"
	"toolhost/internal/database"
	"toolhost/internal/database/pgtest"
	"toolhost/internal/logtest"
)

// makeDB creates a SQLite file with the ordinary read-write driver.
func makeDB(t testing.TB, path string, stmts ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

var appSchema = []string{
	`CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE, vip INTEGER DEFAULT 0)`,
	`CREATE TABLE invoices (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), total REAL, paid INTEGER)`,
	`CREATE INDEX invoices_customer ON invoices(customer_id)`,
	`INSERT INTO customers VALUES (1, 'Ada', 'ada@example.com', 1), (2, 'Brian', NULL, 0), (3, 'Chen', 'chen@example.com', 0)`,
	`WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 600) INSERT INTO invoices SELECT i, 1 + i % 3, i * 1.25, i % 2 FROM r`,
}

// newDBHarness serves database_operations over the in-memory transport, with a SQLite file
// at data/app.db in the working directory and the given configured sources.
func newDBHarness(t testing.TB, budget int, guardCfg func(*authz.Config), sources ...database.Source) *harness {
	t.Helper()
	h := newHarness(t, harnessOptions{budgetTokens: budget, guard: guardCfg, tools: func(h *harness) []*Tool {
		return []*Tool{DatabaseTool(DatabaseConfig{Connections: database.NewConnections(sources), Guard: h.guard}), ReadToolResultTool()}
	}})
	makeDB(t, filepath.Join(h.wd, "data", "app.db"), appSchema...)
	return h
}

// db calls database_operations; the text is the result or the error.
func (h *harness) db(op string, args map[string]any) (string, bool) {
	h.t.Helper()
	text, isErr, _ := h.op(op, args)
	return text, isErr
}

// TestDatabaseReadsChangeNoFile runs the calls of testdata/scenarios/database_session.txtar,
// which pins their texts, and checks that none of them wrote anything under the working
// directory: no journal, no WAL, no touched database file, even for a refused write.
func TestDatabaseReadsChangeNoFile(t *testing.T) {
	h := newDBHarness(t, 0, nil)
	h.write(map[string]string{"notes.db": "not a database"})
	before := snapshotTree(t, h.wd)
	for _, c := range []struct {
		op    string
		args  map[string]any
		isErr bool
	}{
		{"list_connections", nil, false},
		{"list_tables", map[string]any{"connection": "data/app.db"}, false},
		{"describe_table", map[string]any{"connection": "data/app.db", "table": "invoices"}, false},
		{"query", map[string]any{"connection": "data/app.db", "sql": "SELECT * FROM customers"}, false},
		{"explain", map[string]any{"connection": "data/app.db", "sql": "SELECT * FROM invoices WHERE customer_id = 2"}, false},
		{"query", map[string]any{"connection": "data/app.db", "sql": "DELETE FROM invoices"}, true},
		{"query", map[string]any{"connection": "data/app.db", "sql": "SELECT 1; DROP TABLE customers"}, true},
		{"query", map[string]any{"connection": "notes.db", "sql": "SELECT 1"}, true},
	} {
		if text, isErr := h.db(c.op, c.args); isErr != c.isErr {
			t.Errorf("%s %v = %s, want isError %v", c.op, c.args, text, c.isErr)
		}
	}
	sameTree(t, before, snapshotTree(t, h.wd))
}

func TestDatabaseParams(t *testing.T) {
	h := newDBHarness(t, 0, nil)
	tests := []struct {
		name   string
		params any
		want   string
		isErr  bool
	}{
		{"json values keep their types", []any{1, "Ada", true, nil, 2.5}, "1 | text | 1 | NULL | 2.5", false},
		{"a number as a string stays text", []any{"1", "x", false, nil, "2.5"}, "1 | text | 0 | NULL | 2.5", false},
		{"an object is not a value", []any{map[string]any{"a": 1}, "", 0, nil, 0}, "params must be", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, isErr := h.db("query", map[string]any{"connection": "data/app.db",
				"sql": "SELECT ?, typeof(?), ?, ?, ?", "params": tt.params})
			if isErr != tt.isErr || !strings.Contains(text, tt.want) {
				t.Errorf("query with params %v = %v %q, want %q", tt.params, isErr, text, tt.want)
			}
		})
	}
}

// TestDatabasePathsGoThroughTheGuard names SQLite files outside the working directory, when
// outside reads need a grant: directly, through a symlink inside, and with .. — each refused
// with the call that asks the user for a grant.
func TestDatabasePathsGoThroughTheGuard(t *testing.T) {
	outside := t.TempDir()
	makeDB(t, filepath.Join(outside, "secret.db"), `CREATE TABLE s (x)`)
	// The default configuration, where other outside reads are allowed: a database file is not.
	h := newDBHarness(t, 0, nil)
	if err := os.Symlink(filepath.Join(outside, "secret.db"), filepath.Join(h.wd, "link.db")); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(h.wd, filepath.Join(outside, "secret.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(outside, "secret.db"), "link.db", rel} {
		t.Run(p, func(t *testing.T) {
			text, isErr := h.db("query", map[string]any{"connection": p, "sql": "SELECT * FROM s"})
			if !isErr || !strings.Contains(text, "error needs_grant") || !strings.Contains(text, "parameter: connection") ||
				!strings.Contains(text, "request_authorization") {
				t.Errorf("query on %s = %s", p, text)
			}
		})
	}
	// The user grants the directory; the same call now reads.
	canon, _ := filepath.EvalSymlinks(outside)
	if _, err := h.guard.Grants().Create(context.Background(), authz.GrantSpec{Conversation: testConversation,
		Access: "database_operations:read", Path: canon, Recursive: true, By: "test"}); err != nil {
		t.Fatal(err)
	}
	if text, isErr := h.db("list_tables", map[string]any{"connection": filepath.Join(outside, "secret.db")}); isErr || !strings.Contains(text, "s  table") {
		t.Errorf("list_tables after the grant = %s", text)
	}
}

func TestDatabaseResultFitsTheBudget(t *testing.T) {
	h := newDBHarness(t, 1000, nil)
	text, isErr := h.db("query", map[string]any{"connection": "data/app.db",
		"sql": "SELECT i.*, c.*, printf('%.80c', 'x') AS pad FROM invoices i JOIN customers c ON c.id = i.customer_id", "limit": 600})
	if isErr || len(text) > budgetBytes(1000) || !strings.Contains(text, "do not fit the result budget") || !strings.Contains(text, "of 600 rows") {
		t.Errorf("a result over the budget (%d bytes): %s", len(text), text[max(0, len(text)-300):])
	}
}

var pgShop = struct {
	once sync.Once
	dsn  string
	err  error
}{}

// shopPostgres creates a small database on the shared test server, once.
func shopPostgres(t *testing.T) (*pgtest.Server, string) {
	t.Helper()
	srv := pgtest.Require(t)
	pgShop.once.Do(func() {
		ctx := context.Background()
		if pgShop.err = srv.Exec(ctx, "postgres", "CREATE DATABASE tool_shop"); pgShop.err != nil {
			return
		}
		pgShop.err = srv.Exec(ctx, "tool_shop", `
CREATE TABLE products (id serial PRIMARY KEY, name text NOT NULL, price numeric(8,2), tags jsonb);
INSERT INTO products (name, price, tags) VALUES ('lamp', 19.90, '["home"]'), ('desk', 120, NULL);
CREATE ROLE shopper LOGIN PASSWORD 'Sh0pper-s3cret';
GRANT SELECT ON products TO shopper;`)
		pgShop.dsn = srv.DSN("shopper", "Sh0pper-s3cret", "tool_shop")
	})
	if pgShop.err != nil {
		t.Fatal(pgShop.err)
	}
	return srv, pgShop.dsn
}

// TestDatabasePostgresThroughProtocol queries a real server through the tool, and checks that
// the password shows up neither in results nor in the log, even when the connection fails.
func TestDatabasePostgresThroughProtocol(t *testing.T) {
	srv, dsn := shopPostgres(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := fmt.Sprintf("postgres://shopper:Sh0pper-s3cret@127.0.0.1:%d/tool_shop?sslmode=disable", l.Addr().(*net.TCPAddr).Port)
	l.Close()
	h := newDBHarness(t, 0, nil,
		database.Source{Name: "shop", Driver: database.Postgres, DSN: dsn},
		database.Source{Name: "down", Driver: database.Postgres, DSN: down},
		database.Source{Name: "badpw", Driver: database.Postgres, DSN: strings.Replace(dsn, "Sh0pper-s3cret", "Sh0pper-wrong", 1)},
	)
	var logBuf logtest.Buffer
	h.env.Logger = slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	tests := []struct {
		op    string
		args  map[string]any
		want  string
		isErr bool
	}{
		{"list_connections", nil, fmt.Sprintf("shop  postgres  postgres://shopper@127.0.0.1:%d/tool_shop", srv.Port), false},
		{"list_tables", map[string]any{"connection": "shop"}, "public.products  table", false},
		{"describe_table", map[string]any{"connection": "shop", "table": "products"}, "  price numeric(8,2)\n", false},
		{"query", map[string]any{"connection": "shop", "sql": "SELECT name, price, tags FROM products WHERE price < $1 ORDER BY id", "params": []any{100}, "format": "json"},
			`{"name":"lamp","price":19.90,"tags":["home"]}` + "\n(1 row)", false},
		{"explain", map[string]any{"connection": "shop", "sql": "SELECT * FROM products WHERE id = $1", "params": []any{1}}, "Index Scan using products_pkey", false},
		{"query", map[string]any{"connection": "shop", "sql": "UPDATE products SET price = 0"}, "error refused", true},
		{"query", map[string]any{"connection": "shop", "sql": "SELECT lo_import('/etc/passwd')"}, "error refused", true},
		{"query", map[string]any{"connection": "shop", "sql": "SELECT * FROM pg_sleep(0), products p WHERE p.nope"}, "error sql_error", true},
		{"describe_table", map[string]any{"connection": "shop", "table": "product"}, "did you mean public.products?", true},
		{"query", map[string]any{"connection": "down", "sql": "SELECT 1"}, "error connection_failed", true},
		{"query", map[string]any{"connection": "badpw", "sql": "SELECT 1"}, "password authentication failed", true},
	}
	for _, tt := range tests {
		t.Run(tt.op+" "+fmt.Sprint(tt.args["sql"], tt.args["connection"]), func(t *testing.T) {
			text, isErr := h.db(tt.op, tt.args)
			if isErr != tt.isErr || !strings.Contains(text, tt.want) {
				t.Errorf("%s %v = (error %v)\n%s\nwant %q", tt.op, tt.args, isErr, text, tt.want)
			}
			if strings.Contains(text, "s3cret") {
				t.Errorf("the result shows the password: %s", text)
			}
		})
	}
	if log := logBuf.String(); strings.Contains(log, "s3cret") || strings.Contains(log, "Sh0pper-wrong") {
		t.Errorf("the log shows a password:\n%s", log)
	} else if !strings.Contains(log, "outcome=error:connection_failed") || !strings.Contains(log, "password authentication failed") {
		t.Errorf("connection failures are not logged:\n%s", log)
	}
	// The products are as they were.
	if text, _ := h.db("query", map[string]any{"connection": "shop", "sql": "SELECT count(*), sum(price) FROM products"}); !strings.Contains(text, "2 | 139.90") {
		t.Errorf("products changed: %s", text)
	}
}

// snapshotTree records every path under dir with its size and modification time.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil {
			if st, err := os.Lstat(p); err == nil {
				out[p] = fmt.Sprint(st.Size(), st.ModTime().Format(time.RFC3339Nano), st.Mode())
			}
		}
		return nil
	})
	return out
}

func sameTree(t *testing.T, before, after map[string]string) {
	t.Helper()
	if len(before) != len(after) {
		t.Errorf("files appeared or disappeared: %d before, %d after", len(before), len(after))
	}
	for p, v := range after {
		if before[p] != v {
			t.Errorf("%s changed: %q -> %q", p, before[p], v)
		}
	}
}
