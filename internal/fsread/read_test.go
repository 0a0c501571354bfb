package fsread

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"toolhost/internal/filetest"

	"github.com/google/go-cmp/cmp"
)

// openTestRoot writes files (name -> content) into a temp dir and opens it as
// a root.
func openTestRoot(t *testing.T, files map[string]string) (*os.Root, string) {
	t.Helper()
	dir := t.TempDir()
	filetest.Write(t, dir, files)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir
}

func numberedLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// readSummary is the part of ReadResult the table compares.
type readSummary struct {
	Text                string
	FirstLine, LastLine int64
	TotalLines          int64
	Truncated, EOF      bool
	NextLine            int64
	LinesCut            int
	CRLF, InvalidUTF8   bool
	Binary              bool
}

func summarize(r ReadResult) readSummary {
	return readSummary{r.Text, r.FirstLine, r.LastLine, r.TotalLines, r.Truncated, r.EOF, r.NextLine, r.LinesCut, r.CRLF, r.InvalidUTF8, r.Binary}
}

func TestRead(t *testing.T) {
	files := map[string]string{
		"ten.txt":     numberedLines(10),
		"nonl.txt":    "a\nb\nc",
		"crlf.txt":    "one\r\ntwo\r\nthree\r\n",
		"empty.txt":   "",
		"onlynl.txt":  "\n",
		"blank.txt":   "a\n\n\nb\n",
		"bad.txt":     "ok\n\xff\xfe bad\n",
		"long.txt":    strings.Repeat("x", 50) + "\nshort\n",
		"utf8cut.txt": strings.Repeat("é", 10) + "\n",
		"bin.dat":     "PK\x03\x04\x00\x00binary",
	}
	root, _ := openTestRoot(t, files)
	tests := []struct {
		name string
		file string
		opts ReadOptions
		want readSummary
	}{
		{"whole file", "ten.txt", ReadOptions{MaxLines: 100},
			readSummary{Text: strings.TrimSuffix(numberedLines(10), "\n"), FirstLine: 1, LastLine: 10, TotalLines: 10, EOF: true}},
		{"start end", "ten.txt", ReadOptions{StartLine: 3, EndLine: 4},
			readSummary{Text: "line 3\nline 4", FirstLine: 3, LastLine: 4, TotalLines: 10}},
		{"offset limit", "ten.txt", ReadOptions{Offset: 9, Limit: 5},
			readSummary{Text: "line 9\nline 10", FirstLine: 9, LastLine: 10, TotalLines: 10, EOF: true}},
		{"negative offset", "ten.txt", ReadOptions{Offset: -2},
			readSummary{Text: "line 9\nline 10", FirstLine: 9, LastLine: 10, TotalLines: 10, EOF: true}},
		{"negative offset with limit", "ten.txt", ReadOptions{Offset: -3, Limit: 1},
			readSummary{Text: "line 8", FirstLine: 8, LastLine: 8, TotalLines: 10}},
		{"negative offset beyond start", "nonl.txt", ReadOptions{Offset: -10},
			readSummary{Text: "a\nb\nc", FirstLine: 1, LastLine: 3, TotalLines: 3, EOF: true}},
		{"max lines truncates", "ten.txt", ReadOptions{MaxLines: 3},
			readSummary{Text: "line 1\nline 2\nline 3", FirstLine: 1, LastLine: 3, TotalLines: 10, Truncated: true, NextLine: 4}},
		{"max bytes truncates", "ten.txt", ReadOptions{MaxBytes: 15},
			readSummary{Text: "line 1\nline 2", FirstLine: 1, LastLine: 2, TotalLines: 10, Truncated: true, NextLine: 3}},
		{"line numbers", "ten.txt", ReadOptions{StartLine: 9, EndLine: 10, LineNumbers: true},
			readSummary{Text: " 9\tline 9\n10\tline 10", FirstLine: 9, LastLine: 10, TotalLines: 10, EOF: true}},
		{"no trailing newline", "nonl.txt", ReadOptions{StartLine: 3},
			readSummary{Text: "c", FirstLine: 3, LastLine: 3, TotalLines: 3, EOF: true}},
		{"crlf", "crlf.txt", ReadOptions{},
			readSummary{Text: "one\ntwo\nthree", FirstLine: 1, LastLine: 3, TotalLines: 3, EOF: true, CRLF: true}},
		{"empty file", "empty.txt", ReadOptions{},
			readSummary{TotalLines: 0, EOF: true}},
		{"only newline", "onlynl.txt", ReadOptions{},
			readSummary{Text: "", FirstLine: 1, LastLine: 1, TotalLines: 1, EOF: true}},
		{"blank lines kept", "blank.txt", ReadOptions{},
			readSummary{Text: "a\n\n\nb", FirstLine: 1, LastLine: 4, TotalLines: 4, EOF: true}},
		{"invalid utf8 replaced", "bad.txt", ReadOptions{},
			readSummary{Text: "ok\n\uFFFD bad", FirstLine: 1, LastLine: 2, TotalLines: 2, EOF: true, InvalidUTF8: true}},
		{"long line cut", "long.txt", ReadOptions{MaxLineLength: 10},
			readSummary{Text: "xxxxxxxxxx … [line cut: 50 bytes]\nshort", FirstLine: 1, LastLine: 2, TotalLines: 2, EOF: true, LinesCut: 1}},
		{"cut keeps runes whole", "utf8cut.txt", ReadOptions{MaxLineLength: 5},
			readSummary{Text: "éé … [line cut: 20 bytes]", FirstLine: 1, LastLine: 1, TotalLines: 1, EOF: true, LinesCut: 1}},
		{"binary summarised", "bin.dat", ReadOptions{},
			readSummary{TotalLines: -1, Binary: true}},
	}
	r := NewReader(0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Twice: the second read goes through the cached index.
			for pass := range 2 {
				got, err := r.Read(context.Background(), root, tt.file, tt.opts)
				if err != nil {
					t.Fatalf("Read(%s, %+v) error %v", tt.file, tt.opts, err)
				}
				if diff := cmp.Diff(tt.want, summarize(got)); diff != "" {
					t.Errorf("pass %d: Read(%s, %+v) mismatch (-want +got):\n%s", pass, tt.file, tt.opts, diff)
				}
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	root, dir := openTestRoot(t, map[string]string{"ten.txt": numberedLines(10), "d/x": "x"})
	if err := mkfifo(filepath.Join(dir, "fifo")); err != nil {
		t.Logf("mkfifo: %v", err)
	}
	tests := []struct {
		name string
		file string
		opts ReadOptions
		want error
	}{
		{"past end", "ten.txt", ReadOptions{StartLine: 11}, ErrPastEnd},
		{"mixed styles", "ten.txt", ReadOptions{StartLine: 1, Offset: 2}, ErrInvalidOptions},
		{"start after end", "ten.txt", ReadOptions{StartLine: 5, EndLine: 2}, ErrInvalidOptions},
		{"bad encoding", "ten.txt", ReadOptions{Encoding: "rot13"}, ErrInvalidOptions},
		{"directory", "d", ReadOptions{}, ErrIsDir},
		{"fifo", "fifo", ReadOptions{}, ErrNotRegular},
		{"escape", "../x", ReadOptions{}, ErrInvalidOptions},
		{"missing", "nope", ReadOptions{}, os.ErrNotExist},
	}
	r := NewReader(0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Read(context.Background(), root, tt.file, tt.opts)
			if !errors.Is(err, tt.want) {
				t.Errorf("Read(%s, %+v) error = %v, want %v", tt.file, tt.opts, err, tt.want)
			}
			if tt.want == ErrPastEnd && got.TotalLines != 10 {
				t.Errorf("Read(%s) past end TotalLines = %d, want 10", tt.file, got.TotalLines)
			}
		})
	}
}

func TestReadEncodings(t *testing.T) {
	root, _ := openTestRoot(t, map[string]string{"b.bin": "\x00\x01\x02\x03abc"})
	tests := []struct {
		name     string
		opts     ReadOptions
		wantText string
		wantOff  int64
		wantEOF  bool
	}{
		{"hex", ReadOptions{Encoding: EncodingHex}, "00010203616263", 0, true},
		{"base64", ReadOptions{Encoding: EncodingBase64}, "AAECA2FiYw==", 0, true},
		{"hex range", ReadOptions{Encoding: EncodingHex, ByteOffset: 1, ByteLimit: 2}, "0102", 1, false},
		{"hex from end", ReadOptions{Encoding: EncodingHex, ByteOffset: -3}, "616263", 4, true},
	}
	r := NewReader(0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Read(context.Background(), root, "b.bin", tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != tt.wantText || got.ByteOffset != tt.wantOff || got.EOF != tt.wantEOF || !got.Binary {
				t.Errorf("Read(%+v) = %q off %d eof %v binary %v, want %q %d %v true", tt.opts, got.Text, got.ByteOffset, got.EOF, got.Binary, tt.wantText, tt.wantOff, tt.wantEOF)
			}
		})
	}
}

// TestReadIndexInvalidation makes sure a changed file is not served from a
// stale index.
func TestReadIndexInvalidation(t *testing.T) {
	root, dir := openTestRoot(t, map[string]string{"f.txt": numberedLines(5)})
	r := NewReader(0)
	ctx := context.Background()
	before, err := r.Read(ctx, root, "f.txt", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("new 1\nnew 2\nnew 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := r.Read(ctx, root, "f.txt", ReadOptions{StartLine: 2, EndLine: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "new 2" || got.TotalLines != 3 {
		t.Errorf("Read after rewrite = %q total %d, want %q total 3", got.Text, got.TotalLines, "new 2")
	}
	if got.Fingerprint == before.Fingerprint || got.SHA256 == before.SHA256 || len(got.SHA256) != 64 {
		t.Errorf("Read after rewrite fingerprint %q sha %q, before %q %q; want both changed", got.Fingerprint, got.SHA256, before.Fingerprint, before.SHA256)
	}
	fi, err := root.Stat("f.txt")
	if err != nil {
		t.Fatal(err)
	}
	if fp := Fingerprint(fi); fp != got.Fingerprint {
		t.Errorf("Fingerprint(stat) = %q, want %q as reported by Read", fp, got.Fingerprint)
	}
}

// TestReadLargeRanges checks line arithmetic across chunk and checkpoint
// boundaries, cold and warm, against a straightforward split.
func TestReadLargeRanges(t *testing.T) {
	const n = 200000 // ~2.5 MB: several chunks and checkpoints
	content := numberedLines(n)
	root, _ := openTestRoot(t, map[string]string{"big.txt": content})
	all := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	ctx := context.Background()
	for _, warm := range []bool{false, true} {
		r := NewReader(0)
		if warm {
			if _, err := r.Read(ctx, root, "big.txt", ReadOptions{Offset: -1}); err != nil {
				t.Fatal(err)
			}
		}
		for _, start := range []int64{1, 2, 21845, 21846, 100000, 150001, 199990} {
			got, err := r.Read(ctx, root, "big.txt", ReadOptions{StartLine: start, EndLine: start + 9})
			if err != nil {
				t.Fatal(err)
			}
			end := min(start+9, n)
			want := strings.Join(all[start-1:end], "\n")
			if got.Text != want || got.FirstLine != start || got.LastLine != end {
				t.Errorf("warm=%v Read(%d..%d) = %q [%d,%d], want %q", warm, start, start+9, got.Text, got.FirstLine, got.LastLine, want)
			}
		}
		got, err := r.Read(ctx, root, "big.txt", ReadOptions{Offset: -2})
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != fmt.Sprintf("line %d\nline %d", n-1, n) || got.TotalLines != n {
			t.Errorf("warm=%v Read(offset -2) = %q total %d", warm, got.Text, got.TotalLines)
		}
	}
}

func TestReadOneMegabyteLine(t *testing.T) {
	root, _ := openTestRoot(t, map[string]string{"one.txt": strings.Repeat("y", 1<<20)})
	got, err := NewReader(0).Read(context.Background(), root, "one.txt", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Text) > DefaultMaxLineLength+100 || got.LinesCut != 1 || got.TotalLines != 1 {
		t.Errorf("Read(1 MB line) = %d bytes, cut %d, total %d; want <= %d bytes, 1 cut, 1 line", len(got.Text), got.LinesCut, got.TotalLines, DefaultMaxLineLength+100)
	}
}

// TestReadSparseHuge reads around a 10 GB sparse file: the head is text, the
// rest a hole. Only bounded work may happen.
func TestReadSparseHuge(t *testing.T) {
	if testing.Short() {
		t.Skip("creates a 10 GB sparse file")
	}
	root, dir := openTestRoot(t, nil)
	p := filepath.Join(dir, "sparse.log")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("head 1\nhead 2\n")
	if err := f.Truncate(10 << 30); err != nil {
		t.Skipf("truncate: %v", err)
	}
	f.WriteAt([]byte("\ntail 1\ntail 2\n"), 10<<30-15)
	f.Close()
	r := NewReader(0)
	ctx := context.Background()
	// The hole makes the file binary by the NUL rule: summary only.
	got, err := r.Read(ctx, root, "sparse.log", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Binary || got.Text != "" || got.Size != 10<<30 {
		t.Errorf("Read(sparse) binary %v text %d bytes size %d, want binary summary", got.Binary, len(got.Text), got.Size)
	}
	got, err = r.Read(ctx, root, "sparse.log", ReadOptions{Encoding: EncodingHex, ByteOffset: -8})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "0a7461696c20320a" {
		t.Errorf("Read(sparse, hex tail) = %q, want %q", got.Text, "0a7461696c20320a")
	}
	gr, err := Grep(ctx, root, "", GrepOptions{Pattern: "tail"})
	if err != nil {
		t.Fatal(err)
	}
	if gr.TotalMatches != 0 || gr.BinarySkipped != 1 {
		t.Errorf("Grep(sparse) = %d matches, %d binary skipped; want 0, 1", gr.TotalMatches, gr.BinarySkipped)
	}
	lr, err := ListDir(ctx, root, "", ListOptions{})
	if err != nil || len(lr.Entries) != 1 || lr.Entries[0].Size != 10<<30 {
		t.Errorf("ListDir(sparse) = %+v, %v; want one 10 GB entry", lr.Entries, err)
	}
}

// TestReadHugeFilePaths lowers the Reader's budgets so that small files
// take the paths meant for multi-GB ones: a tail read without a total line
// count, and the scan limit.
func TestReadHugeFilePaths(t *testing.T) {
	root, _ := openTestRoot(t, map[string]string{
		"log.txt":  numberedLines(1000),
		"nonl.bin": strings.Repeat("z", 600<<10), // longer than one scan chunk
	})
	ctx := context.Background()
	tests := []struct {
		name      string
		file      string
		opts      ReadOptions
		wantText  string
		wantTotal int64
		wantErr   error
	}{
		{"tail unknown total", "log.txt", ReadOptions{Offset: -2}, "line 999\nline 1000", -1, nil},
		{"tail with limit", "log.txt", ReadOptions{Offset: -3, Limit: 1}, "line 998", -1, nil},
		{"tail line numbers omitted", "log.txt", ReadOptions{Offset: -1, LineNumbers: true}, "line 1000", -1, nil},
		{"forward read still numbered", "log.txt", ReadOptions{StartLine: 500, EndLine: 500}, "line 500", -1, nil},
		{"scan limit forward", "nonl.bin", ReadOptions{StartLine: 2}, "", -1, ErrScanLimit},
		{"scan limit tail", "nonl.bin", ReadOptions{Offset: -1}, "", -1, ErrScanLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(0)
			r.countBudget, r.scanLimit = 100, 1000 // tail counting budget: 1600 bytes
			got, err := r.Read(ctx, root, tt.file, tt.opts)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Read(%s, %+v) error = %v, want %v", tt.file, tt.opts, err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got.Text != tt.wantText || got.TotalLines != tt.wantTotal {
				t.Errorf("Read(%s, %+v) = %q total %d, want %q total %d", tt.file, tt.opts, got.Text, got.TotalLines, tt.wantText, tt.wantTotal)
			}
			if tt.opts.Offset < 0 && (got.FirstLine != 0 || got.Note == "") {
				t.Errorf("Read(%s, %+v) tail FirstLine %d note %q, want 0 and a note", tt.file, tt.opts, got.FirstLine, got.Note)
			}
			if tt.opts.StartLine > 0 && (got.EstimatedTotalLines < 900 || got.EstimatedTotalLines > 1100) {
				t.Errorf("Read(%s) EstimatedTotalLines = %d, want about 1000", tt.file, got.EstimatedTotalLines)
			}
		})
	}
}

// TestReaderConcurrentAndBounded reads several files from many goroutines
// through one small Reader: results stay right and the index cache stays
// within its bound.
func TestReaderConcurrentAndBounded(t *testing.T) {
	files := map[string]string{}
	for i := range 5 {
		files[fmt.Sprintf("f%d.txt", i)] = numberedLines(3000 + i)
	}
	root, _ := openTestRoot(t, files)
	r := NewReader(2)
	ctx := context.Background()
	errc := make(chan error, 40)
	for g := range 40 {
		go func() {
			name := fmt.Sprintf("f%d.txt", g%5)
			line := int64(1 + g*71%3000)
			got, err := r.Read(ctx, root, name, ReadOptions{StartLine: line, EndLine: line})
			if err == nil && got.Text != fmt.Sprintf("line %d", line) {
				err = fmt.Errorf("Read(%s, %d) = %q", name, line, got.Text)
			}
			errc <- err
		}()
	}
	for range 40 {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
	r.mu.Lock()
	n, m := r.lru.Len(), len(r.entries)
	r.mu.Unlock()
	if n > 2 || m > 2 {
		t.Errorf("Reader cache holds %d/%d indexes, want at most 2", n, m)
	}
}

// TestReadAppendKeepsIndex: appending to a log keeps the checkpoints of the
// old part; rewriting the file does not.
func TestReadAppendKeepsIndex(t *testing.T) {
	const n = 100_000 // ~1.2 MB: several checkpoints
	root, dir := openTestRoot(t, map[string]string{"app.log": numberedLines(n)})
	p := filepath.Join(dir, "app.log")
	r := NewReader(0)
	ctx := context.Background()
	if got, err := r.Read(ctx, root, "app.log", ReadOptions{Offset: -1}); err != nil || got.TotalLines != n {
		t.Fatalf("Read(tail) = total %d, %v", got.TotalLines, err)
	}
	cpsBefore := len(r.lru.Front().Value.(*lineIndex).cps)
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "line %d\nline %d\n", n+1, n+2)
	f.Close()
	got, err := r.Read(ctx, root, "app.log", ReadOptions{StartLine: n + 1})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != fmt.Sprintf("line %d\nline %d", n+1, n+2) || got.TotalLines != n+2 {
		t.Errorf("Read after append = %q total %d, want lines %d-%d total %d", got.Text, got.TotalLines, n+1, n+2, n+2)
	}
	if cps := len(r.lru.Front().Value.(*lineIndex).cps); cps < cpsBefore {
		t.Errorf("index after append has %d checkpoints, want the old %d kept", cps, cpsBefore)
	}
	// Rewrite in place, longer, with different content: no reuse.
	if err := os.WriteFile(p, []byte(strings.Repeat("ab\n", n+10)), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = r.Read(ctx, root, "app.log", ReadOptions{StartLine: n + 1, EndLine: n + 1})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "ab" {
		t.Errorf("Read after rewrite = %q, want %q", got.Text, "ab")
	}
}

func TestZeroReader(t *testing.T) {
	root, _ := openTestRoot(t, map[string]string{"f.txt": "a\nb\n"})
	var r Reader
	got, err := r.Read(context.Background(), root, "f.txt", ReadOptions{StartLine: 2})
	if err != nil || got.Text != "b" || got.TotalLines != 2 {
		t.Errorf("zero Reader Read = %q total %d, %v; want %q total 2", got.Text, got.TotalLines, err, "b")
	}
}
