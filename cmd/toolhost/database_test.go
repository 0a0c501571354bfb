package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"toolhost/internal/database/pgtest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"
)

// TestDatabaseOverStdio runs database_operations in the real binary against real SQLite files:
// one in the working directory, named by path, and one configured in [[databases]] with a DSN
// taken from the environment. Neither file changes.
func TestDatabaseOverStdio(t *testing.T) {
	state, work, reports := t.TempDir(), t.TempDir(), t.TempDir()
	mkdb := func(path string, stmts ...string) {
		t.Helper()
		db, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	appDB := filepath.Join(work, "app.db")
	mkdb(appDB, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)", "INSERT INTO users VALUES (1, 'ada'), (2, 'bob')")
	reportsDB := filepath.Join(reports, "reports.db")
	mkdb(reportsDB, "CREATE TABLE totals (month TEXT, amount REAL)", "INSERT INTO totals VALUES ('2026-01', 12.5)")
	config := "[[databases]]\nname = \"reports\"\ndriver = \"sqlite\"\ndsn = \"${REPORTS_DIR}/reports.db\"\n"
	if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	hash := func(p string) [32]byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(b)
	}
	appBefore, reportsBefore := hash(appDB), hash(reportsDB)

	cmd := commandIn(t, state, work, "stdio")
	cmd.Env = append(cmd.Env, "REPORTS_DIR="+reports)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := connectStdio(t, ctx, cmd)
	defer cs.Close()
	if names := strings.Join(toolNames(t, cs), ","); !strings.Contains(names, "database_operations") {
		t.Fatalf("tools = %s, want database_operations", names)
	}
	tests := []struct {
		args  map[string]any
		want  string
		isErr bool
	}{
		{map[string]any{"operation": "list_connections"}, "reports  sqlite  " + reportsDB, false},
		{map[string]any{"operation": "list_tables", "connection": "app.db"}, "users  table  2 rows", false},
		{map[string]any{"operation": "query", "connection": "app.db", "sql": "SELECT name FROM users WHERE id = ?", "params": []any{2}}, "name\nbob\n(1 row)", false},
		{map[string]any{"operation": "query", "connection": "reports", "sql": "SELECT * FROM totals", "format": "json"}, `{"month":"2026-01","amount":12.5}`, false},
		{map[string]any{"operation": "query", "connection": "app.db", "sql": "UPDATE users SET name = 'x'"}, "error refused", true},
		{map[string]any{"operation": "query", "connection": "reports", "sql": "ATTACH 'x.db' AS x"}, "error refused", true},
		{map[string]any{"operation": "describe_table", "connection": "app.db", "table": "users"}, "primary key: (id)", false},
	}
	for _, tt := range tests {
		dbCall(t, ctx, cs, tt.args, tt.want, tt.isErr)
	}
	cs.Close()
	if hash(appDB) != appBefore || hash(reportsDB) != reportsBefore {
		t.Error("a database file changed")
	}
	for _, dir := range []string{work, reports} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.Contains(e.Name(), "-journal") || strings.Contains(e.Name(), "-wal") || strings.Contains(e.Name(), "-shm") || e.Name() == "x.db" {
				t.Errorf("%s appeared in %s", e.Name(), dir)
			}
		}
	}
}

// TestPostgresOverStdio runs every database operation through the binary against a real
// PostgreSQL server (started by the test harness on a loopback port): a connection configured
// with its password from the environment, schema discovery, a parameterised query, a plan, and
// the refusals that keep it read-only. The password never reaches a result or the log, and the
// database is unchanged afterwards.
func TestPostgresOverStdio(t *testing.T) {
	srv := pgtest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	const password = "R3ader-pw-7f3a"
	if err := srv.Exec(ctx, "postgres", "CREATE DATABASE bin_shop"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Exec(ctx, "bin_shop", `
CREATE TABLE orders (id serial PRIMARY KEY, customer text NOT NULL, total numeric(8,2));
CREATE INDEX orders_customer ON orders (customer);
INSERT INTO orders (customer, total) VALUES ('ada', 12.50), ('bob', 99.00), ('ada', 3.25);
CREATE ROLE bin_reader LOGIN PASSWORD '`+password+`';
GRANT SELECT ON orders TO bin_reader;`); err != nil {
		t.Fatal(err)
	}
	dsn := srv.DSN("bin_reader", "${SHOP_PASSWORD}", "bin_shop")
	state, work := t.TempDir(), t.TempDir()
	config := "[[databases]]\nname = \"shop\"\ndriver = \"postgres\"\ndsn = \"" + dsn + "\"\ntimeout = \"2s\"\n"
	if err := os.WriteFile(filepath.Join(state, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := commandIn(t, state, work, "stdio")
	cmd.Env = append(cmd.Env, "SHOP_PASSWORD="+password)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs := connectCmd(t, cmd)
	tests := []struct {
		name  string
		args  map[string]any
		want  string
		isErr bool
	}{
		{"list_connections", map[string]any{"operation": "list_connections"}, "shop  postgres", false},
		{"list_tables", map[string]any{"operation": "list_tables", "connection": "shop"}, "orders", false},
		{"describe_table", map[string]any{"operation": "describe_table", "connection": "shop", "table": "orders"}, "orders_customer", false},
		{"query", map[string]any{"operation": "query", "connection": "shop", "sql": "SELECT total FROM orders WHERE customer = $1 ORDER BY id", "params": []any{"ada"}}, "12.50\n3.25\n(2 rows)", false},
		{"explain", map[string]any{"operation": "explain", "connection": "shop", "sql": "SELECT * FROM orders WHERE customer = 'bob'"}, "orders", false},
		{"write refused", map[string]any{"operation": "query", "connection": "shop", "sql": "DELETE FROM orders"}, "error refused", true},
		{"copy to program refused", map[string]any{"operation": "query", "connection": "shop", "sql": "COPY orders TO PROGRAM 'touch /tmp/x'"}, "error refused", true},
		{"two statements refused", map[string]any{"operation": "query", "connection": "shop", "sql": "SELECT 1; SELECT 2"}, "error refused", true},
		{"unknown table", map[string]any{"operation": "describe_table", "connection": "shop", "table": "order"}, "orders", true},
		{"runs forever", map[string]any{"operation": "query", "connection": "shop", "sql": "SELECT pg_sleep(30)"}, "timeout", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := dbCall(t, ctx, cs, tt.args, tt.want, tt.isErr)
			if strings.Contains(text, password) {
				t.Errorf("%s: the password reached the result: %s", tt.name, text)
			}
		})
	}
	cs.Close()
	cmd.Wait()
	if strings.Contains(stderr.String(), password) {
		t.Error("the password reached the log")
	}
	if err := srv.Exec(ctx, "bin_shop", `DO $$ BEGIN
  IF (SELECT count(*) FROM orders) <> 3 THEN RAISE EXCEPTION 'orders changed'; END IF;
END $$`); err != nil {
		t.Errorf("the database changed: %v", err)
	}
}

// dbCall runs database_operations with args, checks that the text holds want and that the result
// is an error result exactly when isErr, and returns the text.
func dbCall(t *testing.T, ctx context.Context, cs *mcp.ClientSession, args map[string]any, want string, isErr bool) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "database_operations", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError != isErr || !strings.Contains(text, want) {
		t.Errorf("%v = (error %v)\n%s\nwant %q", args, res.IsError, text, want)
	}
	return text
}
