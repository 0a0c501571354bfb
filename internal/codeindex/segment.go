package codeindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"golang.org/x/sys/unix"
)

// A segment holds the trigram postings of a batch of files, on disk and mapped read-only into
// memory (only the pages a query touches count towards the process's resident memory). Layout,
// little-endian:
//
//	magic   "THIDX001"
//	nfiles  uint32, nkeys uint32
//	files   nfiles × uint32: the global id of each local file number
//	keys    nkeys × uint32, sorted: trigrams (24 bits)
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
	data, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map %s: %w", path, err)
	}
	s, err := parseSegment(data)
	if err != nil {
		unix.Munmap(data)
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
		unix.Munmap(s.data)
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
	// sorting scratch
	packed  []uint64
	buckets []uint32
}

// limit is how many trigram entries a batch holds before it is written (about 64 MB of
// scratch), which bounds the memory a build needs whatever the tree's size.
const batchEntries = 8 << 20

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
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = b.encode(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
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
	// Sort (trigram, local) pairs: bucket by the trigram's top 16 bits, then sort each bucket.
	const nb = 1 << 16
	if b.buckets == nil {
		b.buckets = make([]uint32, nb+1)
	}
	clear(b.buckets)
	for _, t := range b.tris {
		b.buckets[t>>8+1]++
	}
	for i := 1; i <= nb; i++ {
		b.buckets[i] += b.buckets[i-1]
	}
	if cap(b.packed) < len(b.tris) {
		b.packed = make([]uint64, len(b.tris))
	}
	packed := b.packed[:len(b.tris)]
	next := slices.Clone(b.buckets[:nb])
	start := 0
	for local, end := range b.ends {
		for _, t := range b.tris[start:end] {
			packed[next[t>>8]] = uint64(t)<<32 | uint64(local)
			next[t>>8]++
		}
		start = end
	}
	for i := 0; i < nb; i++ {
		if bk := packed[b.buckets[i]:b.buckets[i+1]]; len(bk) > 1 {
			slices.Sort(bk)
		}
	}

	var keys, offs []uint32
	var blob []byte
	var vb [binary.MaxVarintLen64]byte
	for i := 0; i < len(packed); {
		t := uint32(packed[i] >> 32)
		keys = append(keys, t)
		offs = append(offs, uint32(len(blob)))
		prev := uint64(0)
		for ; i < len(packed) && uint32(packed[i]>>32) == t; i++ {
			l := packed[i] & 0xffffffff
			n := binary.PutUvarint(vb[:], l-prev)
			blob = append(blob, vb[:n]...)
			prev = l
		}
	}
	offs = append(offs, uint32(len(blob)))
	bw := bufio.NewWriter(w)
	bw.WriteString(segMagic)
	put := func(v uint32) {
		var x [4]byte
		binary.LittleEndian.PutUint32(x[:], v)
		bw.Write(x[:])
	}
	put(uint32(len(b.globals)))
	put(uint32(len(keys)))
	for _, g := range b.globals {
		put(g)
	}
	for _, k := range keys {
		put(k)
	}
	for _, o := range offs {
		put(o)
	}
	bw.Write(blob)
	return bw.Flush()
}
