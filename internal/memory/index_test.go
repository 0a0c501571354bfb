package memory

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIndexAgainstReference adds and removes random vectors across several scopes and slab blocks
// and checks every search against an exhaustive reference computed from a plain map.
func TestIndexAgainstReference(t *testing.T) {
	const dim = 8
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	randVec := func() []float32 {
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
