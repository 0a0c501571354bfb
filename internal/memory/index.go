package memory

import (
	"container/heap"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/philippgille/chromem-go"

	"toolhost/internal/embed"
)

// scored is one index hit.
type scored struct {
	id  uint64
	sim float32
}

// index is the in-memory vector index: IDs, scopes, tags and unit vectors of one embedder space.
// It is not safe for concurrent use; Service.mu guards it.
type index interface {
	add(ctx context.Context, id uint64, scope string, tags []string, vec []float32) error
	remove(ctx context.Context, id uint64) error
	// search returns up to n hits with the highest cosine among memories in one of scopes that
	// carry every tag in tags, best first.
	search(ctx context.Context, q []float32, scopes, tags []string, n int) ([]scored, error)
	size() int
	// scopeNames lists the scopes that hold at least one memory.
	scopeNames() []string
}

func newIndex(kind IndexKind, embedQuery chromem.EmbeddingFunc) index {
	newChromem := func() *chromemIndex {
		return &chromemIndex{db: chromem.NewDB(), embed: embedQuery, scopeOf: map[uint64]string{}}
	}
	newSlab := func() *slabIndex { return &slabIndex{scopes: map[string]*slab{}, where: map[uint64]slabLoc{}} }
	switch kind {
	case IndexChromem:
		return newChromem()
	case IndexSlab:
		return newSlab()
	}
	return &autoIndex{chromem: newChromem(), slab: newSlab(), inSlab: map[string]bool{}, count: map[string]int{}, scopeOf: map[uint64]string{}}
}

// hasTags reports whether have (sorted) contains every tag of want.
func hasTags(have, want []string) bool {
	for _, t := range want {
		if _, ok := slices.BinarySearch(have, t); !ok {
			return false
		}
	}
	return true
}

// topN keeps the n best hits in a min-heap.
type topN struct {
	n int
	h minHeap
}

func (t *topN) push(s scored) {
	if len(t.h) < t.n {
		heap.Push(&t.h, s)
	} else if s.sim > t.h[0].sim || (s.sim == t.h[0].sim && s.id < t.h[0].id) {
		t.h[0] = s
		heap.Fix(&t.h, 0)
	}
}

// sorted returns the hits best first (ties: lower ID first, so results are deterministic).
func (t *topN) sorted() []scored {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b scored) int {
		switch {
		case a.sim > b.sim:
			return -1
		case a.sim < b.sim:
			return 1
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
	return out
}

type minHeap []scored

func (h minHeap) Len() int { return len(h) }
func (h minHeap) Less(i, j int) bool {
	if h[i].sim != h[j].sim {
		return h[i].sim < h[j].sim
	}
	return h[i].id > h[j].id
}
func (h minHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)   { *h = append(*h, x.(scored)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// dot is the dot product of equal-length vectors, with the embedder's AVX2/FMA kernel where the
// CPU has it.
func dot(a, b []float32) float32 { return embed.Dot(a, b) }

// slabIndex keeps each scope's vectors back to back in blocks of blockVecs vectors: contiguous
// enough for a fast scan, and growing a scope never copies (or leaves behind as garbage) more
// than one block, which keeps the resident size of a 100,000-memory build near the vectors'
// own size.
type slabIndex struct {
	scopes map[string]*slab
	where  map[uint64]slabLoc
	dim    int
	// halfOn keeps a float16 copy of every vector for the scan (halfscan.go): where the CPU
	// converts float16 and the dimension is a multiple of 16. noHalf turns it off (tests).
	halfOn, noHalf bool
	back           []float32 // scratch of fillHalf
	approx         []float32 // scratch of searchHalf
}

// blockVecs is the number of vectors per slab block (2 MiB at 512 dimensions).
const blockVecs = 1024

type slab struct {
	ids    []uint64
	tags   [][]string
	blocks [][]float32 // all full (blockVecs vectors) except the last
	// halves and bound are the float16 copies of the vectors, in blocks like blocks, and each
	// one's error bound (halfscan.go); nil where the slab keeps none.
	halves [][]uint16
	bound  []float32
}

type slabLoc struct {
	scope string
	pos   int
}

// vec returns the i-th vector of s.
func (s *slab) vec(i, dim int) []float32 {
	off := (i % blockVecs) * dim
	return s.blocks[i/blockVecs][off : off+dim : off+dim]
}

// grow appends room for one vector and returns it.
func (s *slab) grow(dim int) []float32 { return growBlocks(&s.blocks, dim) }

// growBlocks appends room for one vector of dim values to the last of blocks, starting a new
// block when it holds blockVecs vectors, and returns that room.
func growBlocks[T float32 | uint16](blocks *[][]T, dim int) []T {
	n := len(*blocks)
	if n == 0 || len((*blocks)[n-1]) == blockVecs*dim {
		*blocks = append(*blocks, make([]T, 0, dim)) // the first vector of a new block
		n++
	}
	b := (*blocks)[n-1]
	if len(b)+dim > cap(b) {
		// Double small blocks (a scope with three memories should not cost 2 MiB), up to a
		// full block.
		nb := make([]T, len(b), min(max(2*cap(b), len(b)+dim), blockVecs*dim))
		copy(nb, b)
		b = nb
	}
	b = b[:len(b)+dim]
	(*blocks)[n-1] = b
	return b[len(b)-dim:]
}

// parallelMin is the scope size from which a scan is split over the cores.
const parallelMin = 8192

func (x *slabIndex) slot(id uint64, scope string, tags []string, dim int) ([]float32, error) {
	if x.dim == 0 {
		x.dim = dim
		x.halfOn = !x.noHalf && embed.HalfAvailable() && dim%16 == 0
	}
	if dim != x.dim {
		return nil, fmt.Errorf("index memory %d: dimension %d, want %d", id, dim, x.dim)
	}
	if _, ok := x.where[id]; ok {
		_ = x.remove(context.Background(), id)
	}
	s := x.scopes[scope]
	if s == nil {
		s = &slab{}
		x.scopes[scope] = s
	}
	x.where[id] = slabLoc{scope: scope, pos: len(s.ids)}
	s.ids = append(s.ids, id)
	s.tags = append(s.tags, tags)
	return s.grow(x.dim), nil
}

func (x *slabIndex) add(_ context.Context, id uint64, scope string, tags []string, vec []float32) error {
	dst, err := x.slot(id, scope, tags, len(vec))
	if err != nil {
		return err
	}
	copy(dst, vec)
	x.fillHalf(id)
	return nil
}

// addEncoded adds a vector straight from its stored little-endian bytes, without an intermediate
// slice: the index build of 100,000 memories would otherwise churn 200 MB of garbage.
func (x *slabIndex) addEncoded(id uint64, scope string, tags []string, raw []byte) error {
	dst, err := x.slot(id, scope, tags, len(raw)/4)
	if err != nil {
		return err
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	x.fillHalf(id)
	return nil
}

func (x *slabIndex) remove(_ context.Context, id uint64) error {
	loc, ok := x.where[id]
	if !ok {
		return nil
	}
	delete(x.where, id)
	s := x.scopes[loc.scope]
	last := len(s.ids) - 1
	if loc.pos != last {
		moved := s.ids[last]
		s.ids[loc.pos] = moved
		s.tags[loc.pos] = s.tags[last]
		copy(s.vec(loc.pos, x.dim), s.vec(last, x.dim))
		x.where[moved] = slabLoc{scope: loc.scope, pos: loc.pos}
	}
	s.removeHalf(loc.pos, last, x.dim)
	s.ids = s.ids[:last]
	s.tags[last] = nil
	s.tags = s.tags[:last]
	lb := len(s.blocks) - 1
	s.blocks[lb] = s.blocks[lb][:len(s.blocks[lb])-x.dim]
	if len(s.blocks[lb]) == 0 {
		s.blocks[lb] = nil
		s.blocks = s.blocks[:lb]
	}
	if last == 0 {
		delete(x.scopes, loc.scope)
	}
	return nil
}

func (x *slabIndex) size() int { return len(x.where) }

func (x *slabIndex) scopeNames() []string {
	out := make([]string, 0, len(x.scopes))
	for sc := range x.scopes {
		out = append(out, sc)
	}
	slices.Sort(out)
	return out
}

func (x *slabIndex) search(ctx context.Context, q []float32, scopes, tags []string, n int) ([]scored, error) {
	if n <= 0 || x.dim == 0 {
		return nil, nil
	}
	if len(q) != x.dim {
		return nil, fmt.Errorf("query dimension %d, index dimension %d", len(q), x.dim)
	}
	if scopes == nil {
		scopes = x.scopeNames()
	}
	top := &topN{n: n}
	if ok, err := x.searchHalf(ctx, q, scopes, tags, top); ok || err != nil {
		return top.sorted(), err
	}
	for _, sc := range scopes {
		s := x.scopes[sc]
		if s == nil {
			continue
		}
		if err := x.scan(ctx, s, q, tags, top); err != nil {
			return nil, err
		}
	}
	return top.sorted(), nil
}

// scan pushes s's matching vectors into top, splitting large slabs over the cores by blocks.
func (x *slabIndex) scan(ctx context.Context, s *slab, q []float32, tags []string, top *topN) error {
	dim := x.dim
	blocks := func(lo, hi int, t *topN) {
		for b := lo; b < hi; b++ {
			blk := s.blocks[b]
			base := b * blockVecs
			n := len(blk) / dim
			j := 0
			if len(tags) == 0 {
				// Four vectors per pass: the query is read once for four.
				var sims [4]float32
				for ; j+4 <= n; j += 4 {
					v := blk[j*dim : (j+4)*dim]
					embed.Dot4(q, v, v[dim:], v[2*dim:], v[3*dim:], &sims)
					for k, sim := range sims {
						t.push(scored{id: s.ids[base+j+k], sim: sim})
					}
				}
			}
			for ; j < n; j++ {
				i := base + j
				if len(tags) > 0 && !hasTags(s.tags[i], tags) {
					continue
				}
				t.push(scored{id: s.ids[i], sim: dot(q, blk[j*dim:(j+1)*dim])})
			}
		}
	}
	nb := len(s.blocks)
	workers := min(runtime.GOMAXPROCS(0), nb)
	if len(s.ids) < parallelMin || workers <= 1 {
		blocks(0, nb, top)
		return ctx.Err()
	}
	tops := make([]*topN, workers)
	var wg sync.WaitGroup
	for w := range workers {
		tops[w] = &topN{n: top.n}
		lo, hi := w*nb/workers, (w+1)*nb/workers
		wg.Go(func() { blocks(lo, hi, tops[w]) })
	}
	wg.Wait()
	for _, t := range tops {
		for _, h := range t.h {
			top.push(h)
		}
	}
	return ctx.Err()
}

// chromemIndex keeps one chromem-go collection per scope. Tags become metadata keys "t:TAG" with
// the value "1", so chromem's exact-match where filter expresses "has every tag".
type chromemIndex struct {
	db      *chromem.DB
	embed   chromem.EmbeddingFunc
	scopeOf map[uint64]string
}

func (x *chromemIndex) collection(scope string) (*chromem.Collection, error) {
	// The embedding function is only used if chromem is ever asked to embed text (it never is:
	// vectors are precomputed); nil would silently mean a network call to OpenAI.
	return x.db.GetOrCreateCollection(scope, nil, x.embed)
}

func (x *chromemIndex) add(ctx context.Context, id uint64, scope string, tags []string, vec []float32) error {
	if _, ok := x.scopeOf[id]; ok {
		if err := x.remove(ctx, id); err != nil {
			return err
		}
	}
	c, err := x.collection(scope)
	if err != nil {
		return fmt.Errorf("index memory %d: %w", id, err)
	}
	meta := make(map[string]string, len(tags))
	for _, t := range tags {
		meta["t:"+t] = "1"
	}
	doc := chromem.Document{ID: strconv.FormatUint(id, 10), Metadata: meta, Embedding: vec}
	if err := c.AddDocument(ctx, doc); err != nil {
		return fmt.Errorf("index memory %d: %w", id, err)
	}
	x.scopeOf[id] = scope
	return nil
}

func (x *chromemIndex) remove(ctx context.Context, id uint64) error {
	scope, ok := x.scopeOf[id]
	if !ok {
		return nil
	}
	delete(x.scopeOf, id)
	c := x.db.GetCollection(scope, x.embed)
	if c == nil {
		return nil
	}
	if err := c.Delete(ctx, nil, nil, strconv.FormatUint(id, 10)); err != nil {
		return fmt.Errorf("unindex memory %d: %w", id, err)
	}
	return nil
}

func (x *chromemIndex) size() int { return len(x.scopeOf) }

func (x *chromemIndex) scopeNames() []string {
	var out []string
	for sc, c := range x.db.ListCollections() {
		if c.Count() > 0 {
			out = append(out, sc)
		}
	}
	slices.Sort(out)
	return out
}

func (x *chromemIndex) search(ctx context.Context, q []float32, scopes, tags []string, n int) ([]scored, error) {
	if n <= 0 {
		return nil, nil
	}
	if scopes == nil {
		for sc := range x.db.ListCollections() {
			scopes = append(scopes, sc)
		}
	}
	var where map[string]string
	if len(tags) > 0 {
		where = make(map[string]string, len(tags))
		for _, t := range tags {
			where["t:"+t] = "1"
		}
	}
	top := &topN{n: n}
	for _, sc := range scopes {
		c := x.db.GetCollection(sc, x.embed)
		if c == nil {
			continue
		}
		// chromem refuses nResults above the collection size, even when a filter would leave
		// fewer documents; clamp.
		k := min(n, c.Count())
		if k == 0 {
			continue
		}
		res, err := c.QueryEmbedding(ctx, q, k, where, nil)
		if err != nil {
			return nil, fmt.Errorf("query scope %s: %w", sc, err)
		}
		for _, r := range res {
			id, err := strconv.ParseUint(r.ID, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("query scope %s: bad document id %q", sc, r.ID)
			}
			top.push(scored{id: id, sim: r.Similarity})
		}
	}
	return top.sorted(), nil
}

// autoIndex keeps each scope in chromem-go until it holds more than autoSlabFrom memories, and
// moves it then to a slab: chromem-go's per-query cost grows with the collection (every
// document goes through a channel and a map), and from about that size the brute-force scan is
// faster by more than a search is worth (BenchmarkRecallSearch10k: 26.8 against 16.5 CPU ms per
// search at 10,000 notes under load). A scope that shrinks stays in the slab.
type autoIndex struct {
	chromem *chromemIndex
	slab    *slabIndex
	inSlab  map[string]bool
	count   map[string]int
	scopeOf map[uint64]string
}

// autoSlabFrom is the scope size above which autoIndex uses the slab.
const autoSlabFrom = 4096

func (x *autoIndex) add(ctx context.Context, id uint64, scope string, tags []string, vec []float32) error {
	if _, ok := x.scopeOf[id]; ok {
		if err := x.remove(ctx, id); err != nil {
			return err
		}
	}
	x.scopeOf[id] = scope
	x.count[scope]++
	if x.inSlab[scope] {
		return x.slab.add(ctx, id, scope, tags, vec)
	}
	if err := x.chromem.add(ctx, id, scope, tags, vec); err != nil {
		return err
	}
	if x.count[scope] > autoSlabFrom {
		return x.toSlab(ctx, scope)
	}
	return nil
}

// toSlab moves scope's memories from its chromem-go collection to the slab.
func (x *autoIndex) toSlab(ctx context.Context, scope string) error {
	c := x.chromem.db.GetCollection(scope, x.chromem.embed)
	if c == nil {
		x.inSlab[scope] = true
		return nil
	}
	var ids []uint64
	for id, sc := range x.scopeOf {
		if sc == scope {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		doc, err := c.GetByID(ctx, strconv.FormatUint(id, 10))
		if err != nil {
			return fmt.Errorf("move scope %s to the slab: %w", scope, err)
		}
		var tags []string
		for k := range doc.Metadata {
			if t, ok := strings.CutPrefix(k, "t:"); ok {
				tags = append(tags, t)
			}
		}
		slices.Sort(tags)
		if err := x.slab.add(ctx, id, scope, tags, doc.Embedding); err != nil {
			return err
		}
		delete(x.chromem.scopeOf, id)
	}
	if err := x.chromem.db.DeleteCollection(scope); err != nil {
		return fmt.Errorf("move scope %s to the slab: %w", scope, err)
	}
	x.inSlab[scope] = true
	return nil
}

func (x *autoIndex) remove(ctx context.Context, id uint64) error {
	scope, ok := x.scopeOf[id]
	if !ok {
		return nil
	}
	delete(x.scopeOf, id)
	x.count[scope]--
	if x.inSlab[scope] {
		return x.slab.remove(ctx, id)
	}
	return x.chromem.remove(ctx, id)
}

func (x *autoIndex) search(ctx context.Context, q []float32, scopes, tags []string, n int) ([]scored, error) {
	var inC, inS []string
	for _, sc := range scopes {
		if x.inSlab[sc] {
			inS = append(inS, sc)
		} else {
			inC = append(inC, sc)
		}
	}
	top := &topN{n: n}
	for _, part := range []struct {
		idx    index
		scopes []string
	}{{x.chromem, inC}, {x.slab, inS}} {
		if len(part.scopes) == 0 {
			continue
		}
		hits, err := part.idx.search(ctx, q, part.scopes, tags, n)
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			top.push(h)
		}
	}
	return top.sorted(), nil
}

func (x *autoIndex) size() int { return len(x.scopeOf) }

func (x *autoIndex) scopeNames() []string {
	out := append(x.chromem.scopeNames(), x.slab.scopeNames()...)
	slices.Sort(out)
	return slices.Compact(out)
}
