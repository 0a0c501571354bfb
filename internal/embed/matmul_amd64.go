//go:build amd64 && !purego

package embed

import (
	"sync"

	"golang.org/x/sys/cpu"
)

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
func expSumAVX(x *float32, n int, scale, shift float32) float32

//go:noescape
func gemm1x16AVX(x *float32, w *float32, ldw int, k int, b *float32, y *float32)

// weightsByRow says how loadUSEModel should lay out dense weights: by input row (in × out, for
// the GEMM kernels below) where they run, else transposed (for the portable dot products).
func weightsByRow() bool { return hasAVX2FMA() }

// halfPanels says whether loadUSEModel may keep float16 weights as float16 panels (dense.wh),
// which gemmPanelsHalf converts with F16C.
func halfPanels() bool { return hasAVX2FMA() && cpu.X86.HasF16C }

//go:noescape
func halfToFloatAVX(src *uint16, dst *float32, n int)

//go:noescape
func floatToHalfAVX(src *float32, dst *uint16, n int)

//go:noescape
func dot4HalfAVX(q *float32, h0, h1, h2, h3 *uint16, n int, out *[4]float32)

// applyFast is dense.apply with AVX2/FMA kernels. It reports false, doing nothing, when the CPU,
// the weights' layout or the layer's width does not suit them.
func (d *dense) applyFast(x []float32, n int, y []float32) bool {
	in, out := d.in, d.out
	if !hasAVX2FMA() || out%panelWidth != 0 || in == 0 {
		return false
	}
	switch {
	case len(d.wh) == in*out && halfPanels():
		if n > 0 {
			gemmPanelsHalf(x[:n*in], in, d.wh[:in*out], in, out, d.b[:out], y[:n*out], out, n)
		}
		return true
	case len(d.wp) == in*out:
		if n > 0 {
			gemmPanels(x[:n*in], in, d.wp[:in*out], in, out, d.b[:out], y[:n*out], out, n)
		}
		return true
	}
	return false
}

// panelBufs hold one panel converted from float16 (at most useFFNDim × panelWidth floats).
var panelBufs = sync.Pool{New: func() any { return new([useFFNDim * panelWidth]float32) }}

// gemmPanelsHalf is gemmPanels for weights kept as float16 panels: each panel is converted to
// float32 into a buffer that stays in L1/L2 and goes through every row there, with the same
// kernels in the same order as gemmPanels gives each row, so the results are the same bits.
// A short text (a search question: one or two blocks of six rows) is bound by reading the
// weights, and reads half the bytes; a long one (an imported chunk) pays for the conversion
// once per panel over many blocks.
func gemmPanelsHalf(x []float32, ldx int, wh []uint16, k, cols int, b []float32, y []float32, ldy int, n int) {
	_, _ = x[(n-1)*ldx+k-1], y[(n-1)*ldy+cols-1]
	wh, b = wh[:k*cols], b[:cols]
	if k*panelWidth > useFFNDim*panelWidth {
		panic("embed: a dense layer wider than the panel buffer")
	}
	buf := panelBufs.Get().(*[useFFNDim * panelWidth]float32)
	defer panelBufs.Put(buf)
	p := buf[:k*panelWidth]
	for c := 0; c < cols; c += panelWidth {
		halfToFloatAVX(&wh[c*k], &p[0], k*panelWidth)
		wc, bc := &p[0], &b[c]
		if n >= 6 {
			for r := 0; r+6 <= n; r += 6 {
				gemm6x16AVX(&x[r*ldx], ldx, wc, panelWidth, k, bc, &y[r*ldy+c], ldy)
			}
			if n%6 != 0 {
				gemm6x16AVX(&x[(n-6)*ldx], ldx, wc, panelWidth, k, bc, &y[(n-6)*ldy+c], ldy)
			}
			continue
		}
		r := 0
		if n >= 4 {
			gemm4x16AVX(&x[0], ldx, wc, panelWidth, k, bc, &y[c], ldy)
			r = 4
		}
		for ; r < n; r++ {
			gemm1x16AVX(&x[r*ldx], wc, panelWidth, k, bc, &y[r*ldy+c])
		}
	}
}

// gemmPanels computes y = x·W + b for n rows of x (k inputs each, ldx apart) into n rows of y
// (ldy apart), with W (k × cols) stored as panels (see packPanels). cols is a positive multiple
// of panelWidth, and the caller has checked that the CPU has AVX2 and FMA.
//
// One panel at a time goes through every group of six rows, so the panel (32 to 96 KiB) is read
// from L3 once and then from L2, as a sequential stream. Splitting k further into blocks that
// fit L1, with the sums kept in y between blocks, measured slower.
func gemmPanels(x []float32, ldx int, w []float32, k, cols int, b []float32, y []float32, ldy int, n int) {
	_, _ = x[(n-1)*ldx+k-1], y[(n-1)*ldy+cols-1]
	w, b = w[:k*cols], b[:cols]
	r := 0
	if n >= 6 {
		for c := 0; c < cols; c += panelWidth {
			wc, bc := &w[c*k], &b[c]
			for r := 0; r+6 <= n; r += 6 {
				gemm6x16AVX(&x[r*ldx], ldx, wc, panelWidth, k, bc, &y[r*ldy+c], ldy)
			}
			if n%6 != 0 {
				// The last rows again as a block of six, overlapping rows already done,
				// which get the same values again: one pass over the panel instead of one
				// per row.
				gemm6x16AVX(&x[(n-6)*ldx], ldx, wc, panelWidth, k, bc, &y[(n-6)*ldy+c], ldy)
			}
		}
		r = n
	}
	if r+4 <= n {
		for c := 0; c < cols; c += panelWidth {
			gemm4x16AVX(&x[r*ldx], ldx, &w[c*k], panelWidth, k, &b[c], &y[r*ldy+c], ldy)
		}
		r += 4
	}
	for ; r < n; r++ {
		for c := 0; c < cols; c += panelWidth {
			gemm1x16AVX(&x[r*ldx], &w[c*k], panelWidth, k, &b[c], &y[r*ldy+c])
		}
	}
}

// attendFast is attention with the GEMM kernel: per head, the scores are the queries times
// the keys packed as panels, and the output is the probabilities times the values packed as
// panels, both at the speed of the dense layers. The queries' scale is applied to the scores
// inside the softmax. It reports false, doing nothing, where the kernel does not run.
func attendFast(qkv, att []float32, w *useWork, n, d, heads int, scale float32) bool {
	depth := d / heads
	if !hasAVX2FMA() || depth%panelWidth != 0 || n == 0 {
		return false
	}
	stride := 3 * d
	np := padTokens(n)
	kP, vP, s, zero := w.k[:depth*np], w.vT[:n*depth], w.scores[:n*np], w.zero[:max(np, depth)]
	clear(kP) // the keys past n, up to np, stay zero: their scores are not used
	for hd := range heads {
		qo, ko, vo := hd*depth, d+hd*depth, 2*d+hd*depth
		for j := range n {
			row := qkv[j*stride : (j+1)*stride]
			for t, v := range row[ko : ko+depth] {
				kP[panelIndex(depth, t, j)] = v
			}
			for t, v := range row[vo : vo+depth] {
				vP[panelIndex(n, j, t)] = v
			}
		}
		gemmPanels(qkv[qo:], stride, kP, depth, np, zero, s, np, n)
		softmaxRows(s, n, np, scale)
		gemmPanels(s, np, vP, n, depth, zero, att[qo:], d, n)
	}
	return true
}

// expSum sets x[i] = e^(x[i]·scale + shift), arguments at most 0, and returns their sum, eight
// at a time with expSumAVX where it applies.
func expSum(x []float32, scale, shift float32) float32 {
	var sum float32
	if n := len(x) &^ 7; hasAVX2FMA() && n > 0 {
		sum = expSumAVX(&x[0], n, scale, shift)
		x = x[n:]
	}
	for j, v := range x {
		e := expNeg(v*scale + shift)
		x[j] = e
		sum += e
	}
	return sum
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
