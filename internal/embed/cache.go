package embed

import (
	"container/list"
	"context"
	"crypto/sha256"
	"sync"
)

// Cached wraps an Embedder with a bounded LRU of vectors keyed by the sha256 of the text, so
// re-embedding unchanged content (re-indexing, repeated queries) costs a hash instead of a
// forward pass or a network call. It is safe for concurrent use.
type Cached struct {
	inner Embedder
	size  int

	mu      sync.Mutex
	entries map[[sha256.Size]byte]*list.Element
	order   *list.List // front = most recently used; values are *cacheEntry
	hits    uint64
	misses  uint64
}

type cacheEntry struct {
	key [sha256.Size]byte
	vec []float32
}

// NewCached returns e behind a cache of at most size vectors (size < 1 means 1).
func NewCached(e Embedder, size int) *Cached {
	return &Cached{
		inner:   e,
		size:    max(size, 1),
		entries: map[[sha256.Size]byte]*list.Element{},
		order:   list.New(),
	}
}

// Unwrap returns the embedder behind the cache.
func (c *Cached) Unwrap() Embedder { return c.inner }

// ID implements Embedder; the cache is transparent, so it is the wrapped embedder's ID.
func (c *Cached) ID() string { return c.inner.ID() }

// Dim implements Embedder.
func (c *Cached) Dim() int { return c.inner.Dim() }

// MaxTokens implements Embedder.
func (c *Cached) MaxTokens() int { return c.inner.MaxTokens() }

// CountTokens implements Embedder.
func (c *Cached) CountTokens(text string) int { return c.inner.CountTokens(text) }

// Stats reports cache hits and misses since creation, for diagnostics.
func (c *Cached) Stats() (hits, misses uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// Embed implements Embedder. Only texts not in the cache reach the wrapped embedder, in one
// call; duplicates within a batch are embedded once. Returned slices are copies, so callers may
// modify them.
func (c *Cached) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missTexts []string
	missIdx := map[[sha256.Size]byte][]int{}

	c.mu.Lock()
	for i, t := range texts {
		k := sha256.Sum256([]byte(t))
		if el, ok := c.entries[k]; ok {
			c.order.MoveToFront(el)
			out[i] = append([]float32(nil), el.Value.(*cacheEntry).vec...)
			c.hits++
			continue
		}
		c.misses++
		if _, seen := missIdx[k]; !seen {
			missTexts = append(missTexts, t)
		}
		missIdx[k] = append(missIdx[k], i)
	}
	c.mu.Unlock()

	if len(missTexts) == 0 {
		return out, nil
	}
	vecs, err := c.inner.Embed(ctx, missTexts)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for j, t := range missTexts {
		k := sha256.Sum256([]byte(t))
		v := vecs[j]
		for _, i := range missIdx[k] {
			out[i] = append([]float32(nil), v...)
		}
		c.put(k, append([]float32(nil), v...))
	}
	return out, nil
}

func (c *Cached) put(k [sha256.Size]byte, v []float32) {
	if el, ok := c.entries[k]; ok {
		el.Value.(*cacheEntry).vec = v
		c.order.MoveToFront(el)
		return
	}
	c.entries[k] = c.order.PushFront(&cacheEntry{key: k, vec: v})
	for c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.entries, last.Value.(*cacheEntry).key)
	}
}
