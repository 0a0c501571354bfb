package embed

// Dot is the dot product of a and b (b at least as long as a), with the AVX2/FMA kernel where
// the CPU has it and the length suits it; for the unit vectors embedders return it is their
// cosine. A vector index scanning stored vectors for a query uses it or Dot4.
func Dot(a, b []float32) float32 { return dot1(a, b[:len(a)]) }

// Dot4 computes the dot products of q with x0..x3 (each at least as long as q) into out, with
// the AVX2/FMA kernel where it applies: q is read once for four stored vectors.
func Dot4(q, x0, x1, x2, x3 []float32, out *[4]float32) {
	n := len(q)
	dot4(q, x0[:n], x1[:n], x2[:n], x3[:n], out)
}
