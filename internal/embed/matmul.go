package embed

// apply computes y = x·W + b for n rows of x (each d.in wide) into y (n × d.out), with AVX2/FMA
// assembly where the CPU has it (see matmul_amd64.go) and plain Go otherwise.
//
// The Go kernel works on four rows at a time (dot4Go): each transposed weight row is loaded once
// and multiplied into four independent accumulators, which both quarters the weight traffic and
// breaks the add dependency chain that limits a single dot product. Leftover rows use a dot
// product unrolled by four.
func (d *dense) apply(x []float32, n int, y []float32) {
	if n > 0 && d.applyFast(x, n, y) {
		return
	}
	if d.wT == nil {
		d.applyGoByRow(x, n, y)
		return
	}
	d.applyGo(x, n, y)
}

// panelWidth is how many output columns one call of the GEMM kernel computes.
const panelWidth = 16

// packPanels returns w (in × out, by input row; out a multiple of panelWidth) as out/16 panels:
// the in × 16 block of each group of 16 columns, stored contiguously by row. The GEMM kernel
// then reads its weights as one sequential stream, which the prefetchers follow and which
// spreads over all cache sets, where the rows of the full matrix are 2 to 6 KiB apart and fall
// into a few sets.
func packPanels(w []float32, in, out int) []float32 {
	p := make([]float32, in*out)
	for k := range in {
		for j := range out {
			p[panelIndex(in, k, j)] = w[k*out+j]
		}
	}
	return p
}

// panelIndex is where weight (k, j) of an in-row matrix lies in its panels.
func panelIndex(in, k, j int) int {
	return (j/panelWidth)*in*panelWidth + k*panelWidth + j%panelWidth
}

// applyGoByRow is the portable kernel for weights laid out by input row, for a layer the vector
// kernel does not take (which no USE-Lite layer is).
func (d *dense) applyGoByRow(x []float32, n int, y []float32) {
	in, out := d.in, d.out
	w, b := d.w[:in*out], d.b[:out]
	for r := range n {
		yr := y[r*out : (r+1)*out]
		copy(yr, b)
		for k, xk := range x[r*in : (r+1)*in] {
			for j, wkj := range w[k*out : (k+1)*out] {
				yr[j] += xk * wkj
			}
		}
	}
}

// applyGo is the portable kernel, used where no vector kernel applies.
func (d *dense) applyGo(x []float32, n int, y []float32) {
	in, out := d.in, d.out
	wT, b := d.wT[:in*out], d.b[:out]
	r := 0
	for ; r+4 <= n; r += 4 {
		x0 := x[r*in : (r+1)*in]
		x1 := x[(r+1)*in : (r+2)*in]
		x2 := x[(r+2)*in : (r+3)*in]
		x3 := x[(r+3)*in : (r+4)*in]
		y0 := y[r*out : (r+1)*out]
		y1 := y[(r+1)*out : (r+2)*out]
		y2 := y[(r+2)*out : (r+3)*out]
		y3 := y[(r+3)*out : (r+4)*out]
		var acc [4]float32
		for j := range out {
			dot4Go(wT[j*in:(j+1)*in], x0, x1, x2, x3, &acc)
			bj := b[j]
			y0[j] = acc[0] + bj
			y1[j] = acc[1] + bj
			y2[j] = acc[2] + bj
			y3[j] = acc[3] + bj
		}
	}
	for ; r < n; r++ {
		xr := x[r*in : (r+1)*in]
		yr := y[r*out : (r+1)*out]
		for j := range out {
			yr[j] = dot(xr, wT[j*in:(j+1)*in]) + b[j]
		}
	}
}

// dot is an inner product unrolled by four with independent accumulators. The loop reslices
// instead of indexing ahead so that the compiler drops the bounds checks.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	for len(a) >= 4 && len(b) >= 4 {
		s0 += a[0] * b[0]
		s1 += a[1] * b[1]
		s2 += a[2] * b[2]
		s3 += a[3] * b[3]
		a, b = a[4:], b[4:]
	}
	for i, v := range a {
		s0 += v * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}
