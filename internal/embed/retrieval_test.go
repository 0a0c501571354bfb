package embed

import (
	"context"
	"slices"
	"sort"
	"testing"

	"toolhost/internal/embed/retrievaltest"
)

// evaluateRetrieval embeds every fact and query with e and ranks all facts by cosine for each
// query; the expected fact is the one the query was written for.
func evaluateRetrieval(t testing.TB, e Embedder, s retrievaltest.Set) (paraphrase, keywords retrievaltest.Score) {
	t.Helper()
	n := len(s.Facts)
	texts := make([]string, 0, 3*n)
	for _, f := range s.Facts {
		texts = append(texts, f.Fact)
	}
	for _, f := range s.Facts {
		texts = append(texts, f.Paraphrase)
	}
	for _, f := range s.Facts {
		texts = append(texts, f.Keywords)
	}
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("%s: Embed: %v", e.ID(), err)
	}
	facts := vecs[:n]
	score := func(queries [][]float32) retrievaltest.Score {
		return retrievaltest.Measure(n, func(qi int) int {
			sims := make([]float32, n)
			for fi, f := range facts {
				sims[fi] = Cosine(queries[qi], f)
			}
			order := make([]int, n)
			for i := range order {
				order[i] = i
			}
			sort.SliceStable(order, func(a, b int) bool { return sims[order[a]] > sims[order[b]] })
			return slices.Index(order, qi)
		})
	}
	return score(vecs[n : 2*n]), score(vecs[2*n:])
}

// TestRetrievalQuality checks that the built-in model earns its 14 MB: on paraphrased queries it
// must beat lexical matching. Figures are logged (go test -v -run RetrievalQuality).
func TestRetrievalQuality(t *testing.T) {
	needBuiltin(t)
	if raceEnabled || testing.Short() {
		t.Skip("108 forward passes: too slow under -race or -short; runs in the plain test run")
	}
	s := retrievaltest.Read(t, "testdata/retrieval.json")
	useP, useK := evaluateRetrieval(t, NewUSELite(), s)
	lexP, lexK := evaluateRetrieval(t, NewLexical(DefaultLexicalDim), s)
	t.Logf("%d facts", len(s.Facts))
	t.Logf("%-18s paraphrase recall@1 %.3f MRR %.3f | keywords recall@1 %.3f MRR %.3f", USELiteID, useP.Recall1, useP.MRR, useK.Recall1, useK.MRR)
	t.Logf("%-18s paraphrase recall@1 %.3f MRR %.3f | keywords recall@1 %.3f MRR %.3f", NewLexical(DefaultLexicalDim).ID(), lexP.Recall1, lexP.MRR, lexK.Recall1, lexK.MRR)
	if useP.MRR <= lexP.MRR || useP.Recall1 <= lexP.Recall1 {
		t.Errorf("paraphrase retrieval: built-in recall@1 %.3f MRR %.3f, lexical recall@1 %.3f MRR %.3f; want built-in ahead on both",
			useP.Recall1, useP.MRR, lexP.Recall1, lexP.MRR)
	}
	if useK.Recall1 < 0.8 {
		t.Errorf("keyword retrieval: built-in recall@1 = %.3f, want >= 0.8", useK.Recall1)
	}
	if lexK.Recall1 < 0.8 {
		t.Errorf("keyword retrieval: lexical recall@1 = %.3f, want >= 0.8", lexK.Recall1)
	}
}

// BenchmarkRetrieval reports the retrieval figures as metrics, one sub-benchmark per embedder.
func BenchmarkRetrieval(b *testing.B) {
	needBuiltin(b)
	s := retrievaltest.Read(b, "testdata/retrieval.json")
	for _, e := range []Embedder{NewUSELite(), NewLexical(DefaultLexicalDim)} {
		b.Run(e.ID(), func(b *testing.B) {
			var p, k retrievaltest.Score
			for b.Loop() {
				p, k = evaluateRetrieval(b, e, s)
			}
			b.ReportMetric(p.Recall1, "para-recall@1")
			b.ReportMetric(p.MRR, "para-MRR")
			b.ReportMetric(k.Recall1, "kw-recall@1")
			b.ReportMetric(k.MRR, "kw-MRR")
		})
	}
}
