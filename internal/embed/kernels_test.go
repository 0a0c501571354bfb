package embed

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// withKernels returns a USE-Lite whose model runs k.
func withKernels(t testing.TB, k kernels) *USELite {
	t.Helper()
	needBuiltin(t)
	u, err := newWithKernels(k)
	if err != nil {
		t.Fatal(err)
	}
	return u
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

// TestExpSum checks the softmax exponentials (eight at a time where the CPU has AVX2) against
// expNeg on every length the vector loop and its tail distinguish, for arguments from 0 down past
// the float32 range, where both must be zero to within the smallest normal float. Scale 1 and
// shift 0 keep the arguments exact, which the vector loop (one fused multiply-add) and Go (a
// multiply and an add) would otherwise round differently; TestAttentionKernelsAgree covers
// real scales.
func TestExpSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := range 42 {
		x := make([]float32, n)
		for i := range x {
			x[i] = -rng.Float32() * 100 // arguments from 0 down to -100
		}
		const scale, shift = 1, 0
		want := make([]float32, n)
		var wantSum float64
		for i, v := range x {
			want[i] = expNeg(v*scale + shift)
			wantSum += float64(want[i])
		}
		got := expSum(x, scale, shift)
		for i := range want {
			if diff := math.Abs(float64(x[i] - want[i])); diff > 3e-7*float64(want[i])+2e-38 {
				t.Fatalf("n=%d: element %d = %g, want %g", n, i, x[i], want[i])
			}
		}
		if diff := math.Abs(float64(got) - wantSum); diff > 1e-6*wantSum+1e-37 {
			t.Errorf("n=%d: sum %g, want %g", n, got, wantSum)
		}
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
