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
