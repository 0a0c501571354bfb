package embed

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"
)

// The reference kernels are the forward pass as it was before the blocked dense layers and the
// vector attention: the fast kernels must give the same vectors (to float rounding), and
// BenchmarkEmbedChunks measures both in one run.

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

// withKernels returns a USE-Lite whose model runs k.
func withKernels(t testing.TB, k kernels) *USELite {
	t.Helper()
	needBuiltin(t)
	m, err := NewUSELite().load()
	if err != nil {
		t.Fatal(err)
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
	return u
}

// transposeAll gives every dense layer of m (a copy) its transposed weights as well.
func transposeAll(m *useModel) {
	tr := func(d dense) dense {
		if d.wT != nil || d.w == nil {
			return d
		}
		d.wT = make([]float32, d.in*d.out)
		for i := range d.in {
			for j := range d.out {
				d.wT[j*d.in+i] = d.w[i*d.out+j]
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

// chunkTexts are document chunks of the size import_document cuts (it packs blocks up to the
// 128-token window: 90 to 128 tokens here), then a few short and odd-length ones for the
// kernels' leftover paths.
func chunkTexts() []string {
	var out []string
	words := strings.Fields("the service retries failed requests with exponential backoff and logs every attempt to the audit trail so that operators can replay them later when a dependency recovers after an outage of the payment gateway or the database")
	for i := range 24 {
		n := 75 + (i*7)%30
		var b strings.Builder
		for w := range n {
			b.WriteString(words[(i+w*7)%len(words)])
			b.WriteByte(' ')
		}
		out = append(out, b.String())
	}
	return append(out, "x", "two words", "a b c d e", strings.Repeat("long ", 300))
}

func TestExpNeg(t *testing.T) {
	worst := 0.0
	for x := float32(0); x > -87.2; x -= 0.00731 {
		got, want := float64(expNeg(x)), math.Exp(float64(x))
		if rel := math.Abs(got-want) / want; rel > worst {
			worst = rel
		}
	}
	if worst > 3e-7 {
		t.Errorf("expNeg: largest relative error %.2g over [-87.2, 0], want within 2 ulp", worst)
	}
	if got := expNeg(-100); got != 0 {
		t.Errorf("expNeg(-100) = %g, want 0", got)
	}
	if got := expNeg(0); got != 1 {
		t.Errorf("expNeg(0) = %g, want 1", got)
	}
}

func TestKernelsMatchReference(t *testing.T) {
	ctx := context.Background()
	texts := chunkTexts()
	if raceEnabled {
		texts = texts[len(texts)-6:] // two long chunks and the odd ones; all under -race is minutes
	}
	fast, err := withKernels(t, fastKernels).Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := withKernels(t, referenceKernels).Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	worst, maxDiff := 1.0, 0.0
	for i := range texts {
		cos := float64(Cosine(fast[i], ref[i]))
		worst = min(worst, cos)
		for j := range fast[i] {
			maxDiff = max(maxDiff, math.Abs(float64(fast[i][j]-ref[i][j])))
		}
	}
	if worst < 0.999999 || maxDiff > 1e-4 {
		t.Errorf("fast kernels against the reference: lowest cosine %.8f, largest difference %.2g", worst, maxDiff)
	}
	t.Logf("%d texts: lowest cosine %.8f, largest component difference %.2g", len(texts), worst, maxDiff)
}

// BenchmarkEmbedChunks embeds document-sized chunks on all cores with the reference kernels and
// with the fast ones, alternating in every iteration so that both see the same load from other
// processes, and reports both rates and their ratio (the speed-up), by wall and by CPU time.
//
//	go test -run '^$' -bench EmbedChunks -benchtime 5x ./internal/embed
func BenchmarkEmbedChunks(b *testing.B) {
	ctx := context.Background()
	texts := chunkTexts()[:24]
	ref, fast := withKernels(b, referenceKernels), withKernels(b, fastKernels)
	for _, u := range []*USELite{ref, fast} {
		if _, err := u.Embed(ctx, texts[:1]); err != nil {
			b.Fatal(err)
		}
	}
	var wall, cpu [2]float64
	n := 0
	for b.Loop() {
		for i, u := range []*USELite{ref, fast} {
			t0, c0 := time.Now(), processCPUSeconds()
			if _, err := u.Embed(ctx, texts); err != nil {
				b.Fatal(err)
			}
			wall[i] += time.Since(t0).Seconds()
			cpu[i] += processCPUSeconds() - c0
		}
		n += len(texts)
	}
	b.ReportMetric(float64(n)/wall[0], "ref-chunks/s")
	b.ReportMetric(float64(n)/wall[1], "fast-chunks/s")
	b.ReportMetric(wall[0]/wall[1], "speedup")
	if cpu[0] > 0 && cpu[1] > 0 {
		b.ReportMetric(cpu[0]/cpu[1], "cpu-speedup")
	}
}
