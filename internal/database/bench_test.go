package database

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"
)

// BenchmarkPostgresRoundTrip measures a trivial query on loopback through the whole session:
// a pooled connection, BEGIN READ ONLY with the timeout, the cursor, FETCH, ROLLBACK and
// DISCARD ALL. The metric is the median (target: at most 2 ms).
func BenchmarkPostgresRoundTrip(b *testing.B) {
	_, db := openTestPostgres(b, shopDSN(b), 0)
	ctx := context.Background()
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := db.Query(ctx, Query{SQL: "SELECT 1"}); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkSQLiteIndexedQuery measures the engine alone on the query of
// BenchmarkDatabaseQueryVsSQLite3: open read-only, 200 rows by index, close.
func BenchmarkSQLiteIndexedQuery(b *testing.B) {
	dir := b.TempDir()
	makeSQLite(b, dir+"/events.db",
		`CREATE TABLE events (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, kind TEXT, payload TEXT, created TEXT)`,
		`WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 1000000)
		 INSERT INTO events SELECT i, i % 5000, 'kind' || (i % 7), printf('{"n":%d,"text":"event number %d"}', i, i),
		 datetime(1700000000 + i, 'unixepoch') FROM r`,
		`CREATE INDEX events_user ON events(user_id)`)
	ctx := context.Background()
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	for b.Loop() {
		db, err := OpenSQLite(ctx, root, "events.db", 0)
		if err != nil {
			b.Fatal(err)
		}
		res, err := db.Query(ctx, Query{SQL: "SELECT id, user_id, kind, payload, created FROM events WHERE user_id = 1234"})
		if err != nil || len(res.Rows) != 200 {
			b.Fatalf("%v rows, %v", res, err)
		}
		res.Render(FormatTable, 1<<20)
		db.Close()
	}
}
