package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"toolhost/store"
)

// ReconcileReport says what Reconcile found out of step with the memories themselves (the
// items bucket) and, unless it was a dry run, set right.
type ReconcileReport struct {
	// Unreadable counts records that could not be decoded; they are removed.
	Unreadable int `json:"unreadable,omitempty"`
	// Reembedded counts memories whose vector was missing or cut short; they are embedded
	// again with the configured embedder.
	Reembedded int `json:"reembedded,omitempty"`
	// Vectors counts vectors of memories that do not exist; they are removed.
	Vectors int `json:"vectors,omitempty"`
	// Hashes, Scopes and Recent count entries of the duplicate index, the per-scope index and
	// the recent notes that were missing, wrong or pointed at nothing.
	Hashes int `json:"hashes,omitempty"`
	Scopes int `json:"scopes,omitempty"`
	Recent int `json:"recent,omitempty"`
	// Documents counts imported documents whose chunk list named missing memories.
	Documents int `json:"documents,omitempty"`
	// Versions counts links between versions that named a missing memory; they are cleared,
	// so the newest surviving version of a chain is searched again.
	Versions int `json:"versions,omitempty"`
	// Sequence is set when the ID sequence was behind the highest ID and was moved past it,
	// so that no ID is ever given twice.
	Sequence bool `json:"sequence,omitempty"`
}

// Clean reports whether nothing was out of step.
func (r ReconcileReport) Clean() bool { return r == ReconcileReport{} }

// String lists what was found, for `toolhost doctor`.
func (r ReconcileReport) String() string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(r.Unreadable, "unreadable memories")
	add(r.Reembedded, "memories without a whole vector")
	add(r.Vectors, "vectors of missing memories")
	add(r.Hashes, "duplicate-index entries")
	add(r.Scopes, "scope-index entries")
	add(r.Recent, "recent-note entries")
	add(r.Documents, "document chunk lists")
	add(r.Versions, "version links to missing memories")
	if r.Sequence {
		parts = append(parts, "an ID sequence behind the highest ID")
	}
	if len(parts) == 0 {
		return "memories and their indexes agree"
	}
	return strings.Join(parts, ", ")
}

// Reconcile brings everything derived from the memories — vectors, the duplicate index, the
// per-scope index, recent notes, documents' chunk lists, version links and the ID sequence —
// back in step with the items bucket, the source of truth. It is what `toolhost doctor
// --repair` runs after a damaged state file was rebuilt, since a bucket salvaged only in part
// leaves the others pointing at memories that are gone or missing ones that exist. With dryRun
// it only reports. Every change is logged, so indexes in other processes catch up.
func (s *Service) Reconcile(ctx context.Context, dryRun bool) (ReconcileReport, error) {
	var rep ReconcileReport
	plan, err := s.planReconcile(ctx, &rep)
	if err != nil || dryRun || rep.Clean() {
		return rep, err
	}
	// Embed outside any transaction: it may take a while, and nothing here needs the lock.
	if len(plan.embed) > 0 {
		texts := make([]string, len(plan.embed))
		for i, r := range plan.embed {
			texts[i] = embedText(r)
		}
		vecs, err := s.embedAll(ctx, texts)
		if err != nil {
			return rep, fmt.Errorf("reconcile memories: %w", err)
		}
		for i, r := range plan.embed {
			r.Embedder, r.Dim = s.emb.ID(), len(vecs[i])
			plan.vecs[r.ID] = vecs[i]
			plan.rewrite[r.ID] = r
		}
	}
	err = s.st.Update(ctx, func(tx *store.Tx) error { return plan.apply(tx, s.logKeep) })
	if err != nil {
		return rep, fmt.Errorf("reconcile memories: %w", err)
	}
	// The in-process index is rebuilt from scratch on its next use.
	s.mu.Lock()
	s.built = false
	s.mu.Unlock()
	return rep, nil
}

// reconcilePlan is the set of writes that brings the derived buckets in step.
type reconcilePlan struct {
	drop    []string  // item keys to remove (undecodable)
	dropVec []string  // vector keys without an item
	embed   []*record // records whose vector must be made again
	vecs    map[uint64][]float32
	rewrite map[uint64]*record // records to store again (links cleared, re-embedded)
	del     []pathKey          // derived entries to remove
	put     []pathKV           // derived entries to write
	changed map[uint64]bool    // memories whose index entry changes (logged as put)
	deleted []uint64           // memories removed (logged as delete)
	seq     uint64             // the items sequence to set, 0 to leave it
}

type pathKey struct {
	path store.Path
	key  string
}

type pathKV struct {
	pathKey
	val []byte
}

// planReconcile reads every memory and derived entry in one read transaction and works out
// what is out of step, counting it in rep.
func (s *Service) planReconcile(ctx context.Context, rep *ReconcileReport) (*reconcilePlan, error) {
	pl := &reconcilePlan{vecs: map[uint64][]float32{}, rewrite: map[uint64]*record{}, changed: map[uint64]bool{}}
	err := s.st.View(ctx, func(tx *store.Tx) error {
		items, err := pl.readItems(ctx, tx, rep)
		if err != nil {
			return err
		}
		ids := make([]uint64, 0, len(items))
		for id := range items {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		pl.planVersions(items, ids, rep)
		for _, step := range []func(*store.Tx, map[uint64]*record, []uint64, *ReconcileReport) error{
			pl.planVectors, pl.planHashes, pl.planScopes, pl.planRecent, pl.planDocuments,
		} {
			if err := step(tx, items, ids, rep); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reconcile memories: %w", err)
	}
	// Records to rewrite need their scope entries made again too; keep the writes ordered.
	for id := range pl.rewrite {
		pl.changed[id] = true
	}
	sort.Slice(pl.embed, func(i, j int) bool { return pl.embed[i].ID < pl.embed[j].ID })
	return pl, nil
}

// readItems decodes every memory; an undecodable one is planned for removal, and a sequence
// behind the highest ID for a move past it.
func (pl *reconcilePlan) readItems(ctx context.Context, tx *store.Tx, rep *ReconcileReport) (map[uint64]*record, error) {
	items := map[uint64]*record{}
	var maxID uint64
	err := tx.ForEach(itemsPath, func(k string, v []byte) error {
		id, ok := store.ParseSeqKey(k)
		if ok {
			maxID = max(maxID, id) // an unreadable record's ID was given out too
		}
		var r record
		if !ok || json.Unmarshal(v, &r) != nil || r.ID != id {
			rep.Unreadable++
			pl.drop = append(pl.drop, k)
			if ok {
				pl.deleted = append(pl.deleted, id)
			}
			return nil
		}
		items[id] = &r
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	if seq := tx.Sequence(itemsPath); seq < maxID {
		rep.Sequence, pl.seq = true, maxID
	}
	return items, nil
}

// planVersions clears links to missing memories.
func (pl *reconcilePlan) planVersions(items map[uint64]*record, ids []uint64, rep *ReconcileReport) {
	for _, id := range ids {
		r := items[id]
		if r.Supersedes != 0 && items[r.Supersedes] == nil {
			r.Supersedes = 0
			rep.Versions++
			pl.rewrite[id], pl.changed[id] = r, true
		}
		if r.SupersededBy != 0 && items[r.SupersededBy] == nil {
			r.SupersededBy, r.Replaced = 0, time.Time{}
			rep.Versions++
			pl.rewrite[id], pl.changed[id] = r, true
		}
	}
}

// planVectors drops vectors of missing memories and re-embeds memories without a whole vector.
func (pl *reconcilePlan) planVectors(tx *store.Tx, items map[uint64]*record, ids []uint64, rep *ReconcileReport) error {
	if err := tx.ForEach(vecsPath, func(k string, v []byte) error {
		id, ok := store.ParseSeqKey(k)
		if r := items[id]; !ok || r == nil {
			rep.Vectors++
			pl.dropVec = append(pl.dropVec, k)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, id := range ids {
		r := items[id]
		v, ok := tx.Get(vecsPath, store.SeqKey(id))
		if !ok || len(v) == 0 || len(v)%4 != 0 || (r.Dim > 0 && len(v) != 4*r.Dim) {
			rep.Reembedded++
			pl.embed = append(pl.embed, r)
			pl.changed[id] = true
		}
	}
	return nil
}

// planHashes sets the duplicate index right: scope + hash → the newest memory with that text.
func (pl *reconcilePlan) planHashes(tx *store.Tx, items map[uint64]*record, ids []uint64, rep *ReconcileReport) error {
	wantHash := map[string]string{}
	for _, id := range ids {
		r := items[id]
		wantHash[hashKey(r.Scope, r.Hash)] = store.SeqKey(id) // ids ascend: the newest wins
	}
	haveHash := map[string]string{}
	if err := tx.ForEach(hashPath, func(k string, v []byte) error {
		haveHash[k] = string(v)
		return nil
	}); err != nil {
		return err
	}
	for k, v := range haveHash {
		want, ok := wantHash[k]
		if !ok {
			rep.Hashes++
			pl.del = append(pl.del, pathKey{hashPath, k})
			continue
		}
		// An older memory with the same text is a fine answer too, if it exists.
		if id, ok := store.ParseSeqKey(v); !ok || items[id] == nil || hashKey(items[id].Scope, items[id].Hash) != k {
			rep.Hashes++
			pl.put = append(pl.put, pathKV{pathKey{hashPath, k}, []byte(want)})
		}
	}
	for k, want := range wantHash {
		if _, ok := haveHash[k]; !ok {
			rep.Hashes++
			pl.put = append(pl.put, pathKV{pathKey{hashPath, k}, []byte(want)})
		}
	}
	return nil
}

// planScopes sets the per-scope index right.
func (pl *reconcilePlan) planScopes(tx *store.Tx, items map[uint64]*record, ids []uint64, rep *ReconcileReport) error {
	scopes, err := tx.Buckets(scopesPath)
	if err != nil {
		return err
	}
	seen := map[uint64]bool{}
	for _, sc := range scopes {
		p := append(slices.Clone(scopesPath), sc)
		if err := tx.ForEach(p, func(k string, v []byte) error {
			id, ok := store.ParseSeqKey(k)
			r := items[id]
			if !ok || r == nil || r.Scope != sc {
				rep.Scopes++
				pl.del = append(pl.del, pathKey{p, k})
				return nil
			}
			seen[id] = true
			var se scopeEntry
			if json.Unmarshal(v, &se) != nil || !slices.Equal(se.Tags, r.Tags) || se.Embedder != r.Embedder ||
				se.Superseded != (r.SupersededBy != 0) {
				rep.Scopes++
				pl.changed[id] = true
			}
			return nil
		}); err != nil {
			return err
		}
	}
	for _, id := range ids {
		if !seen[id] {
			rep.Scopes++
			pl.changed[id] = true
		}
	}
	return nil
}

// planRecent removes recent notes of missing memories and brings back those of surviving ones.
func (pl *reconcilePlan) planRecent(tx *store.Tx, items map[uint64]*record, ids []uint64, rep *ReconcileReport) error {
	convs, err := tx.Buckets(recentPath)
	if err != nil {
		return err
	}
	noted := map[string]bool{}
	for _, c := range convs {
		p := append(slices.Clone(recentPath), c)
		if err := tx.ForEach(p, func(k string, _ []byte) error {
			if len(k) < 16 {
				rep.Recent++
				pl.del = append(pl.del, pathKey{p, k})
				return nil
			}
			id, ok := store.ParseSeqKey(k[16:])
			if r := items[id]; !ok || r == nil || r.Conversation != c || recentKey(r.Created, id) != k {
				rep.Recent++
				pl.del = append(pl.del, pathKey{p, k})
				return nil
			}
			noted[c+"\x00"+k] = true
			return nil
		}); err != nil {
			return err
		}
	}
	for _, id := range ids {
		r := items[id]
		if r.Conversation == "" || r.Document != "" || noted[r.Conversation+"\x00"+recentKey(r.Created, id)] {
			continue
		}
		n := Note{Kind: NoteMemory, ID: id, Scope: r.Scope, Text: summary(r.Content), Time: r.Created, Tags: r.Tags}
		raw, err := json.Marshal(n)
		if err != nil {
			return err
		}
		rep.Recent++
		pl.put = append(pl.put, pathKV{pathKey{append(slices.Clone(recentPath), r.Conversation), recentKey(r.Created, id)}, raw})
	}
	return nil
}

// planDocuments keeps in each document's chunk list only memories that exist.
func (pl *reconcilePlan) planDocuments(tx *store.Tx, items map[uint64]*record, _ []uint64, rep *ReconcileReport) error {
	return tx.ForEach(docsPath, func(k string, v []byte) error {
		var d docEntry
		if json.Unmarshal(v, &d) != nil {
			rep.Documents++
			pl.del = append(pl.del, pathKey{docsPath, k})
			return nil
		}
		kept := slices.DeleteFunc(slices.Clone(d.IDs), func(id uint64) bool { return items[id] == nil })
		if len(kept) == len(d.IDs) {
			return nil
		}
		rep.Documents++
		if len(kept) == 0 {
			pl.del = append(pl.del, pathKey{docsPath, k})
			return nil
		}
		d.IDs = kept
		raw, err := json.Marshal(d)
		if err != nil {
			return err
		}
		pl.put = append(pl.put, pathKV{pathKey{docsPath, k}, raw})
		return nil
	})
}

// apply writes the plan in tx and logs every memory whose index entry changed.
func (pl *reconcilePlan) apply(tx *store.Tx, keep int) error {
	for _, k := range pl.drop {
		if err := tx.Delete(itemsPath, k); err != nil {
			return err
		}
		if err := tx.Delete(vecsPath, k); err != nil {
			return err
		}
	}
	for _, k := range pl.dropVec {
		if err := tx.Delete(vecsPath, k); err != nil {
			return err
		}
	}
	for _, d := range pl.del {
		if err := tx.Delete(d.path, d.key); err != nil {
			return err
		}
	}
	for _, p := range pl.put {
		if err := tx.Put(p.path, p.key, p.val); err != nil {
			return err
		}
	}
	for id, v := range pl.vecs {
		if err := tx.Put(vecsPath, store.SeqKey(id), encodeVec(v)); err != nil {
			return err
		}
	}
	ids := make([]uint64, 0, len(pl.changed))
	for id := range pl.changed {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		var r record
		if r0 := pl.rewrite[id]; r0 != nil {
			r = *r0
		} else if found, err := tx.GetJSON(itemsPath, store.SeqKey(id), &r); err != nil || !found {
			return err
		}
		// rewriteRecord stores the record and its scope entry (tags, size, superseded).
		if err := rewriteRecord(tx, &r); err != nil {
			return err
		}
		if err := appendLog(tx, "put", id, keep); err != nil {
			return err
		}
	}
	for _, id := range pl.deleted {
		if err := appendLog(tx, "delete", id, keep); err != nil {
			return err
		}
	}
	if pl.seq > 0 {
		if err := tx.SetSequence(itemsPath, pl.seq); err != nil {
			return err
		}
	}
	return nil
}
