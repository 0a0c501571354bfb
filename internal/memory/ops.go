package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"toolhost/store"
)

// StoreRequest is one store_memory call.
type StoreRequest struct {
	// Conversation is the calling conversation's ID; it owns the conversation scope.
	Conversation string
	// Content is the text to remember (trimmed; at most Config.MaxContentBytes).
	Content string
	// Tags label the memory for filtering and deletion; they are lower-cased.
	Tags []string
	// Metadata is free-form string data kept with the memory and returned with hits.
	Metadata map[string]string
	// Scope is "" or "conversation" (the default), or "topic:NAME" / "NAME" for a shared topic,
	// or "user" / "project" (the default for an instruction).
	Scope string
	// Project is the working directory that the "project" scope names.
	Project string
	// Kind is "" (a fact) or KindInstruction; an instruction needs UserWords, the user's own
	// words that gave it.
	Kind      string
	UserWords string
}

// Duplicate says why Store did not write a new memory.
type Duplicate string

// Duplicate kinds.
const (
	NotDuplicate   Duplicate = ""
	ExactDuplicate Duplicate = "exact"
	NearDuplicate  Duplicate = "near"
)

// StoreResult reports the stored (or already existing) memory.
type StoreResult struct {
	// ID is the new memory's ID, or the existing one's for a duplicate.
	ID uint64 `json:"id"`
	// Scope is the scope key, "conversation:ID" or "topic:NAME".
	Scope string `json:"scope"`
	// Duplicate is set when nothing was stored because the content already exists.
	Duplicate Duplicate `json:"duplicate,omitempty"`
	// Similarity is the cosine to the existing memory for a near duplicate (1 for exact).
	Similarity float32 `json:"similarity,omitempty"`
	// Existing is the existing memory's content (truncated) for a duplicate, so the model can
	// see what it matched, or the superseded memory's.
	Existing string `json:"existing,omitempty"`
	// Superseded is the memory this one replaces as its newer version (see Change); that
	// memory no longer appears in searches but stays reachable by its ID.
	Superseded uint64 `json:"superseded,omitempty"`
	// Change says what differs from the superseded memory.
	Change *FactChange `json:"change,omitempty"`
}

// putRecord writes a new memory with every secondary entry and a log entry; it returns the ID.
func putRecord(tx *store.Tx, rec record, vec []float32, keep int) (uint64, error) {
	id, err := tx.NextSequence(itemsPath)
	if err != nil {
		return 0, err
	}
	rec.ID = id
	key := store.SeqKey(id)
	raw, err := json.Marshal(rec)
	if err != nil {
		return 0, fmt.Errorf("encode memory: %w", err)
	}
	vb := encodeVec(vec)
	if err := tx.Put(itemsPath, key, raw); err != nil {
		return 0, err
	}
	if err := tx.Put(vecsPath, key, vb); err != nil {
		return 0, err
	}
	if _, taken := tx.Get(hashPath, hashKey(rec.Scope, rec.Hash)); !taken {
		if err := tx.Put(hashPath, hashKey(rec.Scope, rec.Hash), []byte(key)); err != nil {
			return 0, err
		}
	}
	se := scopeEntry{Tags: rec.Tags, Bytes: len(raw) + len(vb), Embedder: rec.Embedder}
	if err := tx.PutJSON(append(slices.Clone(scopesPath), rec.Scope), key, se); err != nil {
		return 0, err
	}
	if rec.Kind == KindInstruction {
		if err := tx.PutJSON(instrPath, instrKey(rec.Scope, id), instructionOf(&rec, id)); err != nil {
			return 0, err
		}
	}
	if rec.Conversation != "" && rec.Document == "" {
		n := Note{Kind: NoteMemory, ID: id, Scope: rec.Scope, Text: summary(rec.Content), Time: rec.Created, Tags: rec.Tags}
		if err := tx.PutJSON(append(slices.Clone(recentPath), rec.Conversation), recentKey(rec.Created, id), n); err != nil {
			return 0, err
		}
	}
	return id, appendLog(tx, "put", id, keep)
}

// deleteRecord removes memory id with its secondary entries and logs it. Document bookkeeping is
// the caller's.
func deleteRecord(tx *store.Tx, rec *record, keep int) error {
	key := store.SeqKey(rec.ID)
	if err := tx.Delete(itemsPath, key); err != nil {
		return err
	}
	if err := tx.Delete(vecsPath, key); err != nil {
		return err
	}
	if raw, ok := tx.Get(hashPath, hashKey(rec.Scope, rec.Hash)); ok && string(raw) == key {
		if err := tx.Delete(hashPath, hashKey(rec.Scope, rec.Hash)); err != nil {
			return err
		}
	}
	if err := tx.Delete(append(slices.Clone(scopesPath), rec.Scope), key); err != nil {
		return err
	}
	if rec.Conversation != "" {
		if err := tx.Delete(append(slices.Clone(recentPath), rec.Conversation), recentKey(rec.Created, rec.ID)); err != nil {
			return err
		}
	}
	if rec.Kind == KindInstruction {
		if err := tx.Delete(instrPath, instrKey(rec.Scope, rec.ID)); err != nil {
			return err
		}
	}
	return appendLog(tx, "delete", rec.ID, keep)
}

// summary is the one-line form of a memory used in reminders.
func summary(content string) string {
	line := strings.Join(strings.Fields(content), " ")
	s, _ := truncate(line, 120)
	return s
}

// SearchRequest is one search_memory call.
type SearchRequest struct {
	// Conversation is the calling conversation's ID.
	Conversation string
	// Query is the text to find by meaning.
	Query string
	// Limit is the maximum number of hits; 0 means DefaultSearchLimit, capped at MaxSearchLimit.
	Limit int
	// Threshold is the minimum similarity; nil means the service default for the embedder.
	Threshold *float32
	// Tags keeps only memories carrying every one of these tags.
	Tags []string
	// Scopes to search: "conversation" (the default when empty), "topic:NAME" or "NAME", or
	// "all" for the conversation's own memories plus every topic.
	Scopes []string
	// SnippetChars caps each hit's content; 0 means DefaultSnippetChars, negative means whole.
	SnippetChars int
	// Versions also returns each hit's earlier versions, right after it, newest first. They
	// are never returned otherwise: the current version always answers.
	Versions bool
}

// Hit is one search result.
type Hit struct {
	ID uint64 `json:"id"`
	// Score ranks the hits: the fused score of the vector and lexical signals (see rank.go),
	// divided by the sum of their weights, so 1 means every signal at its best.
	Score float32 `json:"score"`
	// Similarity is the cosine between the query and the memory.
	Similarity float32 `json:"similarity"`
	Content    string  `json:"content"`
	// Truncated reports that Content was cut to SnippetChars.
	Truncated bool              `json:"truncated,omitempty"`
	Tags      []string          `json:"tags,omitempty"`
	Metadata  map[string]string `json:"metadata,omitempty"`
	Scope     string            `json:"scope"`
	Created   time.Time         `json:"created"`
	// Document and Chunk name the source of an imported chunk.
	Document string `json:"document,omitempty"`
	Chunk    int    `json:"chunk,omitempty"`
	// Supersedes is the earlier version this memory replaced (readable with Get).
	Supersedes uint64 `json:"supersedes,omitempty"`
	// SupersededBy is set on an earlier version (SearchRequest.Versions): the newer one.
	SupersededBy uint64 `json:"superseded_by,omitempty"`
	// Kind is "instruction" for a standing instruction.
	Kind string `json:"kind,omitempty"`
}

// Search finds the memories closest in meaning to the query within the requested scopes.
func (s *Service) Search(ctx context.Context, req SearchRequest) ([]Hit, error) {
	query := strings.TrimSpace(req.Query)
	if query == "" {
		return nil, fmt.Errorf("%w: give a query to search for", ErrEmptyContent)
	}
	limit := req.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	p := s.plan(query)
	q, err := s.embedOne(ctx, p.vector)
	if err != nil {
		return nil, err
	}
	cands, err := s.gather(ctx, &p, q, req, max(4*limit, searchCandidates))
	if err != nil {
		return nil, fmt.Errorf("search memory: %w", err)
	}
	if err := s.readCandidates(ctx, q, cands); err != nil {
		return nil, fmt.Errorf("search memory: %w", err)
	}
	cands = slices.DeleteFunc(cands, func(c *candidate) bool { return c.rec == nil }) // deleted since indexed
	if !s.off[SignalNames] {
		p.idents = append(p.idents, typedNames(p.query, cands)...)
	}
	s.fuse(p, cands)
	if s.onFuse != nil {
		s.onFuse(p, cands)
	}
	snip := req.SnippetChars
	if snip == 0 {
		snip = DefaultSnippetChars
	}
	hits := s.hits(cands, req.Threshold, limit, snip)
	if req.Versions {
		return s.withVersions(ctx, hits, snip)
	}
	return hits, nil
}

// gather asks both sides for their best want memories of the request's scopes and tags and
// returns their union: each side proposes, the fused ranking orders. It sets the plan's
// identifier weights from the lexical index.
func (s *Service) gather(ctx context.Context, p *queryPlan, q []float32, req SearchRequest, want int) ([]*candidate, error) {
	tags := normalizeTags(req.Tags)
	lexical := !s.off[SignalLexical]
	// The deferred unlock also runs on a panic: a damaged state file must not leave every later
	// memory call waiting for this lock.
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readyLocked(ctx); err != nil {
		return nil, err
	}
	scopes, err := s.searchScopesLocked(req.Conversation, req.Scopes)
	if err != nil {
		return nil, err
	}
	for _, id := range s.lexIdx.spelled(p.query, p.idents) {
		p.idents = append(p.idents, id)
	}
	p.identWeight = s.lexIdx.rarity(p.idents)
	vh, err := s.idx.search(ctx, q, scopes, tags, want)
	if err != nil {
		return nil, err
	}
	var cands []*candidate
	byID := map[uint64]*candidate{}
	for _, h := range vh {
		c := &candidate{id: h.id, cos: h.sim}
		if lexical {
			c.lex = s.lexIdx.score(p.terms, h.id)
		}
		byID[h.id] = c
		cands = append(cands, c)
	}
	if lexical {
		for _, h := range s.lexIdx.search(p.terms, scopes, tags, want) {
			if byID[h.id] == nil {
				c := &candidate{id: h.id, cos: float32(math.NaN()), lex: h.score}
				byID[h.id] = c
				cands = append(cands, c)
			}
		}
	}
	return cands, nil
}

// readCandidates reads each candidate's record (nil if it was deleted or superseded since the
// index saw it), the cosine of those found by their words only, and, for a correction, the best
// cosine of its earlier versions.
func (s *Service) readCandidates(ctx context.Context, q []float32, cands []*candidate) error {
	return s.st.View(ctx, func(tx *store.Tx) error {
		for _, c := range cands {
			var r record
			found, err := tx.GetJSON(itemsPath, store.SeqKey(c.id), &r)
			if err != nil {
				return err
			}
			if !found || r.SupersededBy != 0 {
				// Deleted, or superseded by another process since the index saw it (the log
				// replay brings the new version): never answer with an earlier version.
				c.rec = nil
				continue
			}
			c.rec = &r
			if math.IsNaN(float64(c.cos)) {
				// Found by its words only: its cosine from the stored vector.
				c.cos = 0
				if raw, ok := tx.Get(vecsPath, store.SeqKey(c.id)); ok && len(raw) == 4*len(q) {
					c.cos = dot(q, decodeVec(raw))
				}
			}
			// A correction answers what its earlier versions answered (see searchWords): its
			// cosine is the best of theirs.
			prev := r.Supersedes
			for range inheritVersions {
				if prev == 0 {
					break
				}
				if raw, ok := tx.Get(vecsPath, store.SeqKey(prev)); ok && len(raw) == 4*len(q) {
					c.cos = max(c.cos, dot(q, decodeVec(raw)))
				}
				var pr struct {
					Supersedes uint64 `json:"supersedes"`
				}
				if found, err := tx.GetJSON(itemsPath, store.SeqKey(prev), &pr); err != nil || !found {
					break
				}
				prev = pr.Supersedes
			}
		}
		return nil
	})
}

// hits turns the ranked candidates into at most limit hits. The default threshold is on
// meaning; a memory that matches the words or holds the query's identifiers is kept below it. A
// threshold the caller gives is strict.
func (s *Service) hits(cands []*candidate, given *float32, limit, snip int) []Hit {
	threshold := s.threshold
	if given != nil {
		threshold = *given
	}
	hits := make([]Hit, 0, min(limit, len(cands)))
	for _, c := range cands {
		if len(hits) == limit {
			break
		}
		if c.cos < threshold && (given != nil || c.lex < lexicalKeep && c.exact == 0) {
			continue
		}
		r := c.rec
		h := Hit{ID: c.id, Score: float32(c.score / s.w.total()), Similarity: c.cos, Tags: r.Tags, Metadata: r.Metadata,
			Scope: r.Scope, Created: r.Created, Document: r.Document, Chunk: r.Chunk, Supersedes: r.Supersedes, Kind: r.Kind}
		h.Content, h.Truncated = truncate(r.Content, snip)
		hits = append(hits, h)
	}
	return hits
}

// withVersions inserts each hit's earlier versions after it, newest first, scored below it.
func (s *Service) withVersions(ctx context.Context, hits []Hit, snip int) ([]Hit, error) {
	var out []Hit
	err := s.st.View(ctx, func(tx *store.Tx) error {
		out = out[:0]
		for _, h := range hits {
			out = append(out, h)
			if h.Supersedes == 0 {
				continue
			}
			var r record
			found, err := tx.GetJSON(itemsPath, store.SeqKey(h.ID), &r)
			if err != nil || !found {
				return err
			}
			versions, err := chain(tx, &r)
			if err != nil {
				return err
			}
			for i := len(versions) - 2; i >= 0; i-- { // the last is h itself
				v := versions[i]
				e := Hit{ID: v.ID, Score: h.Score, Tags: v.Tags, Metadata: v.Metadata, Scope: v.Scope, Created: v.Created,
					Supersedes: v.Supersedes, SupersededBy: v.SupersededBy, Kind: v.Kind}
				e.Content, e.Truncated = truncate(v.Content, snip)
				out = append(out, e)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search memory: %w", err)
	}
	return out, nil
}

// searchCandidates is the least number of candidates each side proposes, and lexicalKeep the
// normalised lexical score that keeps a memory whose cosine is under the threshold.
const (
	searchCandidates = 40
	lexicalKeep      = 0.5
)

// searchScopesLocked resolves a search's scopes to scope keys (nil never means "every scope":
// other conversations' memories stay private).
func (s *Service) searchScopesLocked(conversation string, scopes []string) ([]string, error) {
	if len(scopes) == 0 {
		scopes = []string{"conversation"}
	}
	var out []string
	for _, sc := range scopes {
		if strings.TrimSpace(sc) == "all" {
			if conversation != "" {
				out = append(out, conversationPrefix+conversation)
			}
			for _, name := range s.idx.scopeNames() {
				if strings.HasPrefix(name, topicPrefix) || name == UserScope || strings.HasPrefix(name, projectPrefix) {
					out = append(out, name)
				}
			}
			continue
		}
		key, err := resolveScope(conversation, sc)
		if err != nil {
			return nil, err
		}
		out = append(out, key)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// DeleteRequest is one delete_memory call: by ID, or every memory with Tag in Scope.
type DeleteRequest struct {
	Conversation string
	// ID deletes one memory (in the conversation's scope or a topic).
	ID uint64
	// Tag deletes every memory carrying it in Scope.
	Tag string
	// Scope for a delete by tag: "" or "conversation", or a topic.
	Scope string
}

// Delete removes memories and returns how many. Deleting imported chunks also updates the
// document's record (a document whose chunks are all gone is forgotten, so it can be imported
// again).
func (s *Service) Delete(ctx context.Context, req DeleteRequest) (int, error) {
	tag := strings.ToLower(strings.TrimSpace(req.Tag))
	if (req.ID == 0) == (tag == "") {
		return 0, fmt.Errorf("%w: give either id or tag (with an optional scope)", ErrBadRequest)
	}
	n := 0
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		n = 0
		var recs []*record
		if req.ID != 0 {
			var r record
			found, err := tx.GetJSON(itemsPath, store.SeqKey(req.ID), &r)
			if err != nil {
				return err
			}
			if !found || !visible(req.Conversation, r.Scope) {
				return fmt.Errorf("%w: id %d; search_memory shows the ids you can delete", ErrNotFound, req.ID)
			}
			recs = append(recs, &r)
		} else {
			scope, err := resolveScope(req.Conversation, req.Scope)
			if err != nil {
				return err
			}
			var ids []uint64
			err = tx.ForEach(append(slices.Clone(scopesPath), scope), func(k string, v []byte) error {
				var se scopeEntry
				if err := json.Unmarshal(v, &se); err != nil {
					return err
				}
				if slices.Contains(se.Tags, tag) {
					id, _ := store.ParseSeqKey(k)
					ids = append(ids, id)
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, id := range ids {
				var r record
				if found, err := tx.GetJSON(itemsPath, store.SeqKey(id), &r); err != nil {
					return err
				} else if found {
					recs = append(recs, &r)
				}
			}
		}
		// A memory goes with all its versions: deleting a fact must not bring back an older
		// statement of it.
		var all []*record
		seen := map[uint64]bool{}
		for _, r := range recs {
			versions, err := chain(tx, r)
			if err != nil {
				return err
			}
			for _, v := range versions {
				if !seen[v.ID] {
					seen[v.ID] = true
					all = append(all, v)
				}
			}
		}
		recs = all
		docs := map[string][]uint64{}
		for _, r := range recs {
			if err := deleteRecord(tx, r, s.logKeep); err != nil {
				return err
			}
			if r.Document != "" {
				docs[docKey(r.Scope, r.Document)] = append(docs[docKey(r.Scope, r.Document)], r.ID)
			}
			n++
		}
		for key, gone := range docs {
			var d docEntry
			found, err := tx.GetJSON(docsPath, key, &d)
			if err != nil || !found {
				continue
			}
			d.IDs = slices.DeleteFunc(d.IDs, func(id uint64) bool { return slices.Contains(gone, id) })
			if len(d.IDs) == 0 {
				err = tx.Delete(docsPath, key)
			} else {
				err = tx.PutJSON(docsPath, key, d)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrBadRequest) {
			return 0, err
		}
		return 0, fmt.Errorf("delete memory: %w", err)
	}
	return n, nil
}

// visible reports whether conversation may see scope: its own, any topic, the user's and every
// project's.
func visible(conversation, scope string) bool {
	return strings.HasPrefix(scope, topicPrefix) || scope == conversationPrefix+conversation ||
		scope == UserScope || strings.HasPrefix(scope, projectPrefix)
}

// Collection describes one scope for list_collections.
type Collection struct {
	// Scope is "conversation:ID" or "topic:NAME".
	Scope string `json:"scope"`
	// Count is the number of current memories, Documents the number of imported documents,
	// Superseded the number of earlier versions kept.
	Count      int `json:"count"`
	Documents  int `json:"documents,omitempty"`
	Superseded int `json:"superseded,omitempty"`
	// Bytes is the stored size of the scope's records and vectors.
	Bytes int64 `json:"bytes"`
	// Embedder and Dim describe the configured embedder; Stale counts memories embedded by
	// another one (see ErrEmbedderChanged).
	Embedder string `json:"embedder"`
	Dim      int    `json:"dim"`
	Stale    int    `json:"stale,omitempty"`
}

// Collections lists the conversation's own scope and every topic with their counts and sizes. It
// reads only the small per-scope entries, not the vectors, and does not build the index.
func (s *Service) Collections(ctx context.Context, conversation string) ([]Collection, error) {
	var out []Collection
	err := s.st.View(ctx, func(tx *store.Tx) error {
		out = out[:0]
		names, err := tx.Buckets(scopesPath)
		if err != nil {
			return err
		}
		docCount := map[string]int{}
		err = tx.ForEach(docsPath, func(k string, _ []byte) error {
			scope, _, _ := strings.Cut(k, "\x00")
			docCount[scope]++
			return nil
		})
		if err != nil {
			return err
		}
		for _, name := range names {
			if !visible(conversation, name) {
				continue
			}
			c := Collection{Scope: name, Embedder: s.emb.ID(), Dim: s.emb.Dim(), Documents: docCount[name]}
			err := tx.ForEach(append(slices.Clone(scopesPath), name), func(_ string, v []byte) error {
				var se scopeEntry
				if err := json.Unmarshal(v, &se); err != nil {
					return err
				}
				if se.Superseded {
					c.Superseded++
				} else {
					c.Count++
				}
				c.Bytes += int64(se.Bytes)
				if se.Embedder != c.Embedder {
					c.Stale++
				}
				return nil
			})
			if err != nil {
				return err
			}
			if c.Count+c.Superseded > 0 {
				out = append(out, c)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list memory collections: %w", err)
	}
	return out, nil
}

// NoteKind says what a Note is about.
type NoteKind string

// Note kinds.
const (
	NoteMemory   NoteKind = "memory"
	NoteDocument NoteKind = "document"
)

// Note is one recent memory or imported document, for the reminder that keeps the model from
// storing or importing it twice.
type Note struct {
	Kind  NoteKind  `json:"kind"`
	ID    uint64    `json:"id,omitempty"`
	Scope string    `json:"scope"`
	Text  string    `json:"text"` // the memory's first 120 characters, or the document name
	Tags  []string  `json:"tags,omitempty"`
	Time  time.Time `json:"time"`
	// Chunks is the number of chunks of an imported document.
	Chunks int `json:"chunks,omitempty"`
}

// Recent returns the memories stored and documents imported by conversation at or after since,
// oldest first. It reads only that conversation's recent entries.
func (s *Service) Recent(ctx context.Context, conversation string, since time.Time) ([]Note, error) {
	var out []Note
	err := s.st.View(ctx, func(tx *store.Tx) error {
		out = out[:0]
		from := fmt.Sprintf("%016x", uint64(max(since.UnixNano(), 0)))
		return tx.Seek(append(slices.Clone(recentPath), conversation), from, func(_ string, v []byte) (bool, error) {
			var n Note
			if err := json.Unmarshal(v, &n); err != nil {
				return false, err
			}
			out = append(out, n)
			return true, nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("recent memories: %w", err)
	}
	return out, nil
}

// Reembed re-embeds every memory whose vector comes from another embedder than the configured
// one, in batches, calling progress (if not nil) after each batch with the count done and the
// total. It is safe to interrupt (cancel ctx) and call again: finished batches are committed.
func (s *Service) Reembed(ctx context.Context, progress func(done, total int)) error {
	ids, err := func() ([]uint64, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		err := s.syncLocked(ctx)
		ids := make([]uint64, 0, len(s.stale))
		for id := range s.stale {
			ids = append(ids, id)
		}
		return ids, err
	}()
	if err != nil {
		return fmt.Errorf("re-embed memories: %w", err)
	}
	slices.Sort(ids)
	const batch = 32
	for done := 0; done < len(ids); {
		part := ids[done:min(done+batch, len(ids))]
		recs := make([]*record, 0, len(part))
		err := s.st.View(ctx, func(tx *store.Tx) error {
			recs = recs[:0]
			for _, id := range part {
				var r record
				found, err := tx.GetJSON(itemsPath, store.SeqKey(id), &r)
				if err != nil {
					return err
				}
				if found {
					recs = append(recs, &r)
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("re-embed memories: %w", err)
		}
		texts := make([]string, len(recs))
		for i, r := range recs {
			texts[i] = embedText(r)
		}
		var vecs [][]float32
		if len(texts) > 0 {
			if vecs, err = s.embedAll(ctx, texts); err != nil {
				return fmt.Errorf("re-embed memories: %w", err)
			}
		}
		err = s.st.Update(ctx, func(tx *store.Tx) error {
			for i, old := range recs {
				var r record
				found, err := tx.GetJSON(itemsPath, store.SeqKey(old.ID), &r)
				if err != nil {
					return err
				}
				if !found || s.space(&r) {
					continue // deleted or re-embedded by someone else meanwhile
				}
				r.Embedder, r.Dim = s.emb.ID(), len(vecs[i])
				raw, err := json.Marshal(r)
				if err != nil {
					return err
				}
				vb := encodeVec(vecs[i])
				key := store.SeqKey(r.ID)
				if err := tx.Put(itemsPath, key, raw); err != nil {
					return err
				}
				if err := tx.Put(vecsPath, key, vb); err != nil {
					return err
				}
				se := scopeEntry{Tags: r.Tags, Bytes: len(raw) + len(vb), Embedder: r.Embedder, Superseded: r.SupersededBy != 0}
				if err := tx.PutJSON(append(slices.Clone(scopesPath), r.Scope), key, se); err != nil {
					return err
				}
				if err := appendLog(tx, "put", r.ID, s.logKeep); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("re-embed memories: %w", err)
		}
		done += len(part)
		if progress != nil {
			progress(done, len(ids))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.syncLocked(ctx); err != nil {
		return fmt.Errorf("re-embed memories: %w", err)
	}
	return nil
}

// embedText is the text whose vector represents r: a chunk's content already carries its
// heading path.
func embedText(r *record) string { return r.Content }

// ready is readyLocked under the lock, released also if it panics.
func (s *Service) ready(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.readyLocked(ctx)
}
