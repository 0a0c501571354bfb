package fsread

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Encoding selects how Read returns content.
type Encoding string

// Encodings. UTF-8 is line oriented; base64 and hex return raw byte ranges,
// which is the only way to see a binary file's content.
const (
	EncodingUTF8   Encoding = "utf-8"
	EncodingBase64 Encoding = "base64"
	EncodingHex    Encoding = "hex"
)

// Defaults for ReadOptions' caps. They keep one answer within what a model
// can use and what the MCP layer's result budget allows.
const (
	DefaultMaxLines      = 2000
	DefaultMaxBytes      = 256 << 10
	DefaultMaxLineLength = 4096
	DefaultByteLimit     = 48 << 10
	DefaultHashLimit     = 8 << 20
	DefaultCountBudget   = 32 << 20
	DefaultScanLimit     = 4 << 30
	// binarySniffLen is how much of the file's head is inspected for a NUL
	// byte, the same heuristic git and ripgrep use.
	binarySniffLen = 8 << 10
	// chunkSize is the read size for scanning; large enough that syscalls
	// are negligible, small enough to keep memory flat.
	chunkSize = 256 << 10
	// checkpointEvery is the byte spacing of line-index checkpoints: a
	// repeated read seeks to a checkpoint and scans at most this much.
	checkpointEvery = 256 << 10
	// maxCheckpoints bounds one index; beyond it every other checkpoint is
	// dropped, doubling the spacing, so a 1 TB file still costs < 1 MB.
	maxCheckpoints = 1 << 16
	// tailCountFactor scales the count budget for negative offsets: reading
	// the end of a log is common and worth counting a few hundred MB once.
	tailCountFactor = 16
	// maxReadBytes is the ceiling for MaxBytes.
	maxReadBytes = 16 << 20
	// DefaultIndexEntries is the LRU size of a Reader's line-index cache.
	DefaultIndexEntries = 64
)

// ReadOptions selects what Read returns. Lines are numbered from 1. Use
// either StartLine/EndLine or Offset/Limit, not both.
type ReadOptions struct {
	// Screen vets the opened file (nil: no screening).
	Screen Screen
	// StartLine is the first line to return (1-based); 0 means 1.
	StartLine int64
	// EndLine is the last line to return, inclusive; 0 means as many as
	// the caps allow.
	EndLine int64
	// Offset is the first line to return (1-based) when positive; when
	// negative, -n starts n lines before the end (-1 is the last line).
	Offset int64
	// Limit is the number of lines to return from Offset; 0 means as many
	// as the caps allow.
	Limit int64
	// MaxLines caps the number of lines returned (default DefaultMaxLines).
	MaxLines int
	// MaxBytes caps the returned text (default DefaultMaxBytes).
	MaxBytes int
	// MaxLineLength cuts longer lines, marking the cut (default
	// DefaultMaxLineLength). A 1 MB minified line must not fill the answer.
	MaxLineLength int
	// LineNumbers prefixes each line with its number and a tab.
	LineNumbers bool
	// Encoding is utf-8 (default, line oriented), base64 or hex (byte
	// ranges selected by ByteOffset/ByteLimit).
	Encoding Encoding
	// ByteOffset is the first byte for base64/hex; negative counts from the
	// end of the file.
	ByteOffset int64
	// ByteLimit is the number of bytes for base64/hex (default
	// DefaultByteLimit, at most MaxBytes).
	ByteLimit int64
}

// ReadResult is what Read found. Text never exceeds the caps; Truncated says
// the requested range was longer than what was returned.
type ReadResult struct {
	// Path is the slash-separated path relative to the root.
	Path string
	// Text is the content: lines joined by "\n" (CR of CRLF endings
	// removed, invalid UTF-8 replaced by U+FFFD), or base64/hex bytes.
	Text string
	// FirstLine and LastLine are the 1-based numbers of the lines returned;
	// both 0 when no lines were returned or numbers are unknown (a negative
	// Offset on a file too large to count).
	FirstLine, LastLine int64
	// TotalLines is the number of lines in the file, or -1 when the file
	// was not scanned to its end (see EstimatedTotalLines).
	TotalLines int64
	// EstimatedTotalLines extrapolates from the part scanned when
	// TotalLines is unknown; 0 otherwise.
	EstimatedTotalLines int64
	// EOF is true when LastLine is the last line of the file.
	EOF bool
	// Truncated is true when lines of the requested range were left out
	// because of MaxLines or MaxBytes; NextLine is where to continue.
	Truncated bool
	NextLine  int64
	// LinesCut counts returned lines that were shortened to MaxLineLength.
	LinesCut int
	// CRLF is true when any returned line ended in "\r\n".
	CRLF bool
	// InvalidUTF8 is true when invalid sequences were replaced.
	InvalidUTF8 bool
	// Size and ModTime describe the file as read.
	Size    int64
	ModTime time.Time
	// Fingerprint is a cheap identity of this version of the file (size,
	// mtime, inode) for stale-write checks when SHA256 is absent.
	Fingerprint string
	// SHA256 is the hex digest of the whole file, present when the file is
	// at most DefaultHashLimit bytes.
	SHA256 string
	// Binary is true when the file holds a NUL byte in its first 8 KB. With
	// the utf-8 encoding no text is returned, only BinarySummary.
	Binary        bool
	BinarySummary string
	// MIMEType is a content-sniffed type (net/http rules).
	MIMEType string
	// Encoding is the encoding of Text.
	Encoding Encoding
	// ByteOffset and ByteCount describe the byte range of base64/hex Text.
	ByteOffset, ByteCount int64
	// Note explains anything unusual in one short sentence.
	Note string
}

// Reader reads files and keeps a bounded LRU of line indexes so that
// repeated range reads of a large unchanged file seek straight to a nearby
// checkpoint instead of rescanning from the start. A Reader is safe for
// concurrent use; the zero value is ready to use with the defaults.
type Reader struct {
	mu      sync.Mutex
	max     int
	lru     *list.List // of *lineIndex, most recent first
	entries map[indexKey]*list.Element

	// countBudget and scanLimit are DefaultCountBudget and
	// DefaultScanLimit; tests lower them to reach the huge-file paths
	// with small files.
	countBudget int64
	scanLimit   int64
}

// NewReader returns a Reader caching up to entries line indexes (0 means
// DefaultIndexEntries).
func NewReader(entries int) *Reader {
	if entries <= 0 {
		entries = DefaultIndexEntries
	}
	return &Reader{max: entries, lru: list.New(), entries: make(map[indexKey]*list.Element),
		countBudget: DefaultCountBudget, scanLimit: DefaultScanLimit}
}

// indexKey identifies a file independent of its name; version fields are
// checked separately so a changed file replaces its stale index.
type indexKey struct {
	dev, ino uint64
	path     string // used only where inodes are unavailable
}

type checkpoint struct {
	line int64 // 1-based line number that starts at off
	off  int64
}

// lineIndex records where lines start in one version of a file.
type lineIndex struct {
	key     indexKey
	size    int64
	mtimeNs int64
	ctimeNs int64

	mu  sync.Mutex
	cps []checkpoint // sorted by line and offset; cps[0] is {1, 0}
	// lastCP is the furthest line start known; the region before it has
	// been counted.
	furthest checkpoint
	complete bool
	total    int64
	sha256   string
	// sample fingerprints the bytes before size, to recognise appends.
	sample uint64
}

func (ix *lineIndex) best(line int64) checkpoint {
	if line >= ix.furthest.line {
		return ix.furthest
	}
	i := sort.Search(len(ix.cps), func(i int) bool { return ix.cps[i].line > line })
	if i == 0 {
		return checkpoint{1, 0}
	}
	return ix.cps[i-1]
}

// note records that line starts at off, adding a checkpoint when far enough
// from the previous one.
func (ix *lineIndex) note(line, off int64) {
	if line > ix.furthest.line {
		ix.furthest = checkpoint{line, off}
	}
	last := ix.cps[len(ix.cps)-1]
	if line <= last.line || off-last.off < checkpointEvery {
		return
	}
	ix.cps = append(ix.cps, checkpoint{line, off})
	if len(ix.cps) > maxCheckpoints {
		kept := ix.cps[:1]
		for i := 2; i < len(ix.cps); i += 2 {
			kept = append(kept, ix.cps[i])
		}
		ix.cps = kept
	}
}

// index returns the line index for this version of the file. When the file
// has only grown since it was indexed (same inode, and the 4 KB before the
// old end are unchanged, as with an appended log), the old checkpoints are
// kept: line starts before the old end have not moved.
func (r *Reader) index(rel string, f *os.File, fi os.FileInfo) *lineIndex {
	dev, ino, ctime, ok := fileIdentity(fi)
	key := indexKey{dev: dev, ino: ino}
	if !ok {
		key.path = rel
	}
	size, mtime := fi.Size(), fi.ModTime().UnixNano()
	same := func(ix *lineIndex) bool {
		return ix.size == size && ix.mtimeNs == mtime && ix.ctimeNs == ctime
	}
	r.mu.Lock()
	r.initLocked()
	var old *lineIndex
	if el, ok := r.entries[key]; ok {
		old = el.Value.(*lineIndex)
		if same(old) {
			r.lru.MoveToFront(el)
			r.mu.Unlock()
			return old
		}
	}
	r.mu.Unlock()

	ix := &lineIndex{key: key, size: size, mtimeNs: mtime, ctimeNs: ctime,
		cps: []checkpoint{{1, 0}}, furthest: checkpoint{1, 0}, sample: sampleSum(f, size)}
	if old != nil && size > old.size && old.sample != 0 && sampleSum(f, old.size) == old.sample {
		old.mu.Lock()
		ix.cps = append([]checkpoint(nil), old.cps...)
		ix.furthest = old.furthest
		old.mu.Unlock()
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if el, ok := r.entries[key]; ok {
		if cur := el.Value.(*lineIndex); same(cur) {
			r.lru.MoveToFront(el) // another Read built it meanwhile
			return cur
		}
		r.lru.Remove(el)
		delete(r.entries, key)
	}
	r.entries[key] = r.lru.PushFront(ix)
	for r.lru.Len() > r.max {
		oldest := r.lru.Back()
		r.lru.Remove(oldest)
		delete(r.entries, oldest.Value.(*lineIndex).key)
	}
	return ix
}

// initLocked gives a zero Reader its defaults.
func (r *Reader) initLocked() {
	if r.entries != nil {
		return
	}
	r.max, r.lru, r.entries = DefaultIndexEntries, list.New(), make(map[indexKey]*list.Element)
	if r.countBudget == 0 {
		r.countBudget = DefaultCountBudget
	}
	if r.scanLimit == 0 {
		r.scanLimit = DefaultScanLimit
	}
}

// sampleLen is how much of the bytes before an old end of file is compared
// to decide that a file was appended to rather than rewritten.
const sampleLen = 4 << 10

// sampleSum hashes the sampleLen bytes before end (and end itself); 0 means
// no sample.
func sampleSum(f *os.File, end int64) uint64 {
	if end <= 0 {
		return 0
	}
	start := max(end-sampleLen, 0)
	buf := make([]byte, end-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return 0
	}
	h := fnv.New64a()
	h.Write(buf)
	fmt.Fprintf(h, "@%d", end)
	return h.Sum64()
}

func (o *ReadOptions) defaults() error {
	if o.MaxLines <= 0 {
		o.MaxLines = DefaultMaxLines
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxLineLength <= 0 {
		o.MaxLineLength = DefaultMaxLineLength
	}
	// Hard ceilings: a caller passing huge caps must not make one answer
	// hold the whole of a multi-GB file in memory.
	o.MaxBytes = min(o.MaxBytes, maxReadBytes)
	o.MaxLineLength = min(o.MaxLineLength, o.MaxBytes)
	switch o.Encoding {
	case "", "utf8", "text", "UTF-8":
		o.Encoding = EncodingUTF8
	case EncodingUTF8, EncodingBase64, EncodingHex:
	default:
		return fmt.Errorf("encoding %q (want utf-8, base64 or hex): %w", o.Encoding, ErrInvalidOptions)
	}
	if (o.StartLine != 0 || o.EndLine != 0) && (o.Offset != 0 || o.Limit != 0) {
		return fmt.Errorf("use start_line/end_line or offset/limit, not both: %w", ErrInvalidOptions)
	}
	if o.StartLine < 0 || o.EndLine < 0 || o.Limit < 0 {
		return fmt.Errorf("start_line, end_line and limit must not be negative: %w", ErrInvalidOptions)
	}
	if o.EndLine != 0 && o.StartLine > o.EndLine {
		return fmt.Errorf("start_line %d is after end_line %d: %w", o.StartLine, o.EndLine, ErrInvalidOptions)
	}
	if o.ByteLimit < 0 {
		return fmt.Errorf("byte_limit must not be negative: %w", ErrInvalidOptions)
	}
	return nil
}

// Read returns a range of rel's lines (or bytes, for base64/hex). It reads
// only what the range needs plus at most DefaultCountBudget bytes to learn
// the total line count, and records line starts in the Reader's index so
// later reads of the same unchanged file seek directly.
func (r *Reader) Read(ctx context.Context, root *os.Root, rel string, opts ReadOptions) (ReadResult, error) {
	rel, err := cleanRel(rel)
	if err != nil {
		return ReadResult{}, err
	}
	if err := opts.defaults(); err != nil {
		return ReadResult{}, err
	}
	f, fi, err := openRegular(root, rel, opts.Screen)
	if err != nil {
		return ReadResult{}, fmt.Errorf("read_file: %w", err)
	}
	defer f.Close()

	res := ReadResult{Path: rel, Size: fi.Size(), ModTime: fi.ModTime(), TotalLines: -1, Encoding: opts.Encoding}
	res.Fingerprint = Fingerprint(fi)

	ix := r.index(rel, f, fi)
	ix.mu.Lock()
	defer ix.mu.Unlock()

	head := make([]byte, min(int64(binarySniffLen), fi.Size()))
	if _, err := f.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return res, fmt.Errorf("read_file %s: %w", rel, err)
	}
	res.MIMEType = http.DetectContentType(head)
	res.Binary = bytes.IndexByte(head, 0) >= 0

	if fi.Size() <= DefaultHashLimit {
		if ix.sha256 == "" {
			h := sha256.New()
			if _, err := io.Copy(h, io.NewSectionReader(f, 0, fi.Size())); err != nil {
				return res, fmt.Errorf("read_file %s: %w", rel, err)
			}
			ix.sha256 = hex.EncodeToString(h.Sum(nil))
		}
		res.SHA256 = ix.sha256
	}

	if opts.Encoding != EncodingUTF8 {
		return readBytes(f, res, opts)
	}
	if res.Binary {
		kind := "binary file"
		if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
			kind = "UTF-16 text (byte order mark), shown as binary"
		}
		res.BinarySummary = fmt.Sprintf("%s, %d bytes, %s; read it with encoding base64 or hex", kind, fi.Size(), res.MIMEType)
		if ix.complete {
			res.TotalLines = ix.total
		}
		return res, nil
	}
	r.mu.Lock()
	budget, limit := r.countBudget, r.scanLimit
	r.mu.Unlock()
	s := &scanner{ctx: ctx, f: f, size: fi.Size(), ix: ix, buf: make([]byte, chunkSize),
		countBudget: budget, scanLimit: limit}
	return s.readLines(res, opts)
}

// Fingerprint is the cheap version identity Read reports: size, mtime,
// device and inode. The edit layer compares it with a fresh Stat before
// writing to refuse edits based on a stale read without rereading the file.
func Fingerprint(fi os.FileInfo) string {
	dev, ino, _, _ := fileIdentity(fi)
	return fmt.Sprintf("%x-%x-%x-%x", fi.Size(), fi.ModTime().UnixNano(), dev, ino)
}

// readBytes serves base64/hex reads of a byte range.
func readBytes(f *os.File, res ReadResult, opts ReadOptions) (ReadResult, error) {
	size := res.Size
	off := opts.ByteOffset
	if off < 0 {
		off = max(size+off, 0)
	}
	if off > size {
		return res, fmt.Errorf("byte_offset %d is past the end (%d bytes): %w", off, size, ErrPastEnd)
	}
	limit := opts.ByteLimit
	if limit == 0 {
		limit = DefaultByteLimit
	}
	// Both encodings grow the data; keep the encoded text within MaxBytes.
	maxRaw := int64(opts.MaxBytes) * 3 / 4
	if opts.Encoding == EncodingHex {
		maxRaw = int64(opts.MaxBytes) / 2
	}
	limit = min(limit, maxRaw, size-off)
	buf := make([]byte, limit)
	n, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		return res, fmt.Errorf("read_file %s: %w", res.Path, err)
	}
	buf = buf[:n]
	if opts.Encoding == EncodingHex {
		res.Text = hex.EncodeToString(buf)
	} else {
		res.Text = base64.StdEncoding.EncodeToString(buf)
	}
	res.ByteOffset, res.ByteCount = off, int64(n)
	res.EOF = off+int64(n) >= size
	res.Truncated = !res.EOF && (opts.ByteLimit == 0 || int64(n) < opts.ByteLimit)
	return res, nil
}

// scanner walks a file's lines in large chunks, feeding the line index.
type scanner struct {
	ctx  context.Context
	f    *os.File
	size int64
	ix   *lineIndex
	buf  []byte

	countBudget, scanLimit int64
}

// skipTo advances from the best checkpoint to the start of line target and
// returns its offset. ok is false when the file has fewer lines (the index is
// then complete).
func (s *scanner) skipTo(target int64) (off int64, ok bool, err error) {
	cp := s.ix.best(target)
	line, pos := cp.line, cp.off
	scanned := int64(0)
	for line < target {
		if pos >= s.size {
			s.finish(line - 1)
			return 0, false, nil
		}
		if err := s.ctx.Err(); err != nil {
			return 0, false, err
		}
		if scanned > s.scanLimit {
			return 0, false, fmt.Errorf("line %d is more than %d bytes past the nearest known line: %w", target, s.scanLimit, ErrScanLimit)
		}
		n, err := s.f.ReadAt(s.buf, pos)
		if n == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				s.finish(line - 1)
				return 0, false, nil
			}
			return 0, false, err
		}
		chunk := s.buf[:n]
		scanned += int64(n)
		need := target - line
		if c := int64(bytes.Count(chunk, []byte{'\n'})); c < need {
			line += c
			if c > 0 {
				last := bytes.LastIndexByte(chunk, '\n')
				s.ix.note(line, pos+int64(last)+1)
			}
			pos += int64(n)
			continue
		}
		// The target starts inside this chunk: walk newline by newline.
		i := 0
		for line < target {
			j := bytes.IndexByte(chunk[i:], '\n')
			i += j + 1
			line++
		}
		pos += int64(i)
		s.ix.note(line, pos)
	}
	if pos >= s.size {
		// Line target would start at EOF: it does not exist.
		s.finish(line - 1)
		return 0, false, nil
	}
	return pos, true, nil
}

// finish records that the file has been counted to its end, given the
// number of newlines in it. A last line without a newline counts too.
func (s *scanner) finish(newlines int64) {
	s.ix.complete = true
	s.ix.total = newlines
	if s.size > 0 && s.lastByte() != '\n' {
		s.ix.total++
	}
}

func (s *scanner) lastByte() byte {
	b := make([]byte, 1)
	if _, err := s.f.ReadAt(b, s.size-1); err != nil {
		return 0
	}
	return b[0]
}

// countRest continues counting from the furthest known line start to EOF so
// the total becomes known, but only when at most budget bytes remain.
func (s *scanner) countRest(budget int64) {
	if s.ix.complete {
		return
	}
	line, pos := s.ix.furthest.line, s.ix.furthest.off
	if s.size-pos > budget {
		return
	}
	for pos < s.size {
		if s.ctx.Err() != nil {
			return
		}
		n, err := s.f.ReadAt(s.buf, pos)
		if n == 0 {
			if err != nil {
				break
			}
			continue
		}
		chunk := s.buf[:n]
		if c := bytes.Count(chunk, []byte{'\n'}); c > 0 {
			line += int64(c)
			s.ix.note(line, pos+int64(bytes.LastIndexByte(chunk, '\n'))+1)
		}
		pos += int64(n)
	}
	if pos >= s.size {
		s.finish(line - 1)
	}
}

// tailStart finds the line that starts n lines before the end by scanning
// backwards, for files whose total is unknown. It returns the offset of that
// line start and how many lines follow from it.
func (s *scanner) tailStart(n int64) (int64, error) {
	pos := s.size
	// A final newline terminates the last line rather than starting one.
	end := s.size
	if end > 0 && s.lastByte() == '\n' {
		end--
	}
	pos = end
	found := int64(0)
	for pos > 0 {
		if err := s.ctx.Err(); err != nil {
			return 0, err
		}
		if end-pos > s.scanLimit {
			return 0, fmt.Errorf("no line start in the last %d bytes: %w", s.scanLimit, ErrScanLimit)
		}
		start := max(pos-int64(len(s.buf)), 0)
		chunk := s.buf[:pos-start]
		if _, err := s.f.ReadAt(chunk, start); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		for i := len(chunk) - 1; i >= 0; i-- {
			if chunk[i] == '\n' {
				found++
				if found == n {
					return start + int64(i) + 1, nil
				}
			}
		}
		pos = start
	}
	return 0, nil
}

// readLines reads the lines o asks for as text: where they start, the lines themselves up to
// the caps, then what the answer says about the rest of the file.
func (s *scanner) readLines(res ReadResult, o ReadOptions) (ReadResult, error) {
	r, err := s.lineRange(o)
	if err != nil {
		return res, fmt.Errorf("read_file %s: %w", res.Path, err)
	}
	if r.numbered {
		off, ok, err := s.skipTo(r.start)
		if err != nil {
			return res, fmt.Errorf("read_file %s: %w", res.Path, err)
		}
		if !ok {
			res.TotalLines = s.ix.total
			res.EOF = true
			if s.ix.total == 0 && r.start == 1 {
				return res, nil // empty file: nothing to read is not an error
			}
			return res, fmt.Errorf("start line %d, file has %d lines: %w", r.start, s.ix.total, ErrPastEnd)
		}
		r.off = off
	}
	c := newLineCopy(s, &res, o, r)
	if err := c.run(); err != nil {
		return res, err
	}
	res.Text = c.text.String()
	if r.numbered {
		c.describeNumbered()
	} else {
		res.EOF = c.atEOF && !c.stopped
		res.Truncated = c.stopped
		res.Note = "line numbers unknown: the file is too large to count its lines"
	}
	return res, nil
}

// lineRange is where a read of lines starts and where it may end.
type lineRange struct {
	start int64 // the first line; 0 for a tail whose line numbers are unknown
	// want is the last line (numbered) or how many lines (a tail without numbers); 0 = open.
	want     int64
	off      int64 // the first line's byte offset
	numbered bool
}

// lineRange resolves o's start line, end line, offset and limit. A negative offset (the last
// lines) counts the file's lines when the budget allows, which gives the tail real line
// numbers and makes later tail reads O(1); past the budget a backward scan answers without
// numbers.
func (s *scanner) lineRange(o ReadOptions) (lineRange, error) {
	r := lineRange{start: o.StartLine, want: o.EndLine, numbered: true}
	if o.Offset > 0 {
		r.start = o.Offset
	}
	if r.start == 0 {
		r.start = 1
	}
	if o.Offset < 0 {
		n := -o.Offset
		if !s.ix.complete {
			s.countRest(s.countBudget * tailCountFactor)
		}
		if s.ix.complete {
			r.start = max(s.ix.total-n+1, 1)
			if o.Limit == 0 {
				r.want = s.ix.total
			}
		} else {
			off, err := s.tailStart(n)
			if err != nil {
				return r, err
			}
			r.off, r.numbered, r.start = off, false, 0
			r.want = n
			if o.Limit > 0 {
				r.want = o.Limit
			}
		}
	}
	if r.numbered && o.Limit > 0 {
		r.want = r.start + o.Limit - 1
	}
	return r, nil
}

// lineCopy copies lines from the file into the answer's text, within the caps on lines,
// bytes and line length.
type lineCopy struct {
	s   *scanner
	res *ReadResult
	o   ReadOptions
	r   lineRange

	text       strings.Builder
	line       int64 // current line number (0-based count when !numbered)
	pos        int64
	lines      int64
	cur        []byte // the current line, up to MaxLineLength (+4 for UTF-8 cut)
	curLen     int64
	keep       int  // how much of a line cur keeps
	stopped    bool // a cap was hit before the range ended
	atEOF      bool
	lastLine   int64
	limitLines int64
	width      int // of the line numbers
}

func newLineCopy(s *scanner, res *ReadResult, o ReadOptions, r lineRange) *lineCopy {
	c := &lineCopy{s: s, res: res, o: o, r: r, line: r.start, pos: r.off,
		limitLines: int64(o.MaxLines), keep: o.MaxLineLength + utf8.UTFMax + 1}
	if !r.numbered {
		c.limitLines = min(c.limitLines, r.want)
	} else if r.want > 0 {
		c.limitLines = min(c.limitLines, r.want-r.start+1)
	}
	c.width = len(strconv.FormatInt(r.start+c.limitLines-1, 10))
	c.cur = make([]byte, 0, min(c.keep, 4096))
	return c
}

// run reads chunks from the start offset and emits each line, until the end of the file, the
// line limit or a cap.
func (c *lineCopy) run() error {
	s := c.s
	for {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		n, err := s.f.ReadAt(s.buf, c.pos)
		if n == 0 {
			if err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("read_file %s: %w", c.res.Path, err)
			}
			c.atEOF = true
			if c.curLen > 0 && !c.emit() {
				c.stopped = true
			}
			break
		}
		if c.chunkLines(s.buf[:n]) {
			break
		}
	}
	if c.pos >= s.size {
		c.atEOF = true
	}
	return nil
}

// chunkLines takes the lines of one chunk; it reports whether the read is done.
func (c *lineCopy) chunkLines(chunk []byte) bool {
	for len(chunk) > 0 {
		j := bytes.IndexByte(chunk, '\n')
		seg := chunk
		if j >= 0 {
			seg = chunk[:j]
		}
		if room := c.keep - len(c.cur); room > 0 {
			c.cur = append(c.cur, seg[:min(len(seg), room)]...)
		}
		c.curLen += int64(len(seg))
		if j < 0 {
			c.pos += int64(len(chunk))
			return false
		}
		c.pos += int64(j + 1)
		chunk = chunk[j+1:]
		if !c.emit() {
			c.stopped = true
			return true
		}
		if c.r.numbered {
			c.s.ix.note(c.line+1, c.pos)
		}
		c.line++
		c.cur, c.curLen = c.cur[:0], 0
		if c.lines >= c.limitLines {
			return true
		}
	}
	return false
}

// emit adds the current line to the text (numbered, cut at the line length, made valid
// UTF-8); it reports false, adding nothing, when the line would pass the byte cap.
func (c *lineCopy) emit() bool {
	o, res := c.o, c.res
	body := c.cur
	if bytes.HasSuffix(body, []byte{'\r'}) && int64(len(body)) == c.curLen {
		body = body[:len(body)-1]
		res.CRLF = true
	}
	cut := c.curLen > int64(o.MaxLineLength)
	if cut {
		body = body[:min(len(body), o.MaxLineLength)]
		// Do not split a multi-byte character at the cut.
		for i := 0; i < utf8.UTFMax-1 && len(body) > 0; i++ {
			if r, n := utf8.DecodeLastRune(body); r != utf8.RuneError || n > 1 {
				break
			}
			body = body[:len(body)-1]
		}
	}
	var lb strings.Builder
	if c.lines > 0 {
		lb.WriteByte('\n')
	}
	if o.LineNumbers && c.r.numbered {
		num := strconv.FormatInt(c.line, 10)
		lb.WriteString(strings.Repeat(" ", max(c.width-len(num), 0)))
		lb.WriteString(num)
		lb.WriteByte('\t')
	}
	if utf8.Valid(body) {
		lb.Write(body)
	} else {
		res.InvalidUTF8 = true
		lb.WriteString(strings.ToValidUTF8(string(body), "\uFFFD"))
	}
	if cut {
		res.LinesCut++
		fmt.Fprintf(&lb, " … [line cut: %d bytes]", c.curLen)
	}
	if c.text.Len()+lb.Len() > o.MaxBytes && c.lines > 0 {
		return false
	}
	c.text.WriteString(lb.String())
	c.lines++
	c.lastLine = c.line
	return true
}

// describeNumbered says, for a numbered read, which lines came, how many the file has (counted
// now if little is left), and where to go on.
func (c *lineCopy) describeNumbered() {
	s, res := c.s, c.res
	if c.lines > 0 {
		res.FirstLine, res.LastLine = c.r.start, c.lastLine
	}
	if c.atEOF && !c.stopped {
		s.finish(c.line - 1)
	} else {
		s.countRest(s.countBudget)
	}
	if s.ix.complete {
		res.TotalLines = s.ix.total
		res.EOF = res.LastLine >= s.ix.total
	}
	// Truncated: the caller's range (or the rest of the file, for an
	// open range) goes on after what we returned.
	if !res.EOF && (c.r.want == 0 || res.LastLine < c.r.want) {
		res.Truncated = true
		res.NextLine = res.LastLine + 1
	}
	if res.TotalLines < 0 && s.ix.furthest.off > 0 {
		res.EstimatedTotalLines = int64(float64(s.ix.furthest.line-1) * float64(s.size) / float64(s.ix.furthest.off))
	}
}
