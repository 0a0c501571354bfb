//go:build unix

package terminal

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"toolhost/internal/terminal/casttest"
)

func exportTo(t *testing.T, m *Manager, conv, id string) (string, RecordingInfo) {
	t.Helper()
	path := filepath.Join(t.TempDir(), id+".cast")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := m.ExportRecording(f, conv, id)
	if err != nil {
		t.Fatalf("ExportRecording(%s, %s) = %v", conv, id, err)
	}
	f.Close()
	return path, info
}

// TestRecordingReplaysTheSession records a session that prints text, multi-byte characters
// split by the PTY's reads wherever they fall, is typed into and resized, and exports it: the
// file is an asciicast v2 that asciinema plays back byte for byte, with the session's output
// in order.
func TestRecordingReplaysTheSession(t *testing.T) {
	dir := t.TempDir()
	m := newTestManager(t, Config{RecordDir: dir})
	createSession(t, m, "conv-a", "rec")
	// 100,000 bytes of text with a two- and a three-byte character every few bytes, in
	// one printf: the PTY delivers it in reads that cut characters in two.
	payload := strings.Repeat("abé ✓ ", 10_000)
	if err := os.WriteFile(filepath.Join(t.TempDir(), "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "payload.txt")
	if err := os.WriteFile(file, []byte(payload), 0o600); err != nil {
		t.Fatal(err)
	}
	runIn(t, m, "conv-a", "rec", "echo first-line")
	runIn(t, m, "conv-a", "rec", "cat "+file+"; echo; echo after-payload")
	if err := m.Resize("conv-a", "rec", 100, 30); err != nil {
		t.Fatal(err)
	}
	runIn(t, m, "conv-a", "rec", "echo last-line")
	path, info := exportTo(t, m, "conv-a", "rec")
	if info.Cut || info.Session != "rec" || info.Conversation != "conv-a" {
		t.Errorf("export info = %+v", info)
	}
	b, _ := os.ReadFile(path)
	c := casttest.Parse(t, b)
	out := c.Output()
	for _, want := range []string{"first-line", payload, "after-payload", "last-line"} {
		if !strings.Contains(out, want) {
			t.Errorf("recorded output lacks %.40q", want)
		}
	}
	if i, j, k := strings.Index(out, "first-line\r\n"), strings.Index(out, payload), strings.Index(out, "last-line\r\n"); !(i < j && j < k) {
		t.Errorf("recorded output out of order: first %d, payload %d, last %d", i, j, k)
	}
	var typed, resized bool
	for _, e := range c.Events {
		typed = typed || e.Code == "i" && e.Data == "echo last-line\r"
		resized = resized || e.Code == "r" && e.Data == "100x30"
	}
	if !typed || !resized {
		t.Errorf("input event %v, resize event %v; want both", typed, resized)
	}
	if got := casttest.Play(t, path); got != out {
		t.Errorf("asciinema cat printed %d bytes, the recording's output is %d; first difference at %d", len(got), len(out), firstDiff(got, out))
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestRecordingBounded: a session that prints far more than its recording may hold keeps the
// start and the newest output within the bound, and the export says where and how much was cut.
func TestRecordingBounded(t *testing.T) {
	dir := t.TempDir()
	const seg, keep = 64 << 10, 4
	m := newTestManager(t, Config{RecordDir: dir, RecordSegmentBytes: seg, RecordSegments: keep})
	createSession(t, m, "conv-b", "big")
	runIn(t, m, "conv-b", "big", "echo start-of-session")
	runIn(t, m, "conv-b", "big", "head -c 8000000 /dev/zero | tr '\\0' x; echo; echo end-of-flood")
	recs, err := m.Recordings("conv-b")
	if err != nil || len(recs) != 1 {
		t.Fatalf("Recordings = %+v, %v", recs, err)
	}
	if r := recs[0]; r.Segments > keep || r.Bytes > keep*2*seg || !r.Cut {
		t.Errorf("recording after 8 MB of output = %+v, want at most %d segments of about %d bytes, cut", r, keep, seg)
	}
	path, _ := exportTo(t, m, "conv-b", "big")
	b, _ := os.ReadFile(path)
	c := casttest.Parse(t, b)
	if !strings.Contains(fmt.Sprint(c.Header["title"]), "cut") {
		t.Errorf("export title %q does not say it was cut", c.Header["title"])
	}
	var marker string
	for _, e := range c.Events {
		if e.Code == "m" {
			marker = e.Data
		}
	}
	if !strings.HasPrefix(marker, "cut: 7.") || !strings.HasSuffix(marker, "MiB of output dropped here to bound the recording") {
		t.Errorf("cut marker = %q, want about 7.x MiB dropped", marker)
	}
	out := c.Output()
	if !strings.Contains(out, "start-of-session") || !strings.Contains(out, "end-of-flood") || !strings.Contains(out, "[toolhost: cut:") {
		t.Errorf("export lacks the start, the end or the cut note (%d bytes)", len(out))
	}
	if got := casttest.Play(t, path); got != out {
		t.Errorf("asciinema cat of the cut recording differs from its output at %d", firstDiff(got, out))
	}
}

// TestRecorderGigabyte feeds one gigabyte through a recorder as the session's reader would: the
// files stay at their bound, and the export counts the gigabyte it cut.
func TestRecorderGigabyte(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	r := newRecorder(dir, "c", "s1", start, 80, 24, "/bin/bash", DefaultRecordSegmentBytes, DefaultRecordSegments)
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB, as the reader reads
	total := 1 << 30
	if raceEnabled {
		total = 128 << 20 // the race detector makes the gigabyte take minutes; the bound is the same
	}
	for n := 0; n < total; n += len(chunk) {
		r.output(chunk, start.Add(time.Duration(n)))
	}
	r.output([]byte("\r\nthe end\r\n"), start.Add(2*time.Second))
	r.close()
	recs, err := Recordings(dir, "c")
	if err != nil || len(recs) != 1 {
		t.Fatalf("Recordings = %+v, %v", recs, err)
	}
	if bound := int64(DefaultRecordSegments) * (DefaultRecordSegmentBytes + 2*int64(len(chunk))); recs[0].Bytes > bound {
		t.Errorf("a 1 GiB session's recording takes %d bytes, over %d", recs[0].Bytes, bound)
	}
	var buf bytes.Buffer
	if _, err := ExportRecording(&buf, dir, "c", "s1"); err != nil {
		t.Fatal(err)
	}
	c := casttest.Parse(t, buf.Bytes())
	var marker string
	for _, e := range c.Events {
		if e.Code == "m" {
			marker = e.Data
		}
	}
	var mib float64
	if _, err := fmt.Sscanf(marker, "cut: %f MiB of output dropped", &mib); err != nil || mib < float64(total>>20)-20 || mib > float64(total>>20) {
		t.Errorf("cut marker = %q, want about 1 GiB less the segments kept", marker)
	}
	if out := c.Output(); !strings.HasSuffix(out, "the end\r\n") || !strings.HasPrefix(out, "0123456789abcdef") {
		t.Errorf("export lost the start or the end of the session")
	}
	t.Logf("1 GiB recorded in %v into %d bytes; %s", time.Since(start).Round(time.Millisecond), recs[0].Bytes, marker)
}

// TestRecorderSplitCharacters: a character cut between two reads is recorded whole, in the
// later event; invalid bytes are recorded as U+FFFD, and the offsets stay those of the text.
func TestRecorderSplitCharacters(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	r := newRecorder(dir, "c", "s", now, 80, 24, "sh", 1<<20, 4)
	e := []byte("é✓")
	r.output(e[:1], now)
	r.output(e[1:4], now)
	r.output(append(e[4:], 0xff, 'x'), now)
	r.close()
	var buf bytes.Buffer
	if _, err := ExportRecording(&buf, dir, "c", "s"); err != nil {
		t.Fatal(err)
	}
	c := casttest.Parse(t, buf.Bytes())
	var events []string
	for _, ev := range c.Events {
		events = append(events, ev.Data)
	}
	if want := []string{"é", "✓\uFFFDx"}; strings.Join(events, "|") != strings.Join(want, "|") {
		t.Errorf("events = %q, want %q", events, want)
	}
}

// TestRecordingsPruned: past RecordingsMaxBytes the recordings of ended sessions go, oldest
// first; the newest and the live ones stay.
func TestRecordingsPruned(t *testing.T) {
	dir := t.TempDir()
	m := newTestManager(t, Config{RecordDir: dir, RecordingsMaxBytes: 40 << 10})
	for i := range 4 {
		id := fmt.Sprintf("p%d", i)
		createSession(t, m, "conv-c", id)
		runIn(t, m, "conv-c", id, "head -c 20000 /dev/zero | tr '\\0' y; echo")
		if err := m.Close(context.Background(), "conv-c", id); err != nil {
			t.Fatal(err)
		}
	}
	createSession(t, m, "conv-c", "live")
	deadline := time.Now().Add(10 * time.Second)
	var recs []RecordingInfo
	for time.Now().Before(deadline) {
		recs, _ = m.Recordings("conv-c")
		if len(recs) <= 3 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	var names []string
	for _, r := range recs {
		names = append(names, r.Session)
	}
	if strings.Join(names, ",") != "live,p3" && strings.Join(names, ",") != "live,p3,p2" {
		t.Errorf("recordings left = %v, want the live one and the newest ended ones within 40 KiB", names)
	}
}
