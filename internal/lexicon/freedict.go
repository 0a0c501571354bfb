package lexicon

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// DefaultDictDir is where Debian's dict-freedict-* packages put their dictionaries.
const DefaultDictDir = "/usr/share/dictd"

// A dictd dictionary is two files: NAME.index, one line per headword ("key TAB offset TAB
// length", numbers in dictd's base 64, keys lower-cased with punctuation dropped), and
// NAME.dict.dz, the definitions, compressed with dictzip (gzip in independently inflatable
// chunks, so one definition is read without inflating the file).

// dictionary is one dictd dictionary opened for look-ups.
type dictionary struct {
	keys []string // sorted, folded single-word keys
	locs [][]loc  // locs[i]: the definitions of keys[i]
	dz   *dictzip
}

type loc struct{ off, n uint32 }

// openDictionary reads path's index (single-word keys only) and opens its dictzip file.
func openDictionary(path string) (*dictionary, error) {
	f, err := os.Open(path + ".index")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string][]loc{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		k, rest, ok := strings.Cut(line, "\t")
		if !ok || strings.ContainsRune(k, ' ') || strings.HasPrefix(k, "00database") {
			continue
		}
		o, n, ok := strings.Cut(rest, "\t")
		if !ok {
			continue
		}
		off, err1 := b64(o)
		ln, err2 := b64(n)
		if err1 != nil || err2 != nil {
			continue
		}
		k = Fold(k)
		if len(m[k]) < 8 {
			m[k] = append(m[k], loc{uint32(off), uint32(ln)})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	dz, err := openDictzip(path + ".dict.dz")
	if err != nil {
		return nil, err
	}
	d := &dictionary{dz: dz}
	d.keys = make([]string, 0, len(m))
	for k := range m {
		d.keys = append(d.keys, k)
	}
	slices.Sort(d.keys)
	d.locs = make([][]loc, len(d.keys))
	for i, k := range d.keys {
		d.locs[i] = m[k]
	}
	return d, nil
}

// definitions returns the raw definitions of a folded key, those of computing and technical
// senses first (a project's notes are about software: "Speicher" is memory before it is an
// attic).
func (d *dictionary) definitions(key string) []string {
	i, ok := slices.BinarySearch(d.keys, key)
	if !ok {
		return nil
	}
	var tech, other []string
	for _, l := range d.locs[i] {
		b, err := d.dz.read(int64(l.off), int(l.n))
		if err != nil {
			continue
		}
		if def := string(b); strings.Contains(def, "[comp.]") || strings.Contains(def, "[techn.]") || strings.Contains(def, "[telco.]") {
			tech = append(tech, def)
		} else {
			other = append(other, def)
		}
	}
	return append(tech, other...)
}

// b64 decodes dictd's base-64 numbers (A-Z a-z 0-9 + /, most significant digit first).
func b64(s string) (int64, error) {
	var n int64
	for _, c := range []byte(s) {
		var v int64
		switch {
		case c >= 'A' && c <= 'Z':
			v = int64(c - 'A')
		case c >= 'a' && c <= 'z':
			v = int64(c-'a') + 26
		case c >= '0' && c <= '9':
			v = int64(c-'0') + 52
		case c == '+':
			v = 62
		case c == '/':
			v = 63
		default:
			return 0, fmt.Errorf("bad base-64 digit %q", c)
		}
		n = n*64 + v
	}
	return n, nil
}

// translations parses a FreeDict definition: the first line is the headword with its
// pronunciation and part of speech, then numbered or comma-separated translations; lines that
// start with white space are notes, synonyms and cross-references.
func translations(def string) []string {
	var out []string
	lines := strings.Split(def, "\n")
	for _, line := range lines[1:] {
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '"' || t[0] == '{' || strings.HasPrefix(t, "Note:") || strings.HasPrefix(t, "Synonym") ||
			strings.HasPrefix(t, "see:") || strings.HasPrefix(t, "Example") || strings.HasPrefix(t, "Antonym") {
			continue
		}
		line = strings.TrimLeftFunc(line, func(r rune) bool { return unicode.IsDigit(r) || r == '.' || r == ' ' })
		line = dropBracketed(line)
		for _, part := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ';' || r == '–' }) {
			part = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(part), "to "))
			if part != "" {
				out = append(out, strings.ToLower(part))
			}
		}
	}
	return out
}

// dropBracketed removes <...>, [...] and (...) spans.
func dropBracketed(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch r {
		case '<', '[', '(':
			depth++
		case '>', ']', ')':
			if depth > 0 {
				depth--
			}
		default:
			if depth == 0 {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// dictzip gives random access to a dictzip file: a gzip member whose header's "RA" extra field
// lists the compressed sizes of chunks of chunkLen uncompressed bytes, each flushed so that it
// inflates on its own.
type dictzip struct {
	f        *os.File
	chunkLen int
	starts   []int64 // file offset of each chunk, and the end
	mu       sync.Mutex
	last     int
	lastData []byte
}

var errNotDictzip = errors.New("not a dictzip file")

func openDictzip(path string) (*dictzip, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	hdr := make([]byte, 12)
	if _, err := io.ReadFull(f, hdr); err != nil || hdr[0] != 0x1f || hdr[1] != 0x8b || hdr[3]&4 == 0 {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, errNotDictzip)
	}
	flg := hdr[3]
	xlen := int(binary.LittleEndian.Uint16(hdr[10:]))
	extra := make([]byte, xlen)
	if _, err := io.ReadFull(f, extra); err != nil {
		f.Close()
		return nil, err
	}
	pos := int64(12 + xlen)
	dz := &dictzip{f: f, last: -1}
	for p := 0; p+4 <= len(extra); {
		si1, si2, n := extra[p], extra[p+1], int(binary.LittleEndian.Uint16(extra[p+2:]))
		body := extra[p+4 : min(p+4+n, len(extra))]
		if si1 == 'R' && si2 == 'A' && len(body) >= 6 {
			dz.chunkLen = int(binary.LittleEndian.Uint16(body[2:]))
			cnt := int(binary.LittleEndian.Uint16(body[4:]))
			sizes := body[6:]
			if len(sizes) < 2*cnt {
				f.Close()
				return nil, fmt.Errorf("%s: %w", path, errNotDictzip)
			}
			dz.starts = make([]int64, cnt+1)
			for i := range cnt {
				dz.starts[i+1] = dz.starts[i] + int64(binary.LittleEndian.Uint16(sizes[2*i:]))
			}
		}
		p += 4 + n
	}
	if dz.chunkLen == 0 {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, errNotDictzip)
	}
	// Skip the file name and comment, and the header CRC.
	r := bufio.NewReader(io.NewSectionReader(f, pos, 1<<16))
	for _, bit := range []byte{8, 16} {
		if flg&bit != 0 {
			s, err := r.ReadBytes(0)
			if err != nil {
				f.Close()
				return nil, err
			}
			pos += int64(len(s))
		}
	}
	if flg&2 != 0 {
		pos += 2
	}
	for i := range dz.starts {
		dz.starts[i] += pos
	}
	return dz, nil
}

// chunk inflates chunk i (the last one read is kept).
func (dz *dictzip) chunk(i int) ([]byte, error) {
	if i == dz.last {
		return dz.lastData, nil
	}
	if i < 0 || i+1 >= len(dz.starts) {
		return nil, io.EOF
	}
	raw := make([]byte, dz.starts[i+1]-dz.starts[i])
	if _, err := dz.f.ReadAt(raw, dz.starts[i]); err != nil {
		return nil, err
	}
	out, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(raw)), int64(dz.chunkLen)))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	dz.last, dz.lastData = i, out
	return out, nil
}

// read returns n uncompressed bytes from offset off.
func (dz *dictzip) read(off int64, n int) ([]byte, error) {
	dz.mu.Lock()
	defer dz.mu.Unlock()
	out := make([]byte, 0, n)
	for len(out) < n {
		i := int(off / int64(dz.chunkLen))
		c, err := dz.chunk(i)
		if err != nil {
			return nil, err
		}
		start := int(off % int64(dz.chunkLen))
		if start >= len(c) {
			return nil, io.ErrUnexpectedEOF
		}
		take := min(n-len(out), len(c)-start)
		out = append(out, c[start:start+take]...)
		off += int64(take)
	}
	return out, nil
}

// dictFile names the dictionary of FreeDict pair "deu-eng" under dir.
func dictFile(dir, pair string) string { return filepath.Join(dir, "freedict-"+pair) }
