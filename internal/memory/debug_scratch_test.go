package memory

import (
	"context"
	"os"
	"strings"
	"testing"
)

func TestDebugScratch(t *testing.T) {
	qs := os.Getenv("TOOLHOST_DEBUG_Q")
	if qs == "" {
		t.Skip()
	}
	rs := storeRecall(t, Config{})
	for _, k := range strings.Split(os.Getenv("TOOLHOST_DEBUG_K"), ",") {
		id := rs.ids[k]
		m, err := rs.s.Get(context.Background(), "x", id)
		t.Logf("%s → #%d %+v %v", k, id, m, err)
	}
	for _, q := range strings.Split(qs, "|") {
		p := rs.s.plan(q)
		t.Logf("plan %q: lang %s vector %q terms %v idents %v numbers %v", q, p.lang, p.vector, p.terms, p.idents, p.numbers)
		hits, err := rs.s.Search(context.Background(), SearchRequest{Conversation: "x", Query: q, Scopes: []string{"project"}, Limit: 8})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			t.Logf("   %.3f cos %.3f #%d %s", h.Score, h.Similarity, h.ID, h.Content)
		}
	}
}
