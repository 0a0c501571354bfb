package store

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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

// readRotated reads every line of the rotated audit files, oldest first, and the names.
func readRotated(t *testing.T, dir string) (lines []auditRecord, names []string) {
	t.Helper()
	files, err := AuditFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		names = append(names, filepath.Base(f))
		if !strings.HasSuffix(f, ".gz") {
			lines = append(lines, readAuditLines(t, f)...)
			continue
		}
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(in)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		plain := filepath.Join(t.TempDir(), "plain")
		out, _ := os.Create(plain)
		if _, err := io.Copy(out, zr); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out.Close()
		in.Close()
		lines = append(lines, readAuditLines(t, plain)...)
	}
	return lines, names
}

// TestAuditRotation appends past the size limit many times: the current file stays under it,
// rotated files are compressed, only the newest keep stay, and the lines they hold with the
// current file are the newest ones, in order, with none missing.
func TestAuditRotation(t *testing.T) {
	const limit, keep = 1000, 3
	s := newStore(t, Options{NoSync: true, AuditMaxBytes: limit, AuditKeep: keep})
	ctx := context.Background()
	path := filepath.Join(s.Dir(), auditFileName)
	note := strings.Repeat("n", 40)
	for seq := 1; seq <= 400; seq++ {
		if err := s.AppendAudit(ctx, auditRecord{seq, note}); err != nil {
			t.Fatalf("AppendAudit(%d) = %v", seq, err)
		}
		info, err := os.Stat(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		if err == nil && info.Size() >= limit {
			t.Fatalf("after append %d audit.jsonl is %d bytes, want < %d (rotated)", seq, info.Size(), limit)
		}
	}
	s.auditJobs.Wait()
	old, names := readRotated(t, s.Dir())
	if len(names) != keep {
		t.Errorf("rotated files = %v, want the newest %d", names, keep)
	}
	for _, n := range names {
		if !strings.HasSuffix(n, ".jsonl.gz") {
			t.Errorf("rotated file %s is not compressed", n)
		}
	}
	both := append(old, readAuditLines(t, path)...)
	for i, r := range both {
		if want := both[0].Seq + i; r.Seq != want {
			t.Fatalf("audit lines: record %d has seq %d, want %d (gap or reorder)", i, r.Seq, want)
		}
	}
	if last := both[len(both)-1].Seq; last != 400 || len(both) < keep*limit/60 {
		t.Errorf("audit keeps %d lines ending at %d, want about the last %d lines ending at 400", len(both), last, keep*limit/60)
	}
}

// TestAuditRotationByAge: a file that began longer ago than the age limit (the last
// rotation made way for it) is rotated at the next append, however small; a young one is not,
// whatever times its lines carry.
func TestAuditRotationByAge(t *testing.T) {
	s := newStore(t, Options{NoSync: true, AuditMaxAge: time.Hour})
	ctx := context.Background()
	type timed struct {
		Time time.Time `json:"time"`
		Seq  int       `json:"seq"`
	}
	// Lines from a wrong clock do not make a new file old.
	if err := s.AppendAudit(ctx, timed{time.Now().Add(-48 * time.Hour), 0}); err != nil {
		t.Fatal(err)
	}
	s.auditJobs.Wait()
	if _, names := readRotated(t, s.Dir()); len(names) != 0 {
		t.Fatalf("rotated files = %v after one line in a new file, want none", names)
	}
	// The last rotation was two hours ago: the current file is that old.
	old := filepath.Join(s.Dir(), auditRotatedPrefix+time.Now().Add(-2*time.Hour).UTC().Format(auditRotatedTime)+auditRotatedExt+".gz")
	writeGzip(t, old, `{"seq":-1}`+"\n")
	s.auditFile = nil // as a process starting now would find it
	if err := s.AppendAudit(ctx, timed{time.Now(), 1}); err != nil {
		t.Fatal(err)
	}
	s.auditJobs.Wait()
	lines, names := readRotated(t, s.Dir())
	if len(names) != 2 || len(lines) != 3 || lines[2].Seq != 1 {
		t.Fatalf("rotated files = %v with %d lines, want the old one and the file just rotated", names, len(lines))
	}
	// The file after it began at that rotation: not rotated for its age.
	if err := s.AppendAudit(ctx, timed{time.Now(), 2}); err != nil {
		t.Fatal(err)
	}
	s.auditJobs.Wait()
	if _, names := readRotated(t, s.Dir()); len(names) != 2 {
		t.Errorf("rotated files = %v after a line in the fresh file, want still two", names)
	}
}

func writeGzip(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte(text))
	zw.Close()
	f.Close()
}

// TestAuditNewFileOnReusedInode: a new audit file that got the inode of one rotated,
// compressed and removed meanwhile (the file system reuses inodes at once) is young: the age
// remembered for the old file is not carried over. Truncation stands in for the reuse: the
// same inode, with fewer bytes than were remembered.
func TestAuditNewFileOnReusedInode(t *testing.T) {
	s := newStore(t, Options{NoSync: true, AuditMaxAge: time.Hour})
	ctx := context.Background()
	if err := s.AppendAudit(ctx, map[string]int{"seq": 0, "pad": 123456789}); err != nil {
		t.Fatal(err)
	}
	s.auditMu.Lock()
	s.auditStart = time.Now().Add(-2 * time.Hour) // what was remembered for the old file
	s.auditMu.Unlock()
	if err := os.Truncate(filepath.Join(s.Dir(), auditFileName), 0); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendAudit(ctx, map[string]int{"seq": 1}); err != nil {
		t.Fatal(err)
	}
	s.auditJobs.Wait()
	if _, names := readRotated(t, s.Dir()); len(names) != 0 {
		t.Errorf("rotated files = %v after a line in a new file on a reused inode, want none", names)
	}
}
