package embed

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Shapes of USE-Lite, checked against the blob at load.
const (
	useVocab     = 8002
	useEmbDim    = 256
	useModelDim  = 512
	useFFNDim    = 1536
	useHeads     = 4
	useMaxTokens = 128
	useTimingDim = useEmbDim / 2
)

// ErrBadWeights reports a weight blob that does not have the layout the forward pass expects.
// It means the embedded files were corrupted or regenerated with an incompatible converter.
var ErrBadWeights = errors.New("embed: malformed USE-Lite weights")

// dense is a fully connected layer. Its weights are kept in one of three layouts, chosen at
// load for the kernel that will run: by input row in panels of 16 columns (wp, see
// packPanels), which the AVX2 GEMM kernel broadcasts each input against; by input row (w,
// in × out), for a width the GEMM kernel does not take; or transposed (wT, out rows of in
// weights), so that every output element is a contiguous dot product, the fastest shape for
// plain Go loops.
type dense struct {
	in, out int
	wp      []float32
	// wh are the panels of wp as the blob's float16 bits, kept instead of wp where the blob
	// stores float16 and the CPU converts it (F16C): half the bytes a pass over the weights
	// reads, and the same float32 values once converted (see gemmPanelsHalf).
	wh []uint16
	w  []float32
	wT []float32
	b  []float32
}

type useLayer struct {
	dIn, dModel    int
	lnAttG, lnAttB []float32
	qkv            dense
	qScale         float32
	out            dense
	res            *dense // layer 0 projects its 256-wide input to the 512-wide residual
	lnFFNG, lnFFNB []float32
	ffn1, ffn2     dense
}

// useModel holds the loaded USE-Lite weights. It is immutable after load and shared by all
// goroutines; per-call scratch lives in useWork.
type useModel struct {
	emb       []float32 // useVocab × useEmbDim, row-major
	timingInv []float32 // useTimingDim
	// timing is the sinusoidal position signal, sin then cos of p·timingInv for each position
	// p < useMaxTokens: useMaxTokens × useEmbDim, computed once at load.
	timing []float32
	lnEps  float32
	layers [2]useLayer
	pool   dense
	l2Eps  float32
	// k are the compute kernels; tests swap in the reference ones to compare and to measure.
	k kernels
}

// rawTensor is one tensor of the blob, still encoded.
type rawTensor struct {
	shape []int
	dtype byte // 1 = float32, 2 = float16
	raw   []byte
}

// at decodes element i.
func (t rawTensor) at(half []float32, i int) float32 {
	if t.dtype == 2 {
		return half[binary.LittleEndian.Uint16(t.raw[2*i:])]
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(t.raw[4*i:]))
}

// decode returns the tensor as float32 in its stored (row-major) order.
func (t rawTensor) decode(half []float32) []float32 {
	n := len(t.raw) / 2
	if t.dtype == 1 {
		n = len(t.raw) / 4
	}
	out := make([]float32, n)
	if t.dtype == 2 {
		src := t.raw[:2*n]
		for i := range out {
			out[i] = half[uint16(src[2*i])|uint16(src[2*i+1])<<8]
		}
		return out
	}
	for i := range out {
		out[i] = t.at(half, i)
	}
	return out
}

// decodeTransposed returns a rows×cols tensor as float32 laid out cols×rows. It walks the
// matrix in square tiles so that both the reads and the scattered writes stay in cache; a plain
// row-by-row transpose of these matrices is several times slower.
func (t rawTensor) decodeTransposed(half []float32, rows, cols int) []float32 {
	const tile = 32
	out := make([]float32, rows*cols)
	for r0 := 0; r0 < rows; r0 += tile {
		for c0 := 0; c0 < cols; c0 += tile {
			for r := r0; r < min(r0+tile, rows); r++ {
				for c := c0; c < min(c0+tile, cols); c++ {
					out[c*rows+r] = t.at(half, r*cols+c)
				}
			}
		}
	}
	return out
}

// decodePanels returns an in×out tensor (out a multiple of panelWidth) as float32 in the GEMM
// kernel's panels (see packPanels), without decoding it row by row first.
func (t rawTensor) decodePanels(half []float32, in, out int) []float32 {
	p := make([]float32, in*out)
	for k := range in {
		for c := 0; c < out; c += panelWidth {
			dst := p[c*in+k*panelWidth : c*in+(k+1)*panelWidth]
			if t.dtype == 2 {
				src := t.raw[2*(k*out+c) : 2*(k*out+c+panelWidth)]
				for j := range dst {
					dst[j] = half[uint16(src[2*j])|uint16(src[2*j+1])<<8]
				}
				continue
			}
			for j := range dst {
				dst[j] = t.at(half, k*out+c+j)
			}
		}
	}
	return p
}

// halfPanels returns an in×out float16 tensor (out a multiple of panelWidth) in the GEMM
// kernel's panel order (see packPanels), still as float16 bits.
func (t rawTensor) halfPanels(in, out int) []uint16 {
	p := make([]uint16, in*out)
	for k := range in {
		for c := 0; c < out; c += panelWidth {
			dst := p[c*in+k*panelWidth : c*in+(k+1)*panelWidth]
			src := t.raw[2*(k*out+c) : 2*(k*out+c+panelWidth)]
			for j := range dst {
				dst[j] = binary.LittleEndian.Uint16(src[2*j:])
			}
		}
	}
	return p
}

// parseBlob splits the converter's format (see internal/embed/convert) into tensors, checking
// that every tensor lies within the blob.
func parseBlob(b []byte) (map[string]rawTensor, error) {
	if len(b) < 12 || string(b[:8]) != "USELITE1" {
		return nil, fmt.Errorf("%w: bad magic", ErrBadWeights)
	}
	count := int(binary.LittleEndian.Uint32(b[8:]))
	off := 12
	out := make(map[string]rawTensor, count)
	need := func(n int) error {
		if off+n > len(b) {
			return fmt.Errorf("%w: truncated at byte %d", ErrBadWeights, off)
		}
		return nil
	}
	for range count {
		if err := need(2); err != nil {
			return nil, err
		}
		nameLen := int(binary.LittleEndian.Uint16(b[off:]))
		off += 2
		if err := need(nameLen + 2); err != nil {
			return nil, err
		}
		name := string(b[off : off+nameLen])
		off += nameLen
		dtype, rank := b[off], int(b[off+1])
		off += 2
		if err := need(4 * rank); err != nil {
			return nil, err
		}
		shape := make([]int, rank)
		n := 1
		for i := range shape {
			shape[i] = int(binary.LittleEndian.Uint32(b[off:]))
			n *= shape[i]
			off += 4
		}
		size := 0
		switch dtype {
		case 1:
			size = 4 * n
		case 2:
			size = 2 * n
		default:
			return nil, fmt.Errorf("%w: tensor %s has unknown dtype %d", ErrBadWeights, name, dtype)
		}
		if err := need(size); err != nil {
			return nil, err
		}
		out[name] = rawTensor{shape, dtype, b[off : off+size]}
		off += size
	}
	return out, nil
}

// halfTable maps every float16 bit pattern to its float32 value.
func halfTable() []float32 {
	t := make([]float32, 1<<16)
	for h := range t {
		sign := uint32(h>>15) << 31
		exp := uint32(h>>10) & 0x1f
		mant := uint32(h) & 0x3ff
		var bits uint32
		switch {
		case exp == 0x1f:
			bits = sign | 0xff<<23 | mant<<13
		case exp != 0:
			bits = sign | (exp+127-15)<<23 | mant<<13
		case mant == 0:
			bits = sign
		default: // subnormal: value = mant × 2^-24
			t[h] = float32(math.Ldexp(float64(mant), -24))
			if sign != 0 {
				t[h] = -t[h]
			}
			continue
		}
		t[h] = math.Float32frombits(bits)
	}
	return t
}

func loadUSEModel(blob []byte) (*useModel, error) {
	ts, err := parseBlob(blob)
	if err != nil {
		return nil, err
	}
	half := halfTable()
	var firstErr error
	lookup := func(name string, shape ...int) (rawTensor, bool) {
		t, ok := ts[name]
		if !ok {
			if firstErr == nil {
				firstErr = fmt.Errorf("%w: tensor %s missing", ErrBadWeights, name)
			}
			return t, false
		}
		if fmt.Sprint(t.shape) != fmt.Sprint(shape) {
			if firstErr == nil {
				firstErr = fmt.Errorf("%w: tensor %s has shape %v, want %v", ErrBadWeights, name, t.shape, shape)
			}
			return t, false
		}
		return t, true
	}
	get := func(name string, shape ...int) []float32 {
		if t, ok := lookup(name, shape...); ok {
			return t.decode(half)
		}
		return nil
	}
	scalar := func(name string) float32 {
		if v := get(name); len(v) == 1 {
			return v[0]
		}
		return 0
	}
	mkDense := func(prefix string, in, out int) dense {
		d := dense{in: in, out: out, b: get(prefix+".b", out)}
		if w, ok := lookup(prefix+".w", in, out); ok {
			switch {
			case weightsByRow() && out%panelWidth == 0 && w.dtype == 2 && halfPanels():
				d.wh = w.halfPanels(in, out)
			case weightsByRow() && out%panelWidth == 0:
				d.wp = w.decodePanels(half, in, out)
			case weightsByRow():
				d.w = w.decode(half)
			default:
				d.wT = w.decodeTransposed(half, in, out)
			}
		}
		return d
	}
	m := &useModel{
		k:         fastKernels,
		emb:       get("emb", useVocab, useEmbDim),
		timingInv: get("timing_inv", useTimingDim),
		lnEps:     scalar("ln_eps"),
		pool:      mkDense("pool", useModelDim, useModelDim),
		l2Eps:     scalar("l2_eps"),
	}
	for i, dIn := range []int{useEmbDim, useModelDim} {
		p := fmt.Sprintf("l%d.", i)
		dAtt := dIn // q, k and v each have the width of the layer input
		l := useLayer{
			dIn:    dIn,
			dModel: useModelDim,
			lnAttG: get(p+"ln_att.g", dIn),
			lnAttB: get(p+"ln_att.b", dIn),
			qkv:    mkDense(p+"qkv", dIn, 3*dAtt),
			qScale: scalar(p + "q_scale"),
			out:    mkDense(p+"out", dAtt, useModelDim),
			lnFFNG: get(p+"ln_ffn.g", useModelDim),
			lnFFNB: get(p+"ln_ffn.b", useModelDim),
			ffn1:   mkDense(p+"ffn1", useModelDim, useFFNDim),
			ffn2:   mkDense(p+"ffn2", useFFNDim, useModelDim),
		}
		if dIn != useModelDim {
			r := mkDense(p+"res", dIn, useModelDim)
			l.res = &r
		}
		m.layers[i] = l
	}
	if firstErr != nil {
		return nil, firstErr
	}
	if len(m.timingInv) == useTimingDim {
		m.timing = make([]float32, useMaxTokens*useEmbDim)
		for p := range useMaxTokens {
			for c, inv := range m.timingInv {
				a := float64(float32(p) * inv)
				m.timing[p*useEmbDim+c] = float32(math.Sin(a))
				m.timing[p*useEmbDim+useTimingDim+c] = float32(math.Cos(a))
			}
		}
	}
	return m, nil
}

// useWork is one goroutine's scratch space for a forward pass of up to useMaxTokens tokens.
type useWork struct {
	x      []float32 // layer input, n × 512 (n × 256 for layer 0)
	h      []float32 // normalised input, n × 512
	qkv    []float32 // n × 1536
	att    []float32 // attention context, n × 512
	y      []float32 // n × 512
	ffn    []float32 // n × 1536
	scores []float32 // attention probabilities of one head, n × pad(n)
	q, k   []float32 // one head's scaled queries and keys, n × depth
	vT     []float32 // one head's values transposed, depth × pad(n)
	zero   []float32 // pad(useMaxTokens) zeros: the bias of the attention products
	mean   []float32 // 512
	fmean  []float32 // 1536, the last feed-forward layer's mean input
	ymean  []float32 // 512
}

func newUSEWork() *useWork {
	const n = useMaxTokens
	const depth = useModelDim / useHeads
	return &useWork{
		x:      make([]float32, n*useModelDim),
		h:      make([]float32, n*useModelDim),
		qkv:    make([]float32, n*3*useModelDim),
		att:    make([]float32, n*useModelDim),
		y:      make([]float32, n*useModelDim),
		ffn:    make([]float32, n*useFFNDim),
		scores: make([]float32, n*padTokens(n)),
		q:      make([]float32, n*depth),
		k:      make([]float32, n*depth),
		vT:     make([]float32, depth*padTokens(n)),
		zero:   make([]float32, padTokens(n)),
		mean:   make([]float32, useModelDim),
		fmean:  make([]float32, useFFNDim),
		ymean:  make([]float32, useModelDim),
	}
}

// forward computes the 512-d unit embedding of one token sequence into out. Sequences longer
// than useMaxTokens are clipped, as the graph does. An empty sequence yields the graph's own
// answer for no tokens: normalise(tanh(pool bias)).
func (m *useModel) forward(ids []int, w *useWork, out []float32) {
	n := min(len(ids), useMaxTokens)
	ids = ids[:n]
	clear(w.mean)
	if n > 0 {
		x := w.x[:n*useEmbDim]
		for p, id := range ids {
			if id < 0 || id >= useVocab {
				id = 0
			}
			e := m.emb[id*useEmbDim : (id+1)*useEmbDim]
			row := x[p*useEmbDim : (p+1)*useEmbDim]
			if m.k.timingTable {
				tp := m.timing[p*useEmbDim : (p+1)*useEmbDim]
				for c, ec := range e {
					row[c] = ec + (ec + tp[c])
				}
				continue
			}
			for c := range useTimingDim {
				a := float64(float32(p) * m.timingInv[c])
				row[c] = e[c] + (e[c] + float32(math.Sin(a)))
				row[c+useTimingDim] = e[c+useTimingDim] + (e[c+useTimingDim] + float32(math.Cos(a)))
			}
		}
		m.layer(&m.layers[0], n, w, false)
		if m.k.poolEarly {
			m.layer(&m.layers[1], n, w, true)
		} else {
			m.layer(&m.layers[1], n, w, false)
			x = w.x[:n*useModelDim]
			meanRows(x, n, useModelDim, w.mean)
		}
	}
	m.k.apply(&m.pool, w.mean, 1, out)
	var s float64
	for i, v := range out {
		t := float32(math.Tanh(float64(v)))
		out[i] = t
		s += float64(t) * float64(t)
	}
	inv := float32(1 / math.Sqrt(max(s, float64(m.l2Eps))))
	for i := range out {
		out[i] *= inv
	}
}

// meanRows averages the n rows (d wide) of x into mean.
func meanRows(x []float32, n, d int, mean []float32) {
	mean = mean[:d]
	clear(mean)
	for p := range n {
		for c, v := range x[p*d : (p+1)*d] {
			mean[c] += v
		}
	}
	inv := 1 / float32(n)
	for c := range mean {
		mean[c] *= inv
	}
}

// layer runs one pre-LN transformer layer on w.x (n × l.dIn), leaving n × 512 in w.x. With
// pooled (the last layer, when the kernels pool early) it leaves the mean over the tokens of
// its output in w.mean instead: the second feed-forward layer is affine, so the mean of its
// outputs is its output for the mean input, one row instead of n (a sixth of the pass).
func (m *useModel) layer(l *useLayer, n int, w *useWork, pooled bool) {
	dIn, dM := l.dIn, l.dModel
	x := w.x[:n*dIn]
	h := w.h[:n*dIn]
	m.k.norm(x, h, n, dIn, l.lnAttG, l.lnAttB, m.lnEps)
	qkv := w.qkv[:n*3*dIn]
	m.k.apply(&l.qkv, h, n, qkv)
	att := w.att[:n*dIn]
	m.k.attend(qkv, att, w, n, dIn, useHeads, l.qScale)
	y := w.y[:n*dM]
	m.k.apply(&l.out, att, n, y)
	if l.res != nil {
		r := w.h[:n*dM] // h is free again: reuse it for the projected residual
		m.k.apply(l.res, x, n, r)
		for i := range y {
			y[i] += r[i]
		}
	} else {
		for i := range y {
			y[i] += x[i]
		}
	}
	// y is now the attention block's output; the feed-forward block follows.
	h = w.h[:n*dM]
	m.k.norm(y, h, n, dM, l.lnFFNG, l.lnFFNB, m.lnEps)
	f := w.ffn[:n*useFFNDim]
	m.k.apply(&l.ffn1, h, n, f)
	for i, v := range f {
		if v < 0 {
			f[i] = 0
		}
	}
	if pooled {
		fm := w.fmean[:useFFNDim]
		meanRows(f, n, useFFNDim, fm)
		m.k.apply(&l.ffn2, fm, 1, w.mean)
		ym := w.ymean[:dM]
		meanRows(y, n, dM, ym)
		for c, v := range ym {
			w.mean[c] += v
		}
		return
	}
	x = w.x[:n*dM]
	m.k.apply(&l.ffn2, f, n, x)
	for i := range x {
		x[i] += y[i]
	}
}

// layerNorm normalises each of the n rows of x (width d) into h. The sums run in four
// float64 accumulators: one accumulator made each add wait for the one before.
func layerNorm(x, h []float32, n, d int, g, b []float32, eps float32) {
	g, b = g[:d], b[:d]
	for r := range n {
		row := x[r*d : (r+1)*d]
		out := h[r*d : (r+1)*d]
		var s0, s1, s2, s3 float64
		i := 0
		for ; i+4 <= len(row); i += 4 {
			s0 += float64(row[i])
			s1 += float64(row[i+1])
			s2 += float64(row[i+2])
			s3 += float64(row[i+3])
		}
		for ; i < len(row); i++ {
			s0 += float64(row[i])
		}
		mean := (s0 + s1 + s2 + s3) / float64(d)
		s0, s1, s2, s3 = 0, 0, 0, 0
		i = 0
		for ; i+4 <= len(row); i += 4 {
			d0, d1, d2, d3 := float64(row[i])-mean, float64(row[i+1])-mean, float64(row[i+2])-mean, float64(row[i+3])-mean
			s0 += d0 * d0
			s1 += d1 * d1
			s2 += d2 * d2
			s3 += d3 * d3
		}
		for ; i < len(row); i++ {
			dv := float64(row[i]) - mean
			s0 += dv * dv
		}
		variance := (s0 + s1 + s2 + s3) / float64(d)
		inv := float32(1 / math.Sqrt(variance+float64(eps)))
		mu := float32(mean)
		for i, v := range row {
			out[i] = (v-mu)*inv*g[i] + b[i]
		}
	}
}
