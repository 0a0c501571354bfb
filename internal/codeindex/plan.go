package codeindex

import (
	"context"
	"slices"
	"strings"

	"toolhost/internal/fsread"
)

// PlanGrep plans a grep_search under base (relative to the working directory) from the index:
// the files that may match, in walk order, and the counts the walk would report. ok is false
// when the index cannot answer for these options (not ready, hidden or ignored files asked
// for, a grant that shows files the index never read); the caller then walks as before.
func (ix *Index) PlanGrep(ctx context.Context, base string, o fsread.GrepOptions) (plan fsread.GrepPlan, ok bool) {
	if o.IncludeHidden || o.IncludeIgnored {
		return plan, false
	}
	ix.Queries.Add(1)
	q := GrepQuery(o.Pattern, o.Literal, o.IgnoreCase)
	strip := len(base)
	if base == "." || base == "" {
		base, strip = ".", 0
	} else {
		strip++
	}
	var cand []uint64
	err := ix.withCurrent(ctx, base, func(st *state) bool {
		if st.depthLimit && base != "." {
			return false
		}
		if _, ok := st.dirs[base]; !ok {
			return false
		}
		cand = st.candidates(q)
		plan, ok = st.replay(base, strip, o.Screen, func(rel string) bool {
			if len(o.Include) > 0 && !fsread.MatchGlobs(o.Include, rel[strip:]) {
				return false
			}
			return len(o.Exclude) == 0 || !fsread.MatchGlobs(o.Exclude, rel[strip:])
		}, func(rel string) bool {
			return len(o.Exclude) > 0 && fsread.MatchGlobs(o.Exclude, rel[strip:])
		}, cand)
		return ok
	})
	if err != nil || !ok {
		return fsread.GrepPlan{}, false
	}
	ix.Served.Add(1)
	return plan, true
}

// withCurrent runs fn on the state brought up to date with every change made before the call:
// the barrier makes sure the notifier has told of them, pending directories are listed again,
// and without trustworthy notifications the files under base are checked against their times.
// fn returns false when the index cannot answer; so does withCurrent.
func (ix *Index) withCurrent(ctx context.Context, base string, fn func(*state) bool) error {
	ix.mu.Lock()
	st, w, persist := ix.st, ix.w, ix.persist
	ix.mu.Unlock()
	if st == nil {
		return errNotReady
	}
	if persist && !ix.Exists() {
		// Dropped (toolhost index drop): stop using it; StartBuild may make a new one.
		ix.Drop()
		ix.mu.Lock()
		ix.started = false
		ix.mu.Unlock()
		return errNotReady
	}
	trusted := w != nil && w.barrier(ctx)
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.st != st || st.reconcile {
		return errNotReady
	}
	if len(st.pending) > 0 {
		ix.relistLocked(ctx, st)
	}
	if !trusted || (ix.w != nil && !ix.w.healthy()) {
		ix.sweepLocked(ctx, st, base)
		if st.reconcile {
			return errNotReady
		}
	}
	if !fn(st) {
		return errNotReady
	}
	return nil
}

// candidates evaluates q: a bitmap over file ids of the files whose indexed content holds the
// trigrams of one of q's alternatives. Files not indexed are not in it (callers read them
// anyway).
func (st *state) candidates(q Query) []uint64 {
	if q.All {
		return nil
	}
	out := make([]uint64, (len(st.files)+63)/64)
	for _, s := range st.segs {
		for _, alt := range q.Alts {
			lists := make([][]byte, 0, len(alt))
			missing := false
			for _, t := range alt {
				p := s.postings(t)
				if p == nil {
					missing = true
					break
				}
				lists = append(lists, p)
			}
			if missing {
				continue
			}
			slices.SortFunc(lists, func(a, b []byte) int { return len(a) - len(b) })
			if len(lists) > maxTrigramsPerAlt {
				lists = lists[:maxTrigramsPerAlt]
			}
			var cur []uint32
			each(lists[0], func(l uint32) { cur = append(cur, l) })
			for _, p := range lists[1:] {
				if len(cur) == 0 {
					break
				}
				cur = intersect(cur, p)
			}
			for _, l := range cur {
				if l >= uint32(s.n) {
					continue
				}
				g := s.global(l)
				if int(g) < len(st.files) && st.files[g].sid == s.sid {
					out[g/64] |= 1 << (g % 64)
				}
			}
		}
	}
	if q.FoldKS {
		for i := range st.files {
			if st.files[i].flags&fFoldKS != 0 {
				out[i/64] |= 1 << (i % 64)
			}
		}
	}
	return out
}

// intersect keeps the locals of cur that encoded postings p hold.
func intersect(cur []uint32, p []byte) []uint32 {
	out := cur[:0]
	i := 0
	each(p, func(l uint32) {
		for i < len(cur) && cur[i] < l {
			i++
		}
		if i < len(cur) && cur[i] == l {
			out = append(out, l)
			i++
		}
	})
	return out
}

// replay walks the snapshot under base as grep's walk would, keeping files that keep says and
// not entering directories that skip says. Files whose indexed content cannot match (not in
// cand) are counted as searched without being read; cand nil means every file may match.
// With every, all kept files are listed (binary ones too): a listing, not a search.
func (st *state) replay(base string, strip int, screen fsread.Screen, keep, skip func(string) bool, cand []uint64, every ...bool) (fsread.GrepPlan, bool) {
	all := len(every) > 0 && every[0]
	var plan fsread.GrepPlan
	var visit func(d *dirNode) bool
	visit = func(d *dirNode) bool {
		plan.Stats.HiddenSkipped += d.hidden
		plan.Stats.IgnoredSkipped += d.ignored
		for _, w := range d.withheld {
			rel, isDir := strings.CutSuffix(w, "/")
			if screen != nil && !screen.Withhold(rel, isDir) {
				return false // the caller may see what the index never read
			}
			plan.Stats.Withheld++
		}
		for _, e := range d.entries {
			rel := joinRel(d.rel, e.name)
			switch e.kind {
			case kFile:
				if screen != nil && screen.Withhold(rel, false) {
					plan.Stats.Withheld++
					continue
				}
				if !keep(rel) {
					continue
				}
				f := &st.files[e.id]
				_, dirty := st.dirty[e.id]
				switch {
				case all || dirty || f.sid == 0 || f.flags&fUnindexed != 0:
					plan.Files = append(plan.Files, rel)
				case f.flags&fBinary != 0:
					plan.Binary++
				case cand == nil || cand[e.id/64]&(1<<(e.id%64)) != 0:
					plan.Files = append(plan.Files, rel)
				default:
					plan.Clean++
				}
			case kDir:
				if screen != nil && screen.Withhold(rel, true) {
					plan.Stats.Withheld++
					continue
				}
				if skip(rel) {
					continue
				}
				sub, ok := st.dirs[rel]
				if !ok {
					return false
				}
				if !visit(sub) {
					return false
				}
			case kDepth:
				plan.Stats.DepthLimited++
			case kUnreadable:
				plan.Stats.Errors++
			}
		}
		return true
	}
	d, ok := st.dirs[base]
	if !ok {
		return plan, false
	}
	return plan, visit(d)
}

func joinRel(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}

// Files lists the indexed files under base (relative to the working directory) in walk
// order, for operations that read many files (symbols, chunks for semantic search), brought up
// to date like a query. ok is false when the index cannot tell.
func (ix *Index) Files(ctx context.Context, base string, q Query) (files []string, ok bool) {
	if base == "" {
		base = "."
	}
	err := ix.withCurrent(ctx, base, func(st *state) bool {
		cand := st.candidates(q)
		if cand == nil {
			plan, ok := st.replay(base, 0, nil, func(string) bool { return true }, func(string) bool { return false }, cand)
			if !ok {
				return false
			}
			files = plan.Files
			return true
		}
		// A selective query: the candidates and the files not indexed, without a replay of
		// the whole tree.
		if _, ok := st.dirs[base]; !ok && base != "." {
			return false
		}
		for id := range st.files {
			f := &st.files[id]
			if f.flags&fGone != 0 || !under(f.rel, base) {
				continue
			}
			_, dirty := st.dirty[uint32(id)]
			read := dirty || f.sid == 0 || f.flags&fUnindexed != 0
			if read || (f.flags&fBinary == 0 && cand[id/64]&(1<<(id%64)) != 0) {
				files = append(files, f.rel)
			}
		}
		slices.SortFunc(files, func(a, b string) int {
			return strings.Compare(strings.ReplaceAll(a, "/", "\x00"), strings.ReplaceAll(b, "/", "\x00"))
		})
		return true
	})
	return files, err == nil
}

// under reports whether rel is base or below it.
func under(rel, base string) bool {
	return base == "." || rel == base || strings.HasPrefix(rel, base+"/")
}

// PlanGlob replays the walk under base for file_search: every file in walk order and what the
// walk skips. ok is false when the index cannot answer.
func (ix *Index) PlanGlob(ctx context.Context, base string, screen fsread.Screen) (plan fsread.GlobPlan, ok bool) {
	if base == "" {
		base = "."
	}
	ix.Queries.Add(1)
	err := ix.withCurrent(ctx, base, func(st *state) bool {
		if st.depthLimit && base != "." {
			return false
		}
		gp, ok := st.replay(base, 0, screen, func(string) bool { return true }, func(string) bool { return false }, nil, true)
		plan = fsread.GlobPlan{Files: gp.Files, Stats: gp.Stats}
		return ok
	})
	if err != nil {
		return fsread.GlobPlan{}, false
	}
	ix.Served.Add(1)
	return plan, true
}
