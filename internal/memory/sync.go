package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
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
	pruned := false
	err := s.st.View(ctx, func(tx *store.Tx) error {
		changes = changes[:0]
		if v, ok := tx.Get(rootPath, tailKey); ok {
			if tail, ok := store.ParseSeqKey(string(v)); ok && s.lastSeq+1 < tail {
				pruned = true
				return nil
			}
		}
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
	if pruned {
		return s.buildLocked(ctx)
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
	s.lexIdx.remove(id)
	if rec == nil || rec.SupersededBy != 0 {
		return nil // deleted, or an earlier version: reachable by id, not searched
	}
	if !s.space(rec) {
		s.stale[id] = rec.Embedder
		return nil
	}
	s.lexIdx.add(id, rec.Scope, rec.Tags, rec.Content)
	return s.idx.add(ctx, id, rec.Scope, rec.Tags, vec)
}

// buildBatch is how many memories one read transaction of the index build reads, so that a
// build of 100,000 memories never keeps other processes' writers waiting for long.
const buildBatch = 4096

// buildLocked reads every memory once and fills a fresh index. It reads the small per-scope
// entries (tags, embedder) and the vectors, never the records with their content, in several
// short read transactions. Memories written or deleted between those transactions are after the
// head read first, so the log replay that follows the build sets them right (replaying a change
// is idempotent).
func (s *Service) buildLocked(ctx context.Context) error {
	idx := newIndex(s.kind, s.embedQuery)
	lex := newLexIndex()
	stale := map[uint64]string{}
	var head uint64
	var scopes []string
	err := s.st.View(ctx, func(tx *store.Tx) error {
		if v, ok := tx.Get(rootPath, headKey); ok {
			head, _ = store.ParseSeqKey(string(v))
		}
		var err error
		scopes, err = tx.Buckets(scopesPath)
		return err
	})
	if err != nil {
		return fmt.Errorf("build memory index: %w", err)
	}
	for _, scope := range scopes {
		path := append(slices.Clone(scopesPath), scope)
		from := ""
		for done := false; !done; {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("build memory index: %w", err)
			}
			err := s.st.View(ctx, func(tx *store.Tx) error {
				n := 0
				done = true
				return tx.Seek(path, from, func(k string, v []byte) (bool, error) {
					if n == buildBatch {
						from, done = k, false
						return false, nil
					}
					n++
					id, ok := store.ParseSeqKey(k)
					if !ok {
						return true, nil
					}
					var se scopeEntry
					if err := json.Unmarshal(v, &se); err != nil {
						return false, fmt.Errorf("decode memory %d: %w", id, err)
					}
					if se.Superseded {
						return true, nil
					}
					raw, ok := tx.Get(vecsPath, k)
					if !ok {
						return true, nil // deleted by a writer between our transactions' view of it
					}
					if se.Embedder != s.emb.ID() || (s.emb.Dim() != 0 && len(raw) != 4*s.emb.Dim()) {
						stale[id] = se.Embedder
						return true, nil
					}
					var content struct {
						Content string `json:"content"`
					}
					if item, ok := tx.Get(itemsPath, k); ok {
						if err := json.Unmarshal(item, &content); err != nil {
							return false, fmt.Errorf("decode memory %d: %w", id, err)
						}
					}
					lex.add(id, scope, se.Tags, content.Content)
					if ea, ok := idx.(interface {
						addEncoded(uint64, string, []string, []byte) error
					}); ok {
						return true, ea.addEncoded(id, scope, se.Tags, raw)
					}
					return true, idx.add(ctx, id, scope, se.Tags, decodeVec(raw))
				})
			})
			if err != nil {
				return fmt.Errorf("build memory index: %w", err)
			}
		}
	}
	s.idx, s.lexIdx, s.stale, s.lastSeq, s.built = idx, lex, stale, head, true
	// Replay what changed while the build ran.
	return s.syncLocked(ctx)
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
		if len(v) == 0 || n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
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

// Log pruning: the log keeps the last Config.LogKeep entries. A process whose index is further
// behind (it slept through more changes than that) finds its next sequence below the tail and rebuilds
// its index from scratch instead of replaying.
const (
	tailKey    = "tail"
	pruneBatch = 64 // entries deleted per append at most, so every write stays small
)

// appendLog records a change for other processes, advances the head key and prunes the oldest
// entries beyond keep.
func appendLog(tx *store.Tx, op string, id uint64, keep int) error {
	seq, err := tx.NextSequence(logPath)
	if err != nil {
		return err
	}
	if err := tx.PutJSON(logPath, store.SeqKey(seq), logEntry{Op: op, ID: id}); err != nil {
		return err
	}
	if err := tx.Put(rootPath, headKey, []byte(store.SeqKey(seq))); err != nil {
		return err
	}
	if keep <= 0 || seq <= uint64(keep) {
		return nil
	}
	limit := seq - uint64(keep)
	var old []string
	err = tx.Seek(logPath, "", func(k string, _ []byte) (bool, error) {
		n, ok := store.ParseSeqKey(k)
		if !ok || n > limit || len(old) == pruneBatch {
			return false, nil
		}
		old = append(old, k)
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, k := range old {
		if err := tx.Delete(logPath, k); err != nil {
			return err
		}
	}
	if len(old) > 0 {
		last, _ := store.ParseSeqKey(old[len(old)-1])
		return tx.Put(rootPath, tailKey, []byte(store.SeqKey(last+1)))
	}
	return nil
}
