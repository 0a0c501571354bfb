package embed

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type goldenFile struct {
	Model      string `json:"model"`
	ProducedBy string `json:"produced_by"`
	Cases      []struct {
		Text      string    `json:"text"`
		IDs       []int     `json:"ids"`
		Embedding []float32 `json:"embedding"`
	} `json:"cases"`
}

func readGolden(t testing.TB) goldenFile {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g goldenFile
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) == 0 {
		t.Fatal("testdata/golden.json has no cases")
	}
	return g
}

// TestUSELiteTokenizeGolden pins the tokenizer to the ids the TF.js implementation produced.
func TestUSELiteTokenizeGolden(t *testing.T) {
	needBuiltin(t)
	u := NewUSELite()
	for _, c := range readGolden(t).Cases {
		t.Run(c.Text, func(t *testing.T) {
			got := u.Tokenize(c.Text)
			if diff := cmp.Diff(c.IDs, got); diff != "" {
				t.Errorf("Tokenize(%q) mismatch (-want +got):\n%s", c.Text, diff)
			}
		})
	}
}

// TestUSELiteEmbedGolden checks the whole forward pass against the TF.js vectors.
func TestUSELiteEmbedGolden(t *testing.T) {
	needBuiltin(t)
	u := NewUSELite()
	g := readGolden(t)
	if raceEnabled {
		// Keep the parallel path under the race detector but only with short inputs.
		var short = g.Cases[:0]
		for _, c := range g.Cases {
			if len(c.IDs) <= 10 {
				short = append(short, c)
			}
		}
		g.Cases = short
	}
	texts := make([]string, len(g.Cases))
	for i, c := range g.Cases {
		texts[i] = c.Text
	}
	got, err := u.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	worst := float32(1)
	for i, c := range g.Cases {
		cos := Cosine(got[i], c.Embedding)
		if cos < 0.99999 {
			t.Errorf("cosine(Embed(%q), golden) = %.7f, want >= 0.99999", c.Text, cos)
		}
		worst = min(worst, cos)
	}
	t.Logf("%d cases, lowest cosine to the TF.js vectors %.7f", len(g.Cases), worst)
	// One text at a time takes the sequential path; it must agree with the parallel one.
	one, err := u.Embed(context.Background(), texts[:1])
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if diff := cmp.Diff(got[0], one[0]); diff != "" {
		t.Errorf("Embed(%q) alone differs from the batched result (-batch +alone):\n%s", texts[0], diff)
	}
}
