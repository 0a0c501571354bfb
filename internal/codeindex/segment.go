package codeindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// A segment holds the trigram postings of a batch of files, on disk and mapped read-only into
// memory (only the pages a query touches count towards the process's resident memory). Layout,
// little-endian:
//
//	magic   "THIDX001"
//	nfiles  uint32, nkeys uint32
//	files   nfiles × uint32: the global id of each local file number
//	keys    nkeys × uint32, sorted: trigrams (24 bits) and defined names (symbolKey)
//	offs    (nkeys+1) × uint32: where each key's postings start in the blob
//	blob    per key, the local file numbers in increasing order as uvarint deltas
//
// Segments never change once written; a file whose content changed is re-indexed into a newer
// segment and the older one's postings for it are ignored (the file table says which segment
// holds a file now).
type segment struct {
	sid   uint32 // serial number: the file table names the segment holding each file
	name  string // the file ("" in memory)
	data  []byte // the mapping (or, for an in-memory segment, the bytes)
	files []byte // views into data
	keys  []byte
	offs  []byte
	blob  []byte
	n     int // files
	nkeys int
}

const segMagic = "THIDX001"

var errBadSegment = errors.New("damaged index segment")

// openSegment maps a segment file.
func openSegment(path string) (*segment, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < int64(len(segMagic)+8) || fi.Size() > 1<<32 {
		return nil, fmt.Errorf("%s: %w", path, errBadSegment)
	}
	data, err := mapFile(f, int(fi.Size()))
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	s, err := parseSegment(data)
	if err != nil {
		unmapFile(data)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.name = path
	return s, nil
}

func parseSegment(data []byte) (*segment, error) {
	if len(data) < len(segMagic)+8 || string(data[:len(segMagic)]) != segMagic {
		return nil, errBadSegment
	}
	p := data[len(segMagic):]
	n := int(binary.LittleEndian.Uint32(p))
	nk := int(binary.LittleEndian.Uint32(p[4:]))
	p = p[8:]
	need := 4*n + 4*nk + 4*(nk+1)
	if n < 0 || nk < 0 || len(p) < need {
		return nil, errBadSegment
	}
	s := &segment{data: data, n: n, nkeys: nk}
	s.files, p = p[:4*n], p[4*n:]
	s.keys, p = p[:4*nk], p[4*nk:]
	s.offs, s.blob = p[:4*(nk+1)], p[4*(nk+1):]
	if int(binary.LittleEndian.Uint32(s.offs[4*nk:])) != len(s.blob) {
		return nil, errBadSegment
	}
	return s, nil
}

func (s *segment) close() {
	if s.name != "" && s.data != nil {
		unmapFile(s.data)
	}
	s.data = nil
}

// global returns the global id of local file number l.
func (s *segment) global(l uint32) uint32 {
	return binary.LittleEndian.Uint32(s.files[4*l:])
}

// postings returns the encoded postings of key t (nil when no file has it).
func (s *segment) postings(t uint32) []byte {
	lo, hi := 0, s.nkeys
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if binary.LittleEndian.Uint32(s.keys[4*m:]) < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == s.nkeys || binary.LittleEndian.Uint32(s.keys[4*lo:]) != t {
		return nil
	}
	a := binary.LittleEndian.Uint32(s.offs[4*lo:])
	b := binary.LittleEndian.Uint32(s.offs[4*lo+4:])
	if a > b || int(b) > len(s.blob) {
		return nil
	}
	return s.blob[a:b]
}

// each calls fn with every local file number in encoded postings p.
func each(p []byte, fn func(uint32)) {
	var cur uint64
	for len(p) > 0 {
		d, n := binary.Uvarint(p)
		if n <= 0 {
			return
		}
		p = p[n:]
		cur += d
		fn(uint32(cur))
	}
}

// segmentBuilder gathers the trigrams of a batch of files and writes them as a segment. Its
// buffers are kept between batches so that building a large index allocates them once.
type segmentBuilder struct {
	globals []uint32 // global id per local file number
	tris    []uint32 // every file's distinct trigrams, file after file
	ends    []int    // end of each file's trigrams in tris
	// scratch for sorting and encoding, shared by the builders of one build
	scratch *encodeScratch
}

// encodeScratch is the memory a segment's encoding needs; builders that take turns share one
// (encodings are serialised by its mutex), which halves a build's peak memory.
type encodeScratch struct {
	mu          sync.Mutex
	packed, tmp []uint64
	keys, offs  []uint32
}

// batchEntries is how many trigram entries a batch holds before it is written (about 80 MB
// of scratch for a builder), which bounds the memory a build needs whatever the tree's size.
const batchEntries = 2 << 20

// newDiskBuilder returns a builder for a build, its batch buffer allocated once.
func newDiskBuilder(sc *encodeScratch) *segmentBuilder {
	return &segmentBuilder{tris: make([]uint32, 0, batchEntries+batchEntries/4), scratch: sc}
}

func (b *segmentBuilder) reset() {
	b.globals, b.tris, b.ends = b.globals[:0], b.tris[:0], b.ends[:0]
}

func (b *segmentBuilder) full() bool { return len(b.tris) >= batchEntries }

func (b *segmentBuilder) add(global uint32, tris []uint32) {
	b.globals = append(b.globals, global)
	b.tris = append(b.tris, tris...)
	b.ends = append(b.ends, len(b.tris))
}

// write writes the batch to path (atomically: a temporary file renamed into place).
func (b *segmentBuilder) write(path string) error {
	return writeAtomic(path, 0o666, b.encode)
}

// memory returns the batch as an in-memory segment (the index's recent changes).
func (b *segmentBuilder) memory() *segment {
	var buf bytes.Buffer
	b.encode(&buf)
	s, err := parseSegment(buf.Bytes())
	if err != nil {
		panic("codeindex: a segment just encoded does not parse: " + err.Error())
	}
	return s
}

// encode sorts the batch's postings and writes the segment to w.
func (b *segmentBuilder) encode(w io.Writer) error {
	// (key, local) pairs, sorted by key with a stable four-pass radix sort on its bytes: the locals of a trigram stay in increasing order, as files were added.
	sc := b.scratch
	if sc == nil {
		sc = &encodeScratch{}
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	n := len(b.tris)
	if cap(sc.packed) < n {
		sc.packed = make([]uint64, n)
		sc.tmp = make([]uint64, n)
	}
	src, dst := sc.packed[:n], sc.tmp[:n]
	start := 0
	k := 0
	for local, end := range b.ends {
		for _, t := range b.tris[start:end] {
			src[k] = uint64(t)<<32 | uint64(local)
			k++
		}
		start = end
	}
	for shift := uint(32); shift < 64; shift += 8 {
		var count [257]int
		for _, v := range src {
			count[(v>>shift)&0xff+1]++
		}
		for i := 1; i <= 256; i++ {
			count[i] += count[i-1]
		}
		for _, v := range src {
			c := (v >> shift) & 0xff
			dst[count[c]] = v
			count[c]++
		}
		src, dst = dst, src
	}
	sorted := src
	// Keys and where their postings start, then the postings themselves.
	sc.keys, sc.offs = sc.keys[:0], sc.offs[:0]
	blobLen := 0
	for i := 0; i < n; {
		t := uint32(sorted[i] >> 32)
		sc.keys = append(sc.keys, t)
		sc.offs = append(sc.offs, uint32(blobLen))
		prev := uint64(0)
		for ; i < n && uint32(sorted[i]>>32) == t; i++ {
			l := sorted[i] & 0xffffffff
			blobLen += uvarintLen(l - prev)
			prev = l
		}
	}
	sc.offs = append(sc.offs, uint32(blobLen))
	bw := bufio.NewWriterSize(w, 1<<20)
	bw.WriteString(segMagic)
	var x [binary.MaxVarintLen64]byte
	put := func(v uint32) {
		binary.LittleEndian.PutUint32(x[:4], v)
		bw.Write(x[:4])
	}
	put(uint32(len(b.globals)))
	put(uint32(len(sc.keys)))
	for _, g := range b.globals {
		put(g)
	}
	for _, k := range sc.keys {
		put(k)
	}
	for _, o := range sc.offs {
		put(o)
	}
	for i := 0; i < n; {
		t := uint32(sorted[i] >> 32)
		prev := uint64(0)
		for ; i < n && uint32(sorted[i]>>32) == t; i++ {
			l := sorted[i] & 0xffffffff
			m := binary.PutUvarint(x[:], l-prev)
			bw.Write(x[:m])
			prev = l
		}
	}
	return bw.Flush()
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}
