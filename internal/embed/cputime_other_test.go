//go:build !unix

package embed

func processCPUSeconds() float64 { return 0 }
