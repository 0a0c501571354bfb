package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"toolhost/store"
)

// Versions. A memory that updates another (see supersede.go) is stored under a new ID with
// Supersedes set, and the older one gets SupersededBy: a chain, oldest first, whose last memory
// (the head) is the current version. Only heads are in the search index. Both stay readable by
// ID (Get), update_memory always extends the head, and deleting any version deletes the chain.

// supersedeCandidates is how many of the most similar memories a store compares words with,
// and supersedeFloor the similarity below which a memory is not compared at all. Measured with
// USE-Lite: a changed name scores 0.70-0.74 against its old version, a changed number or path
// 0.92-0.99, a correction worded otherwise ("Heads-up, the kyc port changed from 8437 to 9444"
// after "local dev: kyc is at http://localhost:8437") 0.45-0.55. A project's notes of one
// template (a call with each customer, a port per service) are each other's nearest
// neighbours, so the note a correction is about can be 20th: 32 candidates and the floor of
// 0.45 store 72 of the held-out set's 100 corrections as versions, against 60 with 8 and 0.6,
// and no note as a version of another fact (compareFacts and corrects decide that, not the
// similarity).
const (
	supersedeCandidates = 32
	supersedeFloor      = 0.45
	maxChain            = 1000
)

// ErrNoChange reports an update that would leave the memory as it is.
var ErrNoChange = errors.New("memory: update changes nothing")

// Store embeds and stores one memory in its scope. Content that exists there already is not
// stored again: an exact copy returns the existing ID, and so does a near duplicate (cosine at
// or above Config.NearDuplicate, or the same words but for case, punctuation, small words and
// inflections). Content that restates a memory of
// the scope with changed values (a number, date, path, identifier, name or negation) is stored
// as that memory's newer version, which the result names; repeating an earlier version's text
// makes it the newest version again.
func (s *Service) Store(ctx context.Context, req StoreRequest) (StoreResult, error) {
	content := strings.TrimSpace(req.Content)
	if err := s.checkContent(content); err != nil {
		return StoreResult{}, err
	}
	kind, userWords, scope, err := storeKind(req)
	if err != nil {
		return StoreResult{}, err
	}
	tags := normalizeTags(req.Tags)
	vec, err := s.embedOne(ctx, content)
	if err != nil {
		return StoreResult{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readyLocked(ctx); err != nil {
		return StoreResult{}, err
	}
	cands, err := s.idx.search(ctx, vec, []string{scope}, nil, supersedeCandidates)
	if err != nil {
		return StoreResult{}, fmt.Errorf("store memory: %w", err)
	}
	rec := record{
		Scope: scope, Conversation: req.Conversation, Content: content, Tags: tags,
		Metadata: req.Metadata, Created: s.now().UTC(), Hash: contentHash(content),
		Embedder: s.emb.ID(), Dim: len(vec), Kind: kind, UserWords: userWords,
	}
	if s.beforeWrite != nil {
		s.beforeWrite()
	}
	var res StoreResult
	err = s.st.Update(ctx, func(tx *store.Tx) error {
		res = StoreResult{Scope: scope}
		return s.storeTx(tx, rec, vec, cands, &res)
	})
	if err != nil {
		return StoreResult{}, fmt.Errorf("store memory: %w", err)
	}
	if res.Duplicate == NotDuplicate {
		// Cheap: reads only the log entries written since the last sync, ours included.
		if err := s.syncLocked(ctx); err != nil {
			return res, err
		}
	}
	return res, nil
}

// storeKind reads a store request's kind and resolves its scope: a fact's conversation or topic,
// an instruction's user or project scope (an instruction needs the user's own words).
func storeKind(req StoreRequest) (kind, userWords, scope string, err error) {
	kind, userWords = strings.TrimSpace(req.Kind), strings.TrimSpace(req.UserWords)
	switch kind {
	case "", "fact":
		kind, userWords = "", ""
		scope, err = resolveScope(req.Conversation, req.Scope)
	case KindInstruction:
		if userWords == "" {
			return "", "", "", fmt.Errorf("%w: an instruction needs user_words, the user's own words that gave it; store only what the user asked for", ErrBadRequest)
		}
		scope, err = instructionScope(req.Project, req.Scope)
	default:
		return "", "", "", fmt.Errorf("%w: kind %q; use fact or instruction", ErrBadRequest, kind)
	}
	return kind, userWords, scope, err
}

// storeTx writes rec in tx, or finds it a duplicate, or stores it as the new version of the
// candidate it updates (cands: the most similar memories of its scope by the index).
func (s *Service) storeTx(tx *store.Tx, rec record, vec []float32, cands []scored, res *StoreResult) error {
	scope := rec.Scope
	if old, ok, err := byHash(tx, scope, rec.Hash); err != nil {
		return err
	} else if ok && old.SupersededBy == 0 {
		res.ID, res.Duplicate, res.Similarity = old.ID, ExactDuplicate, 1
		res.Existing, _ = truncate(old.Content, DefaultSnippetChars)
		return nil
	} else if ok {
		// An earlier version's text again: the fact changed back.
		head, err := chainHead(tx, old)
		if err != nil {
			return err
		}
		return s.supersedeTx(tx, head, rec, vec, FactChange{Kind: ChangeRevert}, res)
	}
	// Memories other processes wrote after our index last caught up are not among the
	// candidates; the write lock is ours now, so read them here: two processes storing the
	// first version of one fact at once then chain it instead of forking it.
	unseen, err := unseenCandidates(tx, s.lastSeq, scope, vec)
	if err != nil {
		return err
	}
	var near *record
	var nearSim float32
	compared := map[uint64]bool{}
	for _, c := range mergeScored(cands, unseen) {
		if c.sim < supersedeFloor {
			break
		}
		var old record
		if found, err := tx.GetJSON(itemsPath, store.SeqKey(c.id), &old); err != nil {
			return err
		} else if !found {
			continue // deleted meanwhile
		}
		if old.SupersededBy != 0 {
			// Another process stored a newer version since our index saw this one: compare
			// with the current version, so that two processes never fork a fact.
			head, err := chainHead(tx, &old)
			if err != nil {
				return err
			}
			old = *head
		}
		if compared[old.ID] || old.SupersededBy != 0 || old.Document != "" || old.Kind != rec.Kind {
			continue // seen, a broken chain, a document chunk (never versioned) or another kind
		}
		compared[old.ID] = true
		v, change := compareFacts(old.Content, rec.Content)
		if v == verdictDifferent && corrects(old.Content, rec.Content, c.sim) {
			v, change = verdictUpdate, FactChange{Kind: ChangeUpdate}
		}
		if v == verdictUpdate {
			if len(rec.Tags) == 0 {
				rec.Tags = old.Tags
			}
			return s.supersedeTx(tx, &old, rec, vec, change, res)
		}
		// The same statement reworded is a duplicate even where the embedder scores the
		// rewording below the near-duplicate threshold (USE-Lite: a dropped full stop 0.93).
		// Anything else is stored: a near duplicate that says something else is a
		// correction (stored as a version above) or another fact, never refused.
		if near == nil && s.near <= 1 && v == verdictSame {
			near, nearSim = &old, c.sim
		}
	}
	if near != nil {
		res.ID, res.Duplicate, res.Similarity = near.ID, NearDuplicate, nearSim
		res.Existing, _ = truncate(near.Content, DefaultSnippetChars)
		return nil
	}
	id, err := putRecord(tx, rec, vec, s.logKeep)
	res.ID = id
	return err
}

func (s *Service) checkContent(content string) error {
	if content == "" {
		return fmt.Errorf("%w: give the text to remember in content", ErrEmptyContent)
	}
	if len(content) > s.maxBytes {
		return fmt.Errorf("%w: %d bytes, the limit is %d; store a summary or split it (or use import_document for files)",
			ErrTooLarge, len(content), s.maxBytes)
	}
	return nil
}

// byHash finds the memory of scope whose content has hash.
func byHash(tx *store.Tx, scope, hash string) (*record, bool, error) {
	raw, ok := tx.Get(hashPath, hashKey(scope, hash))
	if !ok {
		return nil, false, nil
	}
	id, ok := store.ParseSeqKey(string(raw))
	if !ok {
		return nil, false, nil
	}
	var r record
	found, err := tx.GetJSON(itemsPath, store.SeqKey(id), &r)
	if err != nil || !found {
		return nil, false, err
	}
	return &r, true, nil
}

// chainHead follows r's newer versions to the current one.
func chainHead(tx *store.Tx, r *record) (*record, error) {
	for range maxChain {
		if r.SupersededBy == 0 {
			return r, nil
		}
		var next record
		found, err := tx.GetJSON(itemsPath, store.SeqKey(r.SupersededBy), &next)
		if err != nil {
			return nil, err
		}
		if !found {
			return r, nil // a broken link: treat r as the head
		}
		r = &next
	}
	return nil, fmt.Errorf("memory %d: version chain longer than %d", r.ID, maxChain)
}

// chain returns every version of r's chain, oldest first.
func chain(tx *store.Tx, r *record) ([]*record, error) {
	first := r
	for range maxChain {
		if first.Supersedes == 0 {
			break
		}
		var prev record
		found, err := tx.GetJSON(itemsPath, store.SeqKey(first.Supersedes), &prev)
		if err != nil {
			return nil, err
		}
		if !found {
			break
		}
		first = &prev
	}
	out := []*record{first}
	for cur := first; cur.SupersededBy != 0 && len(out) < maxChain; {
		var next record
		found, err := tx.GetJSON(itemsPath, store.SeqKey(cur.SupersededBy), &next)
		if err != nil {
			return nil, err
		}
		if !found {
			break
		}
		out = append(out, &next)
		cur = &next
	}
	return out, nil
}

// supersedeTx stores rec as the newer version of old and marks old replaced; both changes are
// logged so other processes' indexes drop old and add rec.
func (s *Service) supersedeTx(tx *store.Tx, old *record, rec record, vec []float32, change FactChange, res *StoreResult) error {
	rec.Supersedes = old.ID
	id, err := putRecord(tx, rec, vec, s.logKeep)
	if err != nil {
		return err
	}
	// The content's hash names the newest memory holding it (an earlier version may hold the
	// same text after a revert).
	if err := tx.Put(hashPath, hashKey(rec.Scope, rec.Hash), []byte(store.SeqKey(id))); err != nil {
		return err
	}
	old.SupersededBy, old.Replaced = id, rec.Created
	if err := rewriteRecord(tx, old); err != nil {
		return err
	}
	if old.Kind == KindInstruction {
		// Only the current version of an instruction is repeated to the model.
		if err := tx.Delete(instrPath, instrKey(old.Scope, old.ID)); err != nil {
			return err
		}
	}
	if old.Conversation != "" {
		// The reminder of recent memories must not present the old statement as saved.
		if err := tx.Delete(append(slices.Clone(recentPath), old.Conversation), recentKey(old.Created, old.ID)); err != nil {
			return err
		}
	}
	if err := appendLog(tx, "put", old.ID, s.logKeep); err != nil {
		return err
	}
	res.ID, res.Superseded = id, old.ID
	res.Existing, _ = truncate(old.Content, DefaultSnippetChars)
	res.Change = &change
	return nil
}

// rewriteRecord stores r's changed fields and its scope entry (tags, size, superseded).
func rewriteRecord(tx *store.Tx, r *record) error {
	raw, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode memory: %w", err)
	}
	key := store.SeqKey(r.ID)
	if err := tx.Put(itemsPath, key, raw); err != nil {
		return err
	}
	vb, _ := tx.Get(vecsPath, key)
	se := scopeEntry{Tags: r.Tags, Bytes: len(raw) + len(vb), Embedder: r.Embedder, Superseded: r.SupersededBy != 0}
	return tx.PutJSON(append(slices.Clone(scopesPath), r.Scope), key, se)
}

// UpdateRequest is one update_memory call: new content for a memory, new tags or metadata, or
// both. Nil Tags and Metadata keep the memory's.
type UpdateRequest struct {
	Conversation string
	ID           uint64
	Content      string
	Tags         []string
	Metadata     map[string]string
}

// UpdateResult reports an update.
type UpdateResult struct {
	// ID is the memory now holding the fact: a new version when the content changed, else the
	// updated memory itself.
	ID    uint64 `json:"id"`
	Scope string `json:"scope"`
	// Superseded is the version the new one replaces (the head of ID's chain), 0 when the
	// memory was updated in place (tags or metadata only).
	Superseded uint64 `json:"superseded,omitempty"`
	// Head is set when the ID given was an earlier version: the update went to its newest.
	Head   uint64      `json:"head,omitempty"`
	Change *FactChange `json:"change,omitempty"`
	// Duplicate names another current memory of the scope that already has the new content;
	// nothing was written.
	Duplicate uint64 `json:"duplicate,omitempty"`
}

// Update changes memory id. New content is stored as a new version that supersedes the
// memory's newest version (so the old text stays reachable by ID); tags and metadata alone are
// changed in place.
func (s *Service) Update(ctx context.Context, req UpdateRequest) (UpdateResult, error) {
	if req.ID == 0 {
		return UpdateResult{}, fmt.Errorf("%w: give the id of the memory to update", ErrBadRequest)
	}
	content := strings.TrimSpace(req.Content)
	if content == "" && req.Tags == nil && req.Metadata == nil {
		return UpdateResult{}, fmt.Errorf("%w: give the new content, tags or metadata", ErrBadRequest)
	}
	var vec []float32
	if content != "" {
		if err := s.checkContent(content); err != nil {
			return UpdateResult{}, err
		}
		var err error
		if vec, err = s.embedOne(ctx, content); err != nil {
			return UpdateResult{}, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.readyLocked(ctx); err != nil {
		return UpdateResult{}, err
	}
	var res UpdateResult
	err := s.st.Update(ctx, func(tx *store.Tx) error {
		res = UpdateResult{}
		var given record
		found, err := tx.GetJSON(itemsPath, store.SeqKey(req.ID), &given)
		if err != nil {
			return err
		}
		if !found || !visible(req.Conversation, given.Scope) {
			return fmt.Errorf("%w: id %d; search_memory shows the ids you can update", ErrNotFound, req.ID)
		}
		head, err := chainHead(tx, &given)
		if err != nil {
			return err
		}
		res.Scope = head.Scope
		if head.ID != given.ID {
			res.Head = head.ID
		}
		tags, meta := head.Tags, head.Metadata
		if req.Tags != nil {
			tags = normalizeTags(req.Tags)
		}
		if req.Metadata != nil {
			meta = req.Metadata
		}
		if content == "" || content == head.Content {
			if slices.Equal(tags, head.Tags) && maps(meta, head.Metadata) {
				return fmt.Errorf("%w: memory %d already has this content, tags and metadata", ErrNoChange, head.ID)
			}
			head.Tags, head.Metadata = tags, meta
			res.ID = head.ID
			if err := rewriteRecord(tx, head); err != nil {
				return err
			}
			return appendLog(tx, "put", head.ID, s.logKeep)
		}
		hash := contentHash(content)
		if other, ok, err := byHash(tx, head.Scope, hash); err != nil {
			return err
		} else if ok && other.SupersededBy == 0 {
			res.ID, res.Duplicate = other.ID, other.ID
			return nil
		}
		change := FactChange{Kind: ChangeUpdate}
		if v, c := compareFacts(head.Content, content); v == verdictUpdate {
			change = c
		}
		rec := record{
			Scope: head.Scope, Conversation: req.Conversation, Content: content, Tags: tags, Metadata: meta,
			Created: s.now().UTC(), Hash: hash, Embedder: s.emb.ID(), Dim: len(vec), Kind: head.Kind, UserWords: head.UserWords,
		}
		var sr StoreResult
		if err := s.supersedeTx(tx, head, rec, vec, change, &sr); err != nil {
			return err
		}
		res.ID, res.Superseded, res.Change = sr.ID, sr.Superseded, sr.Change
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrNoChange) {
			return UpdateResult{}, err
		}
		return UpdateResult{}, fmt.Errorf("update memory: %w", err)
	}
	if res.Duplicate == 0 {
		if err := s.syncLocked(ctx); err != nil {
			return res, err
		}
	}
	return res, nil
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Memory is one memory read by ID, with its place among its versions.
type Memory struct {
	ID       uint64            `json:"id"`
	Content  string            `json:"content"`
	Tags     []string          `json:"tags,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
	Scope    string            `json:"scope"`
	Created  time.Time         `json:"created"`
	Document string            `json:"document,omitempty"`
	Chunk    int               `json:"chunk,omitempty"`
	// Supersedes and SupersededBy link the neighbouring versions (0: none); Replaced is when
	// the newer one took over.
	Supersedes   uint64    `json:"supersedes,omitempty"`
	SupersededBy uint64    `json:"superseded_by,omitempty"`
	Replaced     time.Time `json:"replaced,omitzero"`
	// Versions lists the IDs of every version, oldest first; the last is the current one.
	Versions []uint64 `json:"versions,omitempty"`
}

// Get reads memory id (current or an earlier version) if the conversation may see it.
func (s *Service) Get(ctx context.Context, conversation string, id uint64) (Memory, error) {
	var m Memory
	err := s.st.View(ctx, func(tx *store.Tx) error {
		var r record
		found, err := tx.GetJSON(itemsPath, store.SeqKey(id), &r)
		if err != nil {
			return err
		}
		if !found || !visible(conversation, r.Scope) {
			return fmt.Errorf("%w: id %d", ErrNotFound, id)
		}
		m = Memory{ID: r.ID, Content: r.Content, Tags: r.Tags, Metadata: r.Metadata, Scope: r.Scope, Created: r.Created,
			Document: r.Document, Chunk: r.Chunk, Supersedes: r.Supersedes, SupersededBy: r.SupersededBy, Replaced: r.Replaced}
		if r.Supersedes != 0 || r.SupersededBy != 0 {
			versions, err := chain(tx, &r)
			if err != nil {
				return err
			}
			for _, v := range versions {
				m.Versions = append(m.Versions, v.ID)
			}
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return Memory{}, err
		}
		return Memory{}, fmt.Errorf("read memory: %w", err)
	}
	return m, nil
}

// unseenCandidates are the memories of scope put after log sequence since (by any process),
// scored against vec, best first.
func unseenCandidates(tx *store.Tx, since uint64, scope string, vec []float32) ([]scored, error) {
	var out []scored
	err := tx.Seek(logPath, store.SeqKey(since+1), func(k string, v []byte) (bool, error) {
		var e logEntry
		if err := json.Unmarshal(v, &e); err != nil {
			return false, fmt.Errorf("decode memory log entry %s: %w", k, err)
		}
		if e.Op != "put" {
			return true, nil
		}
		rec, rv, found, err := loadRecord(tx, e.ID)
		if err != nil || !found || rec.Scope != scope || len(rv) != len(vec) {
			return err == nil, err
		}
		out = append(out, scored{id: e.ID, sim: dot(vec, rv)})
		return true, nil
	})
	slices.SortFunc(out, func(a, b scored) int { return cmp.Compare(b.sim, a.sim) })
	return out, err
}

// mergeScored merges two best-first lists into one, each id once.
func mergeScored(a, b []scored) []scored {
	if len(b) == 0 {
		return a
	}
	out := make([]scored, 0, len(a)+len(b))
	seen := map[uint64]bool{}
	for _, l := range [][]scored{a, b} {
		for _, c := range l {
			if !seen[c.id] {
				seen[c.id] = true
				out = append(out, c)
			}
		}
	}
	slices.SortStableFunc(out, func(x, y scored) int { return cmp.Compare(y.sim, x.sim) })
	return out
}
