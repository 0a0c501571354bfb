package memory

import (
	"container/heap"
	"context"
	"math"
	"runtime"
	"sync"

	"toolhost/internal/embed"
)

// The slab's float16 scan. Past a few thousand memories a search is bound by reading the stored
// vectors (20 MB at 10,000 memories of 512 float32s), not by the arithmetic. The slab therefore
// keeps a float16 copy of every vector beside the float32 one and scans that (half the bytes),
// then computes the exact float32 cosine of every vector that could still be among the n best:
// the results are the ones the float32 scan gives, to the bit, in the same order.
//
// Why nothing is lost: for each stored vector v with float16 copy h the slab keeps
//
//	bound = ‖v − h‖ + γ·(2‖v‖ + ‖v − h‖),   γ = d·u / (1 − d·u), u = 2⁻²⁴
//
// (rounded up), so that for a query q the float32 cosine s the exact scan computes and the
// float16 one a satisfy |s − a| ≤ ‖q‖·bound: ‖q‖·‖v − h‖ bounds q·v − q·h, and γ·‖q‖·‖x‖
// bounds the rounding of a float32 dot product of d terms in any order (Higham, Accuracy and
// Stability of Numerical Algorithms, 3.1). With lo = a − ‖q‖·bound ≤ s ≤ hi = a + ‖q‖·bound, the
// n-th best lo (θ) is at most the n-th best s, so every vector whose exact cosine reaches the
// n-th best, ties included, has hi ≥ θ and is rescored; the rest cannot be among the n best.
// The rescoring calls the kernel the float32 scan would have used for that vector (Dot4 for
// the vectors of a block's groups of four, Dot for the rest), so the cosines are the same bits.

// halfGamma is γ for d terms: the relative rounding bound of a float32 dot product of d terms.
func halfGamma(d int) float64 {
	du := float64(d) * 0x1p-24
	return du / (1 - du)
}

// halfBound fills h with the float16 copy of v and returns its bound (see above), +Inf where
// a component does not fit float16.
func halfBound(v []float32, h []uint16, back []float32) float32 {
	embed.ToHalf(v, h)
	embed.FromHalf(h, back)
	var e2, n2 float64
	for i, x := range v {
		b := float64(back[i])
		if math.IsInf(b, 0) || math.IsNaN(b) || math.IsNaN(float64(x)) {
			return float32(math.Inf(1))
		}
		d := float64(x) - b
		e2 += d * d
		n2 += float64(x) * float64(x)
	}
	e := math.Sqrt(e2)
	bound := (e + halfGamma(len(v))*(2*math.Sqrt(n2)+e)) * (1 + 1e-6)
	b32 := float32(bound)
	if float64(b32) < bound {
		b32 = math.Nextafter32(b32, float32(math.Inf(1)))
	}
	return b32
}

// growHalf appends room for one float16 vector to s, in blocks parallel to s.blocks.
func (s *slab) growHalf(dim int) []uint16 { return growBlocks(&s.halves, dim) }

// half returns the float16 copy of the i-th vector of s.
func (s *slab) half(i, dim int) []uint16 {
	off := (i % blockVecs) * dim
	return s.halves[i/blockVecs][off : off+dim : off+dim]
}

// fillHalf sets the float16 copy and bound of the vector just stored for id.
func (x *slabIndex) fillHalf(id uint64) {
	if !x.halfOn {
		return
	}
	loc := x.where[id]
	s := x.scopes[loc.scope]
	if len(x.back) != x.dim {
		x.back = make([]float32, x.dim)
	}
	h := s.growHalf(x.dim)
	s.bound = append(s.bound, halfBound(s.vec(loc.pos, x.dim), h, x.back))
}

// removeHalf moves the last vector's float16 copy and bound to pos and drops the last.
func (s *slab) removeHalf(pos, last, dim int) {
	if s.halves == nil {
		return
	}
	if pos != last {
		copy(s.half(pos, dim), s.half(last, dim))
		s.bound[pos] = s.bound[last]
	}
	s.bound = s.bound[:last]
	lb := len(s.halves) - 1
	s.halves[lb] = s.halves[lb][:len(s.halves[lb])-dim]
	if len(s.halves[lb]) == 0 {
		s.halves[lb] = nil
		s.halves = s.halves[:lb]
	}
}

// searchHalf is search over the float16 copies with exact rescoring (see above). It reports
// false where it does not apply (no float16 copies, tags to filter, a query that is not finite),
// and search then scans the float32 vectors.
func (x *slabIndex) searchHalf(ctx context.Context, q []float32, scopes, tags []string, top *topN) (bool, error) {
	if !x.halfOn || len(tags) > 0 {
		return false, nil
	}
	var nq float64
	for _, v := range q {
		nq += float64(v) * float64(v)
	}
	nq = math.Sqrt(nq)
	if math.IsInf(nq, 0) || math.IsNaN(nq) {
		return false, nil
	}
	var slabs []*slab
	total := 0
	for _, sc := range scopes {
		if s := x.scopes[sc]; s != nil {
			slabs = append(slabs, s)
			total += len(s.ids)
		}
	}
	if cap(x.approx) < total {
		x.approx = make([]float32, total)
	}
	approx := x.approx[:total]
	off := 0
	for _, s := range slabs {
		x.scanHalf(s, q, approx[off:off+len(s.ids)])
		off += len(s.ids)
	}
	if err := ctx.Err(); err != nil {
		return true, err
	}
	// θ, the n-th best lower bound (−∞ while there are fewer than n vectors).
	theta := math.Inf(-1)
	lows := &floatHeap{}
	off = 0
	for _, s := range slabs {
		for i, b := range s.bound {
			lo := float64(approx[off+i]) - (nq*float64(b)*(1+1e-6) + 1e-12)
			if math.IsNaN(lo) {
				continue
			}
			if len(*lows) < top.n {
				heap.Push(lows, lo)
			} else if lo > (*lows)[0] {
				(*lows)[0] = lo
				heap.Fix(lows, 0)
			}
		}
		off += len(s.ids)
	}
	if len(*lows) == top.n {
		theta = (*lows)[0]
	}
	off = 0
	for _, s := range slabs {
		for i, b := range s.bound {
			hi := float64(approx[off+i]) + (nq*float64(b)*(1+1e-6) + 1e-12)
			if hi < theta { // a NaN is rescored
				continue
			}
			top.push(scored{id: s.ids[i], sim: x.exactSim(s, q, i)})
		}
		off += len(s.ids)
	}
	return true, nil
}

// exactSim is the float32 cosine of the i-th vector of s as slabIndex.scan computes it without
// tags: Dot4 for the vectors of its block's groups of four, Dot for the block's last ones.
func (x *slabIndex) exactSim(s *slab, q []float32, i int) float32 {
	dim := x.dim
	blk := s.blocks[i/blockVecs]
	j, n := i%blockVecs, len(blk)/dim
	v := blk[j*dim : (j+1)*dim]
	if j < n&^3 {
		var sims [4]float32
		embed.Dot4(q, v, v, v, v, &sims)
		return sims[0]
	}
	return dot(q, v)
}

// scanHalf writes the float16 cosine of each vector of s into out, over the cores from
// parallelMin vectors as scan does.
func (x *slabIndex) scanHalf(s *slab, q []float32, out []float32) {
	dim := x.dim
	blocks := func(lo, hi int) {
		var sims [4]float32
		for b := lo; b < hi; b++ {
			blk := s.halves[b]
			base := b * blockVecs
			n := len(blk) / dim
			j := 0
			for ; j+4 <= n; j += 4 {
				v := blk[j*dim : (j+4)*dim]
				embed.Dot4Half(q, v, v[dim:], v[2*dim:], v[3*dim:], &sims)
				copy(out[base+j:base+j+4], sims[:])
			}
			for ; j < n; j++ {
				v := blk[j*dim : (j+1)*dim]
				embed.Dot4Half(q, v, v, v, v, &sims)
				out[base+j] = sims[0]
			}
		}
	}
	nb := len(s.halves)
	workers := min(runtime.GOMAXPROCS(0), nb)
	if len(s.ids) < parallelMin || workers <= 1 {
		blocks(0, nb)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := w*nb/workers, (w+1)*nb/workers
		wg.Go(func() { blocks(lo, hi) })
	}
	wg.Wait()
}

// floatHeap is a min-heap of float64s.
type floatHeap []float64

func (h floatHeap) Len() int           { return len(h) }
func (h floatHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h floatHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *floatHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *floatHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
