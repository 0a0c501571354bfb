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
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
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
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "database_operations", Arguments: tt.args})
		if err != nil {
			t.Fatal(err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError != tt.isErr || !strings.Contains(text, tt.want) {
			t.Errorf("%v = (error %v)\n%s\nwant %q", tt.args, res.IsError, text, tt.want)
		}
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
