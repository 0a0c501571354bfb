package embed

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestDenseKernelsAgree compares the vector kernel (if this CPU and build have one) with the
// portable Go loops on every row count the blocking distinguishes.
func TestDenseKernelsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shape := range [][2]int{{256, 768}, {512, 1536}, {1536, 512}, {48, 8}, {48, 80}, {3, 16}, {300, 32}} {
		in, out := shape[0], shape[1]
		d := &dense{in: in, out: out, w: make([]float32, in*out), wT: make([]float32, in*out), b: make([]float32, out)}
		for i := range in {
			for j := range out {
				v := rng.Float32()*2 - 1
				d.w[i*out+j], d.wT[j*in+i] = v, v
			}
		}
		if out%panelWidth == 0 {
			d.wp = packPanels(d.w, in, out)
		}
		for i := range d.b {
			d.b[i] = rng.Float32()
		}
		for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13} {
			t.Run(fmt.Sprintf("%dx%d/n=%d", in, out, n), func(t *testing.T) {
				x := make([]float32, n*in)
				for i := range x {
					x[i] = rng.Float32()*2 - 1
				}
				fast := make([]float32, n*out)
				if !d.applyFast(x, n, fast) {
					t.Skip("no vector kernel for this CPU, build or shape")
				}
				slow := make([]float32, n*out)
				d.applyGo(x, n, slow)
				byRow := make([]float32, n*out)
				d.applyGoByRow(x, n, byRow)
				for i := range byRow {
					if diff := math.Abs(float64(byRow[i] - slow[i])); diff > 1e-3*(1+math.Abs(float64(slow[i]))) {
						t.Fatalf("element %d: Go kernel by row %g, transposed %g", i, byRow[i], slow[i])
					}
				}
				for i := range fast {
					if diff := math.Abs(float64(fast[i] - slow[i])); diff > 1e-3*(1+math.Abs(float64(slow[i]))) {
						t.Fatalf("element %d: vector kernel %g, Go kernel %g", i, fast[i], slow[i])
					}
				}
			})
		}
	}
}

// TestAttentionKernelsAgree compares attention (the GEMM kernel where this CPU and build have
// it) with the reference on the sequence lengths its blocking and padding distinguish, for both
// layers' head depths.
func TestAttentionKernelsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w := newUSEWork()
	for _, d := range []int{useEmbDim, useModelDim} {
		for _, n := range []int{1, 2, 4, 5, 6, 7, 12, 13, 31, 32, 33, 90, 127, 128} {
			t.Run(fmt.Sprintf("d=%d/n=%d", d, n), func(t *testing.T) {
				qkv := make([]float32, n*3*d)
				for i := range qkv {
					qkv[i] = rng.Float32()*4 - 2
				}
				got, want := make([]float32, n*d), make([]float32, n*d)
				attention(qkv, got, w, n, d, useHeads, 0.125)
				attentionRef(qkv, want, w, n, d, useHeads, 0.125)
				for i := range want {
					if diff := math.Abs(float64(got[i] - want[i])); diff > 1e-5*(1+math.Abs(float64(want[i]))) {
						t.Fatalf("element %d (row %d): attention %g, reference %g", i, i/d, got[i], want[i])
					}
				}
			})
		}
	}
}
