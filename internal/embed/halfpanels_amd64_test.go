//go:build amd64 && !purego

package embed

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// TestHalfPanelsSameBits checks that a layer kept as float16 panels (dense.wh) gives the same
// bits as the same weights decoded to float32 panels, on every row count the blocking
// distinguishes and on the widths of USE-Lite's layers: the search ranking must not move.
func TestHalfPanelsSameBits(t *testing.T) {
	if !halfPanels() {
		if os.Getenv("CI") != "" {
			t.Fatal("this CPU has no AVX2, FMA or F16C: CI must run where the float16 kernels run, or they go untested")
		}
		t.Skip("this CPU has no F16C")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	half := halfTable()
	for _, shape := range [][2]int{{256, 768}, {512, 1536}, {1536, 512}, {48, 16}} {
		in, out := shape[0], shape[1]
		raw := make([]byte, 2*in*out)
		for i := range in * out {
			// Every bit pattern but infinities and NaNs, subnormals included.
			h := uint16(rng.IntN(1 << 16))
			for h&0x7c00 == 0x7c00 {
				h = uint16(rng.IntN(1 << 16))
			}
			binary.LittleEndian.PutUint16(raw[2*i:], h)
		}
		tensor := rawTensor{shape: []int{in, out}, dtype: 2, raw: raw}
		b := make([]float32, out)
		for i := range b {
			b[i] = rng.Float32()
		}
		full := &dense{in: in, out: out, wp: tensor.decodePanels(half, in, out), b: b}
		halved := &dense{in: in, out: out, wh: tensor.halfPanels(in, out), b: b}
		for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 40} {
			t.Run(fmt.Sprintf("%dx%d/n=%d", in, out, n), func(t *testing.T) {
				x := make([]float32, n*in)
				for i := range x {
					x[i] = rng.Float32()*2 - 1
				}
				want, got := make([]float32, n*out), make([]float32, n*out)
				if !full.applyFast(x, n, want) || !halved.applyFast(x, n, got) {
					t.Fatal("the vector kernel did not run")
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("element %d: float16 panels %g, float32 panels %g", i, got[i], want[i])
					}
				}
			})
		}
	}
}
