//go:build amd64 && !purego

#include "textflag.h"

// func dot4AVX(w, x0, x1, x2, x3 *float32, n int, out *[4]float32)
// out[r] = Σ_k w[k]·xr[k] for r = 0..3; n must be a positive multiple of 16.
TEXT ·dot4AVX(SB), NOSPLIT, $0-56
	MOVQ w+0(FP), SI
	MOVQ x0+8(FP), R8
	MOVQ x1+16(FP), R9
	MOVQ x2+24(FP), R10
	MOVQ x3+32(FP), R11
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	XORQ AX, AX

loop4:
	VMOVUPS (SI)(AX*4), Y4
	VMOVUPS 32(SI)(AX*4), Y9
	VFMADD231PS (R8)(AX*4), Y4, Y0
	VFMADD231PS (R9)(AX*4), Y4, Y1
	VFMADD231PS (R10)(AX*4), Y4, Y2
	VFMADD231PS (R11)(AX*4), Y4, Y3
	VFMADD231PS 32(R8)(AX*4), Y9, Y5
	VFMADD231PS 32(R9)(AX*4), Y9, Y6
	VFMADD231PS 32(R10)(AX*4), Y9, Y7
	VFMADD231PS 32(R11)(AX*4), Y9, Y8
	ADDQ $16, AX
	CMPQ AX, CX
	JLT  loop4

	VADDPS Y5, Y0, Y0
	VADDPS Y6, Y1, Y1
	VADDPS Y7, Y2, Y2
	VADDPS Y8, Y3, Y3

	// Horizontal sums: fold the high 128 bits onto the low ones, then two horizontal adds.
	VEXTRACTF128 $1, Y0, X4
	VADDPS       X4, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSS       X0, 0(DI)

	VEXTRACTF128 $1, Y1, X4
	VADDPS       X4, X1, X1
	VHADDPS      X1, X1, X1
	VHADDPS      X1, X1, X1
	VMOVSS       X1, 4(DI)

	VEXTRACTF128 $1, Y2, X4
	VADDPS       X4, X2, X2
	VHADDPS      X2, X2, X2
	VHADDPS      X2, X2, X2
	VMOVSS       X2, 8(DI)

	VEXTRACTF128 $1, Y3, X4
	VADDPS       X4, X3, X3
	VHADDPS      X3, X3, X3
	VHADDPS      X3, X3, X3
	VMOVSS       X3, 12(DI)

	VZEROUPPER
	RET

// func dot1AVX(a, b *float32, n int) float32
// Σ_k a[k]·b[k]; n must be a positive multiple of 32.
TEXT ·dot1AVX(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ AX, AX

loop1:
	VMOVUPS (SI)(AX*4), Y4
	VMOVUPS 32(SI)(AX*4), Y5
	VMOVUPS 64(SI)(AX*4), Y6
	VMOVUPS 96(SI)(AX*4), Y7
	VFMADD231PS (DI)(AX*4), Y4, Y0
	VFMADD231PS 32(DI)(AX*4), Y5, Y1
	VFMADD231PS 64(DI)(AX*4), Y6, Y2
	VFMADD231PS 96(DI)(AX*4), Y7, Y3
	ADDQ $32, AX
	CMPQ AX, CX
	JLT  loop1

	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X4
	VADDPS       X4, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// func gemm4x16AVX(x *float32, ldx int, w *float32, ldw int, k int, b *float32, y *float32, ldy int)
// y[r][c] = b[c] + Σ_i x[r][i]·w[i][c] for rows r = 0..3 and columns c = 0..15; ldx, ldw and ldy
// are the row strides of x, w and y in floats; k is positive.
// Each step broadcasts one input of each row against 16 weights: eight independent
// accumulators, no horizontal sums.
TEXT ·gemm4x16AVX(SB), NOSPLIT, $0-64
	MOVQ x+0(FP), SI
	MOVQ ldx+8(FP), R12
	SHLQ $2, R12
	MOVQ w+16(FP), DI
	MOVQ ldw+24(FP), R13
	SHLQ $2, R13
	MOVQ k+32(FP), CX
	MOVQ b+40(FP), DX
	MOVQ y+48(FP), R8
	MOVQ ldy+56(FP), R14
	SHLQ $2, R14
	LEAQ (SI)(R12*1), R9
	LEAQ (R9)(R12*1), R10
	LEAQ (R10)(R12*1), R11
	VMOVUPS (DX), Y0
	VMOVUPS 32(DX), Y1
	VMOVAPS Y0, Y2
	VMOVAPS Y1, Y3
	VMOVAPS Y0, Y4
	VMOVAPS Y1, Y5
	VMOVAPS Y0, Y6
	VMOVAPS Y1, Y7
	XORQ AX, AX

gemm4loop:
	VMOVUPS (DI), Y8
	VMOVUPS 32(DI), Y9
	VBROADCASTSS (SI)(AX*4), Y10
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y10, Y1
	VBROADCASTSS (R9)(AX*4), Y11
	VFMADD231PS Y8, Y11, Y2
	VFMADD231PS Y9, Y11, Y3
	VBROADCASTSS (R10)(AX*4), Y12
	VFMADD231PS Y8, Y12, Y4
	VFMADD231PS Y9, Y12, Y5
	VBROADCASTSS (R11)(AX*4), Y13
	VFMADD231PS Y8, Y13, Y6
	VFMADD231PS Y9, Y13, Y7
	ADDQ R13, DI
	INCQ AX
	CMPQ AX, CX
	JLT  gemm4loop

	VMOVUPS Y0, (R8)
	VMOVUPS Y1, 32(R8)
	ADDQ    R14, R8
	VMOVUPS Y2, (R8)
	VMOVUPS Y3, 32(R8)
	ADDQ    R14, R8
	VMOVUPS Y4, (R8)
	VMOVUPS Y5, 32(R8)
	ADDQ    R14, R8
	VMOVUPS Y6, (R8)
	VMOVUPS Y7, 32(R8)
	VZEROUPPER
	RET

// func gemm1x16AVX(x *float32, w *float32, ldw int, k int, b *float32, y *float32)
// y[c] = b[c] + Σ_i x[i]·w[i][c] for c = 0..15; k is positive. Two steps at a time, in four
// accumulators, for the one-row products (the pooled layers).
TEXT ·gemm1x16AVX(SB), NOSPLIT, $0-48
	MOVQ x+0(FP), SI
	MOVQ w+8(FP), DI
	MOVQ ldw+16(FP), R13
	SHLQ $2, R13
	MOVQ k+24(FP), CX
	MOVQ b+32(FP), DX
	MOVQ y+40(FP), R8
	VMOVUPS (DX), Y0
	VMOVUPS 32(DX), Y1
	VXORPS  Y2, Y2, Y2
	VXORPS  Y3, Y3, Y3
	XORQ    AX, AX
	MOVQ    CX, BX
	ANDQ    $-2, BX
	CMPQ    BX, $0
	JEQ     gemm1tail

gemm1loop:
	VBROADCASTSS (SI)(AX*4), Y10
	VBROADCASTSS 4(SI)(AX*4), Y11
	VFMADD231PS  (DI), Y10, Y0
	VFMADD231PS  32(DI), Y10, Y1
	ADDQ         R13, DI
	VFMADD231PS  (DI), Y11, Y2
	VFMADD231PS  32(DI), Y11, Y3
	ADDQ         R13, DI
	ADDQ         $2, AX
	CMPQ         AX, BX
	JLT          gemm1loop

gemm1tail:
	CMPQ AX, CX
	JGE  gemm1done
	VBROADCASTSS (SI)(AX*4), Y10
	VFMADD231PS  (DI), Y10, Y0
	VFMADD231PS  32(DI), Y10, Y1

gemm1done:
	VADDPS  Y2, Y0, Y0
	VADDPS  Y3, Y1, Y1
	VMOVUPS Y0, (R8)
	VMOVUPS Y1, 32(R8)
	VZEROUPPER
	RET

// func gemm6x16AVX(x *float32, ldx int, w *float32, ldw int, k int, b *float32, y *float32, ldy int)
// gemm4x16AVX for six rows: twelve independent accumulators keep both FMA units busy through
// their latency, where eight leave them waiting now and then.
TEXT ·gemm6x16AVX(SB), NOSPLIT, $0-64
	MOVQ x+0(FP), SI
	MOVQ ldx+8(FP), R12
	SHLQ $2, R12
	MOVQ w+16(FP), DI
	MOVQ ldw+24(FP), R13
	SHLQ $2, R13
	MOVQ k+32(FP), CX
	MOVQ b+40(FP), DX
	MOVQ y+48(FP), R8
	MOVQ ldy+56(FP), R14
	SHLQ $2, R14
	VMOVUPS (DX), Y0
	VMOVUPS 32(DX), Y1
	VMOVAPS Y0, Y2
	VMOVAPS Y1, Y3
	VMOVAPS Y0, Y4
	VMOVAPS Y1, Y5
	VMOVAPS Y0, Y6
	VMOVAPS Y1, Y7
	VMOVAPS Y0, Y8
	VMOVAPS Y1, Y9
	VMOVAPS Y0, Y10
	VMOVAPS Y1, Y11
	LEAQ (SI)(R12*1), R9
	LEAQ (R9)(R12*1), R10
	LEAQ (R10)(R12*1), R11
	LEAQ (R11)(R12*1), BX
	LEAQ (BX)(R12*1), DX
	XORQ AX, AX

gemm6loop:
	VMOVUPS (DI), Y12
	VMOVUPS 32(DI), Y13
	VBROADCASTSS (SI)(AX*4), Y14
	VFMADD231PS Y12, Y14, Y0
	VFMADD231PS Y13, Y14, Y1
	VBROADCASTSS (R9)(AX*4), Y14
	VFMADD231PS Y12, Y14, Y2
	VFMADD231PS Y13, Y14, Y3
	VBROADCASTSS (R10)(AX*4), Y14
	VFMADD231PS Y12, Y14, Y4
	VFMADD231PS Y13, Y14, Y5
	VBROADCASTSS (R11)(AX*4), Y14
	VFMADD231PS Y12, Y14, Y6
	VFMADD231PS Y13, Y14, Y7
	VBROADCASTSS (BX)(AX*4), Y14
	VFMADD231PS Y12, Y14, Y8
	VFMADD231PS Y13, Y14, Y9
	VBROADCASTSS (DX)(AX*4), Y14
	VFMADD231PS Y12, Y14, Y10
	VFMADD231PS Y13, Y14, Y11
	ADDQ R13, DI
	INCQ AX
	CMPQ AX, CX
	JLT  gemm6loop

	VMOVUPS Y0, (R8)
	VMOVUPS Y1, 32(R8)
	ADDQ    R14, R8
	VMOVUPS Y2, (R8)
	VMOVUPS Y3, 32(R8)
	ADDQ    R14, R8
	VMOVUPS Y4, (R8)
	VMOVUPS Y5, 32(R8)
	ADDQ    R14, R8
	VMOVUPS Y6, (R8)
	VMOVUPS Y7, 32(R8)
	ADDQ    R14, R8
	VMOVUPS Y8, (R8)
	VMOVUPS Y9, 32(R8)
	ADDQ    R14, R8
	VMOVUPS Y10, (R8)
	VMOVUPS Y11, 32(R8)
	VZEROUPPER
	RET

// Constants of expSumAVX, as in expNeg: log2(e), -ln2 high and low parts, the six
// coefficients of the polynomial, 1, the lowest argument taken, and the exponent bias.
DATA expc<>+0(SB)/4, $0x3fb8aa3b
DATA expc<>+4(SB)/4, $0xbf318000
DATA expc<>+8(SB)/4, $0x395e8083
DATA expc<>+12(SB)/4, $0x39506967
DATA expc<>+16(SB)/4, $0x3ab743ce
DATA expc<>+20(SB)/4, $0x3c088908
DATA expc<>+24(SB)/4, $0x3d2aa9c1
DATA expc<>+28(SB)/4, $0x3e2aaaaa
DATA expc<>+32(SB)/4, $0x3f000000
DATA expc<>+36(SB)/4, $0x3f800000
DATA expc<>+40(SB)/4, $0xc2ae999a
DATA expc<>+44(SB)/4, $127
GLOBL expc<>(SB), RODATA|NOPTR, $48

// func expSumAVX(x *float32, n int, scale, shift float32) float32
// x[i] = e^(x[i]·scale + shift) for i < n, a positive multiple of 8, and returns their sum. The
// arguments must be at most 0 (scores minus their maximum); below -87.3 they are taken as
// -87.3, whose exponential (1e-38) is zero next to the sum. expNeg's method, eight at a time:
// k = round(x·log2 e), r = x - k·ln 2, e^r by the polynomial (its last two steps as
// p·r + 1 twice), times 2^k built in the exponent bits.
TEXT ·expSumAVX(SB), NOSPLIT, $0-28
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSS scale+16(FP), Y0
	VBROADCASTSS shift+20(FP), Y1
	VBROADCASTSS expc<>+0(SB), Y2
	VBROADCASTSS expc<>+4(SB), Y3
	VBROADCASTSS expc<>+8(SB), Y4
	VBROADCASTSS expc<>+12(SB), Y5
	VBROADCASTSS expc<>+16(SB), Y6
	VBROADCASTSS expc<>+20(SB), Y7
	VBROADCASTSS expc<>+24(SB), Y8
	VBROADCASTSS expc<>+28(SB), Y9
	VBROADCASTSS expc<>+32(SB), Y10
	VBROADCASTSS expc<>+36(SB), Y11
	VXORPS       Y12, Y12, Y12
	XORQ         AX, AX

exploop:
	VMOVUPS      (SI)(AX*4), Y13
	VFMADD213PS  Y1, Y0, Y13
	VBROADCASTSS expc<>+40(SB), Y15
	VMAXPS       Y15, Y13, Y13
	VMULPS       Y2, Y13, Y14
	VROUNDPS     $0, Y14, Y14
	VFMADD231PS  Y14, Y3, Y13
	VFMADD231PS  Y14, Y4, Y13
	VCVTPS2DQ    Y14, Y14
	VPBROADCASTD expc<>+44(SB), Y15
	VPADDD       Y15, Y14, Y14
	VPSLLD       $23, Y14, Y14
	VMOVAPS      Y5, Y15
	VFMADD213PS  Y6, Y13, Y15
	VFMADD213PS  Y7, Y13, Y15
	VFMADD213PS  Y8, Y13, Y15
	VFMADD213PS  Y9, Y13, Y15
	VFMADD213PS  Y10, Y13, Y15
	VFMADD213PS  Y11, Y13, Y15
	VFMADD213PS  Y11, Y13, Y15
	VMULPS       Y14, Y15, Y15
	VMOVUPS      Y15, (SI)(AX*4)
	VADDPS       Y15, Y12, Y12
	ADDQ         $8, AX
	CMPQ         AX, CX
	JLT          exploop

	VEXTRACTF128 $1, Y12, X13
	VADDPS       X13, X12, X12
	VHADDPS      X12, X12, X12
	VHADDPS      X12, X12, X12
	VZEROUPPER
	MOVSS        X12, ret+24(FP)
	RET

// func halfToFloatAVX(src *uint16, dst *float32, n int)
// dst[i] = float32(src[i]) for float16 bits src, i < n, a positive multiple of 16 (F16C).
TEXT ·halfToFloatAVX(SB), NOSPLIT, $0-24
	MOVQ src+0(FP), SI
	MOVQ dst+8(FP), DI
	MOVQ n+16(FP), CX

halfloop:
	VCVTPH2PS (SI), Y0
	VCVTPH2PS 16(SI), Y1
	VMOVUPS   Y0, (DI)
	VMOVUPS   Y1, 32(DI)
	ADDQ      $32, SI
	ADDQ      $64, DI
	SUBQ      $16, CX
	JNZ       halfloop
	VZEROUPPER
	RET

// func dot4HalfAVX(q *float32, h0, h1, h2, h3 *uint16, n int, out *[4]float32)
// out[r] = Σ_k q[k]·float32(hr[k]) for float16 vectors h0..h3 (F16C); n must be a positive
// multiple of 16. dot4AVX with the stored vectors at half the bytes.
TEXT ·dot4HalfAVX(SB), NOSPLIT, $0-56
	MOVQ q+0(FP), SI
	MOVQ h0+8(FP), R8
	MOVQ h1+16(FP), R9
	MOVQ h2+24(FP), R10
	MOVQ h3+32(FP), R11
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	XORQ AX, AX

hloop4:
	VMOVUPS     (SI)(AX*4), Y4
	VMOVUPS     32(SI)(AX*4), Y9
	VCVTPH2PS   (R8)(AX*2), Y10
	VCVTPH2PS   (R9)(AX*2), Y11
	VCVTPH2PS   (R10)(AX*2), Y12
	VCVTPH2PS   (R11)(AX*2), Y13
	VFMADD231PS Y10, Y4, Y0
	VFMADD231PS Y11, Y4, Y1
	VFMADD231PS Y12, Y4, Y2
	VFMADD231PS Y13, Y4, Y3
	VCVTPH2PS   16(R8)(AX*2), Y10
	VCVTPH2PS   16(R9)(AX*2), Y11
	VCVTPH2PS   16(R10)(AX*2), Y12
	VCVTPH2PS   16(R11)(AX*2), Y13
	VFMADD231PS Y10, Y9, Y5
	VFMADD231PS Y11, Y9, Y6
	VFMADD231PS Y12, Y9, Y7
	VFMADD231PS Y13, Y9, Y8
	ADDQ        $16, AX
	CMPQ        AX, CX
	JLT         hloop4

	VADDPS Y5, Y0, Y0
	VADDPS Y6, Y1, Y1
	VADDPS Y7, Y2, Y2
	VADDPS Y8, Y3, Y3

	VEXTRACTF128 $1, Y0, X4
	VADDPS       X4, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSS       X0, 0(DI)

	VEXTRACTF128 $1, Y1, X4
	VADDPS       X4, X1, X1
	VHADDPS      X1, X1, X1
	VHADDPS      X1, X1, X1
	VMOVSS       X1, 4(DI)

	VEXTRACTF128 $1, Y2, X4
	VADDPS       X4, X2, X2
	VHADDPS      X2, X2, X2
	VHADDPS      X2, X2, X2
	VMOVSS       X2, 8(DI)

	VEXTRACTF128 $1, Y3, X4
	VADDPS       X4, X3, X3
	VHADDPS      X3, X3, X3
	VHADDPS      X3, X3, X3
	VMOVSS       X3, 12(DI)

	VZEROUPPER
	RET

// func floatToHalfAVX(src *float32, dst *uint16, n int)
// dst[i] = the float16 nearest src[i] (ties to even; beyond the range, infinity), i < n, a
// positive multiple of 8 (F16C).
TEXT ·floatToHalfAVX(SB), NOSPLIT, $0-24
	MOVQ src+0(FP), SI
	MOVQ dst+8(FP), DI
	MOVQ n+16(FP), CX

tohalfloop:
	VMOVUPS   (SI), Y0
	VCVTPS2PH $0, Y0, (DI)
	ADDQ      $32, SI
	ADDQ      $16, DI
	SUBQ      $8, CX
	JNZ       tohalfloop
	VZEROUPPER
	RET
