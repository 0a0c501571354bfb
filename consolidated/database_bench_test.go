package consolidated

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkDatabaseQueryVsSQLite3 measures a query call that reads 200 rows by index from a
// 1,000,000-row SQLite table, through the in-memory MCP transport (guard, read-only open,
// statement check, query, rendering), against the sqlite3 command-line shell running the same
// query on the same file, as an agent would through a terminal. The two alternate in one loop,
// so both see the same machine load; the metrics are the medians and their ratio (target: at
// most 1.5). The sqlite3 shell is a benchmark reference only: without it the benchmark skips.
func BenchmarkDatabaseQueryVsSQLite3(b *testing.B) {
	cli, err := exec.LookPath("sqlite3")
	if err != nil {
		b.Skip("the sqlite3 shell is not installed (apt-get install sqlite3); it is the reference")
	}
	h := newDBHarness(b, 0, nil)
	path := filepath.Join(h.wd, "events.db")
	makeDB(b, path,
		`CREATE TABLE events (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, kind TEXT, payload TEXT, created TEXT)`,
		`WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 1000000)
		 INSERT INTO events SELECT i, i % 5000, 'kind' || (i % 7), printf('{"n":%d,"text":"event number %d"}', i, i),
		 datetime(1700000000 + i, 'unixepoch') FROM r`,
		`CREATE INDEX events_user ON events(user_id)`)
	const query = "SELECT id, user_id, kind, payload, created FROM events WHERE user_id = 1234"
	args := map[string]any{"connection": "events.db", "sql": query}
	if text, isErr := h.db("query", args); isErr || !strings.HasSuffix(text, "(200 rows)") {
		b.Fatalf("query = %s", text[max(0, len(text)-200):])
	}
	out, err := exec.Command(cli, "-readonly", path, query).Output()
	if err != nil || strings.Count(string(out), "\n") != 200 {
		b.Fatalf("sqlite3: %v, %d lines", err, strings.Count(string(out), "\n"))
	}
	var ours, theirs []time.Duration
	for b.Loop() {
		start := time.Now()
		h.db("query", args)
		ours = append(ours, time.Since(start))
		start = time.Now()
		if err := exec.Command(cli, "-readonly", path, query).Run(); err != nil {
			b.Fatal(err)
		}
		theirs = append(theirs, time.Since(start))
	}
	o, s := median(ours), median(theirs)
	b.ReportMetric(float64(o.Microseconds()), "toolhost-µs")
	b.ReportMetric(float64(s.Microseconds()), "sqlite3-µs")
	b.ReportMetric(float64(o)/float64(s), "ratio")
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}
