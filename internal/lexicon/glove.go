package lexicon

import (
	_ "embed"
	"encoding/binary"
	"math"
	"sync"
)

// gloveBlob is data/glove-100d.bin (see ../convert). It lives in the binary's read-only data
// and is paged in by the OS only when read.
//
//go:embed data/glove-100d.bin
var gloveBlob []byte

// VectorDim is the dimension of the word vectors.
const VectorDim = 100

// vectors is the decoded word table: the word → rank map is built on first use; vectors are
// read from the blob in place.
type vectors struct {
	once  sync.Once
	rank  map[string]int32
	dim   int
	base  int // offset of the first vector record
	count int
}

var glove vectors

func (v *vectors) load() {
	v.once.Do(func() {
		b := gloveBlob
		if len(b) < 16 || string(b[:8]) != "GLOVE100" {
			return
		}
		n := int(binary.LittleEndian.Uint32(b[8:]))
		v.dim = int(binary.LittleEndian.Uint32(b[12:]))
		v.rank = make(map[string]int32, n)
		off := 16
		for i := range n {
			l := int(b[off])
			v.rank[string(b[off+1:off+1+l])] = int32(i)
			off += 1 + l
		}
		v.base, v.count = off, n
	})
}

// Vector returns the unit word vector of a lower-case word, or nil when the table lacks it.
// The returned slice is shared: read it, never change it.
func Vector(word string) []float32 {
	if v, ok := decoded.get(word); ok {
		return v
	}
	v := decode(word)
	decoded.put(word, v)
	return v
}

// decoded memoises decoded vectors (nil for words the table lacks).
var decoded memo[[]float32]

func decode(word string) []float32 {
	glove.load()
	r, ok := glove.rank[word]
	if !ok {
		return nil
	}
	rec := glove.base + int(r)*(4+glove.dim)
	scale := math.Float32frombits(binary.LittleEndian.Uint32(gloveBlob[rec:]))
	out := make([]float32, glove.dim)
	for i := range out {
		out[i] = float32(int8(gloveBlob[rec+4+i])) * scale
	}
	return unit(out)
}

// unit scales v in place to length 1; nil when v is zero.
func unit(v []float32) []float32 {
	var n float32
	for _, x := range v {
		n += x * x
	}
	if n == 0 {
		return nil
	}
	inv := 1 / float32(math.Sqrt(float64(n)))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// Frequency estimates a word's relative frequency in English text from its rank in the vector
// table (Zipf's law: f ≈ 0.1 / rank); words outside the table get the frequency of the last
// rank. It feeds the SIF weights a / (a + f).
func Frequency(word string) float64 {
	glove.load()
	r, ok := glove.rank[word]
	if !ok {
		r = int32(glove.count)
	}
	return 0.1 / float64(r+10)
}

// Common reports whether a lower-case word is among the 20,000 most frequent English words
// of the vector table ("owner", "backups": yes; "globex", "kubernetes": no).
func Common(word string) bool {
	glove.load()
	r, ok := glove.rank[word]
	return ok && r < 20000
}

// SIFWeight is the smooth inverse frequency weight of a word (Arora et al., 2017) with a = 1e-3:
// near 1 for rare words, small for the most frequent ones.
func SIFWeight(word string) float64 {
	const a = 1e-3
	return a / (a + Frequency(word))
}

// SentenceVector is the SIF-weighted mean of the words' vectors, normalised; nil when no word
// has a vector.
func SentenceVector(words []string) []float32 {
	var sum []float32
	for _, w := range words {
		v := Vector(w)
		if v == nil {
			continue
		}
		if sum == nil {
			sum = make([]float32, len(v))
		}
		wt := float32(SIFWeight(w))
		for i, x := range v {
			sum[i] += wt * x
		}
	}
	if sum == nil {
		return nil
	}
	return unit(sum)
}

// Dot is the dot product of two equal-length vectors.
func Dot(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
