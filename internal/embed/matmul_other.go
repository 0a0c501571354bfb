//go:build !amd64 || purego

package embed

// applyFast has no vector kernel on this platform or with -tags purego.
func (d *dense) applyFast(x []float32, n int, y []float32) bool { return false }
