package embed

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"testing"
)

type retrievalSet struct {
	Facts []struct {
		Fact       string `json:"fact"`
		Paraphrase string `json:"paraphrase"`
		Keywords   string `json:"keywords"`
	} `json:"facts"`
}

func readRetrievalSet(t testing.TB) retrievalSet {
	t.Helper()
	b, err := os.ReadFile("testdata/retrieval.json")
	if err != nil {
		t.Fatal(err)
	}
	var s retrievalSet
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Facts) < 30 {
		t.Fatalf("testdata/retrieval.json has %d facts, want at least 30", len(s.Facts))
	}
	return s
}

// retrievalScore is recall@1 and mean reciprocal rank of one query kind.
type retrievalScore struct {
	recall1, mrr float64
}

// evaluateRetrieval embeds every fact and query with e and ranks all facts by cosine for each
// query; the expected fact is the one the query was written for.
func evaluateRetrieval(t testing.TB, e Embedder, s retrievalSet) (paraphrase, keywords retrievalScore) {
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
	score := func(queries [][]float32) retrievalScore {
		var sc retrievalScore
		for qi, q := range queries {
			sims := make([]float32, n)
			for fi, f := range facts {
				sims[fi] = Cosine(q, f)
			}
			order := make([]int, n)
			for i := range order {
				order[i] = i
			}
			sort.SliceStable(order, func(a, b int) bool { return sims[order[a]] > sims[order[b]] })
			for rank, fi := range order {
				if fi == qi {
					if rank == 0 {
						sc.recall1++
					}
					sc.mrr += 1 / float64(rank+1)
					break
				}
			}
		}
		sc.recall1 /= float64(n)
		sc.mrr /= float64(n)
		return sc
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
	s := readRetrievalSet(t)
	useP, useK := evaluateRetrieval(t, NewUSELite(), s)
	lexP, lexK := evaluateRetrieval(t, NewLexical(DefaultLexicalDim), s)
	t.Logf("%d facts", len(s.Facts))
	t.Logf("%-18s paraphrase recall@1 %.3f MRR %.3f | keywords recall@1 %.3f MRR %.3f", USELiteID, useP.recall1, useP.mrr, useK.recall1, useK.mrr)
	t.Logf("%-18s paraphrase recall@1 %.3f MRR %.3f | keywords recall@1 %.3f MRR %.3f", NewLexical(DefaultLexicalDim).ID(), lexP.recall1, lexP.mrr, lexK.recall1, lexK.mrr)
	if useP.mrr <= lexP.mrr || useP.recall1 <= lexP.recall1 {
		t.Errorf("paraphrase retrieval: built-in recall@1 %.3f MRR %.3f, lexical recall@1 %.3f MRR %.3f; want built-in ahead on both",
			useP.recall1, useP.mrr, lexP.recall1, lexP.mrr)
	}
	if useK.recall1 < 0.8 {
		t.Errorf("keyword retrieval: built-in recall@1 = %.3f, want >= 0.8", useK.recall1)
	}
	if lexK.recall1 < 0.8 {
		t.Errorf("keyword retrieval: lexical recall@1 = %.3f, want >= 0.8", lexK.recall1)
	}
}

// BenchmarkRetrieval reports the retrieval figures as metrics, one sub-benchmark per embedder.
func BenchmarkRetrieval(b *testing.B) {
	needBuiltin(b)
	s := readRetrievalSet(b)
	for _, e := range []Embedder{NewUSELite(), NewLexical(DefaultLexicalDim)} {
		b.Run(e.ID(), func(b *testing.B) {
			var p, k retrievalScore
			for b.Loop() {
				p, k = evaluateRetrieval(b, e, s)
			}
			b.ReportMetric(p.recall1, "para-recall@1")
			b.ReportMetric(p.mrr, "para-MRR")
			b.ReportMetric(k.recall1, "kw-recall@1")
			b.ReportMetric(k.mrr, "kw-MRR")
		})
	}
}
