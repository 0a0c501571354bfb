package memory

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"toolhost/internal/embed"
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

// retrievalScore is recall@1 and mean reciprocal rank (over the top 10) of one query kind.
type retrievalScore struct {
	recall1, mrr float64
}

// evaluate stores every fact through Service.Store in one topic, from one conversation, and
// searches each query from another conversation that names the topic.
func evaluate(t testing.TB, e embed.Embedder, hybrid bool, set retrievalSet) (para, kw retrievalScore) {
	t.Helper()
	ctx := context.Background()
	s := New(newTestStore(t), Config{Embedder: e, Hybrid: &hybrid, NearDuplicate: 2})
	ids := make([]uint64, len(set.Facts))
	for i, f := range set.Facts {
		ids[i] = mustStore(t, s, StoreRequest{Conversation: "writer", Scope: "topic:bench", Content: f.Fact}).ID
	}
	score := func(query func(i int) string) retrievalScore {
		var sc retrievalScore
		for i := range set.Facts {
			hits, err := s.Search(ctx, SearchRequest{Conversation: "reader", Query: query(i), Scopes: []string{"bench"}, Limit: 10, Threshold: f32(-1)})
			if err != nil {
				t.Fatal(err)
			}
			for rank, h := range hits {
				if h.ID == ids[i] {
					if rank == 0 {
						sc.recall1++
					}
					sc.mrr += 1 / float64(rank+1)
					break
				}
			}
		}
		n := float64(len(set.Facts))
		sc.recall1 /= n
		sc.mrr /= n
		return sc
	}
	return score(func(i int) string { return set.Facts[i].Paraphrase }), score(func(i int) string { return set.Facts[i].Keywords })
}

// TestRetrievalQuality is the end-to-end "done" check: memories stored in one conversation are
// found by meaning from another that shares the topic, offline, with the built-in model ahead of
// lexical matching on paraphrases. Figures: go test -v -run RetrievalQuality ./internal/memory.
func TestRetrievalQuality(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("216 USE-Lite forward passes: too slow under -race or -short; runs in the plain test run")
	}
	set := readRetrievalSet(t)
	type row struct {
		e      embed.Embedder
		hybrid bool
	}
	use, lex := embed.NewCached(embed.NewUSELite(), 1024), embed.NewLexical(embed.DefaultLexicalDim)
	results := map[row][2]retrievalScore{}
	for _, r := range []row{{use, false}, {use, true}, {lex, false}, {lex, true}} {
		p, k := evaluate(t, r.e, r.hybrid, set)
		results[r] = [2]retrievalScore{p, k}
		t.Logf("%-18s hybrid=%-5v paraphrase recall@1 %.3f MRR %.3f | keywords recall@1 %.3f MRR %.3f",
			r.e.ID(), r.hybrid, p.recall1, p.mrr, k.recall1, k.mrr)
	}
	useP, lexP := results[row{use, true}][0], results[row{lex, true}][0]
	if useP.recall1 <= lexP.recall1 || useP.mrr <= lexP.mrr {
		t.Errorf("paraphrases: built-in recall@1 %.3f MRR %.3f, lexical %.3f / %.3f; want built-in ahead on both",
			useP.recall1, useP.mrr, lexP.recall1, lexP.mrr)
	}
	if k := results[row{use, true}][1]; k.recall1 < 0.9 {
		t.Errorf("keywords: built-in with hybrid recall@1 = %.3f, want >= 0.9", k.recall1)
	}
}

// TestRetrievalLexical runs the benchmark with the lexical embedder only, so the -race run
// checks the path too.
func TestRetrievalLexical(t *testing.T) {
	set := readRetrievalSet(t)
	_, k := evaluate(t, embed.NewLexical(embed.DefaultLexicalDim), true, set)
	if k.recall1 < 0.9 {
		t.Errorf("lexical keyword recall@1 = %.3f, want >= 0.9", k.recall1)
	}
}
