package memory

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"toolhost/internal/embed"
)

// TestHalfScanSameResults fills two slabs with the same vectors, one scanning its float16
// copies with exact rescoring and one its float32 vectors only, and checks that every search
// returns the same IDs and the same cosine bits in the same order: ties (the same vector
// stored twice), vectors a rounding apart, a component beyond float16's range, removals, a
// scope past parallelMin and one below it, several scopes at once and every size of n.
func TestHalfScanSameResults(t *testing.T) {
	if !embed.HalfAvailable() {
		if os.Getenv("CI") != "" && runtime.GOARCH == "amd64" {
			t.Fatal("no F16C kernels on this amd64 CPU (or a -tags purego build): CI must run where the float16 scan runs, or it goes untested")
		}
		t.Skip("no F16C kernels in this build or CPU: the slab keeps to float32")
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, dim := range []int{512, 48} {
		t.Run(fmt.Sprintf("dim=%d", dim), func(t *testing.T) {
			randVec := func() []float32 { return randUnitVec(rng, dim) }
			half := &slabIndex{scopes: map[string]*slab{}, where: map[uint64]slabLoc{}}
			exact := &slabIndex{scopes: map[string]*slab{}, where: map[uint64]slabLoc{}, noHalf: true}
			var stored [][]float32
			add := func(id uint64, scope string, v []float32) {
				for _, x := range []*slabIndex{half, exact} {
					if err := x.add(ctx, id, scope, nil, v); err != nil {
						t.Fatal(err)
					}
				}
				stored = append(stored, v)
			}
			id := uint64(0)
			big := parallelMin + 300
			if testing.Short() || raceEnabled {
				big = 3*blockVecs + 5
			}
			for range big {
				id++
				var v []float32
				switch r := rng.IntN(20); {
				case r == 0 && len(stored) > 0: // the same vector again: a tie
					v = append([]float32(nil), stored[rng.IntN(len(stored))]...)
				case r == 1 && len(stored) > 0: // a rounding apart
					v = append([]float32(nil), stored[rng.IntN(len(stored))]...)
					k := rng.IntN(dim)
					v[k] = math.Nextafter32(v[k], 2)
				case r == 2: // beyond float16: its bound is infinite
					v = randVec()
					v[rng.IntN(dim)] = 1e6
				default:
					v = randVec()
				}
				add(id, "topic:a", v)
				if rng.IntN(10) == 0 {
					victim := uint64(rng.IntN(int(id))) + 1
					for _, x := range []*slabIndex{half, exact} {
						if err := x.remove(ctx, victim); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			for range 700 {
				id++
				add(id, "topic:b", randVec())
			}
			if !half.halfOn || exact.halfOn {
				t.Fatalf("halfOn %v and %v, want true and false", half.halfOn, exact.halfOn)
			}
			for qi := range 60 {
				q := randVec()
				if qi%3 == 0 { // a stored vector: its duplicates tie at the top
					q = stored[rng.IntN(len(stored))]
				}
				for _, scopes := range [][]string{{"topic:a"}, {"topic:a", "topic:b"}, nil} {
					for _, n := range []int{1, 10, 40, 100} {
						got, err := half.search(ctx, q, scopes, nil, n)
						if err != nil {
							t.Fatal(err)
						}
						want, err := exact.search(ctx, q, scopes, nil, n)
						if err != nil {
							t.Fatal(err)
						}
						if len(got) != len(want) {
							t.Fatalf("query %d scopes %v n=%d: %d hits, want %d", qi, scopes, n, len(got), len(want))
						}
						for i := range want {
							if got[i].id != want[i].id || math.Float32bits(got[i].sim) != math.Float32bits(want[i].sim) {
								t.Fatalf("query %d scopes %v n=%d hit %d: %d %v, want %d %v", qi, scopes, n, i, got[i].id, got[i].sim, want[i].id, want[i].sim)
							}
						}
					}
				}
			}
		})
	}
}
