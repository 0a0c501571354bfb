package table

import (
	"path/filepath"
	"strings"
	"testing"

	"toolhost/internal/golden"
)

// TestDocsTable holds docs/clients.md's compatibility table to what Render makes of the
// committed record of the suite's last run (compat/testdata/last-run.json). After a run with
// COMPAT_RECORD=$PWD/compat/testdata/last-run.json, TOOLHOST_GOLDEN=update rewrites the block.
func TestDocsTable(t *testing.T) {
	rec, err := Load(filepath.Join("..", "testdata", "last-run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Clients) == 0 {
		t.Fatal("the record names no client")
	}
	golden.CheckBlock(t, filepath.Join("..", "..", "docs", "clients.md"),
		"<!-- begin: compat table (generated from compat/testdata/last-run.json) -->",
		"<!-- end: compat table -->", Render(rec))
}

// TestRender: a client that could not run says why, a retired one says so, and a failed check
// shows in its row.
func TestRender(t *testing.T) {
	rec := Record{Toolhost: "v1", Clients: []Client{
		{Name: "a", Title: "A", Version: "1", Kind: "agent CLI", ClientInfo: "cline", Limit: "whole: 5.0K", LimitRow: "8,000 characters of JSON (head and tail)",
			Runs: []Run{{Transport: "stdio", Protocol: "2025-11-25", Tools: "`a_x`, eager", Forwards: "text", CutMarker: true, Whole: false, Failed: []string{"passed_whole"}}}},
		{Name: "b", Title: "B", Version: "2", Kind: "agent CLI", Skipped: "no Linux binary in the registry"},
		{Name: "g", Title: "G", Version: "3", Kind: "agent CLI", Retired: "retired in June", Runs: []Run{{Transport: "http", Protocol: "2025-06-18", CutMarker: true, Whole: true}}},
	}}
	got := Render(rec)
	for _, want := range []string{
		"| A | 1 | stdio | 2025-11-25 | `a_x`, eager | text (failed: passed_whole) | yes | **no** |",
		"| B | 2 | — | not run here: no Linux binary in the registry |",
		"| G (retired) | 3 | http |",
		"| A | `cline` | 8,000 characters of JSON (",
		"G: retired in June",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Render lacks %q:\n%s", want, got)
		}
	}
}
