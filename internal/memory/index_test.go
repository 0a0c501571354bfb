package memory

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"toolhost/internal/embed"
)

// TestIndexAgainstReference adds and removes random vectors across several scopes and slab blocks
// and checks every search against an exhaustive reference computed from a plain map.
func TestIndexAgainstReference(t *testing.T) {
	const dim = 8
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	randVec := func() []float32 { return randUnitVec(rng, dim) }
	type ref struct {
		scope string
		tags  []string
		vec   []float32
	}
	for _, kind := range indexKinds {
		t.Run(string(kind), func(t *testing.T) {
			idx := newIndex(kind, func(context.Context, string) ([]float32, error) { return randVec(), nil })
			want := map[uint64]ref{}
			scopes := []string{"topic:a", "topic:b", "conversation:c"}
			// Enough that topic:a spans several blocks and passes parallelMin (the parallel scan).
			n := 16 * blockVecs
			if kind == IndexChromem {
				n = 600 // chromem's per-query goroutines make large runs slow under -race
			}
			for id := uint64(1); id <= uint64(n); id++ {
				r := ref{scope: scopes[0], vec: randVec()}
				if rng.IntN(5) == 0 {
					r.scope = scopes[1+rng.IntN(2)]
				}
				if rng.IntN(3) == 0 {
					r.tags = []string{"x"}
				}
				if err := idx.add(ctx, id, r.scope, r.tags, r.vec); err != nil {
					t.Fatal(err)
				}
				want[id] = r
				if rng.IntN(4) == 0 { // remove a random earlier one
					victim := uint64(rng.IntN(int(id))) + 1
					if err := idx.remove(ctx, victim); err != nil {
						t.Fatal(err)
					}
					delete(want, victim)
				}
			}
			if idx.size() != len(want) {
				t.Fatalf("size() = %d, want %d", idx.size(), len(want))
			}
			for q := range 20 {
				qv := randVec()
				sc := []string{scopes[q%3]}
				var tags []string
				if q%2 == 0 {
					tags = []string{"x"}
				}
				if q%5 == 0 {
					sc = scopes
				}
				var all []scored
				for id, r := range want {
					if slices.Contains(sc, r.scope) && hasTags(r.tags, tags) {
						all = append(all, scored{id: id, sim: dot(qv, r.vec)})
					}
				}
				top := &topN{n: 7}
				for _, s := range all {
					top.push(s)
				}
				exp := top.sorted()
				got, err := idx.search(ctx, qv, sc, tags, 7)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(exp) {
					t.Fatalf("query %d: %d hits, want %d", q, len(got), len(exp))
				}
				for i := range got {
					if got[i].id != exp[i].id && math.Abs(float64(got[i].sim-exp[i].sim)) > 1e-5 {
						t.Errorf("query %d hit %d = %v, want %v", q, i, got[i], exp[i])
					}
				}
			}
			t.Logf("%d vectors checked", len(want))
		})
	}
}

// TestAutoIndexMovesLargeScopes: the default index keeps a scope in chromem-go until it holds
// more than autoSlabFrom memories, then moves it to the slab, with the same answers (tags
// included) before and after, and leaves small scopes where they are.
func TestAutoIndexMovesLargeScopes(t *testing.T) {
	ctx := context.Background()
	lex := embed.NewLexical(64)
	auto := newIndex(IndexAuto, embed.Func(lex)).(*autoIndex)
	ref := newIndex(IndexSlab, nil)
	add := func(id uint64, scope string) {
		text := fmt.Sprintf("note %d about the %s market", id, fruits[id%uint64(len(fruits))])
		v, _ := lex.Embed(ctx, []string{text})
		tags := []string{fruits[id%uint64(len(fruits))]}
		for _, x := range []index{auto, ref} {
			if err := x.add(ctx, id, scope, tags, v[0]); err != nil {
				t.Fatal(err)
			}
		}
	}
	for id := uint64(1); id <= autoSlabFrom; id++ {
		add(id, "topic:big")
	}
	add(100000, "topic:small")
	if auto.inSlab["topic:big"] {
		t.Fatalf("a scope of %d memories moved to the slab, want it in chromem-go until it has more", autoSlabFrom)
	}
	search := func(x index, tags []string) []scored {
		q, _ := lex.Embed(ctx, []string{"the cherry market note"})
		hits, err := x.search(ctx, q[0], []string{"topic:big", "topic:small"}, tags, 7)
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	before := search(auto, []string{"cherry"})
	add(autoSlabFrom+1, "topic:big")
	if !auto.inSlab["topic:big"] || auto.inSlab["topic:small"] {
		t.Fatalf("after %d memories: inSlab = %v, want only topic:big in the slab", autoSlabFrom+1, auto.inSlab)
	}
	if auto.chromem.db.GetCollection("topic:big", nil) != nil || auto.size() != autoSlabFrom+2 {
		t.Errorf("the chromem-go collection is still there or the size is %d", auto.size())
	}
	for _, tags := range [][]string{nil, {"cherry"}} {
		got, want := search(auto, tags), search(ref, tags)
		if len(got) != len(want) {
			t.Fatalf("tags %v: %d hits, want %d", tags, len(got), len(want))
		}
		for i := range got {
			if got[i].id != want[i].id {
				t.Errorf("tags %v: hit %d = %d, want %d (as the slab alone)", tags, i, got[i].id, want[i].id)
			}
		}
	}
	if after := search(auto, []string{"cherry"}); after[0].id != before[0].id {
		t.Errorf("the best hit changed across the move: %d, then %d", before[0].id, after[0].id)
	}
	if err := auto.remove(ctx, 5); err != nil || auto.size() != autoSlabFrom+1 {
		t.Errorf("remove from the moved scope: %v, size %d", err, auto.size())
	}
	if names := auto.scopeNames(); !slices.Equal(names, []string{"topic:big", "topic:small"}) {
		t.Errorf("scopeNames = %v", names)
	}
}

// randUnitVec returns a random vector of dim components and length 1.
func randUnitVec(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var n float64
	for i := range v {
		v[i] = float32(rng.NormFloat64())
		n += float64(v[i]) * float64(v[i])
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}
