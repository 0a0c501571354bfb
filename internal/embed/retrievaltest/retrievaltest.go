// Package retrievaltest reads the retrieval sets that measure how well memories are found by
// meaning (facts, each with a paraphrased and a keyword query written for it) and scores a
// ranking of them by recall@1 and mean reciprocal rank. Only tests import it.
package retrievaltest

import (
	"encoding/json"
	"os"
	"testing"
)

// Set is a retrieval set: each fact with the two queries written for it.
type Set struct {
	Facts []Fact `json:"facts"`
}

// Fact is one fact and its queries.
type Fact struct {
	Fact       string `json:"fact"`
	Paraphrase string `json:"paraphrase"`
	Keywords   string `json:"keywords"`
}

// minFacts is the fewest facts a set may have for its figures to mean anything.
const minFacts = 30

// Read reads the set at path (JSON); a set of fewer than 30 facts fails the test.
func Read(t testing.TB, path string) Set {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s Set
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Facts) < minFacts {
		t.Fatalf("%s has %d facts, want at least %d", path, len(s.Facts), minFacts)
	}
	return s
}

// Score is recall@1 and mean reciprocal rank of one kind of query.
type Score struct {
	Recall1, MRR float64
}

// Measure scores n queries: rankOf(i) is the 0-based rank at which query i found its fact, or
// -1 when it did not (it counts as rank infinity).
func Measure(n int, rankOf func(i int) int) Score {
	var sc Score
	for i := range n {
		rank := rankOf(i)
		if rank < 0 {
			continue
		}
		if rank == 0 {
			sc.Recall1++
		}
		sc.MRR += 1 / float64(rank+1)
	}
	sc.Recall1 /= float64(n)
	sc.MRR /= float64(n)
	return sc
}
