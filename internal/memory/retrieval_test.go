package memory

import (
	"context"
	"slices"
	"testing"

	"toolhost/internal/embed"
	"toolhost/internal/embed/retrievaltest"
)

// evaluate stores every fact through Service.Store in one topic, from one conversation, and
// searches each query from another conversation that names the topic.
func evaluate(t testing.TB, e embed.Embedder, hybrid bool, set retrievaltest.Set) (para, kw retrievaltest.Score) {
	t.Helper()
	ctx := context.Background()
	s := New(newTestStore(t), Config{Embedder: e, Hybrid: &hybrid, NearDuplicate: 2})
	ids := make([]uint64, len(set.Facts))
	for i, f := range set.Facts {
		ids[i] = mustStore(t, s, StoreRequest{Conversation: "writer", Scope: "topic:bench", Content: f.Fact}).ID
	}
	score := func(query func(i int) string) retrievaltest.Score {
		return retrievaltest.Measure(len(set.Facts), func(i int) int {
			hits, err := s.Search(ctx, SearchRequest{Conversation: "reader", Query: query(i), Scopes: []string{"bench"}, Limit: 10, Threshold: f32(-1)})
			if err != nil {
				t.Fatal(err)
			}
			return slices.IndexFunc(hits, func(h Hit) bool { return h.ID == ids[i] })
		})
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
	set := retrievaltest.Read(t, "testdata/retrieval.json")
	type row struct {
		e      embed.Embedder
		hybrid bool
	}
	use, lex := embed.NewCached(embed.NewUSELite(), 1024), embed.NewLexical(embed.DefaultLexicalDim)
	results := map[row][2]retrievaltest.Score{}
	for _, r := range []row{{use, false}, {use, true}, {lex, false}, {lex, true}} {
		p, k := evaluate(t, r.e, r.hybrid, set)
		results[r] = [2]retrievaltest.Score{p, k}
		t.Logf("%-18s hybrid=%-5v paraphrase recall@1 %.3f MRR %.3f | keywords recall@1 %.3f MRR %.3f",
			r.e.ID(), r.hybrid, p.Recall1, p.MRR, k.Recall1, k.MRR)
	}
	useP, lexP := results[row{use, true}][0], results[row{lex, true}][0]
	if useP.Recall1 <= lexP.Recall1 || useP.MRR <= lexP.MRR {
		t.Errorf("paraphrases: built-in recall@1 %.3f MRR %.3f, lexical %.3f / %.3f; want built-in ahead on both",
			useP.Recall1, useP.MRR, lexP.Recall1, lexP.MRR)
	}
	if k := results[row{use, true}][1]; k.Recall1 < 0.9 {
		t.Errorf("keywords: built-in with hybrid recall@1 = %.3f, want >= 0.9", k.Recall1)
	}
}

// TestRetrievalLexical runs the benchmark with the lexical embedder only, so the -race run
// checks the path too.
func TestRetrievalLexical(t *testing.T) {
	set := retrievaltest.Read(t, "testdata/retrieval.json")
	_, k := evaluate(t, embed.NewLexical(embed.DefaultLexicalDim), true, set)
	if k.Recall1 < 0.9 {
		t.Errorf("lexical keyword recall@1 = %.3f, want >= 0.9", k.Recall1)
	}
}
