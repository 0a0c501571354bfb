package embed

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// countingEmbedder records which texts reach the embedder behind a cache.
type countingEmbedder struct {
	*Lexical
	seen []string
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.seen = append(c.seen, texts...)
	return c.Lexical.Embed(ctx, texts)
}

func TestCached(t *testing.T) {
	tests := []struct {
		name     string
		size     int
		batches  [][]string
		wantSeen []string
	}{
		{
			name:     "repeat hits",
			size:     8,
			batches:  [][]string{{"a", "b"}, {"b", "a"}},
			wantSeen: []string{"a", "b"},
		},
		{
			name:     "duplicates in one batch embedded once",
			size:     8,
			batches:  [][]string{{"a", "a", "b", "a"}},
			wantSeen: []string{"a", "b"},
		},
		{
			name:     "least recently used evicted",
			size:     2,
			batches:  [][]string{{"a"}, {"b"}, {"a"}, {"c"}, {"a"}, {"b"}},
			wantSeen: []string{"a", "b", "c", "b"},
		},
		{
			name:     "size below one keeps one",
			size:     0,
			batches:  [][]string{{"a"}, {"a"}, {"b"}, {"a"}},
			wantSeen: []string{"a", "b", "a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := &countingEmbedder{Lexical: NewLexical(32)}
			c := NewCached(inner, tt.size)
			for _, batch := range tt.batches {
				got, err := c.Embed(context.Background(), batch)
				if err != nil {
					t.Fatal(err)
				}
				want, _ := NewLexical(32).Embed(context.Background(), batch)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("Embed(%q) mismatch (-want +got):\n%s", batch, diff)
				}
			}
			if diff := cmp.Diff(tt.wantSeen, inner.seen); diff != "" {
				t.Errorf("texts reaching the inner embedder (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCachedReturnsCopies(t *testing.T) {
	c := NewCached(NewLexical(32), 4)
	ctx := context.Background()
	first, err := c.Embed(ctx, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	want := append([]float32(nil), first[0]...)
	first[0][0] = 42
	again, err := c.Embed(ctx, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, again[0]); diff != "" {
		t.Errorf("cached vector changed by caller's write (-want +got):\n%s", diff)
	}
	if hits, misses := c.Stats(); hits != 1 || misses != 1 {
		t.Errorf("Stats() = %d hits, %d misses, want 1, 1", hits, misses)
	}
}
