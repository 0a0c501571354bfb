package embed

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDot checks Dot and Dot4 against a float64 sum on lengths the vector kernels take (a
// multiple of 16 or 32) and lengths they leave to the portable loop.
func TestDot(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vec := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = r.Float32()*2 - 1
		}
		return v
	}
	ref := func(a, b []float32) float64 {
		var s float64
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	for _, n := range []int{1, 15, 16, 17, 31, 32, 33, 100, 512, 1024} {
		q := vec(n)
		xs := [4][]float32{vec(n), vec(n), vec(n + 3), vec(n)} // a longer one: only its first n count
		if got, want := float64(Dot(q, xs[2])), ref(q, xs[2][:n]); math.Abs(got-want) > 1e-4*float64(n) {
			t.Errorf("n=%d: Dot = %v, want %v", n, got, want)
		}
		var out [4]float32
		Dot4(q, xs[0], xs[1], xs[2], xs[3], &out)
		for k := range out {
			if got, want := float64(out[k]), ref(q, xs[k][:n]); math.Abs(got-want) > 1e-4*float64(n) {
				t.Errorf("n=%d: Dot4[%d] = %v, want %v", n, k, got, want)
			}
		}
	}
}
