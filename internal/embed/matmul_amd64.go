//go:build amd64 && !purego

package embed

import "golang.org/x/sys/cpu"

// hasAVX2FMA selects the vector kernels from the CPUID bits x/sys/cpu reads at start-up; build with
// -tags purego to use the portable Go loops everywhere.
func hasAVX2FMA() bool { return cpu.X86.HasAVX2 && cpu.X86.HasFMA }

//go:noescape
func dot4AVX(w, x0, x1, x2, x3 *float32, n int, out *[4]float32)

//go:noescape
func dot1AVX(a, b *float32, n int) float32

//go:noescape
func gemm4x16AVX(x *float32, ldx int, w *float32, ldw int, k int, b *float32, y *float32, ldy int)

//go:noescape
func gemm6x16AVX(x *float32, ldx int, w *float32, ldw int, k int, b *float32, y *float32, ldy int)

//go:noescape
func gemm1x16AVX(x *float32, w *float32, ldw int, k int, b *float32, y *float32)

// weightsByRow says how loadUSEModel should lay out dense weights: by input row (in × out, for
// the GEMM kernels below) where they run, else transposed (for the portable dot products).
func weightsByRow() bool { return hasAVX2FMA() }

// gemmCols is how many output columns one pass over all rows works on: 16 at a time per kernel
// call, 64 per pass, so that the 64 columns of weights (in × 64 floats: 128 KiB at in=512) stay
// in the L2 cache while every group of four rows is multiplied with them. Passing all of a
// 3 MiB layer per group of four rows, as the dot-product kernel did, made the dense layers wait
// on L3.
const gemmCols = 64

// applyFast is dense.apply with AVX2/FMA kernels. It reports false, doing nothing, when the CPU,
// the weights' layout or the layer's width does not suit them.
func (d *dense) applyFast(x []float32, n int, y []float32) bool {
	in, out := d.in, d.out
	if !hasAVX2FMA() || len(d.w) != in*out || out%16 != 0 || in == 0 {
		return false
	}
	w, b := d.w[:in*out], d.b[:out]
	x, y = x[:n*in], y[:n*out]
	for c0 := 0; c0 < out; c0 += gemmCols {
		c1 := min(c0+gemmCols, out)
		r := 0
		for ; r+6 <= n; r += 6 {
			for c := c0; c < c1; c += 16 {
				gemm6x16AVX(&x[r*in], in, &w[c], out, in, &b[c], &y[r*out+c], out)
			}
		}
		if r+4 <= n {
			for c := c0; c < c1; c += 16 {
				gemm4x16AVX(&x[r*in], in, &w[c], out, in, &b[c], &y[r*out+c], out)
			}
			r += 4
		}
		for ; r < n; r++ {
			for c := c0; c < c1; c += 16 {
				gemm1x16AVX(&x[r*in], &w[c], out, in, &b[c], &y[r*out+c])
			}
		}
	}
	return true
}

// dot4 computes four dot products of w with x0..x3, with dot4AVX where it applies.
func dot4(w, x0, x1, x2, x3 []float32, out *[4]float32) {
	if n := len(w); hasAVX2FMA() && n%16 == 0 && n > 0 {
		_, _, _, _ = x0[n-1], x1[n-1], x2[n-1], x3[n-1]
		dot4AVX(&w[0], &x0[0], &x1[0], &x2[0], &x3[0], n, out)
		return
	}
	dot4Go(w, x0, x1, x2, x3, out)
}

// dot1 is one dot product, with dot1AVX where it applies.
func dot1(a, b []float32) float32 {
	if n := len(a); hasAVX2FMA() && n%32 == 0 && n > 0 {
		_ = b[n-1]
		return dot1AVX(&a[0], &b[0], n)
	}
	return dot(a, b)
}
