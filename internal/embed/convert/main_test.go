package main

import (
	"math"
	"testing"
)

func TestToHalf(t *testing.T) {
	tests := []struct {
		name string
		in   float32
		want uint16
	}{
		{"zero", 0, 0x0000},
		{"negative zero", float32(math.Copysign(0, -1)), 0x8000},
		{"one", 1, 0x3c00},
		{"minus two", -2, 0xc000},
		{"third rounds to nearest", 1.0 / 3, 0x3555},
		{"max half", 65504, 0x7bff},
		{"overflow to inf", 1e6, 0x7c00},
		{"inf", float32(math.Inf(-1)), 0xfc00},
		{"nan", float32(math.NaN()), 0x7e00},
		{"smallest normal", 6.1035156e-05, 0x0400},
		{"smallest subnormal", 5.9604645e-08, 0x0001},
		{"below half the smallest subnormal", 2e-8, 0x0000},
		{"tie rounds to even (down)", 1 + 1.0/2048, 0x3c00},
		{"tie rounds to even (up)", 1 + 3.0/2048, 0x3c02},
		{"rounding carries into exponent", 2 - 1.0/4096, 0x4000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := toHalf(tt.in); got != tt.want {
				t.Errorf("toHalf(%g) = %#04x, want %#04x", tt.in, got, tt.want)
			}
		})
	}
}
