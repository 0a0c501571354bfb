//go:build !amd64 || purego

package embed

// weightsByRow is false: the portable kernel reads transposed weights.
func weightsByRow() bool { return false }

// halfPanels is false: no kernel here reads float16 panels.
func halfPanels() bool { return false }

// applyFast has no vector kernel on this platform or with -tags purego.
func (d *dense) applyFast(x []float32, n int, y []float32) bool { return false }

// attendFast has no vector kernel on this platform or with -tags purego.
func attendFast(qkv, att []float32, w *useWork, n, d, heads int, scale float32) bool { return false }

// expSum sets x[i] = e^(x[i]·scale + shift), arguments at most 0, and returns their sum.
func expSum(x []float32, scale, shift float32) float32 {
	var sum float32
	for j, v := range x {
		e := expNeg(v*scale + shift)
		x[j] = e
		sum += e
	}
	return sum
}

// dot4 computes four dot products of w with x0..x3.
func dot4(w, x0, x1, x2, x3 []float32, out *[4]float32) { dot4Go(w, x0, x1, x2, x3, out) }

// dot1 is one dot product.
func dot1(a, b []float32) float32 { return dot(a, b) }

func halfToFloatAVX(src *uint16, dst *float32, n int) { panic("embed: no F16C kernel here") }

func floatToHalfAVX(src *float32, dst *uint16, n int) { panic("embed: no F16C kernel here") }

func dot4HalfAVX(q *float32, h0, h1, h2, h3 *uint16, n int, out *[4]float32) {
	panic("embed: no F16C kernel here")
}
