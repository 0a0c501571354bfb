package embed

// Float16 copies of stored vectors, for a vector index that scans half the bytes and rescores
// its best candidates with the float32 vectors (see internal/memory's slab index).

// HalfAvailable says whether ToHalf, FromHalf and Dot4Half run here (AVX2, FMA and F16C, not
// under -tags purego). Where they do not, an index keeps to its float32 vectors.
func HalfAvailable() bool { return halfPanels() }

// ToHalf writes the float16 nearest each element of v into dst (ties to even, infinity
// beyond the range). len(v) must be a multiple of 8 and dst at least as long; it panics
// where HalfAvailable is false.
func ToHalf(v []float32, dst []uint16) {
	if len(v) == 0 {
		return
	}
	if !HalfAvailable() || len(v)%8 != 0 {
		panic("embed: ToHalf without F16C or on a length not a multiple of 8")
	}
	_ = dst[len(v)-1]
	floatToHalfAVX(&v[0], &dst[0], len(v))
}

// FromHalf writes the float32 value of each float16 of h into dst. len(h) must be a multiple
// of 16 and dst at least as long; it panics where HalfAvailable is false.
func FromHalf(h []uint16, dst []float32) {
	if len(h) == 0 {
		return
	}
	if !HalfAvailable() || len(h)%16 != 0 {
		panic("embed: FromHalf without F16C or on a length not a multiple of 16")
	}
	_ = dst[len(h)-1]
	halfToFloatAVX(&h[0], &dst[0], len(h))
}

// Dot4Half computes the dot products of q with the float16 vectors h0..h3 (each at least as
// long as q) into out. len(q) must be a positive multiple of 16; it panics where
// HalfAvailable is false.
func Dot4Half(q []float32, h0, h1, h2, h3 []uint16, out *[4]float32) {
	n := len(q)
	if !HalfAvailable() || n == 0 || n%16 != 0 {
		panic("embed: Dot4Half without F16C or on a length not a positive multiple of 16")
	}
	_, _, _, _ = h0[n-1], h1[n-1], h2[n-1], h3[n-1]
	dot4HalfAVX(&q[0], &h0[0], &h1[0], &h2[0], &h3[0], n, out)
}
