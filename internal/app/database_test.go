package app

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolhost/internal/config"
)

// TestDatabaseWiring checks what Open makes of [[databases]]: ${VAR} expanded from the
// environment and masked in the listing, an unset variable reported by name, and a relative
// SQLite path taken from the working directory.
func TestDatabaseWiring(t *testing.T) {
	t.Setenv("TOOLHOST_TEST_DB_PASSWORD", "hunter2-very-secret")
	cfg := &config.Config{Workdir: t.TempDir(), StateDir: t.TempDir(), PromptsDir: filepath.Join(t.TempDir(), "prompts"),
		Databases: []config.Database{
			{Name: "app", Driver: "postgres", DSN: "postgres://app:${TOOLHOST_TEST_DB_PASSWORD}@127.0.0.1:5433/app"},
			{Name: "prod", Driver: "postgres", DSNEnv: "TOOLHOST_TEST_UNSET_DSN"},
			{Name: "local", Driver: "sqlite", DSN: "data/local.db"},
		}}
	cfg.ApprovalWait.Duration = 200 * time.Millisecond
	a, err := Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	cs := connect(t, a, nil, "")
	text, isErr := callText(t, cs, "database_operations", map[string]any{"operation": "list_connections"})
	for _, want := range []string{
		"app  postgres  postgres://app@127.0.0.1:5433/app",
		"prod  postgres  unavailable: environment variable TOOLHOST_TEST_UNSET_DSN (dsn_env) is not set",
		"local  sqlite  " + filepath.Join(a.Workdir, "data", "local.db"),
	} {
		if isErr || !strings.Contains(text, want) {
			t.Errorf("list_connections =\n%s\nwant a line %q", text, want)
		}
	}
	if strings.Contains(text, "hunter2") {
		t.Errorf("list_connections shows the password:\n%s", text)
	}
}

// TestDatabaseReadOnlyProfile: query is a network read, so the read-only profile keeps the
// schema operations and drops it.
func TestDatabaseReadOnlyProfile(t *testing.T) {
	cfg := &config.Config{Workdir: t.TempDir(), StateDir: t.TempDir(), PromptsDir: filepath.Join(t.TempDir(), "prompts"), Profile: "read-only"}
	a, err := Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, tl := range a.Registry.Tools() {
		if tl.Name != "database_operations" {
			continue
		}
		b, _ := json.Marshal(tl.InputSchema)
		for _, op := range []string{"list_connections", "list_tables", "describe_table", "explain"} {
			if !strings.Contains(string(b), `"`+op+`"`) {
				t.Errorf("read-only profile lost %s", op)
			}
		}
		if strings.Contains(string(b), `"query"`) {
			t.Errorf("read-only profile advertises query: %s", b)
		}
		return
	}
	t.Errorf("read-only profile does not advertise database_operations: %v", a.Registry.Names())
}
