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

// applyFast is dense.apply with AVX2/FMA kernels. It reports false, doing nothing, when the CPU
// or the layer's width does not suit them.
func (d *dense) applyFast(x []float32, n int, y []float32) bool {
	in, out := d.in, d.out
	if !hasAVX2FMA() || in%32 != 0 || in == 0 {
		return false
	}
	wT, b := d.wT[:in*out], d.b[:out]
	x, y = x[:n*in], y[:n*out]
	var acc [4]float32
	r := 0
	for ; r+4 <= n; r += 4 {
		x0, x1, x2, x3 := &x[r*in], &x[(r+1)*in], &x[(r+2)*in], &x[(r+3)*in]
		for j := range out {
			dot4AVX(&wT[j*in], x0, x1, x2, x3, in, &acc)
			bj := b[j]
			y[r*out+j] = acc[0] + bj
			y[(r+1)*out+j] = acc[1] + bj
			y[(r+2)*out+j] = acc[2] + bj
			y[(r+3)*out+j] = acc[3] + bj
		}
	}
	for ; r < n; r++ {
		xr := &x[r*in]
		for j := range out {
			y[r*out+j] = dot1AVX(xr, &wT[j*in], in) + b[j]
		}
	}
	return true
}
