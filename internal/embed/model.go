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

// dense is a fully connected layer. The kernel is stored transposed (out rows of in weights) so
// that every output element is a contiguous dot product, the fastest shape for plain Go loops.
type dense struct {
	in, out int
	wT      []float32
	b       []float32
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
	lnEps     float32
	layers    [2]useLayer
	pool      dense
	l2Eps     float32
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
			d.wT = w.decodeTransposed(half, in, out)
		}
		return d
	}
	m := &useModel{
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
	scores []float32 // n
	mean   []float32 // 512
}

func newUSEWork() *useWork {
	const n = useMaxTokens
	return &useWork{
		x:      make([]float32, n*useModelDim),
		h:      make([]float32, n*useModelDim),
		qkv:    make([]float32, n*3*useModelDim),
		att:    make([]float32, n*useModelDim),
		y:      make([]float32, n*useModelDim),
		ffn:    make([]float32, n*useFFNDim),
		scores: make([]float32, n),
		mean:   make([]float32, useModelDim),
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
			for c := range useTimingDim {
				a := float64(float32(p) * m.timingInv[c])
				row[c] = e[c] + (e[c] + float32(math.Sin(a)))
				row[c+useTimingDim] = e[c+useTimingDim] + (e[c+useTimingDim] + float32(math.Cos(a)))
			}
		}
		m.layer(&m.layers[0], n, w)
		m.layer(&m.layers[1], n, w)
		x = w.x[:n*useModelDim]
		for p := range n {
			row := x[p*useModelDim : (p+1)*useModelDim]
			for c, v := range row {
				w.mean[c] += v
			}
		}
		inv := 1 / float32(n)
		for c := range w.mean {
			w.mean[c] *= inv
		}
	}
	m.pool.apply(w.mean, 1, out)
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

// layer runs one pre-LN transformer layer on w.x (n × l.dIn), leaving n × 512 in w.x.
func (m *useModel) layer(l *useLayer, n int, w *useWork) {
	dIn, dM := l.dIn, l.dModel
	x := w.x[:n*dIn]
	h := w.h[:n*dIn]
	layerNorm(x, h, n, dIn, l.lnAttG, l.lnAttB, m.lnEps)
	qkv := w.qkv[:n*3*dIn]
	l.qkv.apply(h, n, qkv)
	att := w.att[:n*dIn]
	attention(qkv, att, w.scores, n, dIn, useHeads, l.qScale)
	y := w.y[:n*dM]
	l.out.apply(att, n, y)
	if l.res != nil {
		r := w.h[:n*dM] // h is free again: reuse it for the projected residual
		l.res.apply(x, n, r)
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
	layerNorm(y, h, n, dM, l.lnFFNG, l.lnFFNB, m.lnEps)
	f := w.ffn[:n*useFFNDim]
	l.ffn1.apply(h, n, f)
	for i, v := range f {
		if v < 0 {
			f[i] = 0
		}
	}
	x = w.x[:n*dM]
	l.ffn2.apply(f, n, x)
	for i := range x {
		x[i] += y[i]
	}
}

// layerNorm normalises each of the n rows of x (width d) into h.
func layerNorm(x, h []float32, n, d int, g, b []float32, eps float32) {
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

// attention computes multi-head scaled dot-product attention over one unpadded sequence. qkv
// holds n rows of [q | k | v], each d wide; heads split d evenly. The result goes to att (n × d).
func attention(qkv, att, scores []float32, n, d, heads int, scale float32) {
	depth := d / heads
	stride := 3 * d
	scores = scores[:n]
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
