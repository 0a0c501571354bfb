package embed

import "math"

// kernels are the routines a forward pass spends its time in: the dense layers (about half of
// it) and attention. The model carries them so that tests can run the reference versions (in
// kernels_test.go) side by side with these, to compare vectors and to measure the speed-up.
type kernels struct {
	apply  func(d *dense, x []float32, n int, y []float32)
	attend func(qkv, att []float32, w *useWork, n, d, heads int, scale float32)
	norm   func(x, h []float32, n, d int, g, b []float32, eps float32)
	// poolEarly averages the tokens before the last feed-forward layer (see useModel.layer).
	poolEarly bool
	// timingTable reads the position signal from the table computed at load instead of
	// computing a sine and a cosine per position and channel.
	timingTable bool
}

var fastKernels = kernels{apply: (*dense).apply, attend: attention, norm: layerNorm, poolEarly: true, timingTable: true}

// padTokens rounds a token count up to a multiple of 32, the width the dot-product kernels
// work in; the padding holds zeros.
func padTokens(n int) int { return (n + 31) &^ 31 }

// attention computes multi-head scaled dot-product attention over one unpadded sequence. qkv
// holds n rows of [q | k | v], each d wide; heads split d evenly. The result goes to att (n × d).
//
// Each head is laid out for dot products first: queries (scaled) and keys as contiguous rows,
// values transposed, so that both the scores (Q·Kᵀ) and the output (P·V) are rows of dot
// products that the same kernels as the dense layers compute four rows at a time. The scalar
// version this replaced accumulated one product at a time and took 40% of a 128-token pass.
// Where the CPU has AVX2 and FMA, attendFast runs instead, on the dense layers' GEMM kernel.
func attention(qkv, att []float32, w *useWork, n, d, heads int, scale float32) {
	if attendFast(qkv, att, w, n, d, heads, scale) {
		return
	}
	depth := d / heads
	stride := 3 * d
	np := padTokens(n)
	q, k, vT, s := w.q[:n*depth], w.k[:n*depth], w.vT[:depth*np], w.scores[:n*np]
	var acc [4]float32
	for hd := range heads {
		qo, ko, vo := hd*depth, d+hd*depth, 2*d+hd*depth
		clear(vT)
		for i := range n {
			row := qkv[i*stride : (i+1)*stride]
			qi, ki := q[i*depth:(i+1)*depth], k[i*depth:(i+1)*depth]
			for t, v := range row[qo : qo+depth] {
				qi[t] = v * scale
			}
			copy(ki, row[ko:ko+depth])
			for t, v := range row[vo : vo+depth] {
				vT[t*np+i] = v
			}
		}
		// Scores, four queries against each key.
		i := 0
		for ; i+4 <= n; i += 4 {
			q0, q1, q2, q3 := q[i*depth:(i+1)*depth], q[(i+1)*depth:(i+2)*depth], q[(i+2)*depth:(i+3)*depth], q[(i+3)*depth:(i+4)*depth]
			for j := range n {
				dot4(k[j*depth:(j+1)*depth], q0, q1, q2, q3, &acc)
				s[i*np+j], s[(i+1)*np+j], s[(i+2)*np+j], s[(i+3)*np+j] = acc[0], acc[1], acc[2], acc[3]
			}
		}
		for ; i < n; i++ {
			for j := range n {
				s[i*np+j] = dot1(q[i*depth:(i+1)*depth], k[j*depth:(j+1)*depth])
			}
		}
		softmaxRows(s, n, np, 1)
		// Output: each query's probabilities against each value dimension.
		i = 0
		for ; i+4 <= n; i += 4 {
			p0, p1, p2, p3 := s[i*np:(i+1)*np], s[(i+1)*np:(i+2)*np], s[(i+2)*np:(i+3)*np], s[(i+3)*np:(i+4)*np]
			for t := range depth {
				dot4(vT[t*np:(t+1)*np], p0, p1, p2, p3, &acc)
				att[i*d+qo+t], att[(i+1)*d+qo+t], att[(i+2)*d+qo+t], att[(i+3)*d+qo+t] = acc[0], acc[1], acc[2], acc[3]
			}
		}
		for ; i < n; i++ {
			for t := range depth {
				att[i*d+qo+t] = dot1(s[i*np:(i+1)*np], vT[t*np:(t+1)*np])
			}
		}
	}
}

// softmaxRows replaces each of the n rows of scores (the first n of np columns) by the softmax
// of the scores times scale (positive); the padding columns are set to zero.
func softmaxRows(s []float32, n, np int, scale float32) {
	for i := range n {
		row := s[i*np : i*np+np]
		maxS := float32(math.Inf(-1))
		for _, v := range row[:n] {
			maxS = max(maxS, v)
		}
		sum := expSum(row[:n], scale, -maxS*scale)
		inv := 1 / sum
		for j := range row[:n] {
			row[j] *= inv
		}
		clear(row[n:])
	}
}

// dot4Go computes four dot products of w with x0..x3 (each as long as w).
func dot4Go(w, x0, x1, x2, x3 []float32, out *[4]float32) {
	x0, x1, x2, x3 = x0[:len(w)], x1[:len(w)], x2[:len(w)], x3[:len(w)]
	var s0, s1, s2, s3 float32
	for k, wk := range w {
		s0 += x0[k] * wk
		s1 += x1[k] * wk
		s2 += x2[k] * wk
		s3 += x3[k] * wk
	}
	out[0], out[1], out[2], out[3] = s0, s1, s2, s3
}

// expNeg is e^x for x ≤ 0 in float32, for softmax, whose arguments are scores minus their
// maximum: Cody-Waite range reduction by ln 2 and Cephes' expf polynomial, within 2 ulp of
// math.Exp and four times as fast. Below -87.3 (where e^x leaves the normal float32 range) it
// is 0.
func expNeg(x float32) float32 {
	if x < -87.3 {
		return 0
	}
	k := float32(int32(x*1.44269504088896341 - 0.5)) // round to nearest for x ≤ 0
	r := x - k*0.693359375 - k*-2.12194440e-4
	z := r * r
	p := ((((1.9875691500e-4*r+1.3981999507e-3)*r+8.3334519073e-3)*r+4.1665795894e-2)*r+1.6666665459e-1)*r + 5.0000001201e-1
	p = p*z + r + 1
	return p * math.Float32frombits(uint32(int32(k)+127)<<23)
}
