package embed

import "math"

// The reference kernels are the forward pass as it was before the blocked dense layers and the
// vector attention (b3ffb0a): the fast kernels must give the same vectors (to float rounding,
// TestKernelsMatchReference), and BenchmarkEmbedChunks here and memory's BenchmarkImport measure
// both in one run.

var referenceKernels = kernels{apply: (*dense).applyRef, attend: attentionRef, norm: layerNormRef}

// applyRef is dense.apply without cache blocking: every group of four rows passes over all the
// weights (on amd64 with AVX2; elsewhere the portable loop, as before).
func (d *dense) applyRef(x []float32, n int, y []float32) {
	in, out := d.in, d.out
	if n == 0 || d.wT == nil || in%32 != 0 {
		d.applyGo(x, n, y)
		return
	}
	wT, b := d.wT[:in*out], d.b[:out]
	var acc [4]float32
	r := 0
	for ; r+4 <= n; r += 4 {
		x0, x1, x2, x3 := x[r*in:(r+1)*in], x[(r+1)*in:(r+2)*in], x[(r+2)*in:(r+3)*in], x[(r+3)*in:(r+4)*in]
		for j := range out {
			dot4(wT[j*in:(j+1)*in], x0, x1, x2, x3, &acc)
			bj := b[j]
			y[r*out+j] = acc[0] + bj
			y[(r+1)*out+j] = acc[1] + bj
			y[(r+2)*out+j] = acc[2] + bj
			y[(r+3)*out+j] = acc[3] + bj
		}
	}
	for ; r < n; r++ {
		for j := range out {
			y[r*out+j] = dot1(x[r*in:(r+1)*in], wT[j*in:(j+1)*in]) + b[j]
		}
	}
}

// attentionRef is attention as it was before the vector kernels: one product at a time.
func attentionRef(qkv, att []float32, w *useWork, n, d, heads int, scale float32) {
	depth := d / heads
	stride := 3 * d
	scores := w.scores[:n]
	for hd := range heads {
		qo, ko, vo := hd*depth, d+hd*depth, 2*d+hd*depth
		for i := range n {
			q := qkv[i*stride+qo : i*stride+qo+depth]
			maxS := float32(math.Inf(-1))
			for j := range n {
				k := qkv[j*stride+ko : j*stride+ko+depth]
				k = k[:len(q)]
				var s float32
				for t, qv := range q {
					s += qv * scale * k[t]
				}
				scores[j] = s
				maxS = max(maxS, s)
			}
			var sum float32
			for j, s := range scores {
				e := float32(math.Exp(float64(s - maxS)))
				scores[j] = e
				sum += e
			}
			inv := 1 / sum
			o := att[i*d+qo : i*d+qo+depth]
			clear(o)
			for j, p := range scores {
				p *= inv
				v := qkv[j*stride+vo : j*stride+vo+depth]
				v = v[:len(o)]
				for t := range o {
					o[t] += p * v[t]
				}
			}
		}
	}
}

// layerNormRef is layerNorm with one accumulator, as it was.
func layerNormRef(x, h []float32, n, d int, g, b []float32, eps float32) {
	g, b = g[:d], b[:d]
	for r := range n {
		row := x[r*d : (r+1)*d]
		out := h[r*d : (r+1)*d]
		var mean float64
		for _, v := range row {
			mean += float64(v)
		}
		mean /= float64(d)
		var variance float64
		for _, v := range row {
			dv := float64(v) - mean
			variance += dv * dv
		}
		variance /= float64(d)
		inv := float32(1 / math.Sqrt(variance+float64(eps)))
		mu := float32(mean)
		for i, v := range row {
			out[i] = (v-mu)*inv*g[i] + b[i]
		}
	}
}

// NewUSELiteReference returns the built-in embedder running the reference kernels: the same
// vectors as NewUSELite's (to float rounding), computed as before the blocked dense layers and
// the vector attention, about 2.5 times slower. Nothing in the server uses it; benchmarks outside
// this package (memory's BenchmarkImport) measure the speed-up against it in one run.
func NewUSELiteReference() (*USELite, error) {
	return newWithKernels(referenceKernels)
}

// newWithKernels returns a USE-Lite whose model (a copy of a freshly loaded one) runs k.
func newWithKernels(k kernels) (*USELite, error) {
	m, err := NewUSELite().load()
	if err != nil {
		return nil, err
	}
	copied := *m
	copied.k = k
	if k.apply != nil && m.pool.wT == nil {
		// The reference kernels read transposed weights; this model was loaded for the GEMM
		// kernel, which reads them by row.
		transposeAll(&copied)
	}
	u := NewUSELite()
	u.modelOnce.Do(func() { u.model = &copied })
	return u, nil
}

// transposeAll gives every dense layer of m (a copy) its transposed weights as well.
func transposeAll(m *useModel) {
	half := halfTable()
	tr := func(d dense) dense {
		if d.wT != nil || (d.w == nil && d.wp == nil && d.wh == nil) {
			return d
		}
		d.wT = make([]float32, d.in*d.out)
		for i := range d.in {
			for j := range d.out {
				switch {
				case d.w != nil:
					d.wT[j*d.in+i] = d.w[i*d.out+j]
				case d.wh != nil:
					d.wT[j*d.in+i] = half[d.wh[panelIndex(d.in, i, j)]]
				default:
					d.wT[j*d.in+i] = d.wp[panelIndex(d.in, i, j)]
				}
			}
		}
		return d
	}
	m.pool = tr(m.pool)
	for i := range m.layers {
		l := m.layers[i]
		l.qkv, l.out, l.ffn1, l.ffn2 = tr(l.qkv), tr(l.out), tr(l.ffn1), tr(l.ffn2)
		if l.res != nil {
			r := tr(*l.res)
			l.res = &r
		}
		m.layers[i] = l
	}
}
