package database

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"toolhost/internal/fifotest"
)

// makeSQLite creates a database file with the ordinary read-write driver and runs stmts.
func makeSQLite(t testing.TB, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

var shopSchema = []string{
	`CREATE TABLE orgs (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)`,
	`CREATE TABLE users (id INTEGER PRIMARY KEY, org_id INTEGER REFERENCES orgs(id) ON DELETE CASCADE,
		email TEXT NOT NULL, note TEXT DEFAULT 'none', avatar BLOB, score REAL, created DATETIME)`,
	`CREATE UNIQUE INDEX users_email ON users(email)`,
	`CREATE VIEW active AS SELECT * FROM users WHERE score > 0`,
	`INSERT INTO orgs VALUES (1, 'acme'), (2, 'initech')`,
	`INSERT INTO users VALUES (1, 1, 'a@x', 'line1
line2 | pipe', x'00ff', 1.5, '2024-01-02 03:04:05'), (2, 2, 'b@x', NULL, NULL, -2, NULL), (3, 1, 'c@x', '', NULL, 3, NULL)`,
	`CREATE TABLE nums (n INTEGER PRIMARY KEY, sq INTEGER)`,
	`WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 5000) INSERT INTO nums SELECT i, i * i FROM r`,
}

// openTestSQLite makes the shop database in a new directory and opens it read-only.
func openTestSQLite(t testing.TB, timeout time.Duration, extra ...string) (DB, string) {
	t.Helper()
	dir := t.TempDir()
	makeSQLite(t, filepath.Join(dir, "shop.db"), append(slices.Clone(shopSchema), extra...)...)
	return openSQLiteAt(t, dir, "shop.db", timeout), dir
}

func openSQLiteAt(t testing.TB, dir, rel string, timeout time.Duration) DB {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	db, err := OpenSQLite(context.Background(), root, rel, timeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// snapshot records every file in dir with its content hash and mode, to prove a test wrote
// nothing there.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		sum := ""
		if st.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h := sha256.Sum256(b)
			sum = hex.EncodeToString(h[:8])
		}
		out[p] = st.Mode().String() + " " + sum
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t testing.TB, before, after map[string]string) {
	t.Helper()
	for p, v := range after {
		if before[p] != v {
			t.Errorf("%s changed or appeared: %q -> %q", p, before[p], v)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("%s disappeared", p)
		}
	}
}

// queryCase is a query and the text it renders to.
type queryCase struct {
	name   string
	q      Query
	format Format
	want   string
}

// checkQueries runs each case on db and compares the rendered text.
func checkQueries(t *testing.T, db DB, cases []queryCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			res, err := db.Query(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := res.Render(tt.format, 100000); got != tt.want {
				t.Errorf("Query(%q) =\n%s\nwant\n%s", tt.q.SQL, got, tt.want)
			}
		})
	}
}

func TestSQLiteQuery(t *testing.T) {
	db, _ := openTestSQLite(t, 0)
	checkQueries(t, db, []queryCase{
		{"table", Query{SQL: "SELECT id, email, note FROM users ORDER BY id"}, FormatTable,
			"id | email | note\n1 | a@x | line1\\nline2 \\| pipe\n2 | b@x | NULL\n3 | c@x | \n(3 rows)"},
		{"json", Query{SQL: "SELECT id, email, score, avatar, created FROM users WHERE id = 1"}, FormatJSON,
			`{"id":1,"email":"a@x","score":1.5,"avatar":"x'00ff'","created":"2024-01-02 03:04:05"}` + "\n(1 row)"},
		{"json duplicate names", Query{SQL: "SELECT u.id, o.id FROM users u JOIN orgs o ON o.id = u.org_id WHERE u.id = 2"}, FormatJSON,
			`{"id":2,"id_2":2}` + "\n(1 row)"},
		{"parameters", Query{SQL: "SELECT email FROM users WHERE id = ? OR email = ?", Params: []any{int64(2), "c@x"}}, FormatTable,
			"email\nb@x\nc@x\n(2 rows)"},
		{"row limit with total", Query{SQL: "SELECT n FROM nums ORDER BY n", MaxRows: 2}, FormatTable,
			"n\n1\n2\n(2 of 5000 rows shown: the row limit; narrow it with WHERE, aggregate, page with LIMIT/OFFSET, or raise limit)"},
		{"no rows", Query{SQL: "SELECT n FROM nums WHERE n < 0"}, FormatTable, "n\n(0 rows)"},
		{"pragma", Query{SQL: "PRAGMA user_version"}, FormatTable, "user_version\n0\n(1 row)"},
	})
}

func TestSQLiteHugeResultIsCut(t *testing.T) {
	db, _ := openTestSQLite(t, 0)
	ctx := context.Background()
	// A million rows, generated: the default limit keeps 200 and the rest are counted.
	res, err := db.Query(ctx, Query{SQL: `WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 1000000) SELECT i, 'row ' || i FROM r`})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != DefaultMaxRows || res.Cut != "rows" {
		t.Errorf("kept %d rows (cut %q), want %d cut by rows", len(res.Rows), res.Cut, DefaultMaxRows)
	}
	if res.Complete && res.Seen != 1000000 {
		t.Errorf("Seen = %d, want 1000000", res.Seen)
	}
	// The byte budget cuts wide rows before the row limit, and says so.
	res, err = db.Query(ctx, Query{SQL: "SELECT n, printf('%.500c', 'x') FROM nums", MaxRows: 1000, MaxBytes: 5000})
	if err != nil {
		t.Fatal(err)
	}
	text, shown := res.Render(FormatTable, 5000)
	if len(text) > 5000 || shown >= 1000 || res.Cut != "bytes" || !strings.Contains(text, "do not fit the result budget") || !strings.Contains(text, "of 5000 rows") {
		t.Errorf("byte budget: %d bytes, %d rows shown, cut %q:\n%s", len(text), shown, res.Cut, text)
	}
	// A single huge value is cut with its size.
	res, err = db.Query(ctx, Query{SQL: "SELECT printf('%.100000c', 'y')"})
	if err != nil {
		t.Fatal(err)
	}
	text, _ = res.Render(FormatTable, 100000)
	if !strings.Contains(text, "…[100000 bytes]") || len(text) > MaxCellBytes+200 {
		t.Errorf("a 100000-byte value renders as %d bytes: %.100s…", len(text), text)
	}
}

func TestSQLiteRefusesWrites(t *testing.T) {
	db, dir := openTestSQLite(t, 0)
	ctx := context.Background()
	before := snapshot(t, dir)
	for _, q := range []string{
		"INSERT INTO users(email) VALUES ('evil')",
		"UPDATE users SET email = 'evil'",
		"DELETE FROM users",
		"REPLACE INTO orgs VALUES (1, 'evil')",
		"DROP TABLE users",
		"CREATE TABLE evil(a)",
		"CREATE TEMP TABLE evil(a)",
		"ALTER TABLE users ADD COLUMN evil",
		"ATTACH 'evil.db' AS evil",
		"VACUUM",
		"VACUUM INTO 'copy.db'",
		"REINDEX",
		"ANALYZE",
		"PRAGMA user_version = 7",
		"PRAGMA journal_mode = WAL",
		"PRAGMA writable_schema = 1",
		"PRAGMA cache_size = 100000000",
		"BEGIN IMMEDIATE",
		"SAVEPOINT x",
		"WITH x AS (SELECT 1) DELETE FROM users",
		"WITH x AS (SELECT 1) INSERT INTO orgs SELECT 9, 'evil' FROM x",
		"SELECT load_extension('evil')",
		"SELECT 1; DELETE FROM users",
		"PRAGMA user_version; PRAGMA user_version = 9",
		"EXPLAIN DELETE FROM users",
	} {
		t.Run(q, func(t *testing.T) {
			res, err := db.Query(ctx, Query{SQL: q})
			e, ok := AsError(err)
			if !ok || e.Kind != KindRefused {
				t.Fatalf("Query(%q) = %v, %v, want refused", q, res, err)
			}
		})
	}
	// The connection still reads, and nothing changed on disk: no journal, -wal, -shm or
	// attached file appeared and the database's bytes are the same.
	res, err := db.Query(ctx, Query{SQL: "SELECT count(*) FROM users"})
	if err != nil || res.Rows[0][0].Text != "3" {
		t.Fatalf("count after the attempts = %v, %v", res, err)
	}
	db.Close()
	sameSnapshot(t, before, snapshot(t, dir))
}

func TestSQLiteWALDatabaseReadWithoutWriting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "app.db")
	// An application holds the database open in WAL mode; its last rows are only in the -wal.
	app, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	app.SetMaxOpenConns(1)
	for _, s := range []string{"CREATE TABLE t (v TEXT)", "INSERT INTO t VALUES ('in the wal')"} {
		if _, err := app.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, dir)
	db := openSQLiteAt(t, dir, "app.db", 0)
	res, err := db.Query(context.Background(), Query{SQL: "SELECT v FROM t"})
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0].Text != "in the wal" {
		t.Fatalf("Query = %+v, %v; want the row from the -wal file", res, err)
	}
	db.Close()
	sameSnapshot(t, before, snapshot(t, dir))

	// The same database after the application closed it: no -wal, and none is created.
	app.Close()
	before = snapshot(t, dir)
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("the -wal file is still there after the application closed")
	}
	db = openSQLiteAt(t, dir, "app.db", 0)
	if _, err := db.Query(context.Background(), Query{SQL: "SELECT v FROM t"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	sameSnapshot(t, before, snapshot(t, dir))
}

func TestSQLiteTimeout(t *testing.T) {
	db, _ := openTestSQLite(t, 300*time.Millisecond)
	_, err := db.Query(context.Background(), Query{SQL: "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r"})
	if e, ok := AsError(err); !ok || e.Kind != KindTimeout {
		t.Fatalf("endless query = %v, want a timeout", err)
	}
}

func TestSQLiteOpenErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("just text, not a database"), 0o644)
	os.Symlink("/etc/hostname", filepath.Join(dir, "link.db"))
	fifotest.Make(t, filepath.Join(dir, "fifo.db"))
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tests := []struct {
		name, rel string
		kind      Kind
	}{
		{"not a database", "notes.txt", KindInvalid},
		{"missing", "missing.db", KindNotFound},
		// The caller's guard resolves symlinks and checks the target; the root never follows one.
		{"symlink", "link.db", KindInvalid},
		// A FIFO would block a plain open forever.
		{"fifo", "fifo.db", KindInvalid},
		{"escape", "../x.db", KindInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := OpenSQLite(context.Background(), root, tt.rel, 0)
			if db != nil {
				db.Close()
			}
			if e, ok := AsError(err); !ok || e.Kind != tt.kind {
				t.Fatalf("OpenSQLite(%s) = %v, want kind %d", tt.rel, err, tt.kind)
			}
		})
	}
	// An empty file is an empty database.
	os.WriteFile(filepath.Join(dir, "empty.db"), nil, 0o644)
	db := openSQLiteAt(t, dir, "empty.db", 0)
	if tables, err := db.Tables(context.Background()); err != nil || len(tables) != 0 {
		t.Errorf("Tables of an empty file = %v, %v", tables, err)
	}
}

func TestSQLiteSchema(t *testing.T) {
	db, _ := openTestSQLite(t, 0)
	ctx := context.Background()
	tables, err := db.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tb := range tables {
		got = append(got, tb.Name+" "+tb.Kind)
	}
	if want := []string{"active view", "nums table", "orgs table", "users table"}; !slices.Equal(got, want) {
		t.Errorf("Tables = %v, want %v", got, want)
	}
	info, err := db.Describe(ctx, "USERS")
	if err != nil {
		t.Fatal(err)
	}
	if info.Name != "users" || info.Rows != 3 || !info.RowsExact {
		t.Errorf("Describe: name %q rows %d exact %v", info.Name, info.Rows, info.RowsExact)
	}
	if !slices.Equal(info.PrimaryKey, []string{"id"}) || len(info.Columns) != 7 || info.Columns[2].Nullable || !info.Columns[3].Nullable || info.Columns[3].Default != "'none'" {
		t.Errorf("Describe columns: pk %v, %+v", info.PrimaryKey, info.Columns)
	}
	if len(info.Indexes) != 1 || info.Indexes[0].Name != "users_email" || !info.Indexes[0].Unique || !slices.Equal(info.Indexes[0].Columns, []string{"email"}) {
		t.Errorf("Describe indexes = %+v", info.Indexes)
	}
	if len(info.ForeignKeys) != 1 || info.ForeignKeys[0].String() != "(org_id) -> orgs(id) ON DELETE CASCADE" {
		t.Errorf("Describe foreign keys = %+v", info.ForeignKeys)
	}
	_, err = db.Describe(ctx, "user")
	if e, ok := AsError(err); !ok || e.Kind != KindNotFound || !slices.Contains(e.Candidates, "users") {
		t.Errorf("Describe(unknown) = %v, want not found with candidates", err)
	}
	plan, err := db.Explain(ctx, Query{SQL: "SELECT * FROM users WHERE email = ?", Params: []any{"a@x"}})
	if err != nil || !strings.Contains(plan, "USING INDEX users_email") {
		t.Errorf("Explain = %q, %v", plan, err)
	}
	if _, err := db.Explain(ctx, Query{SQL: "DELETE FROM users"}); err == nil {
		t.Error("Explain(DELETE) succeeded, want refused")
	}
}

func TestSQLiteErrorsAreClear(t *testing.T) {
	db, _ := openTestSQLite(t, 0)
	_, err := db.Query(context.Background(), Query{SQL: "SELECT nope FROM users"})
	e, ok := AsError(err)
	if !ok || e.Kind != KindSQL || !strings.Contains(e.Msg, "no such column: nope") {
		t.Fatalf("unknown column = %v", err)
	}
	if errors.Unwrap(err) == nil {
		t.Error("the driver's error is not kept as the cause")
	}
}

// TestSQLiteConnectionRefusesWritesWithoutTheCheck sends writes straight to the connection,
// past the statement check: the authorizer, mode=ro, query_only and the read-only VFS must
// each stop them on their own.
func TestSQLiteConnectionRefusesWritesWithoutTheCheck(t *testing.T) {
	db, dir := openTestSQLite(t, 0)
	raw := db.(*sqliteDB).db
	before := snapshot(t, dir)
	for _, q := range []string{
		"INSERT INTO users(email) VALUES ('evil')",
		"UPDATE users SET email = 'evil'",
		"DELETE FROM users",
		"DROP TABLE users",
		"CREATE TABLE evil(a)",
		"CREATE TEMP TABLE evil(a)",
		"ATTACH 'evil.db' AS evil",
		"VACUUM",
		"VACUUM INTO 'copy.db'",
		"PRAGMA user_version = 7",
		"PRAGMA query_only = 0",
		"PRAGMA journal_mode = DELETE",
		"BEGIN IMMEDIATE",
		"SAVEPOINT x",
		"ANALYZE",
		"REINDEX",
		"SELECT load_extension('evil')",
	} {
		if _, err := raw.ExecContext(context.Background(), q); err == nil {
			t.Errorf("Exec(%q) succeeded on the read-only connection", q)
		}
	}
	db.Close()
	sameSnapshot(t, before, snapshot(t, dir))
}
