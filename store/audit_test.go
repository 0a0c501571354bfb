package store

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type auditRecord struct {
	Seq  int    `json:"seq"`
	Note string `json:"note"`
}

// readAuditLines parses every line of an audit file; a missing file has none.
func readAuditLines(t *testing.T, path string) []auditRecord {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []auditRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r auditRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: line %q is not one JSON object: %v", path, sc.Text(), err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestAppendAudit(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	ctx := context.Background()
	want := []auditRecord{{1, "plain"}, {2, "multi\nline\r\nnote"}, {3, `quote " and \ backslash`}}
	for _, r := range want {
		if err := s.AppendAudit(ctx, r); err != nil {
			t.Fatalf("AppendAudit(%+v) = %v", r, err)
		}
	}
	path := filepath.Join(s.Dir(), auditFileName)
	if diff := cmp.Diff(want, readAuditLines(t, path)); diff != "" {
		t.Errorf("audit lines (-want +got):\n%s", diff)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode().Perm(); got != fileMode {
		t.Errorf("audit file mode = %v, want %v", got, fileMode)
	}
	if err := s.AppendAudit(ctx, make(chan int)); err == nil {
		t.Errorf("AppendAudit(chan) = nil, want encode error")
	}
}

// TestAuditConcurrent appends from many goroutines and two Store handles: every line arrives whole.
func TestAuditConcurrent(t *testing.T) {
	s := newStore(t, Options{NoSync: true})
	other, err := Open(context.Background(), s.Dir(), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, each = 8, 50
	long := strings.Repeat("y", 5000) // longer than a pipe buffer's atomic size, still one write
	var wg sync.WaitGroup
	for g := range goroutines {
		st := []*Store{s, other}[g%2]
		wg.Go(func() {
			for i := range each {
				if err := st.AppendAudit(context.Background(), auditRecord{g*each + i, long}); err != nil {
					t.Errorf("AppendAudit = %v", err)
				}
			}
		})
	}
	wg.Wait()
	seen := map[int]bool{}
	for _, r := range readAuditLines(t, filepath.Join(s.Dir(), auditFileName)) {
		if r.Note != long || seen[r.Seq] {
			t.Errorf("audit record %d damaged or duplicated", r.Seq)
		}
		seen[r.Seq] = true
	}
	if len(seen) != goroutines*each {
		t.Errorf("audit has %d distinct records, want %d", len(seen), goroutines*each)
	}
}

func TestAuditRotation(t *testing.T) {
	const limit = 1000
	s := newStore(t, Options{NoSync: true, AuditMaxBytes: limit})
	ctx := context.Background()
	path := filepath.Join(s.Dir(), auditFileName)
	note := strings.Repeat("n", 40)
	lineLen := func(seq int) int { b, _ := json.Marshal(auditRecord{seq, note}); return len(b) + 1 }

	total := 0
	rotated := false
	for seq := 1; seq <= 200; seq++ {
		if err := s.AppendAudit(ctx, auditRecord{seq, note}); err != nil {
			t.Fatalf("AppendAudit(%d) = %v", seq, err)
		}
		total += lineLen(seq)
		info, err := os.Stat(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		if err == nil && info.Size() >= limit {
			t.Fatalf("after append %d audit.jsonl is %d bytes, want < %d (rotated)", seq, info.Size(), limit)
		}
		if total >= limit {
			rotated = true
		}
	}
	if !rotated {
		t.Fatal("test wrote too little to rotate")
	}
	old := readAuditLines(t, path+".1")
	cur := readAuditLines(t, path)
	if len(old) == 0 {
		t.Fatalf("%s.1 is empty after rotation", path)
	}
	// The newest lines are all kept in order: .1 then the current file, ending at 200.
	both := append(old, cur...)
	for i, r := range both {
		if want := both[0].Seq + i; r.Seq != want {
			t.Fatalf("rotated audit lines: record %d has seq %d, want %d (gap or reorder)", i, r.Seq, want)
		}
	}
	if last := both[len(both)-1].Seq; last != 200 {
		t.Errorf("last audit record = %d, want 200", last)
	}
	var size int64
	for _, r := range old {
		size += int64(lineLen(r.Seq))
	}
	if size < limit || size >= limit+int64(lineLen(200)) {
		t.Errorf("audit.jsonl.1 holds %d bytes, want the first %d+ bytes of a file cut at the limit", size, limit)
	}
}
