package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"toolhost/store"
)

// space reports whether a record's vector belongs to the configured embedder's space. A remote
// embedder whose dimension is not known yet (0) accepts any dimension its ID produced.
func (s *Service) space(r *record) bool {
	if r.Embedder != s.emb.ID() {
		return false
	}
	d := s.emb.Dim()
	return d == 0 || r.Dim == d
}

// sync builds the index on first use and then replays the change log since the last sequence
// seen, so memories written by other processes become visible. It holds s.mu while it runs; the
// caller must hold s.mu too.
func (s *Service) syncLocked(ctx context.Context) error {
	if !s.built {
		return s.buildLocked(ctx)
	}
	type change struct {
		seq uint64
		e   logEntry
		rec *record
		vec []float32
	}
	var changes []change
	err := s.st.View(ctx, func(tx *store.Tx) error {
		changes = changes[:0]
		return tx.Seek(logPath, store.SeqKey(s.lastSeq+1), func(k string, v []byte) (bool, error) {
			seq, ok := store.ParseSeqKey(k)
			if !ok {
				return true, nil
			}
			var e logEntry
			if err := json.Unmarshal(v, &e); err != nil {
				return false, fmt.Errorf("decode memory log entry %d: %w", seq, err)
			}
			c := change{seq: seq, e: e}
			if e.Op == "put" {
				rec, vec, found, err := loadRecord(tx, e.ID)
				if err != nil {
					return false, err
				}
				if found {
					c.rec, c.vec = rec, vec
				}
			}
			changes = append(changes, c)
			return ctx.Err() == nil, nil
		})
	})
	if err != nil {
		return fmt.Errorf("catch up memory index: %w", err)
	}
	for _, c := range changes {
		if err := s.applyLocked(ctx, c.e.ID, c.rec, c.vec); err != nil {
			return err
		}
		s.lastSeq = c.seq
	}
	return nil
}

// applyLocked makes the index reflect memory id: rec nil means deleted.
func (s *Service) applyLocked(ctx context.Context, id uint64, rec *record, vec []float32) error {
	delete(s.stale, id)
	if err := s.idx.remove(ctx, id); err != nil {
		return err
	}
	if rec == nil {
		return nil
	}
	if !s.space(rec) {
		s.stale[id] = rec.Embedder
		return nil
	}
	return s.idx.add(ctx, id, rec.Scope, rec.Tags, vec)
}

// buildLocked reads every memory once and fills a fresh index.
func (s *Service) buildLocked(ctx context.Context) error {
	idx := newIndex(s.kind, s.embedQuery)
	stale := map[uint64]string{}
	var head uint64
	type item struct {
		id    uint64
		scope string
		tags  []string
		vec   []float32
	}
	var items []item
	err := s.st.View(ctx, func(tx *store.Tx) error {
		items, head = items[:0], 0
		clear(stale)
		if v, ok := tx.Get(rootPath, headKey); ok {
			head, _ = store.ParseSeqKey(string(v))
		}
		n := 0
		return tx.ForEach(itemsPath, func(k string, v []byte) error {
			if n++; n%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			var r record
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("decode memory %x: %w", k, err)
			}
			if !s.space(&r) {
				stale[r.ID] = r.Embedder
				return nil
			}
			raw, ok := tx.Get(vecsPath, k)
			if !ok {
				return fmt.Errorf("memory %d has no vector", r.ID)
			}
			items = append(items, item{id: r.ID, scope: r.Scope, tags: r.Tags, vec: decodeVec(raw)})
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("build memory index: %w", err)
	}
	for _, it := range items {
		if err := idx.add(ctx, it.id, it.scope, it.tags, it.vec); err != nil {
			return fmt.Errorf("build memory index: %w", err)
		}
	}
	s.idx, s.stale, s.lastSeq, s.built = idx, stale, head, true
	return nil
}

// staleErrLocked returns an *EmbedderChangedError if any stored vector is from another space.
func (s *Service) staleErrLocked() error {
	if len(s.stale) == 0 {
		return nil
	}
	counts := map[string]int{}
	for _, e := range s.stale {
		counts[e]++
	}
	ids := make([]string, 0, len(counts))
	for e := range counts {
		ids = append(ids, e)
	}
	sort.Slice(ids, func(i, j int) bool {
		return counts[ids[i]] > counts[ids[j]] || (counts[ids[i]] == counts[ids[j]] && ids[i] < ids[j])
	})
	return &EmbedderChangedError{Stored: ids[0], Configured: s.emb.ID(), Stale: len(s.stale)}
}

// ready syncs the index and fails if the spaces are mixed.
func (s *Service) readyLocked(ctx context.Context) error {
	if err := s.syncLocked(ctx); err != nil {
		return err
	}
	return s.staleErrLocked()
}

// embedQuery is the embedding function handed to chromem-go.
func (s *Service) embedQuery(ctx context.Context, text string) ([]float32, error) {
	v, err := s.embedOne(ctx, text)
	return v, err
}

func (s *Service) embedOne(ctx context.Context, text string) ([]float32, error) {
	vs, err := s.embedAll(ctx, []string{text})
	if err != nil {
		return nil, err
	}
	return vs[0], nil
}

// embedAll embeds texts and checks the answer's shape, so a broken embedder cannot put vectors
// of the wrong dimension (or zero vectors) into the store.
func (s *Service) embedAll(ctx context.Context, texts []string) ([][]float32, error) {
	vs, err := s.emb.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed with %s: %w", s.emb.ID(), err)
	}
	if len(vs) != len(texts) {
		return nil, fmt.Errorf("embed with %s: got %d vectors for %d texts", s.emb.ID(), len(vs), len(texts))
	}
	for i, v := range vs {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if len(v) == 0 || n == 0 || n != n {
			return nil, fmt.Errorf("embed with %s: text %d gave a zero or invalid vector", s.emb.ID(), i)
		}
		if d := s.emb.Dim(); d != 0 && len(v) != d {
			return nil, fmt.Errorf("embed with %s: vector of dimension %d, want %d", s.emb.ID(), len(v), d)
		}
	}
	return vs, nil
}

// loadRecord reads memory id and its vector.
func loadRecord(tx *store.Tx, id uint64) (*record, []float32, bool, error) {
	var r record
	found, err := tx.GetJSON(itemsPath, store.SeqKey(id), &r)
	if err != nil || !found {
		return nil, nil, false, err
	}
	raw, ok := tx.Get(vecsPath, store.SeqKey(id))
	if !ok {
		return nil, nil, false, fmt.Errorf("memory %d has no vector", id)
	}
	return &r, decodeVec(raw), true, nil
}

// appendLog records a change for other processes and advances the head key.
func appendLog(tx *store.Tx, op string, id uint64) error {
	seq, err := tx.NextSequence(logPath)
	if err != nil {
		return err
	}
	if err := tx.PutJSON(logPath, store.SeqKey(seq), logEntry{Op: op, ID: id}); err != nil {
		return err
	}
	return tx.Put(rootPath, headKey, []byte(store.SeqKey(seq)))
}
