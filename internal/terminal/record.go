package terminal

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Recordings. Each PTY session is recorded with its timing as asciicast v2
// (https://docs.asciinema.org/manual/asciicast/v2/): a header line, then one JSON array per
// event, [seconds since the start, code, data], code "o" for output, "i" for input typed
// through toolhost, "r" for a resize ("COLSxROWS") and "m" for a marker. The session log
// (ring.go) is for the model: cleaned text, bounded in memory, no timing; the recording is
// for people: the raw bytes with their timing, on disk, fed from the same read (ingest).
//
// A recording is bounded however much the session prints: it is written in segments of
// RecordSegmentBytes, each a valid asciicast on its own (a header line, then events), and
// once there are more than RecordSegments the oldest but the first is removed, so the start
// of the session and its latest output stay. Each segment after the first begins with a
// marker of how many output bytes came before it, so an export (ExportRecording) can say
// where output was cut and how much. Recordings of ended sessions are removed oldest first
// past RecordingsMaxBytes in all.
//
// Files: DIR/CONVERSATION/SESSION-STARTED.NNN.cast, CONVERSATION path-escaped, STARTED the
// session's start in Unix milliseconds, NNN the segment.

// Defaults of the recording bounds.
const (
	DefaultRecordSegmentBytes = 4 << 20
	DefaultRecordSegments     = 4
	DefaultRecordingsMaxBytes = 256 << 20
	// recordFlushEvery bounds how long recorded output waits in memory.
	recordFlushEvery = 200 * time.Millisecond
	// offsetMarker starts the marker at the head of a segment after the first.
	offsetMarker = "toolhost:offset="
)

// castHeader is an asciicast v2 header.
type castHeader struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp,omitempty"`
	Duration  float64           `json:"duration,omitempty"`
	Title     string            `json:"title,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
}

// castRecorder writes one session's recording. Its methods are safe for concurrent use (the
// reader records output, send_input input, resize the size), and a recorder that failed
// (a full disk) logs once and records nothing more.
type castRecorder struct {
	mu       sync.Mutex
	dir      string // the conversation's directory
	base     string // SESSION-STARTED
	header   castHeader
	start    time.Time
	segBytes int64
	keep     int

	f         *os.File
	w         *bufio.Writer
	seg       int   // current segment number
	written   int64 // bytes in the current segment
	out       int64 // output bytes recorded so far (the offset markers' unit)
	carry     []byte
	lastT     float64
	lastFlush time.Time
	failed    bool
	buf       []byte      // an event being encoded
	timer     *time.Timer // flushes what waits, recordFlushEvery after it was recorded
	armed     bool        // the timer will fire
}

// newRecorder starts the recording of a session begun at start; nil when dir is empty or the
// recording cannot be created (logged: the session works without it).
func newRecorder(dir, conv, id string, start time.Time, cols, rows int, shell string, segBytes int64, keep int) *castRecorder {
	if dir == "" {
		return nil
	}
	r := &castRecorder{
		dir:  filepath.Join(dir, url.PathEscape(conv)),
		base: id + "-" + strconv.FormatInt(start.UnixMilli(), 10),
		header: castHeader{Version: 2, Width: cols, Height: rows, Timestamp: start.Unix(),
			Title: "toolhost " + conv + "/" + id, Env: map[string]string{"SHELL": shell, "TERM": "xterm-256color"}},
		start: start, segBytes: segBytes, keep: keep,
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		slog.Warn("terminal: session not recorded", "session", id, "err", err)
		return nil
	}
	if err := r.openSegment(); err != nil {
		slog.Warn("terminal: session not recorded", "session", id, "err", err)
		return nil
	}
	return r
}

func segmentName(base string, n int) string { return fmt.Sprintf("%s.%03d.cast", base, n) }

// openSegment starts segment r.seg: a header, and after the first the offset marker.
func (r *castRecorder) openSegment() error {
	f, err := os.OpenFile(filepath.Join(r.dir, segmentName(r.base, r.seg)), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	r.f, r.w, r.written = f, bufio.NewWriterSize(f, 64<<10), 0
	h, _ := json.Marshal(r.header)
	r.write(append(h, '\n'))
	if r.seg > 0 {
		r.event(r.lastT, "m", offsetMarker+strconv.FormatInt(r.out, 10))
	}
	return nil
}

func (r *castRecorder) write(b []byte) {
	n, err := r.w.Write(b)
	r.written += int64(n)
	if err != nil {
		r.fail(err)
	}
}

func (r *castRecorder) event(t float64, code, data string) {
	r.buf = strconv.AppendFloat(append(r.buf[:0], '['), t, 'f', 6, 64)
	r.buf = append(r.buf, ", \""...)
	r.buf = append(r.buf, code...)
	r.buf = append(r.buf, "\", "...)
	r.buf = appendJSONString(r.buf, data)
	r.write(append(r.buf, "]\n"...))
}

// appendJSONString appends s, valid UTF-8, as a JSON string: quotes, backslashes and control
// characters escaped, everything else as it is (json.Marshal also escapes <, > and & for
// HTML, and costs four times as much on a terminal's output).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// validText is b with each byte that is not part of a valid UTF-8 sequence replaced by U+FFFD,
// as the JSON encoder would: the offsets the markers count are those of the recorded text.
func validText(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			sb.WriteString("\uFFFD")
		} else {
			sb.Write(b[:n])
		}
		b = b[n:]
	}
	return sb.String()
}

func (r *castRecorder) fail(err error) {
	if !r.failed {
		slog.Warn("terminal: recording stopped", "recording", filepath.Join(r.dir, r.base), "err", err)
	}
	r.failed = true
}

// at is now as seconds since the start, never before the last event.
func (r *castRecorder) at(now time.Time) float64 {
	t := now.Sub(r.start).Seconds()
	if t < r.lastT {
		t = r.lastT
	}
	r.lastT = t
	return t
}

// output records bytes the session printed. A UTF-8 sequence cut at the end of p waits for
// the next call, so each event's text is whole.
func (r *castRecorder) output(p []byte, now time.Time) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed {
		return
	}
	data := p
	if len(r.carry) > 0 {
		data = append(r.carry, p...)
	}
	cut := completeUTF8(data)
	r.carry = append(r.carry[:0:0], data[cut:]...)
	if cut == 0 {
		return
	}
	text := validText(data[:cut])
	r.out += int64(len(text))
	r.event(r.at(now), "o", text)
	r.rotateLocked()
	if r.w.Buffered() >= 32<<10 || now.Sub(r.lastFlush) >= recordFlushEvery {
		r.flushLocked(now)
	}
	r.flushLaterLocked()
}

// flushLaterLocked arms the timer that writes what waits in memory, so another process (the
// CLI's export) sees the session's output within recordFlushEvery.
func (r *castRecorder) flushLaterLocked() {
	if r.failed || r.w.Buffered() == 0 || r.armed {
		return
	}
	r.armed = true
	if r.timer == nil {
		r.timer = time.AfterFunc(recordFlushEvery, r.flush)
	} else {
		r.timer.Reset(recordFlushEvery)
	}
}

// input records text typed into the session through toolhost.
func (r *castRecorder) input(text string, now time.Time) {
	r.other("i", text, now)
}

// resize records a new size.
func (r *castRecorder) resize(cols, rows int, now time.Time) {
	r.other("r", fmt.Sprintf("%dx%d", cols, rows), now)
}

func (r *castRecorder) other(code, data string, now time.Time) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed {
		return
	}
	r.event(r.at(now), code, data)
	r.rotateLocked()
	r.flushLaterLocked()
}

// rotateLocked starts the next segment once this one is full, and removes the oldest but the
// first past keep.
func (r *castRecorder) rotateLocked() {
	if r.written < r.segBytes || r.failed {
		return
	}
	if err := r.closeSegmentLocked(); err != nil {
		r.fail(err)
		return
	}
	r.seg++
	if r.seg >= r.keep && r.keep > 1 {
		// Segments 1 .. seg-keep+1 go: the first and the newest keep-1 stay.
		old := r.seg - r.keep + 1
		if err := os.Remove(filepath.Join(r.dir, segmentName(r.base, old))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			slog.Warn("terminal: recording segment not removed", "err", err)
		}
	}
	if err := r.openSegment(); err != nil {
		r.fail(err)
	}
}

func (r *castRecorder) closeSegmentLocked() error {
	err := r.w.Flush()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (r *castRecorder) flushLocked(now time.Time) {
	r.lastFlush = now
	r.armed = false
	if err := r.w.Flush(); err != nil {
		r.fail(err)
	}
}

// flush writes what waits in memory, so an export sees everything recorded so far.
func (r *castRecorder) flush() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.failed {
		r.flushLocked(time.Now())
	}
}

// close ends the recording.
func (r *castRecorder) close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.failed || r.f == nil {
		return
	}
	if len(r.carry) > 0 {
		text := validText(r.carry)
		r.out += int64(len(text))
		r.event(r.lastT, "o", text)
		r.carry = nil
	}
	if err := r.closeSegmentLocked(); err != nil {
		r.fail(err)
	}
	r.f = nil
	r.failed = true // nothing more is recorded
}

// RecordingInfo describes one recorded session.
type RecordingInfo struct {
	Conversation string    `json:"conversation"`
	Session      string    `json:"session"`
	Started      time.Time `json:"started"`
	Bytes        int64     `json:"bytes"`
	Segments     int       `json:"segments"`
	// Cut says that segments were removed to bound the recording.
	Cut bool `json:"cut"`

	files []string // the segments, in order
}

// Recordings lists the recordings under dir, of conversation conv ("" for every
// conversation), newest first.
func Recordings(dir, conv string) ([]RecordingInfo, error) {
	convs := []string{conv}
	if conv == "" {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		convs = nil
		for _, e := range entries {
			if c, err := url.PathUnescape(e.Name()); err == nil && e.IsDir() {
				convs = append(convs, c)
			}
		}
	}
	var out []RecordingInfo
	for _, c := range convs {
		entries, err := os.ReadDir(filepath.Join(dir, url.PathEscape(c)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		byBase := map[string]*RecordingInfo{}
		var order []string
		for _, e := range entries {
			name := e.Name()
			rest, ok := strings.CutSuffix(name, ".cast")
			if !ok || len(rest) < 4 || rest[len(rest)-4] != '.' {
				continue
			}
			base, seg := rest[:len(rest)-4], rest[len(rest)-3:]
			dash := strings.LastIndexByte(base, '-')
			ms, err := strconv.ParseInt(base[dash+1:], 10, 64)
			if dash <= 0 || err != nil {
				continue
			}
			if _, err := strconv.Atoi(seg); err != nil {
				continue
			}
			info := byBase[base]
			if info == nil {
				info = &RecordingInfo{Conversation: c, Session: base[:dash], Started: time.UnixMilli(ms).UTC()}
				byBase[base] = info
				order = append(order, base)
			}
			if fi, err := e.Info(); err == nil {
				info.Bytes += fi.Size()
			}
			info.Segments++
			info.files = append(info.files, filepath.Join(dir, url.PathEscape(c), name))
		}
		for _, base := range order {
			info := byBase[base]
			slices.Sort(info.files)
			last := info.files[len(info.files)-1]
			n, _ := strconv.Atoi(last[len(last)-8 : len(last)-5])
			info.Cut = n+1 != len(info.files)
			out = append(out, *info)
		}
	}
	slices.SortStableFunc(out, func(a, b RecordingInfo) int { return b.Started.Compare(a.Started) })
	return out, nil
}

// ErrNoRecording: no recording of that session.
var ErrNoRecording = errors.New("no recording of that session")

// ExportRecording writes the newest recording of session id in conversation conv, as one
// asciicast v2 file, to w. Where segments were removed it inserts a marker and a line of
// output that say how many bytes were cut, and the header's title says so too. It returns
// what it exported.
func ExportRecording(w io.Writer, dir, conv, id string) (RecordingInfo, error) {
	recs, err := Recordings(dir, conv)
	if err != nil {
		return RecordingInfo{}, err
	}
	i := slices.IndexFunc(recs, func(r RecordingInfo) bool { return r.Session == id })
	if i < 0 {
		return RecordingInfo{}, fmt.Errorf("%w %s in conversation %s", ErrNoRecording, id, conv)
	}
	rec := recs[i]
	bw := bufio.NewWriter(w)
	var out int64 // output bytes before the next event, as exported
	headerDone := false
	for si, path := range rec.files {
		f, err := os.Open(path)
		if err != nil {
			return rec, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		first := true
		for sc.Scan() {
			line := sc.Bytes()
			if first {
				first = false
				if !headerDone {
					var h castHeader
					if err := json.Unmarshal(line, &h); err != nil {
						f.Close()
						return rec, fmt.Errorf("%s: header: %w", path, err)
					}
					if rec.Cut {
						h.Title += " (cut to bound the recording)"
					}
					hb, _ := json.Marshal(h)
					bw.Write(append(hb, '\n'))
					headerDone = true
				}
				continue
			}
			var ev [3]json.RawMessage
			if json.Unmarshal(line, &ev) != nil {
				continue // a line torn by a crash
			}
			var t float64
			var code, data string
			json.Unmarshal(ev[0], &t)
			json.Unmarshal(ev[1], &code)
			json.Unmarshal(ev[2], &data)
			if code == "m" {
				if off, ok := strings.CutPrefix(data, offsetMarker); ok {
					if n, err := strconv.ParseInt(off, 10, 64); err == nil && n > out && si > 0 {
						cut := n - out
						note := fmt.Sprintf("cut: %s of output dropped here to bound the recording", sizeText(cut))
						fmt.Fprintf(bw, "[%.6f, \"m\", %q]\n", t, note)
						fmt.Fprintf(bw, "[%.6f, \"o\", %q]\n", t, "\r\n[toolhost: "+note+"]\r\n")
						out = n
					}
					continue
				}
			}
			if code == "o" {
				out += int64(len(data))
			}
			bw.Write(append(slices.Clone(line), '\n'))
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return rec, fmt.Errorf("%s: %w", path, err)
		}
	}
	return rec, bw.Flush()
}

// sizeText renders a byte count for the cut note.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// pruneRecordings removes recordings of ended sessions under dir, oldest first, until the
// rest take at most maxBytes; live (recording) ones are kept, whatever they take.
func pruneRecordings(dir string, maxBytes int64, live func(conv, session string, started time.Time) bool) error {
	recs, err := Recordings(dir, "")
	if err != nil {
		return err
	}
	var total int64
	for _, r := range recs {
		total += r.Bytes
	}
	var errs []error
	for i := len(recs) - 1; i >= 0 && total > maxBytes; i-- {
		r := recs[i]
		if live(r.Conversation, r.Session, r.Started) {
			continue
		}
		for _, f := range r.files {
			if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		total -= r.Bytes
	}
	return errors.Join(errs...)
}

// recordingEnded closes a session's recording when its output ends, and removes the oldest
// recordings of ended sessions past RecordingsMaxBytes.
func (m *Manager) recordingEnded(s *session) {
	if s.rec == nil {
		return
	}
	s.rec.close()
	go func() {
		if err := pruneRecordings(m.cfg.RecordDir, m.cfg.RecordingsMaxBytes, m.recording); err != nil {
			slog.Warn("terminal: old recordings not removed", "err", err)
		}
	}()
}

// recording reports whether the session that began at started is being recorded now.
func (m *Manager) recording(conv, id string, started time.Time) bool {
	m.mu.Lock()
	s := m.sessions[key{conv, id}]
	m.mu.Unlock()
	if s == nil || s.started.UnixMilli() != started.UnixMilli() {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state == StateRunning || s.state == StateStarting
}

// Recordings lists the recorded sessions of conversation conv ("" for every conversation),
// newest first; none when sessions are not recorded.
func (m *Manager) Recordings(conv string) ([]RecordingInfo, error) {
	if m.cfg.RecordDir == "" {
		return nil, nil
	}
	return Recordings(m.cfg.RecordDir, conv)
}

// ExportRecording writes the newest recording of session id of conversation conv to w as one
// asciicast v2 file (see the package function), with what a live session printed so far.
func (m *Manager) ExportRecording(w io.Writer, conv, id string) (RecordingInfo, error) {
	if h := m.remoteNow(); h != nil && m.cfg.RecordDir != "" {
		h.flushRecording(conv, id)
	}
	if m.cfg.RecordDir == "" {
		return RecordingInfo{}, fmt.Errorf("%w: sessions are not recorded here", ErrNoRecording)
	}
	if s, _ := m.lookup(conv, id); s != nil {
		s.rec.flush()
	}
	return ExportRecording(w, m.cfg.RecordDir, conv, id)
}
